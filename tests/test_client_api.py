"""``rasklad.client.Client`` against the real service (uvicorn API, Celery worker, Redis): requests, errors.

The service is the session's ``live`` fixture (conftest.py): real processes, no stand-in.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import MAX_BODY, QUERY_MAX_ROWS, SPEC, Live
from service_harness import free_port

from rasklad.client import ApiError, Client, Job, Problem, RaskladError, UnreachableError

#: One shard of a few deals: runs in well under a second.
SMALL: dict[str, Any] = {**SPEC, "deals": 15, "seed": 1}
YAML_SMALL = ("kind: tournament\ngame: order-poker\nplayers: 3\ndeals: 30\nshard_deals: 15\nseed: 2\n"
              "bots: [order-poker/heuristic, order-poker/random, order-poker/random]\n")
#: Long enough (60 shards) to be still unfinished when a test looks; tests cancel it.
LONG: dict[str, Any] = {**SPEC, "bots": ["order-poker/heuristic"] * 3, "deals": 6000, "shard_deals": 100}


@pytest.fixture
def alice(live: Live) -> Iterator[Client]:
    with Client(live.url, key=live.alice) as c:
        yield c


def shard_table(live: Live, job_id: str, table: str) -> pa.Table:
    """The table as the workers committed it on the server's disk."""
    files = sorted((live.job_dir(job_id) / table).glob("shard-*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files])


def test_url_and_key_from_environment(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RASKLAD_URL", live.url + "/")
    monkeypatch.setenv("RASKLAD_KEY", live.alice)
    with Client() as c:
        assert c.url == live.url
        assert c.job(live.done["id"]).owner == "alice"
    monkeypatch.delenv("RASKLAD_URL")
    monkeypatch.delenv("RASKLAD_KEY")
    with Client() as c:
        assert c.url == "http://127.0.0.1:8000" and c.key is None


def test_bad_url_is_refused() -> None:
    with pytest.raises(RaskladError, match="must start with http"):
        Client("127.0.0.1:8000")


def test_submit_dict_returns_job(alice: Client) -> None:
    job = alice.submit(SMALL)
    assert isinstance(job, Job)
    # The POST answers with the job as stored, before any worker touched it.
    assert (job.kind, job.game, job.state, job.shards_total, job.deals_total, job.owner) == (
        "tournament", "order-poker", "queued", 1, 15, "alice")
    assert isinstance(job.created_at, datetime) and job.created_at.tzinfo is not None
    assert job.started_at is None and job.deals_per_s is None and not job.finished
    assert job.links["events"] == f"/v1/jobs/{job.id}/events"
    assert alice.wait(job.id, poll_interval=0.2).succeeded


def test_submit_yaml_text_file_and_path(alice: Client, tmp_path: Path) -> None:
    a = alice.submit(YAML_SMALL)
    f = tmp_path / "spec.yaml"
    f.write_text(YAML_SMALL)
    b = alice.submit(f)
    c = alice.submit(str(f))
    j = tmp_path / "spec.json"
    j.write_text('{"kind": "tournament", "game": "order-poker", "players": 3, "deals": 45, "shard_deals": 15, '
                 '"seed": 3, "bots": ["order-poker/random", "order-poker/random", "order-poker/random"]}')
    d = alice.submit(j)
    # The service parsed each body: YAML (text, Path, str path) and a JSON file.
    assert [(x.shards_total, x.deals_total) for x in (a, b, c, d)] == [(2, 30)] * 3 + [(3, 45)]
    assert len({a.id, b.id, c.id, d.id}) == 4  # every POST without an idempotency key is a new job
    for x in (a, b, c, d):
        assert alice.wait(x.id, poll_interval=0.2).succeeded


def test_idempotency_key_returns_same_job(alice: Client) -> None:
    first = alice.submit(SMALL, idempotency_key="retry-me")
    again = alice.submit(SMALL, idempotency_key="retry-me")
    other = alice.submit(SMALL, idempotency_key="another")
    assert first.id == again.id != other.id
    for x in (first, other):
        alice.wait(x.id, poll_interval=0.2)


def test_job_list_cancel(alice: Client) -> None:
    job = alice.submit(LONG)
    now = alice.job(job.id)
    assert now.id == job.id and now.state in ("queued", "running") and now.shards_total == 60
    page = alice.jobs(game="order-poker", limit=1)
    assert len(page) == 1 and page.limit == 1 and page.offset == 0
    assert page.jobs[0].id == job.id  # newest first
    everything = alice.jobs(game="order-poker", limit=500)
    assert page.total == everything.total == len(everything) >= 2  # total counts every page
    # Queued first, then running: the job may move from one to the other between the two calls (so it
    # can be listed under both), but not back, so it is listed under at least one.
    by_state = {s: alice.jobs(state=s, limit=500) for s in ("queued", "running")}
    assert all(j.state == s for s, listed in by_state.items() for j in listed)  # the filter holds
    assert job.id in [j.id for listed in by_state.values() for j in listed]
    cancelled = alice.cancel(job.id)
    assert cancelled.state == "cancelled" and cancelled.finished and not cancelled.succeeded
    assert cancelled.shards_done < 60
    assert job.id in [j.id for j in alice.jobs(state="cancelled", limit=500)]
    assert job.id not in [j.id for j in alice.jobs(state="succeeded", limit=500)]
    with pytest.raises(ApiError) as e:
        alice.cancel(job.id)
    assert e.value.status == 409
    assert str(e.value) == f"409 job_id: job {job.id} already finished (cancelled)"


def test_report_query_catalogue(alice: Client, live: Live) -> None:
    done = live.done["id"]
    report = alice.report(done)
    bots = {row["bot"] for row in report["leaderboard"]["rows"]}
    assert bots == {"order-poker/heuristic", "order-poker/random#1", "order-poker/random#2"}
    assert "<svg" in alice.report_html(done)
    seats = shard_table(live, done, "seats")
    sql = "SELECT bot, count(*) AS n, sum(score) AS total FROM seats GROUP BY bot ORDER BY bot"
    cols, rows, truncated = alice.query(sql, jobs=[done])
    assert cols == ["bot", "n", "total"] and truncated is False
    expected = {}
    for bot, score in zip(seats.column("bot").to_pylist(), seats.column("score").to_pylist(), strict=True):
        n, total = expected.get(bot, (0, 0))
        expected[bot] = (n + 1, total + score)
    assert rows == [[b, n, t] for b, (n, t) in sorted(expected.items())]
    # The row limit of the service (QUERY_MAX_ROWS) cuts a bigger answer and says so.
    many = alice.query("SELECT * FROM seats", jobs=[done])
    assert len(many.rows) == QUERY_MAX_ROWS < seats.num_rows and many.truncated is True
    table = alice.query_table(sql, jobs=[done])
    assert table.column_names == cols and [list(r.values()) for r in table.to_pylist()] == rows
    assert "order-poker" in {g["name"] for g in alice.games()}
    assert "order-poker/heuristic" in alice.game("order-poker")["bots"]
    bots_schema = {b["name"]: b["params_schema"] for b in alice.bots()}
    assert "properties" in bots_schema["order-poker/montecarlo"]
    assert alice.health() == {"status": "ok", "checks": {"broker": "ok", "store": "ok", "data_root": "ok"}}


def test_report_of_an_unfinished_job_is_409(alice: Client) -> None:
    job = alice.submit(LONG)
    try:
        with pytest.raises(ApiError, match=rf"^409 job_id: job {job.id} is (queued|running): its report exists"):
            alice.report(job.id)
    finally:
        alice.cancel(job.id)


# --------------------------------------------------------------------------- errors


def test_401_without_key(live: Live) -> None:
    with Client(live.url, key="") as anon, pytest.raises(ApiError) as e:
        anon.submit(SMALL)
    assert e.value.status == 401
    assert str(e.value) == "401 Authorization: missing API key: send Authorization: Bearer <key>"
    assert e.value.problems == [Problem("Authorization", "missing API key: send Authorization: Bearer <key>")]
    with Client(live.url, key="rk_not_a_key") as wrong, pytest.raises(ApiError) as e:
        wrong.job(live.done["id"])
    assert str(e.value) == "401 Authorization: unknown or revoked API key"


def test_404_for_another_keys_job(live: Live) -> None:
    job_id = live.done["id"]
    with Client(live.url, key=live.bob) as bob:
        for call in (bob.job, bob.cancel, bob.report, bob.report_html):
            with pytest.raises(ApiError) as e:
                call(job_id)
            assert str(e.value) == f"404 job_id: no job {job_id}"
        with pytest.raises(ApiError, match=f"^404 job_id: no job {job_id}$"):
            bob.query("SELECT count(*) FROM seats", jobs=[job_id])


def test_422_names_every_field(alice: Client) -> None:
    bots = ["order-poker/heuristic", {"name": "order-poker/montecarlo", "params": {"samples": 0}},
            {"name": "order-poker/montecarlo", "params": {"samples": -1}}]
    with pytest.raises(ApiError) as e:
        alice.submit({**SPEC, "bots": bots})
    assert e.value.status == 422
    assert str(e.value) == "422 bots[1].params.samples: must be >= 1; bots[2].params.samples: must be >= 1"
    with pytest.raises(ApiError, match=r"^422 colour: unknown field$"):
        alice.submit(YAML_SMALL + "colour: red\n")


def test_429_per_key_limits(live: Live) -> None:
    with Client(live.url, key=live.carol) as carol:
        with pytest.raises(ApiError) as e:
            carol.submit({**SPEC, "deals": 2000})
        assert str(e.value) == "429 deals: this key may run at most 1,000 deals per job, the spec asks for 2,000"
        first = carol.submit({**LONG, "deals": 1000})
        try:
            with pytest.raises(ApiError) as e:
                carol.submit(SMALL)
            assert str(e.value) == ("429 this key already has 1 unfinished jobs (its limit is 1): "
                                    "wait for one to finish")
            assert e.value.retry_after == 10.0
        finally:
            carol.cancel(first.id)
        assert carol.wait(carol.submit(SMALL).id, poll_interval=0.2).succeeded  # the slot is free again


def test_413_body_too_large(alice: Client) -> None:
    with pytest.raises(ApiError) as e:
        alice.submit({**SPEC, "name": "x" * (2 * MAX_BODY)})
    assert str(e.value) == f"413 body: request body too large (limit {MAX_BODY:,} bytes)"


def test_400_query_refused(alice: Client, live: Live) -> None:
    with pytest.raises(ApiError, match=r"^400 sql: ") as e:
        alice.query("SELECT * FROM read_csv('/etc/passwd')", jobs=[live.done["id"]])
    assert "\n" not in str(e.value)


def test_error_bodies_of_other_shapes() -> None:
    """Whatever a proxy or framework default sends, the message is one readable line (pure parsing)."""
    pydantic_style = [{"loc": ["body", "bots", 1, "name"], "msg": "required"}]
    answers = {
        "str": httpx.Response(404, json={"detail": "Not Found"}),
        "loc": httpx.Response(422, json={"detail": pydantic_style}),
        "html": httpx.Response(502, text="<html><body>Bad gateway</body></html>"),
        "text": httpx.Response(503, text="upstream\nunavailable\n"),
        "empty": httpx.Response(500, content=b""),
    }
    messages = {name: str(ApiError.from_response(r)) for name, r in answers.items()}
    assert messages == {"str": "404 Not Found", "loc": "422 bots[1].name: required",
                        "html": "502 bad gateway", "text": "503 upstream unavailable",
                        "empty": "500 internal server error"}


def test_unreachable_service() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # bound and released: nothing listens there
    with Client(url, key="k", timeout=5) as c, pytest.raises(UnreachableError) as e:
        c.job("j0001")
    line = str(e.value)
    assert line.startswith(f"cannot reach {url}: ") and "\n" not in line

