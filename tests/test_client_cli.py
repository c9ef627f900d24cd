"""The service commands of the CLI, run as ``python -m rasklad`` against a stand-in API over HTTP.

Exit codes: 0 done, 1 the job failed (``wait``, ``submit --wait``), 2 bad input or an API or
connection error — always one line on stderr.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from client_standin import MAX_BODY, StandIn, closed_port_url, serve, table_bytes

from rasklad.client import Client

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def standin() -> Iterator[tuple[StandIn, str]]:
    s = StandIn()
    with serve(s.app) as url:
        yield s, url


def rasklad(url: str | None, *args: str, key: str | None = "k-alice", stdin: str | None = None,
            extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_URL", "RASKLAD_KEY")}
    env.update(extra_env or {})
    if url is not None:
        env["RASKLAD_URL"] = url
    if key is not None:
        env["RASKLAD_KEY"] = key
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=120, cwd=ROOT)


def one_error_line(p: subprocess.CompletedProcess[str]) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def spec_file(tmp_path: Path, name: str, **extra: object) -> Path:
    f = tmp_path / f"{name}.yaml"
    lines = ["kind: tournament", "game: order-poker", f"name: {name}", "shards: 3",
             *(f"{k}: {json.dumps(v)}" for k, v in extra.items())]
    f.write_text("\n".join(lines) + "\n")
    return f


def test_submit_prints_the_job_id(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    s, url = standin
    p = rasklad(url, "submit", str(spec_file(tmp_path, "plain")))
    assert p.returncode == 0, p.stderr
    job_id = p.stdout.strip()
    assert s.jobs[job_id].spec["name"] == "plain" and s.jobs[job_id].owner == "alice"
    assert p.stderr.strip() == f"submitted job {job_id}: tournament order-poker, 3 shards, queued"


def test_submit_from_stdin_with_idempotency_key(standin: tuple[StandIn, str]) -> None:
    s, url = standin
    text = "kind: deal-stats\ngame: quintet\nshards: 2\n"
    a = rasklad(url, "submit", "-", "--idempotency-key", "cli-1", stdin=text)
    b = rasklad(url, "submit", "-", "--idempotency-key", "cli-1", stdin=text)
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert s.jobs[a.stdout.strip()].spec == {"kind": "deal-stats", "game": "quintet", "shards": 2}


def test_submit_wait_succeeds_exit_0(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    _, url = standin
    p = rasklad(url, "submit", str(spec_file(tmp_path, "drop")), "--wait")
    assert p.returncode == 0, p.stderr
    job_id, summary = p.stdout.strip().splitlines()
    assert summary == f"job {job_id}: succeeded, 3/3 shards, 3,000 deals"


def test_submit_wait_failed_job_exit_1(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    _, url = standin
    p = rasklad(url, "submit", str(spec_file(tmp_path, "fail")), "--wait", "-q")
    assert p.returncode == 1
    job_id, summary = p.stdout.strip().splitlines()
    assert summary == f"job {job_id}: failed, 3/3 shards, 3,000 deals"
    assert p.stderr.strip() == f"job {job_id} failed: shard 2 killed its worker 3 times (out of memory?)"


def test_wait_and_status(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    with Client(url, key="k-alice") as c:
        ok = c.submit({"kind": "tournament", "game": "order-poker", "shards": 4}).id
        bad = c.submit({"kind": "tournament", "game": "order-poker", "shards": 2, "name": "nostream-fail"}).id
        c.cancel(cancelled := c.submit({"kind": "tournament", "shards": 2}).id)
    p = rasklad(url, "wait", ok)
    assert (p.returncode, p.stdout) == (0, f"job {ok}: succeeded, 4/4 shards, 4,000 deals\n")
    p = rasklad(url, "wait", bad)
    assert p.returncode == 1 and "failed: shard 2 killed its worker" in p.stderr
    p = rasklad(url, "wait", cancelled)
    assert p.returncode == 1 and p.stderr.strip() == f"job {cancelled} cancelled"
    p = rasklad(url, "status", ok)
    assert p.returncode == 0
    fields = dict(line.split(None, 1) for line in p.stdout.strip().splitlines())
    assert fields["state"] == "succeeded" and fields["shards"] == "4/4" and fields["deals"] == "4,000/4,000"
    assert fields["rate"] == "2,500 deals/s" and fields["owner"] == "alice"
    p = rasklad(url, "status", bad, "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["state"] == "failed"


def test_wait_draws_a_progress_bar_on_a_terminal(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    with Client(url, key="k-alice") as c:
        job_id = c.submit({"kind": "tournament", "game": "order-poker", "shards": 4, "name": "drop"}).id
    p = rasklad(url, "wait", job_id, extra_env={"FORCE_COLOR": "1", "COLUMNS": "120"})
    assert p.returncode == 0
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", p.stderr)
    # The last frame of the bar: the job, its state, shards done/total and the rate from the events.
    last = [line for line in screen.splitlines() if line.strip()][-1]
    assert re.fullmatch(rf"{job_id} succeeded ━+ 4/4 shards 2,500 deals/s\s*", last), last
    p = rasklad(url, "wait", job_id, "--quiet", extra_env={"FORCE_COLOR": "1"})
    assert p.returncode == 0 and p.stderr == ""


def test_cancel(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    with Client(url, key="k-alice") as c:
        job_id = c.submit({"kind": "tournament", "shards": 5}).id
    p = rasklad(url, "cancel", job_id)
    assert (p.returncode, p.stdout) == (0, f"job {job_id}: cancelled, 0/5 shards\n")
    p = rasklad(url, "cancel", job_id)
    assert p.returncode == 2 and one_error_line(p) == f"error: 409 job {job_id} already cancelled"


@pytest.mark.parametrize(("extra", "line"), [
    ({"bots": [{"params": {}}, {"params": {}}, {"params": {"samples": 0}}]},
     "error: 422 bots[2].params.samples: must be > 0"),
    ({"deals": 10**9}, "error: 429 deals: deals per job over your limit of 1000000"),
    ({"padding": "x" * MAX_BODY}, f"error: 413 request body over {MAX_BODY} bytes"),
])
def test_api_errors_exit_2(standin: tuple[StandIn, str], tmp_path: Path, extra: dict[str, object],
                           line: str) -> None:
    _, url = standin
    p = rasklad(url, "submit", str(spec_file(tmp_path, "bad", **extra)), "--wait")
    assert p.returncode == 2 and p.stdout == ""
    assert one_error_line(p) == line


def test_auth_and_not_found_exit_2(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    with Client(url, key="k-alice") as c:
        job_id = c.submit({"kind": "tournament"}).id
    p = rasklad(url, "status", job_id, key=None)
    assert p.returncode == 2
    assert one_error_line(p) == ("error: 401 Authorization: missing API key: send Authorization: "
                                 "Bearer <key> (give --key or set RASKLAD_KEY)")
    p = rasklad(url, "status", job_id, key="k-bob")
    assert p.returncode == 2 and one_error_line(p) == f"error: 404 no job '{job_id}'"
    p = rasklad(url, "wait", job_id, key="k-bob")
    assert p.returncode == 2 and one_error_line(p) == f"error: 404 no job '{job_id}'"
    # --url and --key win over the environment.
    p = rasklad(closed_port_url(), "status", job_id, "--url", url, "--key", "k-alice", key="k-bob")
    assert p.returncode == 0 and "state" in p.stdout


def test_bad_input_and_unreachable_exit_2(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    _, url = standin
    p = rasklad(url, "submit", str(tmp_path / "missing.yaml"))
    assert p.returncode == 2 and one_error_line(p) == f"error: no such spec file: {tmp_path / 'missing.yaml'}"
    p = rasklad(url, "download", "j0001", "seats", "-o", str(tmp_path / "x"), "--format", "xlsx")
    assert p.returncode == 2 and one_error_line(p) == "error: unknown format 'xlsx': parquet, csv or jsonl"
    p = rasklad(url, "rquery", "SELECT 1", "--format", "yaml")
    assert p.returncode == 2 and "unknown format 'yaml'" in one_error_line(p)
    p = rasklad(url, "status", "j0001", "--url", "localhost:8000")
    assert p.returncode == 2 and "must start with http" in one_error_line(p)
    dead = closed_port_url()
    for args in (["status", "j0001"], ["submit", str(spec_file(tmp_path, "plain")), "--wait"],
                 ["wait", "j0001"], ["rquery", "SELECT 1"]):
        p = rasklad(dead, *args)
        assert p.returncode == 2, args
        assert one_error_line(p).startswith(f"error: cannot reach {dead}: ")


def test_download(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    s, url = standin
    with Client(url, key="k-alice") as c:
        job_id = c.submit({"kind": "tournament"}).id
    out = tmp_path / "seats.csv"
    p = rasklad(url, "download", job_id, "seats", "-o", str(out), "--format", "csv",
                "--columns", "bot, score", "--where", "score > 0")
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == table_bytes("seats", "csv")
    assert s.downloads[-1] == {"format": "csv", "columns": "bot,score", "where": "score > 0"}
    p = rasklad(url, "download", job_id, "broken", "-o", str(tmp_path / "b.parquet"))
    assert p.returncode == 2 and "download of broken broke after" in one_error_line(p)
    p = rasklad(url, "download", job_id, "nope", "-o", str(tmp_path / "n.parquet"))
    assert p.returncode == 2 and one_error_line(p) == f"error: 404 table: job {job_id} has no table 'nope'"
    assert [f.name for f in tmp_path.iterdir()] == ["seats.csv"]  # nothing half-written anywhere


def test_rquery(standin: tuple[StandIn, str], tmp_path: Path) -> None:
    s, url = standin
    p = rasklad(url, "rquery", "SELECT bot, n, avg_score FROM seats LIMIT 9", "--format", "json",
                "--jobs", "j0001, j0002")
    assert p.returncode == 0 and p.stderr == ""
    assert json.loads(p.stdout) == [{"bot": "order-poker/heuristic", "n": 4000, "avg_score": 0.25},
                                    {"bot": "order-poker/random", "n": 4000, "avg_score": -0.25}]
    assert s.queries[-1]["jobs"] == ["j0001", "j0002"]
    p = rasklad(url, "rquery", "SELECT bot FROM seats", "--format", "csv")
    assert p.returncode == 0
    assert next(csv.reader(io.StringIO(p.stdout))) == ["bot", "n", "avg_score"]
    assert p.stderr.strip() == "warning: the service cut the result at 2 rows"
    assert s.queries[-1]["jobs"] is None
    p = rasklad(url, "rquery", "SELECT bot FROM seats LIMIT 2")
    assert p.returncode == 0 and "order-poker/random" in p.stdout and "-0.25" in p.stdout
    out = tmp_path / "q.parquet"
    p = rasklad(url, "rquery", "SELECT bot FROM seats", "-f", "parquet", "-o", str(out))
    assert p.returncode == 0 and p.stderr.strip() == f"2 rows -> {out}"
    assert pq.read_table(out).to_pylist()[1] == {"bot": "order-poker/random", "n": 4000, "avg_score": -0.25}
    p = rasklad(url, "rquery", "SELECT 1", "-f", "parquet")
    assert p.returncode == 2 and one_error_line(p) == "error: --format parquet needs -o FILE"
    p = rasklad(url, "rquery", "SELECT 1 LIMIT 1", "-f", "json", "-o", str(tmp_path / "q.json"))
    assert p.returncode == 0 and json.loads((tmp_path / "q.json").read_text())[0]["n"] == 4000
    p = rasklad(url, "rquery", "SELECT * FROM read_csv('/etc/passwd')")
    assert p.returncode == 2 and one_error_line(p).startswith("error: 400 sql: read_csv is not allowed")
