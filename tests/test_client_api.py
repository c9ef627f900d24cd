"""``rasklad.client.Client`` against a stand-in of the HTTP API on a real uvicorn: requests, errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from client_standin import MAX_BODY, StandIn, closed_port_url, serve

from rasklad.client import ApiError, Client, Job, Problem, RaskladError, UnreachableError

SPEC = {"kind": "tournament", "game": "order-poker", "deals": 1000, "shards": 3}
YAML_SPEC = "kind: tournament\ngame: order-poker\ndeals: 2000\nshards: 2\n"


@pytest.fixture(scope="module")
def standin() -> Iterator[tuple[StandIn, str]]:
    s = StandIn()
    with serve(s.app) as url:
        yield s, url


@pytest.fixture
def alice(standin: tuple[StandIn, str]) -> Iterator[Client]:
    with Client(standin[1], key="k-alice") as c:
        yield c


def test_url_and_key_from_environment(standin: tuple[StandIn, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RASKLAD_URL", standin[1] + "/")
    monkeypatch.setenv("RASKLAD_KEY", "k-alice")
    with Client() as c:
        assert c.url == standin[1]
        assert c.submit(SPEC).owner == "alice"
    monkeypatch.delenv("RASKLAD_URL")
    monkeypatch.delenv("RASKLAD_KEY")
    with Client() as c:
        assert c.url == "http://127.0.0.1:8000" and c.key is None


def test_bad_url_is_refused() -> None:
    with pytest.raises(RaskladError, match="must start with http"):
        Client("127.0.0.1:8000")


def test_submit_dict_returns_job(alice: Client) -> None:
    job = alice.submit(SPEC)
    assert isinstance(job, Job)
    assert (job.kind, job.game, job.state, job.shards_total, job.deals_total) == (
        "tournament", "order-poker", "queued", 3, 3000)
    assert job.created_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert job.started_at is None and job.deals_per_s is None and not job.finished
    assert job.links["events"] == f"/v1/jobs/{job.id}/events"


def test_submit_yaml_text_file_and_path(alice: Client, standin: tuple[StandIn, str], tmp_path: Path) -> None:
    s, _ = standin
    a = alice.submit(YAML_SPEC)
    f = tmp_path / "spec.yaml"
    f.write_text(YAML_SPEC)
    b = alice.submit(f)
    c = alice.submit(str(f))
    j = tmp_path / "spec.json"
    j.write_text('{"kind": "deal-stats", "game": "quintet"}')
    d = alice.submit(j)
    assert [x.shards_total for x in (a, b, c)] == [2, 2, 2]
    assert [s.jobs[x.id].spec["deals"] for x in (a, b, c)] == [2000] * 3
    assert (d.kind, d.game) == ("deal-stats", "quintet")
    assert len({a.id, b.id, c.id, d.id}) == 4  # every POST is a new job


def test_idempotency_key_returns_same_job(alice: Client) -> None:
    first = alice.submit(SPEC, idempotency_key="retry-me")
    again = alice.submit(SPEC, idempotency_key="retry-me")
    other = alice.submit(SPEC, idempotency_key="another")
    assert first.id == again.id != other.id


def test_job_list_cancel(alice: Client) -> None:
    job = alice.submit({**SPEC, "game": "quintet"})
    now = alice.job(job.id)
    assert now.id == job.id and now.state == "running" and now.shards_done == 1
    page = alice.jobs(game="quintet", limit=1)
    assert page.total >= 1 and len(page) == 1 and page.limit == 1 and page.offset == 0
    assert all(j.game == "quintet" for j in page)
    cancelled = alice.cancel(job.id)
    assert cancelled.state == "cancelled" and cancelled.finished and not cancelled.succeeded
    assert job.id in [j.id for j in alice.jobs(state="cancelled", limit=100)]
    with pytest.raises(ApiError) as e:
        alice.cancel(job.id)
    assert e.value.status == 409
    assert str(e.value) == f"409 job {job.id} already cancelled"


def test_report_query_catalogue(alice: Client, standin: tuple[StandIn, str]) -> None:
    s, _ = standin
    job = alice.submit({**SPEC, "shards": 1})
    with pytest.raises(ApiError, match=r"^409 job .* is queued, not succeeded$"):
        alice.report(job.id)
    assert alice.wait(job.id).succeeded
    assert alice.report(job.id)["leaderboard"][0]["bot"] == "order-poker/heuristic"
    assert job.id in alice.report_html(job.id)
    sql = "SELECT bot, count(*) n, avg(score) FROM seats GROUP BY bot"
    cols, rows, truncated = alice.query(sql, jobs=[job.id])
    assert cols == ["bot", "n", "avg_score"] and truncated
    assert rows[0] == ["order-poker/heuristic", 4000, 0.25]
    assert s.queries[-1] == {"sql": sql, "jobs": [job.id]}
    assert alice.query("SELECT 1 LIMIT 1").truncated is False
    assert s.queries[-1]["jobs"] is None  # null means all of the caller's jobs
    table = alice.query_table("SELECT bot FROM seats")
    assert table.column_names == cols and table.num_rows == 2
    assert alice.games() == [{"name": "order-poker", "description": "Order Poker"}]
    assert alice.bots()[0]["params_schema"] == {"type": "object"}
    health = alice.health()  # a 503 of /healthz is an answer, not an error
    assert health["status"] == "degraded" and health["checks"]["broker"] == "down"


# --------------------------------------------------------------------------- errors


def test_401_without_key(standin: tuple[StandIn, str]) -> None:
    with Client(standin[1], key="") as anon, pytest.raises(ApiError) as e:
        anon.submit(SPEC)
    assert e.value.status == 401
    assert str(e.value) == "401 Authorization: missing API key: send Authorization: Bearer <key>"
    assert e.value.problems == [Problem("Authorization", "missing API key: send Authorization: Bearer <key>")]


def test_404_for_another_keys_job(alice: Client, standin: tuple[StandIn, str]) -> None:
    job = alice.submit(SPEC)
    with Client(standin[1], key="k-bob") as bob:
        for call in (bob.job, bob.cancel, bob.report):
            with pytest.raises(ApiError) as e:
                call(job.id)
            assert str(e.value) == f"404 no job '{job.id}'"


def test_422_names_every_field(alice: Client) -> None:
    bots = [{"params": p} for p in ({}, {"samples": 5}, {"samples": 0}, {"samples": -1})]
    bad = {"kind": "tournament", "bots": bots}
    with pytest.raises(ApiError) as e:
        alice.submit(bad)
    assert e.value.status == 422
    assert str(e.value) == "422 bots[2].params.samples: must be > 0; bots[3].params.samples: must be > 0"
    with pytest.raises(ApiError, match=r"^422 bots\[0\]\.params\.samples: must be > 0$"):
        alice.submit({"kind": "deal-stats", "bots": [{"params": {"samples": 0}}]})


def test_429_keeps_retry_after(alice: Client) -> None:
    with pytest.raises(ApiError) as e:
        alice.submit({**SPEC, "deals": 10**9})
    assert str(e.value) == "429 deals: deals per job over your limit of 1000000"
    assert e.value.retry_after == 30.0


def test_413_body_too_large(alice: Client) -> None:
    with pytest.raises(ApiError) as e:
        alice.submit({**SPEC, "padding": "x" * (2 * MAX_BODY)})
    assert str(e.value) == f"413 request body over {MAX_BODY} bytes"


def test_400_query_refused(alice: Client) -> None:
    with pytest.raises(ApiError, match=r"^400 sql: read_csv is not allowed"):
        alice.query("SELECT * FROM read_csv('/etc/passwd')")


def test_error_bodies_of_other_shapes() -> None:
    """Whatever a proxy or framework default sends, the message is one readable line."""
    def respond(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v1/jobs/str":
            return httpx.Response(404, json={"detail": "Not Found"})
        if path == "/v1/jobs/loc":
            pydantic_style = [{"loc": ["body", "bots", 1, "name"], "msg": "required"}]
            return httpx.Response(422, json={"detail": pydantic_style})
        if path == "/v1/jobs/html":
            return httpx.Response(502, text="<html><body>Bad gateway</body></html>")
        if path == "/v1/jobs/text":
            return httpx.Response(503, text="upstream\nunavailable\n")
        return httpx.Response(500, content=b"")

    with Client("http://x.invalid", key="k", transport=httpx.MockTransport(respond)) as c:
        messages = {}
        for name in ("str", "loc", "html", "text", "empty"):
            with pytest.raises(ApiError) as e:
                c.job(name)
            messages[name] = str(e.value)
    assert messages == {"str": "404 Not Found", "loc": "422 bots[1].name: required",
                        "html": "502 bad gateway", "text": "503 upstream unavailable",
                        "empty": "500 internal server error"}


def test_unreachable_service() -> None:
    url = closed_port_url()
    with Client(url, key="k-alice", timeout=5) as c, pytest.raises(UnreachableError) as e:
        c.job("j0001")
    line = str(e.value)
    assert line.startswith(f"cannot reach {url}: ") and "\n" not in line
