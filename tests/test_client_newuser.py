"""What a new user tripped over with the service (issue 20, section 2), against the real service.

The shared live service of the client tests (real ``rasklad serve``, a real Celery worker, Redis);
every command runs as ``python -m rasklad``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
from conftest import SPEC, Live
from test_client_cli import rasklad, spec_file

from rasklad.client import Client

BOTS = {"order-poker/heuristic", "order-poker/random#1", "order-poker/random#2"}


def new_user(live: Live, name: str) -> str:
    """A key of its own, so "your latest job" and "every job" are known exactly."""
    return live.svc.create_key(name, "--max-jobs", "50")


def run_job(live: Live, key: str, **spec: Any) -> dict[str, Any]:
    with live.svc.client(key) as http:
        r = http.post("/v1/jobs", json={**SPEC, **spec})
        assert r.status_code == 202, r.text
        return live.svc.wait_job(http, r.json()["id"])


def test_remote_query_defaults_to_the_latest_job_and_says_what_it_spans(live: Live) -> None:
    key = new_user(live, "dora")
    first = run_job(live, key, deals=30, seed=101)
    second = run_job(live, key, deals=45, seed=102)
    sql = "SELECT bot, count(*) AS n FROM seats GROUP BY bot ORDER BY bot"
    p = rasklad(live.url, "query", "--remote", sql, "-f", "json", key=key)
    assert p.returncode == 0, p.stderr
    # The latest job only: 45 deals x 3 rotations, one row per bot and deal.
    assert json.loads(p.stdout) == [{"bot": b, "n": 135} for b in sorted(BOTS)]
    assert p.stderr.startswith(f"query over job {second['id']} (your latest; --jobs all for every job")
    p = rasklad(live.url, "rquery", "SELECT count(*) AS n FROM seats", "--jobs", "all", "-f", "json", key=key)
    assert p.returncode == 0 and json.loads(p.stdout) == [{"n": (30 + 45) * 9}]
    assert p.stderr.strip() == "query over 2 jobs (column job_id tells them apart)"
    with Client(live.url, key=key) as c:
        r = c.query("SELECT count(DISTINCT job_id) AS j FROM seats", all_jobs=True)
        assert r.rows == [[2]] and set(r.jobs) == {first["id"], second["id"]} and r.partial == ()
    with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {key}"}) as http:
        both = http.post("/v1/query", json={"sql": "SELECT 1", "jobs": [first["id"]], "all_jobs": True})
        assert both.status_code == 400 and both.json()["detail"][0]["field"] == "all_jobs"


def test_job_id_prefixes_remote_jobs_and_report(live: Live, tmp_path: Path) -> None:
    key = new_user(live, "emil")
    job = run_job(live, key, deals=30, seed=103)
    prefix = job["id"][:8]
    p = rasklad(live.url, "status", prefix, key=key)
    assert p.returncode == 0 and p.stdout.splitlines()[0] == f"job      {job['id']}"
    p = rasklad(live.url, "jobs", "--remote", key=key)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["job", "kind", "game", "state", "shards", "created"]
    assert [ln.split()[:5] for ln in lines[1:]] == [[job["id"], "tournament", "order-poker", "succeeded", "2/2"]]
    p = rasklad(live.url, "report", "--remote", prefix, key=key)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == f"job {job['id']}: succeeded, 2/2 shards, 30 deals"
    assert all(b in p.stdout for b in BOTS)
    p = rasklad(live.url, "report", "--remote", prefix, "--json", key=key)
    assert {r["bot"] for r in json.loads(p.stdout)["leaderboard"]["rows"]} == BOTS
    p = rasklad(live.url, "report", "--remote", prefix, "--html", str(tmp_path), key=key)
    page = tmp_path / f"{job['id']}-report.html"
    assert p.returncode == 0 and p.stdout.strip() == str(page) and "<svg" in page.read_text()
    # Another user's prefix is never resolved; a too-short prefix is not one.
    other = rasklad(live.url, "status", prefix, key=live.bob)
    assert other.returncode == 2 and f"no job {prefix}" in other.stderr
    short = rasklad(live.url, "status", "j-", key=key)
    assert short.returncode == 2 and "no job j-" in short.stderr


def test_submit_wait_ends_with_the_leaderboard(live: Live, tmp_path: Path) -> None:
    f = spec_file(tmp_path, "w", {**SPEC, "deals": 30, "seed": 104})
    p = rasklad(live.url, "submit", str(f), "--wait", key=live.alice)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    job_id = out[0]
    assert out[1] == f"job {job_id}: succeeded, 2/2 shards, 30 deals"
    from sims.report import format_leaderboard

    with Client(live.url, key=live.alice) as c:
        board = c.report(job_id)["leaderboard"]
    assert out[2:] == format_leaderboard(board)  # as `rasklad run` prints it
    assert all(b in "\n".join(out[2:]) for b in BOTS)
    # No terminal here: the progress came as plain lines, not a bar's escape codes.
    assert "\x1b[" not in p.stderr and f"{job_id} succeeded: 2/2 shards" in p.stderr


def cancel_after_a_shard(c: Client, spec: dict[str, Any]) -> tuple[Any, Any]:
    """Submit ``spec``, cancel it once a shard is committed; the job as submitted and as cancelled."""
    job = c.submit(spec)
    deadline = time.monotonic() + 120
    while c.job(job.id).shards_done < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    return job, c.cancel(job.id)


def test_cancel_then_resume_finishes_with_the_same_rows(live: Live) -> None:
    key = new_user(live, "fern")
    # 30 shards of 800 deals (a few tenths of a second each: the heuristic and random seats play in C), so
    # that the cancel comes while most are still to run.
    spec = {**SPEC, "deals": 24_000, "shard_deals": 800, "seed": 105}
    with Client(live.url, key=key) as c:
        job, cancelled = cancel_after_a_shard(c, spec)
        assert cancelled.state == "cancelled" and cancelled.shards_done < 30
        # Partial data is announced, never passed on silently.
        r = c.query("SELECT count(*) FROM seats", jobs=[job.id])
        (part,) = r.partial
        assert part["job"] == job.id and part["state"] == "cancelled" and part["shards_total"] == 30
        notes: list[str] = []
        c.download(job.id, "seats", Path(live.svc.tmp) / "partial.parquet", on_partial=notes.append)
        assert len(notes) == 1 and notes[0].endswith("/30")
    p = rasklad(live.url, "resume", job.id[:10], "--wait", "-q", key=key)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].startswith(f"job {job.id}: queued") or "running" in p.stdout.splitlines()[0]
    assert f"job {job.id}: succeeded, 30/30 shards, 24,000 deals" in p.stdout
    again = rasklad(live.url, "resume", job.id, key=key)
    assert again.returncode == 2 and "only a cancelled or failed job resumes" in again.stderr
    # The resumed job equals a job never interrupted: same spec and seed, same rows.
    whole = run_job(live, key, **spec)
    sql = "SELECT bot, sum(score) AS s, count(*) AS n FROM seats GROUP BY bot ORDER BY bot"
    with Client(live.url, key=key) as c:
        assert c.query(sql, jobs=[job.id]).rows == c.query(sql, jobs=[whole["id"]]).rows
        assert c.query(sql, jobs=[job.id]).partial == ()


def settled(folder: Path, quiet_s: float = 1.0) -> list[Path]:
    """The shard files of ``folder`` once none has appeared for ``quiet_s`` seconds (at most 60 s)."""
    files, since, deadline = sorted(folder.glob("shard-*.parquet")), time.monotonic(), time.monotonic() + 60
    while time.monotonic() - since < quiet_s and time.monotonic() < deadline:
        time.sleep(0.1)
        now = sorted(folder.glob("shard-*.parquet"))
        if now != files:
            files, since = now, time.monotonic()
    return files


def test_a_job_written_by_another_game_version_does_not_resume(live: Live) -> None:
    """Resuming would add shards of this version beside rows another version wrote (``sims.tables.stale_rows``):
    409 naming both versions, and the job and its files stay as they were."""
    import pyarrow.parquet as pq

    from sims.tables import VERSION_KEY

    key = new_user(live, "gil")
    with Client(live.url, key=key) as c:
        job, cancelled = cancel_after_a_shard(c, {**SPEC, "deals": 24_000, "shard_deals": 800, "seed": 106})
        assert cancelled.state == "cancelled"
        files = settled(live.job_dir(job.id) / "deals")  # a shard's commit under way at the cancel may still land
        assert files
        for f in files:  # as an older rasklad would have written them
            t = pq.read_table(f)
            pq.write_table(t.replace_schema_metadata({**(t.schema.metadata or {}), VERSION_KEY: b"0"}), f)
        before = {f: f.read_bytes() for f in files}
    with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {key}"}) as http:
        r = http.post(f"/v1/jobs/{job.id}/resume")
        assert r.status_code == 409, r.text
        (detail,) = r.json()["detail"]
        assert detail["field"] == "job_id"
        assert detail["message"].startswith(f"job {job.id} cannot resume: its committed shards were written by "
                                        "order-poker version 0, deal streams 2; this rasklad writes order-poker "
                                        "version "), detail
        assert http.get(f"/v1/jobs/{job.id}").json()["state"] == "cancelled"
    p = rasklad(live.url, "resume", job.id, key=key)
    assert p.returncode == 2 and "cannot resume: its committed shards were written by order-poker version 0" \
        in p.stderr
    assert {f: f.read_bytes() for f in before} == before
    assert sorted((live.job_dir(job.id) / "deals").glob("shard-*.parquet")) == files


def test_download_creates_the_directory(live: Live, tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir"
    p = rasklad(live.url, "download", live.done["id"], "seats", "-o", f"{out}/", "-f", "csv", key=live.alice)
    assert p.returncode == 0, p.stderr
    files = list(out.iterdir())
    assert [f.name for f in files] == [f"{live.done['id']}-seats.csv"]
    assert len(files[0].read_text().splitlines()) == 1 + 1080
    missing = rasklad(live.url, "download", live.done["id"], "seats", "-o", str(tmp_path / "no" / "x.csv"),
                      key=live.alice)
    assert missing.returncode == 2 and "no such directory" in missing.stderr


def test_yaml_errors_of_the_api_keep_line_and_column(live: Live) -> None:
    with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {live.alice}",
                                                  "Content-Type": "application/yaml"}) as http:
        r = http.post("/v1/jobs", content="kind: tournament\ngame: order-poker\nbots: [a, b\nseed: 1\n")
    assert r.status_code == 400
    (d,) = r.json()["detail"]
    assert d["field"] == "body" and d["message"].startswith("the body is not valid YAML: line 4, column 5: ")


def test_metrics_use_total_names_and_per_key_and_worker_series(live: Live) -> None:
    text = httpx.get(f"{live.url}/metrics").text
    values = {ln.rsplit(" ", 1)[0]: float(ln.rsplit(" ", 1)[1]) for ln in text.splitlines()
              if ln and not ln.startswith("#")}
    assert "# TYPE rasklad_shards_committed_total counter" in text or \
        "# TYPE rasklad_shards_committed counter" in text
    assert values["rasklad_shards_committed_total"] >= 8
    assert values['rasklad_key_shards_committed_total{key="alice"}'] >= 8  # the live job: 8 shards
    assert values['rasklad_key_deals_simulated_total{key="alice"}'] >= 120
    assert values['rasklad_key_jobs{key="alice",state="succeeded"}'] >= 1
    workers = {k: v for k, v in values.items() if k.startswith("rasklad_worker_shards_committed_total{")}
    assert list(workers) and all(k.startswith('rasklad_worker_shards_committed_total{worker="w1@') for k in workers)
    assert sum(workers.values()) >= 8
    assert not any(k.startswith(("rasklad_shards_committed ", "rasklad_deals_simulated ")) for k in values)


def test_remote_query_errors_keep_duckdbs_hints(live: Live) -> None:
    p = rasklad(live.url, "query", "--remote", live.done["id"], "SELECT bott FROM seats", key=live.alice)
    assert p.returncode == 2
    err = p.stderr.strip()
    assert err.startswith('error: 400 sql: Binder Error: Referenced column "bott" not found')
    # One line (the client joins the server's lines), with the hint DuckDB gives after its first line.
    assert len(err.splitlines()) == 1 and '"bot"' in err.split("not found", 1)[1]
