"""Embedded runs and the CLI (docs/jobs.md): workers, resume after SIGKILL, bad input, query, export."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

HAVE_ENGINE = importlib.util.find_spec("games.order_poker.bots") is not None
HAVE_STORAGE = all(importlib.util.find_spec(m) is not None
                   for m in ("storage.parquet", "storage.jobstore", "storage.layout", "sims.settings"))
pytestmark = pytest.mark.skipif(not HAVE_STORAGE, reason="storage is not installed yet")
needs_engine = pytest.mark.skipif(not HAVE_ENGINE, reason="games.order_poker is not installed yet")

TOURNAMENT = {"kind": "tournament", "game": "order-poker", "players": 3,
              "bots": ["order-poker/random", {"name": "order-poker/random", "params": {"pass_prob": 0.2}},
                       "order-poker/random"],
              "deals": 24, "shard_deals": 5, "seating": "duplicate", "seed": 2024}
CATEGORIES = {"kind": "deal-stats", "ranking": "order-poker", "question": "categories"}


def read(job_dir: Path, table: str) -> pa.Table:
    files = sorted((job_dir / table).glob("shard-*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files])


def sorted_rows(t: pa.Table, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return sorted(t.to_pylist(), key=lambda r: tuple(r[k] for k in keys))


def rasklad(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def write_spec(tmp_path: Path, data: dict[str, Any], name: str = "spec.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


# ------------------------------------------------------------------------------ run_job directly

@needs_engine
def test_one_and_two_workers_give_identical_tables(tmp_path: Path) -> None:
    from sims.embedded import run_job
    from sims.spec import parse_spec

    spec = parse_spec(TOURNAMENT)
    one = run_job(spec, data=tmp_path / "a", workers=1)
    two = run_job(spec, data=tmp_path / "b", workers=2)
    assert one.job_id == two.job_id and one.state == two.state == "succeeded"
    assert one.shards_total == 5
    for table, keys in (("deals", ("deal", "rotation")), ("seats", ("deal", "rotation", "seat"))):
        a, b = read(one.job_dir, table), read(two.job_dir, table)
        assert a.schema == b.schema
        assert sorted_rows(a, keys) == sorted_rows(b, keys)
        assert a.num_rows == 24 * 3 * (3 if table == "seats" else 1)
    # Shard by shard the files hold the same rows (a shard is a pure function of (spec, k)).
    for k in range(5):
        name = f"shard-{k:06d}.parquet"
        assert pq.read_table(one.job_dir / "seats" / name).equals(pq.read_table(two.job_dir / "seats" / name))
    assert (one.job_dir / "report.json").exists() and (one.job_dir / "spec.json").exists()
    assert json.loads((one.job_dir / "spec.json").read_text()) == spec.canonical()


@needs_engine
def test_rerun_resumes_and_new_makes_another_job(tmp_path: Path) -> None:
    from sims.embedded import open_store, run_job
    from sims.spec import parse_spec

    spec = parse_spec(TOURNAMENT)
    first = run_job(spec, data=tmp_path, workers=1)
    again = run_job(spec, data=tmp_path, workers=1)
    assert again.job_id == first.job_id and again.skipped == 5 and again.items_run == 0
    fresh = run_job(spec, data=tmp_path, workers=1, new=True)
    assert fresh.job_id != first.job_id and fresh.skipped == 0
    from sims.embedded import settings_for

    job = open_store(settings_for(tmp_path)).get(first.job_id)
    assert job is not None and job.state == "succeeded" and job.shards_done == job.shards_total == 5


def _rewrite_metadata(path: Path, changes: dict[bytes, bytes]) -> None:
    """Rewrite one Parquet file with its schema metadata changed (as an older rasklad would have written it)."""
    t = pq.read_table(path)
    pq.write_table(t.replace_schema_metadata({**(t.schema.metadata or {}), **changes}), path)


@needs_engine
def test_a_job_written_by_another_game_version_does_not_resume(tmp_path: Path) -> None:
    from sims.embedded import run_job
    from sims.spec import SpecError, parse_spec
    from sims.tables import VERSION_KEY

    spec = parse_spec(TOURNAMENT)
    first = run_job(spec, data=tmp_path, workers=1)
    deals = first.job_dir / "deals"
    _rewrite_metadata(deals / "shard-000000.parquet", {VERSION_KEY: b"0"})
    # A complete job adds no shard: running it again only rebuilds its report, whoever wrote its rows.
    assert run_job(spec, data=tmp_path, workers=1).skipped == 5
    (deals / "shard-000004.parquet").unlink()  # a shard still to run: the rerun would resume
    before = {p.name: p.read_bytes() for p in sorted(first.job_dir.glob("*/shard-*.parquet"))}
    with pytest.raises(SpecError) as e:
        run_job(spec, data=tmp_path, workers=1)
    msg = str(e.value)
    assert msg.startswith(f"job {first.job_id} cannot resume: its committed shards were written by order-poker "
                          "version 0, deal streams 2; this rasklad writes order-poker version ")
    assert "--new" in msg
    # Nothing was added or changed; --new makes a fresh job with every shard.
    assert {p.name: p.read_bytes() for p in sorted(first.job_dir.glob("*/shard-*.parquet"))} == before
    fresh = run_job(spec, data=tmp_path, workers=1, new=True)
    assert fresh.state == "succeeded" and fresh.skipped == 0
    assert pq.read_schema(fresh.job_dir / "deals" / "shard-000000.parquet").metadata[VERSION_KEY] != b"0"
    # The CLI says it in one line, exit code 2.
    path = write_spec(tmp_path, TOURNAMENT)
    r = rasklad("run", str(path), "--data", str(tmp_path), "-q")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot resume: its committed shards were written by order-poker version 0" in r.stderr


@needs_engine
def test_rows_of_the_streams_before_december_2026_do_not_resume(tmp_path: Path) -> None:
    from sims.embedded import run_job
    from sims.spec import SpecError, parse_spec
    from sims.tables import STREAMS_KEY

    spec = parse_spec(TOURNAMENT)
    first = run_job(spec, data=tmp_path, workers=1)
    seats = first.job_dir / "seats" / "shard-000001.parquet"
    t = pq.read_table(seats)
    meta = {k: v for k, v in (t.schema.metadata or {}).items() if k != STREAMS_KEY}  # written before the key
    pq.write_table(t.replace_schema_metadata(meta), seats)
    for table in ("deals", "seats"):
        (first.job_dir / table / "shard-000000.parquet").unlink()
    with pytest.raises(SpecError, match=r"written by order-poker version .*, deal streams 1; this rasklad writes "
                                        r"order-poker version .*, deal streams 2"):
        run_job(spec, data=tmp_path, workers=1)


def test_the_parent_and_the_pool_take_every_shard_once() -> None:
    """``_Claims``: processes taking shards from one shared index take each exactly once, whoever is free."""
    from sims import embedded

    todo = tuple(range(3, 1203, 2))
    shared = (embedded._CTX.RawValue("q", 0), embedded._CTX.Lock())
    with embedded._CTX.Pool(2, initializer=embedded._worker_init, initargs=(None, shared, todo)) as pool:
        theirs = pool.map_async(_take_all, range(2))
        mine = []
        claims = embedded._Claims(shared, todo)
        while (k := claims.take()) is not None:
            mine.append(k)
        taken = [k for part in theirs.get(timeout=60) for k in part] + mine
    assert sorted(taken) == list(todo)


def _take_all(_: int) -> list[int]:
    from sims import embedded

    out = []
    while (k := embedded._WORKER_CLAIMS[0].take()) is not None:
        out.append(k)
    return out


def test_deal_stats_job_end_to_end(tmp_path: Path) -> None:
    from sims.embedded import run_job
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": {"type": "categories", "cards": 7}})
    res = run_job(spec, data=tmp_path, workers=2)
    assert res.state == "succeeded" and res.shards_total > 1
    counts = read(res.job_dir, "counts")
    total: dict[str, int] = {}
    for r in counts.to_pylist():
        total[r["category"]] = total.get(r["category"], 0) + r["count"]
    assert total["straight_flush"] == 41584 and sum(total.values()) == 133784560
    assert res.report is not None and (res.job_dir / "report.html").exists()


# -------------------------------------------------------------------------------------- the CLI

def test_bad_spec_exits_2_with_one_line_naming_the_field(tmp_path: Path) -> None:
    bad = write_spec(tmp_path, {**CATEGORIES, "method": "sample", "samples": 0})
    r = rasklad("run", str(bad), "--data", str(tmp_path / "d"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == f"error: {bad}: samples: must be > 0"
    r = rasklad("run", str(tmp_path / "missing.yaml"))
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [f"error: no such spec file: {tmp_path}/missing.yaml"]
    r = rasklad("run", str(bad), "--workers", "0")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    r = rasklad("show", "j-nonexistent", "--data", str(tmp_path / "d"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no job" in r.stderr


@needs_engine
def test_bad_bot_param_names_its_path(tmp_path: Path) -> None:
    data = {**TOURNAMENT, "bots": ["order-poker/random", "order-poker/random",
                                   {"name": "order-poker/random", "params": {"pass_prob": 2}}]}
    r = rasklad("run", str(write_spec(tmp_path, data)), "--data", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {tmp_path}/spec.json: bots[2].params.pass_prob: must be <= 1"]


def test_cli_run_jobs_show_query_export(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, CATEGORIES)
    data = str(tmp_path / "d")
    r = rasklad("run", str(spec), "--data", data)
    assert r.returncode == 0, r.stderr
    job = r.stdout.split()[1].rstrip(":")
    assert job.startswith("j-") and "succeeded" in r.stdout and "report.html" in r.stdout
    r = rasklad("jobs", "--data", data)
    assert r.returncode == 0 and job in r.stdout and "succeeded" in r.stdout
    r = rasklad("show", job[:8], "--data", data)
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)
    assert shown["id"] == job and shown["state"] == "succeeded" and shown["spec"]["question"]["type"] == "categories"
    r = rasklad("query", job, "SELECT category, count FROM counts ORDER BY rank", "--format", "json", "--data", data)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[-1] == {"category": "straight_flush", "count": 20}  # OP-2
    r = rasklad("query", job, "SELECT sum(count) AS n FROM counts", "--format", "csv", "--data", data)
    assert r.returncode == 0 and r.stdout.split() == ["n", "376992"]
    r = rasklad("query", job, "SELECT * FROM read_csv('/etc/passwd')", "--data", data)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    r = rasklad("query", job, "SELECT 1", "--format", "xml", "--data", data)
    assert r.returncode == 2
    out = tmp_path / "job.parquet"
    r = rasklad("export", job, "-o", str(out), "--data", data)
    assert r.returncode == 0, r.stderr
    assert pq.read_table(out).num_rows >= 9
    r = rasklad("report", job, "--data", data)
    assert r.returncode == 0 and r.stdout.strip().endswith("report.html")


# ---------------------------------------------------------------------- SIGKILL mid-way, resume

@needs_engine
def test_sigkill_then_rerun_gives_every_row_once(tmp_path: Path) -> None:
    data = {**TOURNAMENT, "deals": 60, "shard_deals": 2}  # 30 shards of 2 deals x 3 rotations
    spec = write_spec(tmp_path, data)
    root = tmp_path / "d"
    proc = subprocess.Popen([sys.executable, "-m", "rasklad", "run", str(spec), "--data", str(root),
                             "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            files = list(root.glob("jobs/*/seats/shard-*.parquet"))
            if len(files) >= 3:
                break
            time.sleep(0.01)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)  # a real SIGKILL of the rasklad process
    finally:
        proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # and its orphaned pool workers
    job_dir = next(root.glob("jobs/*"))
    before = len(list((job_dir / "seats").glob("shard-*.parquet")))
    print(f"killed={killed} committed before the kill: {before}/30")
    if killed:
        assert before < 30, "the run finished before it could be killed: make the job longer"
    r = rasklad("run", str(spec), "--data", str(root), "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert f"({before} already committed)" in r.stdout or before == 0
    deals, seats = read(job_dir, "deals"), read(job_dir, "seats")
    assert deals.num_rows == 60 * 3  # deals x rotations
    keys = list(zip(deals.column("deal").to_pylist(), deals.column("rotation").to_pylist(), strict=True))
    assert len(set(keys)) == len(keys) == 180
    assert seats.num_rows == 180 * 3
    # Identical to an uninterrupted run of the same spec.
    from sims.embedded import run_job
    from sims.spec import parse_spec

    clean = run_job(parse_spec(data), data=tmp_path / "clean", workers=1)
    assert sorted_rows(read(clean.job_dir, "seats"), ("deal", "rotation", "seat")) == \
        sorted_rows(seats, ("deal", "rotation", "seat"))


def test_ctrl_c_stops_cleanly_and_the_rerun_resumes(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, {"kind": "deal-stats", "game": "order-poker", "question": "robot-combination"})
    root = tmp_path / "d"
    # As a terminal's foreground process gets Ctrl-C: SIGINT at its default (Python's KeyboardInterrupt),
    # even when this test run was started in the background of a non-interactive shell or under nohup, which
    # ignore SIGINT (inherited across exec: the run would then never see the signal and finish with 0).
    as_from_a_terminal = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                          "runpy.run_module('rasklad', run_name='__main__', alter_sys=True)")
    proc = subprocess.Popen([sys.executable, "-c", as_from_a_terminal, "run", str(spec), "--data", str(root),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if list(root.glob("jobs/*/counts/shard-*.parquet")):
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("interrupted: committed shards are kept")
    job_dir = next(root.glob("jobs/*"))
    from sims.embedded import open_store, settings_for

    assert open_store(settings_for(root)).get(job_dir.name).state == "cancelled"
    assert not list(job_dir.glob("*/.*"))  # no temporary file left behind
    done = len(list((job_dir / "counts").glob("shard-*.parquet")))
    assert 1 <= done < 6
    r = rasklad("run", str(spec), "--data", str(root))
    assert r.returncode == 0 and f"({done} already committed)" in r.stdout, r.stderr
    assert sum(r["count"] for r in read(job_dir, "counts").to_pylist()) == 376992


def test_demo_refuses_bad_workers_with_one_line() -> None:
    r = rasklad("demo", "--workers", "0")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == ["error: --workers must be >= 1, not 0"]


@needs_engine
def test_a_run_killed_with_its_terminal_shows_as_interrupted(tmp_path: Path) -> None:
    """Closing the terminal (SIGHUP) kills ``rasklad run`` before it can mark its job: the job
    stayed ``running`` forever. The run records its process (a job lease), so the job is shown
    ``interrupted`` once that process is gone; a rerun resumes it to ``succeeded``."""
    spec = write_spec(tmp_path, {**TOURNAMENT, "deals": 60, "shard_deals": 2})
    root = tmp_path / "d"
    # As started from a terminal: SIGHUP at its default action, even when this test run itself was
    # started under nohup (which ignores SIGHUP, and the ignoring is inherited across exec).
    as_from_a_terminal = ("import runpy, signal; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
                          "runpy.run_module('rasklad', run_name='__main__', alter_sys=True)")
    proc = subprocess.Popen([sys.executable, "-c", as_from_a_terminal, "run", str(spec), "--data", str(root),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(root.glob("jobs/*/seats/shard-*.parquet"))) >= 2:
                # Freeze the run while the store is read, so it cannot finish its shards before the
                # SIGHUP on a slow machine.
                os.killpg(proc.pid, signal.SIGSTOP)
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the run finished before it could be killed: make the job longer"
        from sims.embedded import open_store, settings_for, shown_state

        settings = settings_for(root)
        store = open_store(settings)
        job = store.list_jobs()[0]
        assert job.state == "running" and shown_state(store, job, settings.lease_seconds) == "running"
        os.killpg(proc.pid, signal.SIGHUP)  # the terminal went away: no handler runs
        os.killpg(proc.pid, signal.SIGCONT)  # the pending SIGHUP ends it as it resumes, before its next step
        assert proc.wait(timeout=30) == -signal.SIGHUP
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    job = store.get(job.id)
    assert job.state == "running"  # nothing could mark it...
    assert shown_state(store, job, settings.lease_seconds) == "interrupted"  # ...but its owner is gone
    listed = rasklad("jobs", "--data", str(root))
    assert listed.returncode == 0 and f"{job.id:<19}" in listed.stdout and "interrupted" in listed.stdout
    shown = rasklad("show", job.id, "--data", str(root))
    assert json.loads(shown.stdout)["state"] == "interrupted"
    assert rasklad("run", str(spec), "--data", str(root), "--quiet").returncode == 0
    assert open_store(settings).get(job.id).state == "succeeded"
    assert "interrupted" not in rasklad("jobs", "--data", str(root)).stdout
