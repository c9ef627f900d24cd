"""The client's server-sent-events parser, ``Client.events`` and ``Client.wait`` over real HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from client_standin import StandIn, closed_port_url, serve

from rasklad.client import ApiError, Client, Job, SSEEvent, SSEParser, StreamInterrupted, UnreachableError

STREAM = (
    "\ufeff: welcome\n"
    "retry: 1500\n"
    "\n"
    "event: progress\r\n"
    "id: 7\r\n"
    "data: {\"a\":\r\n"
    "data:  1}\r\n"
    "\r\n"
    ": ping\r"
    "\r"
    "data\n"
    "data:x\n"
    "ignored: field\n"
    "\n"
    "event: nodata\n"
    "\n"
    "event: end\r"
    "data: {}\r"
    "\r"
)
EXPECTED = [
    SSEEvent("progress", '{"a":\n 1}', "7", 1500),
    SSEEvent("message", "\nx", "7", 1500),
    SSEEvent("end", "{}", "7", 1500),
]


def parse_in_pieces(text: str, cuts: list[int]) -> tuple[list[SSEEvent], SSEParser]:
    parser = SSEParser()
    out: list[SSEEvent] = []
    last = 0
    for c in [*cuts, len(text)]:
        out += parser.feed(text[last:c])
        last = c
    out += parser.close()
    return out, parser


def test_parser_whole_stream() -> None:
    events, parser = parse_in_pieces(STREAM, [])
    assert events == EXPECTED
    assert parser.comments == 2  # ": welcome" and ": ping"
    assert parser.last_id == "7"


@pytest.mark.parametrize("cut", range(len(STREAM) + 1))
def test_parser_any_single_split(cut: int) -> None:
    """A chunk boundary anywhere (mid-field, between CR and LF, in the BOM) changes nothing."""
    assert parse_in_pieces(STREAM, [cut])[0] == EXPECTED


def test_parser_random_chunking() -> None:
    rng = np.random.default_rng(20250101)
    for _ in range(200):
        cuts = sorted(rng.choice(len(STREAM), size=int(rng.integers(1, 12)), replace=False).tolist())
        assert parse_in_pieces(STREAM, cuts)[0] == EXPECTED


def test_parser_one_char_at_a_time() -> None:
    assert parse_in_pieces(STREAM, list(range(1, len(STREAM))))[0] == EXPECTED


def test_parser_unterminated_last_event_is_dropped() -> None:
    events, _ = parse_in_pieces("data: a\n\ndata: b\n", [])
    assert events == [SSEEvent("message", "a")]


def test_parser_trailing_cr_at_end_of_stream_ends_line() -> None:
    # A lone CR is a line end; at the very end of the stream nothing more can follow it.
    events, _ = parse_in_pieces("data: a\r\r", [])
    assert events == [SSEEvent("message", "a")]


def test_parser_field_rules() -> None:
    parser = SSEParser()
    got = parser.feed("data:no-space\ndata:  two spaces\nretry: soon\nid: a\0b\nevent:\n\n")
    # One leading space is dropped (not two); a non-numeric retry and an id with NUL are ignored;
    # an empty event name means the default "message".
    assert got == [SSEEvent("message", "no-space\n two spaces", None, None)]


# --------------------------------------------------------------------------- over HTTP


@pytest.fixture(scope="module")
def standin() -> Iterator[tuple[StandIn, str]]:
    s = StandIn()
    with serve(s.app) as url:
        yield s, url


def submit(url: str, name: str, shards: int = 4) -> str:
    with Client(url, key="k-alice") as c:
        return c.submit({"kind": "tournament", "game": "order-poker", "name": name, "shards": shards}).id


def test_events_stream_keepalives_and_multiline(standin: tuple[StandIn, str]) -> None:
    s, url = standin
    job_id = submit(url, "plain", shards=5)
    with Client(url, key="k-alice") as c:
        jobs = list(c.events(job_id))
    assert [j.shards_done for j in jobs] == [1, 2, 3, 4, 5, 5]  # five progress events, then end
    assert all(j.shards_total == 5 for j in jobs)
    assert jobs[-1].state == "succeeded" and jobs[-1].finished
    assert [j.state for j in jobs[:-2]] == ["running"] * 4
    assert jobs[0].raw["future_field"] == 1  # unknown fields kept, not rejected
    assert s.jobs[job_id].connections == 1


def test_events_raise_when_stream_drops(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    job_id = submit(url, "drop")
    with Client(url, key="k-alice") as c:
        seen = []
        with pytest.raises(StreamInterrupted, match="closed before the end event"):
            for job in c.events(job_id):
                seen.append(job.shards_done)
    assert seen == [1]


def test_wait_reconnects_after_drop(standin: tuple[StandIn, str]) -> None:
    s, url = standin
    job_id = submit(url, "drop", shards=6)
    updates: list[tuple[str, int]] = []
    with Client(url, key="k-alice") as c:
        final = c.wait(job_id, on_progress=lambda j: updates.append((j.state, j.shards_done)))
    assert final.state == "succeeded" and final.shards_done == 6
    fake = s.jobs[job_id]
    assert fake.connections == 2  # dropped once, reconnected once
    # The reconnect sends the id of the last event it saw, as SSE clients do.
    assert fake.last_event_ids == [None, f"{job_id}-1"]
    done = [n for _, n in updates]
    assert done == sorted(done) and done[-1] == 6  # progress never goes backwards
    assert updates[0] == ("running", 1)


def test_wait_falls_back_to_polling(standin: tuple[StandIn, str]) -> None:
    s, url = standin
    job_id = submit(url, "nostream-fail", shards=5)
    updates: list[int] = []
    with Client(url, key="k-alice") as c:
        final = c.wait(job_id, on_progress=lambda j: updates.append(j.shards_done), poll_interval=0.01)
    assert final.state == "failed"
    assert final.error is not None and "killed its worker" in final.error
    assert s.jobs[job_id].connections == 3  # three failed stream attempts, then polling only
    assert updates == sorted(updates) and updates[-1] == 5


def test_wait_raises_for_unknown_and_foreign_jobs(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    job_id = submit(url, "plain")
    with Client(url, key="k-bob") as bob, pytest.raises(ApiError) as e:
        bob.wait(job_id)
    assert e.value.status == 404
    with Client(url, key="k-alice") as c, pytest.raises(ApiError, match=r"^404 no job 'nope'$"):
        list(c.events("nope"))


def test_wait_on_finished_job_returns_it(standin: tuple[StandIn, str]) -> None:
    _, url = standin
    job_id = submit(url, "plain", shards=1)
    with Client(url, key="k-alice") as c:
        first = c.wait(job_id)
        again = c.wait(job_id)
    assert first.state == again.state == "succeeded"
    assert json.dumps(first.raw, sort_keys=True) == json.dumps(again.raw, sort_keys=True)


def test_wait_rides_out_5xx_polls(standin: tuple[StandIn, str]) -> None:
    s, url = standin
    job_id = submit(url, "nostream-flaky", shards=4)
    with Client(url, key="k-alice") as c:
        final = c.wait(job_id, poll_interval=0.01)
    assert final.state == "succeeded" and final.shards_done == 4
    assert s.jobs[job_id].polls == 6  # 4 advancing polls and the two 503s in between


def test_wait_survives_a_restart_of_the_service() -> None:
    """The API goes away mid-stream and comes back on the same port: wait reconnects and finishes."""
    s = StandIn()
    result: list[object] = []
    with serve(s.app) as url:
        port = int(url.rsplit(":", 1)[1])
        job_id = submit(url, "hold", shards=3)
        c = Client(url, key="k-alice")
        t = threading.Thread(target=lambda: result.append(c.wait(job_id, poll_interval=0.05)))
        t.start()
        for _ in range(3000):  # until the first event has gone out and the stream is held
            if s.jobs[job_id].connections == 1 and s.jobs[job_id].shards_done == 1:
                break
            threading.Event().wait(0.01)
        assert s.jobs[job_id].shards_done == 1
    # The server is down now: the client's stream broke and its polls are refused.
    s.gate.set()
    with serve(s.app, port=port):
        t.join(60)
    c.close()
    assert len(result) == 1 and isinstance(result[0], Job)
    assert result[0].state == "succeeded" and result[0].shards_done == 3
    assert s.jobs[job_id].connections >= 2


def test_wait_fails_at_once_when_never_reached() -> None:
    with Client(closed_port_url(), key="k") as c, pytest.raises(UnreachableError, match=r"^cannot reach"):
        c.wait("j0001", poll_interval=0.01, max_outage=3600)
