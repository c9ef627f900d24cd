"""What a new user tripped over on the command line (issue 20, section 2), embedded (no service).

Every test runs the real CLI (``python -m rasklad``) on real jobs in a temporary data root.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sims.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parent.parent
#: A multi-table deal-stats job (counts, biddable, orders), sampled so it takes a few seconds.
ROBOT = "kind: deal-stats\ngame: order-poker\nquestion: robot-combination\nmethod: sample\nsamples: 2000\nseed: 3\n"
#: A small tournament: 4 shards of 10 deals, duplicate seating (3 rotations).
TOURNEY = ("kind: tournament\ngame: order-poker\nplayers: 3\ndeals: 40\nshard_deals: 10\nseed: 5\n"
           "bots: [order-poker/heuristic, order-poker/random, order-poker/random]\n")


def rasklad(*args: str, stdin: str | None = None, cwd: Path = ROOT,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RASKLAD_")}
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, input=stdin,
                          cwd=cwd, env={**base, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=300)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root with the robot job and the tournament, both run from standard input (`run -`)."""
    root = tmp_path_factory.mktemp("newuser") / "data"
    for text in (ROBOT, TOURNEY):
        p = rasklad("run", "-", "--data", str(root), "-q", stdin=text)
        assert p.returncode == 0, p.stderr
    return root


def job_of(data: Path, kind: str) -> Path:
    for d in sorted((data / "jobs").iterdir()):
        if json.loads((d / "spec.json").read_text())["kind"] == kind:
            return d
    raise AssertionError(kind)


def test_run_reads_the_spec_from_stdin(data: Path) -> None:
    dirs = sorted((data / "jobs").iterdir())
    assert {json.loads((d / "spec.json").read_text())["kind"] for d in dirs} == {"deal-stats", "tournament"}
    # Running the same spec from stdin again resumes the job: nothing new, the same leaderboard.
    p = rasklad("run", "-", "--data", str(data), "-q", stdin=TOURNEY)
    assert p.returncode == 0, p.stderr
    assert "(4 already committed)" in p.stdout and "order-poker/heuristic" in p.stdout
    empty = rasklad("run", "-", "--data", str(data), stdin="  \n")
    assert (empty.returncode, empty.stderr.strip()) == (2, "error: empty spec on standard input")


def test_export_of_a_multi_table_deal_stats_job(data: Path, tmp_path: Path) -> None:
    """Was: "Column 'robot_combination' is declared non-nullable but contains nulls"."""
    jd = job_of(data, "deal-stats")
    out = tmp_path / "robot.parquet"
    p = rasklad("export", jd.name, "-o", str(out), "--data", str(data))
    assert p.returncode == 0, p.stderr
    assert "partial" not in p.stderr
    stacked = pq.read_table(out)
    tables = sorted(d.name for d in jd.iterdir() if d.is_dir())
    assert tables == ["biddable", "counts", "orders"]
    per_table = {t: pq.read_table(jd / t).to_pylist() for t in tables}
    assert stacked.num_rows == sum(len(rows) for rows in per_table.values())
    assert stacked.column_names[0] == "table"
    rows = stacked.to_pylist()
    for t, expected in per_table.items():
        got = [{k: v for k, v in r.items() if k in expected[0]} for r in rows if r["table"] == t]
        assert sorted(got, key=json.dumps) == sorted(expected, key=json.dumps)
    # A column one table lacks is null in the other tables' rows, never a made-up value.
    only_counts = set(per_table["counts"][0]) - set(per_table["orders"][0]) - set(per_table["biddable"][0])
    assert only_counts and all(r[c] is None for r in rows if r["table"] != "counts" for c in only_counts)


def test_yaml_syntax_error_keeps_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: tournament\ngame: order-poker\nbots: [a, b\nseed: 1\n")
    with pytest.raises(SpecError) as e:
        load_spec(bad)
    assert "line 4, column 5" in str(e.value)
    p = rasklad("run", str(bad), "--data", str(tmp_path / "d"))
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith(f"error: {bad}: ") and "line 4, column 5" in lines[0]
    assert "expected ',' or ']'" in lines[0]
    with pytest.raises(SpecError) as e:
        load_spec('{"kind": "tournament",\n "deals": 1,,}')
    assert "line 2, column 13" in str(e.value)


def test_query_caps_printed_rows_and_keeps_columns_whole_when_piped(data: Path) -> None:
    jd = job_of(data, "tournament")
    # 40 deals x 3 rotations x 3 seats = 360 seats rows; the table shows 100 and says so.
    p = rasklad("query", jd.name, "SELECT deal, rotation, seat, bot FROM seats ORDER BY deal, rotation, seat",
                "--data", str(data))
    assert p.returncode == 0, p.stderr
    body = [ln for ln in p.stdout.splitlines() if "order-poker/" in ln]
    assert len(body) == 100
    assert "note: 260 more rows not shown" in p.stderr
    # Piped output is not cut to 80 columns: the longest label appears whole on every line.
    assert all(ln.rstrip().endswith(("order-poker/heuristic", "order-poker/random#1", "order-poker/random#2"))
               for ln in body)
    csv_out = rasklad("query", jd.name, "SELECT deal FROM seats", "-f", "csv", "--data", str(data))
    assert len(csv_out.stdout.splitlines()) == 361 and "more rows" not in csv_out.stderr


def test_query_errors_keep_duckdbs_hints(data: Path) -> None:
    jd = job_of(data, "tournament")
    p = rasklad("query", jd.name, "SELECT bott FROM seats", "--data", str(data))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert lines[0].startswith("error: Binder Error: Referenced column \"bott\" not found")
    assert any('"bot"' in ln for ln in lines[1:]), p.stderr  # the candidate bindings / did-you-mean hint
    assert all(ln.startswith("  ") for ln in lines[1:])


def test_partial_data_is_announced(data: Path, tmp_path: Path) -> None:
    import shutil

    part = tmp_path / "data"
    shutil.copytree(data, part)
    jd = job_of(part, "tournament")
    for table in ("deals", "seats"):
        (jd / table / "shard-000002.parquet").unlink()
    p = rasklad("query", jd.name, "SELECT count(*) AS n FROM seats", "-f", "csv", "--data", str(part))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["n", "270"]
    assert f"note: partial data: job {jd.name} has 3/4 shards committed" in p.stderr
    e = rasklad("export", jd.name, "-o", str(tmp_path / "x.parquet"), "--data", str(part))
    assert e.returncode == 0 and f"job {jd.name} has 3/4 shards committed" in e.stderr
    whole = rasklad("query", job_of(data, "tournament").name, "SELECT 1 AS one", "--data", str(data))
    assert "partial" not in whole.stderr


def test_read_only_commands_do_not_create_the_data_root(tmp_path: Path) -> None:
    p = rasklad("jobs", "--data", "nowhere/data", cwd=tmp_path)
    assert p.returncode == 0
    assert not (tmp_path / "nowhere").exists()
    assert str(tmp_path / "nowhere" / "data") in p.stderr  # absolute, whatever the working directory
    q = rasklad("show", "j-0000", "--data", "rel", cwd=tmp_path)
    assert q.returncode == 2 and f"under {tmp_path / 'rel'}" in q.stderr and not (tmp_path / "rel").exists()


def test_worker_without_a_broker_says_so_in_one_line() -> None:
    p = rasklad("worker", "--broker-wait", "0", env={"RASKLAD_BROKER": "redis://127.0.0.1:1/0"})
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("error: no broker answers at redis://127.0.0.1:1/0 (set RASKLAD_BROKER)")


def test_help_shows_flags_without_a_type_and_explains_concurrency_zero() -> None:
    env = {"COLUMNS": "200", "TERM": "dumb"}
    h = rasklad("submit", "--help", env=env).stdout
    wait_line = next(ln for ln in h.splitlines() if "--wait" in ln)
    assert "<bool>" not in h and "<str>" in next(ln for ln in h.splitlines() if "--idempotency-key" in ln)
    assert "follow the job" in wait_line
    w = rasklad("worker", "--help", env=env).stdout
    assert "0 (the default) starts one per CPU core" in w
    r = rasklad("run", "--help", env=env).stdout
    assert "default: all cores" in r and "'-' reads standard input" in r


def test_progress_is_plain_lines_without_a_terminal(tmp_path: Path) -> None:
    p = rasklad("run", "-", "--data", str(tmp_path / "d"), stdin=TOURNEY)
    assert p.returncode == 0, p.stderr
    assert "\x1b[" not in p.stderr  # no bar's escape codes in a log
    lines = p.stderr.strip().splitlines()
    assert lines[-1].startswith("4/4 shards")
    assert all(re.fullmatch(r"[0-4]/4 shards, [\d,]+/[\d,]+ deals(, [\d,.]+ deals/s)?", ln) for ln in lines), lines


def test_default_data_root_is_shown_absolute(tmp_path: Path) -> None:
    """RASKLAD_DATA unset: ./data of the working directory, named absolutely in messages."""
    p = rasklad("run", "-", "-q", stdin=TOURNEY, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    report = next(ln for ln in p.stdout.splitlines() if ln.startswith("report: "))
    assert report.startswith(f"report: {tmp_path / 'data' / 'jobs'}/")
    q = rasklad("show", "j-nothing", cwd=tmp_path)
    assert q.returncode == 2 and f"under {tmp_path / 'data'} " in q.stderr
