"""The service commands of the CLI, run as ``python -m rasklad`` against the real service over HTTP.

Exit codes: 0 done, 1 the job failed or was cancelled (``wait``, ``submit --wait``), 2 bad input
or an API or connection error — always one line on stderr.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import MAX_BODY, QUERY_MAX_ROWS, SPEC, Live
from service_harness import free_port
from tcp_relay import Fault, Relay

from rasklad.client import Client

ROOT = Path(__file__).resolve().parent.parent
LONG: dict[str, Any] = {**SPEC, "bots": ["order-poker/heuristic"] * 3, "deals": 6000, "shard_deals": 100}
#: A one-shard job whose bot SIGKILLs its worker process: the service fails it (RASKLAD_MAX_DELIVERIES=1).
CRASH: dict[str, Any] = {**SPEC, "bots": ["order-poker/crash", "order-poker/random", "order-poker/random"],
                         "deals": 6, "shard_deals": 6}


def rasklad(url: str | None, *args: str, key: str | None = None, stdin: str | None = None,
            extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_URL", "RASKLAD_KEY")}
    env.update(extra_env or {})
    if url is not None:
        env["RASKLAD_URL"] = url
    if key is not None:
        env["RASKLAD_KEY"] = key
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=180, cwd=ROOT)


def one_error_line(p: subprocess.CompletedProcess[str]) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def spec_file(tmp_path: Path, name: str, spec: dict[str, Any]) -> Path:
    f = tmp_path / f"{name}.yaml"
    f.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in spec.items()))
    return f


def seats(live: Live) -> list[dict[str, Any]]:
    files = sorted((live.job_dir(live.done["id"]) / "seats").glob("shard-*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def test_submit_prints_the_job_id(live: Live, tmp_path: Path) -> None:
    p = rasklad(live.url, "submit", str(spec_file(tmp_path, "small", {**SPEC, "deals": 30, "seed": 11})),
                key=live.alice)
    assert p.returncode == 0, p.stderr
    job_id = p.stdout.strip()
    assert p.stderr.strip() == f"submitted job {job_id}: tournament order-poker, 2 shards, queued"
    with Client(live.url, key=live.alice) as c:
        job = c.wait(job_id, poll_interval=0.2)
    assert (job.owner, job.deals_total, job.state) == ("alice", 30, "succeeded")


def test_submit_from_stdin_with_idempotency_key(live: Live) -> None:
    text = ("kind: tournament\ngame: order-poker\nplayers: 3\ndeals: 15\nseed: 12\n"
            "bots: [order-poker/random, order-poker/random, order-poker/random]\n")
    a = rasklad(live.url, "submit", "-", "--idempotency-key", "cli-1", stdin=text, key=live.alice)
    b = rasklad(live.url, "submit", "-", "--idempotency-key", "cli-1", stdin=text, key=live.alice)
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout
    with Client(live.url, key=live.alice) as c:
        job = c.wait(a.stdout.strip(), poll_interval=0.2)
    assert (job.deals_total, job.shards_total) == (15, 1)


def test_submit_wait_succeeds_exit_0(live: Live, tmp_path: Path) -> None:
    p = rasklad(live.url, "submit", str(spec_file(tmp_path, "s", {**SPEC, "deals": 30, "seed": 13})), "--wait",
                key=live.alice)
    assert p.returncode == 0, p.stderr
    job_id, summary, *board = p.stdout.strip().splitlines()
    assert summary == f"job {job_id}: succeeded, 2/2 shards, 30 deals"
    assert board and "order-poker/heuristic" in "\n".join(board)  # it ends with the leaderboard (issue 20)


def test_submit_wait_failed_job_exit_1(live: Live, tmp_path: Path) -> None:
    p = rasklad(live.url, "submit", str(spec_file(tmp_path, "crash", CRASH)), "--wait", "-q", key=live.alice)
    assert p.returncode == 1, p.stderr
    job_id, summary = p.stdout.strip().splitlines()
    assert summary == f"job {job_id}: failed, 0/1 shards"
    assert p.stderr.strip() == (f"job {job_id} failed: shard 0 was started 1 times and its worker died every "
                                "time (killed, out of memory or crashed): giving up after 1 deliveries")
    p = rasklad(live.url, "status", job_id, "--json", key=live.alice)
    assert p.returncode == 0 and json.loads(p.stdout)["state"] == "failed"


def test_wait_and_status(live: Live) -> None:
    ok = live.done["id"]
    p = rasklad(live.url, "wait", ok, key=live.alice)
    assert (p.returncode, p.stdout.splitlines()[0]) == (0, f"job {ok}: succeeded, 8/8 shards, 120 deals")
    assert "order-poker/heuristic" in p.stdout  # then the leaderboard, as `rasklad run` ends (issue 20)
    with Client(live.url, key=live.alice) as c:
        c.cancel(cancelled := c.submit(LONG).id)
    p = rasklad(live.url, "wait", cancelled, key=live.alice)
    # Without a terminal, progress comes as plain lines on stderr first (issue 20); the reason ends it.
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == f"job {cancelled} cancelled: cancelled by its owner"
    p = rasklad(live.url, "status", ok, key=live.alice)
    assert p.returncode == 0
    fields = dict(line.split(None, 1) for line in p.stdout.strip().splitlines())
    assert fields["state"] == "succeeded" and fields["shards"] == "8/8" and fields["deals"] == "120/120"
    assert re.fullmatch(r"[\d,.]+ deals/s", fields["rate"]) and fields["owner"] == "alice"  # rate_text's precision
    assert fields["eta"] == "-" and fields["job"] == ok


def test_wait_draws_a_progress_bar_on_a_terminal(live: Live) -> None:
    with Client(live.url, key=live.alice) as c:
        job_id = c.submit({**SPEC, "seed": 14}).id
    p = rasklad(live.url, "wait", job_id, extra_env={"FORCE_COLOR": "1", "COLUMNS": "120"}, key=live.alice)
    assert p.returncode == 0, p.stderr
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", p.stderr)
    # The last frame of the bar: the job, its state, shards done/total and the rate from the events.
    last = [line for line in screen.splitlines() if line.strip()][-1]
    assert re.fullmatch(rf"{job_id} succeeded ━+ 8/8 shards [\d,.]+ deals/s\s*", last), last
    p = rasklad(live.url, "wait", job_id, "--quiet", extra_env={"FORCE_COLOR": "1"}, key=live.alice)
    assert p.returncode == 0 and p.stderr == ""


def test_cancel(live: Live) -> None:
    with Client(live.url, key=live.alice) as c:
        job_id = c.submit(LONG).id
    p = rasklad(live.url, "cancel", job_id, key=live.alice)
    assert p.returncode == 0, p.stderr
    assert re.fullmatch(rf"job {job_id}: cancelled, \d+/60 shards(, [\d,]+ deals)?\n", p.stdout), p.stdout
    p = rasklad(live.url, "cancel", job_id, key=live.alice)
    assert p.returncode == 2
    assert one_error_line(p) == f"error: 409 job_id: job {job_id} already finished (cancelled)"


@pytest.mark.parametrize(("who", "extra", "line"), [
    ("alice", {"bots": ["order-poker/heuristic", {"name": "order-poker/montecarlo", "params": {"samples": 0}},
                        "order-poker/random"]},
     "error: 422 bots[1].params.samples: must be >= 1"),
    ("carol", {"deals": 2000}, "error: 429 deals: this key may run at most 1,000 deals per job, the spec asks "
                               "for 2,000"),
    ("alice", {"name": "x" * MAX_BODY}, f"error: 413 body: request body too large (limit {MAX_BODY:,} bytes)"),
])
def test_api_errors_exit_2(live: Live, tmp_path: Path, who: str, extra: dict[str, Any], line: str) -> None:
    p = rasklad(live.url, "submit", str(spec_file(tmp_path, "bad", {**SPEC, **extra})), "--wait",
                key=getattr(live, who))
    assert p.returncode == 2 and p.stdout == ""
    assert one_error_line(p) == line


def test_auth_and_not_found_exit_2(live: Live) -> None:
    job_id = live.done["id"]
    p = rasklad(live.url, "status", job_id)
    assert p.returncode == 2
    assert one_error_line(p) == ("error: 401 Authorization: missing API key: send Authorization: "
                                 "Bearer <key> (give --key or set RASKLAD_KEY)")
    p = rasklad(live.url, "status", job_id, key=live.bob)
    assert p.returncode == 2 and one_error_line(p) == f"error: 404 job_id: no job {job_id}"
    p = rasklad(live.url, "wait", job_id, key=live.bob)
    assert p.returncode == 2 and one_error_line(p) == f"error: 404 job_id: no job {job_id}"
    # --url and --key win over the environment.
    dead = f"http://127.0.0.1:{free_port()}"
    p = rasklad(dead, "status", job_id, "--url", live.url, "--key", live.alice, key=live.bob)
    assert p.returncode == 0 and "succeeded" in p.stdout


def test_bad_input_and_unreachable_exit_2(live: Live, tmp_path: Path) -> None:
    url = live.url
    p = rasklad(url, "submit", str(tmp_path / "missing.yaml"), key=live.alice)
    assert p.returncode == 2 and one_error_line(p) == f"error: no such spec file: {tmp_path / 'missing.yaml'}"
    p = rasklad(url, "download", "j0001", "seats", "-o", str(tmp_path / "x"), "--format", "xlsx", key=live.alice)
    assert p.returncode == 2 and one_error_line(p) == "error: unknown format 'xlsx': parquet, csv or jsonl"
    p = rasklad(url, "rquery", "SELECT 1", "--format", "yaml", key=live.alice)
    assert p.returncode == 2 and "unknown format 'yaml'" in one_error_line(p)
    p = rasklad(url, "status", "j0001", "--url", "localhost:8000", key=live.alice)
    assert p.returncode == 2 and "must start with http" in one_error_line(p)
    dead = f"http://127.0.0.1:{free_port()}"
    for args in (["status", "j0001"], ["submit", str(spec_file(tmp_path, "ok", SPEC)), "--wait"],
                 ["wait", "j0001"], ["rquery", "SELECT 1"], ["query", "--remote", "SELECT 1"]):
        p = rasklad(dead, *args, key="k")
        assert p.returncode == 2, args
        assert one_error_line(p).startswith(f"error: cannot reach {dead}: ")


def test_download(live: Live, tmp_path: Path) -> None:
    job_id = live.done["id"]
    out = tmp_path / "seats.csv"
    p = rasklad(live.url, "download", job_id, "seats", "-o", str(out), "--format", "csv",
                "--columns", "bot, score", "--where", "score > 0", key=live.alice)
    assert p.returncode == 0, p.stderr
    with out.open(newline="") as f:
        header, *body = list(csv.reader(f))
    assert header == ["bot", "score"]
    assert Counter((b, int(s)) for b, s in body) == Counter((r["bot"], r["score"]) for r in seats(live)
                                                            if r["score"] > 0)
    assert p.stderr.strip() == f"{out} ({out.stat().st_size:,} bytes)"
    with Relay(live.port, lambda m, path, n: Fault(after=60_000) if "/tables/" in path else None) as relay:
        p = rasklad(relay.url, "download", job_id, "seats", "-o", str(tmp_path / "b.jsonl"), "-f", "jsonl",
                    key=live.alice)
    assert p.returncode == 2 and re.fullmatch(r"error: download of seats broke after \d+ bytes: .+",
                                              one_error_line(p))
    p = rasklad(live.url, "download", job_id, "nope", "-o", str(tmp_path / "n.parquet"), key=live.alice)
    assert p.returncode == 2
    assert one_error_line(p) == f"error: 404 table: job {job_id} has no table 'nope': it has deals, seats"
    assert [f.name for f in tmp_path.iterdir()] == ["seats.csv"]  # nothing half-written anywhere


def test_rquery(live: Live, tmp_path: Path) -> None:
    job_id = live.done["id"]
    sql = "SELECT bot, count(*) AS n, sum(score) AS total FROM seats GROUP BY bot ORDER BY bot"
    expected: dict[str, list[int]] = {}
    for r in seats(live):
        e = expected.setdefault(r["bot"], [0, 0])
        e[0] += 1
        e[1] += r["score"]
    records = [{"bot": b, "n": n, "total": t} for b, (n, t) in sorted(expected.items())]
    p = rasklad(live.url, "rquery", sql, "--format", "json", "--jobs", f"{job_id}, {job_id}", key=live.alice)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert json.loads(p.stdout) == records
    # `rasklad query --remote` is the same query: JOB then SQL, or the SQL alone for all your jobs.
    p = rasklad(live.url, "query", "--remote", job_id, sql, "-f", "json", key=live.alice)
    assert p.returncode == 0 and json.loads(p.stdout) == records
    p = rasklad(live.url, "query", "--remote", "SELECT count(*) AS n FROM seats WHERE deal < 0", "-f", "json",
                key=live.alice)
    assert p.returncode == 0 and json.loads(p.stdout) == [{"n": 0}]
    p = rasklad(live.url, "rquery", "SELECT deal, seat, score FROM seats", "--format", "csv", "--jobs", job_id,
                key=live.alice)
    assert p.returncode == 0
    assert next(csv.reader(io.StringIO(p.stdout))) == ["deal", "seat", "score"]
    assert len(p.stdout.strip().splitlines()) == 1 + QUERY_MAX_ROWS
    assert p.stderr.strip() == f"warning: the service cut the result at {QUERY_MAX_ROWS:,} rows"
    p = rasklad(live.url, "rquery", sql, "--jobs", job_id, key=live.alice)
    assert p.returncode == 0 and "order-poker/random#2" in p.stdout
    out = tmp_path / "q.parquet"
    p = rasklad(live.url, "rquery", sql, "--jobs", job_id, "-f", "parquet", "-o", str(out), key=live.alice)
    assert p.returncode == 0 and p.stderr.strip() == f"3 rows -> {out}"
    assert pq.read_table(out).to_pylist() == records
    p = rasklad(live.url, "rquery", "SELECT 1", "-f", "parquet", key=live.alice)
    assert p.returncode == 2 and one_error_line(p) == "error: --format parquet needs -o FILE"
    p = rasklad(live.url, "rquery", sql, "--jobs", job_id, "-f", "json", "-o", str(tmp_path / "q.json"),
                key=live.alice)
    assert p.returncode == 0 and json.loads((tmp_path / "q.json").read_text()) == records
    p = rasklad(live.url, "rquery", "SELECT * FROM read_csv('/etc/passwd')", "--jobs", job_id, key=live.alice)
    assert p.returncode == 2 and one_error_line(p).startswith("error: 400 sql: ")
