"""The client's server-sent-events parser, and ``Client.events`` / ``Client.wait`` against the real service.

Network faults are real too: a TCP relay (tests/tcp_relay.py) between the client and the
real API cuts connections, and the real API process is SIGKILLed and started again.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
from typing import Any

import numpy as np
import pytest
from conftest import SPEC, Live
from service_harness import free_port
from tcp_relay import Fault, Relay

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

#: 8 shards of 60 deals: a few seconds of work, so a test can act while it runs.
MEDIUM: dict[str, Any] = {**SPEC, "deals": 480, "shard_deals": 60}
#: 8 shards of 2,000 deals of three heuristic seats: seconds of work even for the compiled play-out, so that an
#: outage of the API can fall inside the job (MEDIUM's sub-second job could end before the API was killed).
STEADY: dict[str, Any] = {**SPEC, "bots": ["order-poker/heuristic"] * 3, "deals": 16_000, "shard_deals": 2_000}
#: 60 shards: runs until the test cancels it.
LONG: dict[str, Any] = {**SPEC, "bots": ["order-poker/heuristic"] * 3, "deals": 6000, "shard_deals": 100}
#: The end of the first event with a job in it (``retry: 2000\n\n`` comes before it).
END_OF_FIRST_EVENT = b"}\n\n"


def submit(live: Live, spec: dict[str, Any], seed: int) -> str:
    with Client(live.url, key=live.alice) as c:
        return c.submit({**spec, "seed": seed}).id


def cancel(live: Live, job_id: str) -> None:
    with Client(live.url, key=live.alice) as c:
        if not c.job(job_id).finished:
            c.cancel(job_id)


def test_events_stream_progress_then_end(live: Live) -> None:
    job_id = submit(live, SPEC, seed=101)
    with Client(live.url, key=live.alice) as c:
        jobs = list(c.events(job_id))
    assert jobs[-1].state == "succeeded" and jobs[-1].finished
    assert (jobs[-1].shards_done, jobs[-1].deals_done) == (8, 120)
    assert all(j.shards_total == 8 and j.id == job_id for j in jobs)
    assert not any(j.finished for j in jobs[:-1])  # one end event, last
    done = [j.shards_done for j in jobs]
    assert done == sorted(done)  # progress never goes back
    changes = [(j.state, j.shards_done) for j in jobs]
    assert all(a != b for a, b in itertools.pairwise(changes))  # an event per change only


def test_events_raise_when_stream_drops(live: Live) -> None:
    job_id = submit(live, LONG, seed=102)
    relay = Relay(live.port, lambda m, p, n: Fault(marker=END_OF_FIRST_EVENT) if p.endswith("/events") else None)
    try:
        seen: list[str] = []
        with Client(relay.url, key=live.alice) as c, \
                pytest.raises(StreamInterrupted, match=rf"^/v1/jobs/{job_id}/events: stream broke: "):
            for job in c.events(job_id):
                seen.append(job.state)
        assert len(seen) == 1 and seen[0] in ("queued", "running")  # the event before the cut
        assert relay.cuts == 1
    finally:
        relay.close()
        cancel(live, job_id)


def test_wait_reconnects_after_drop(live: Live) -> None:
    job_id = submit(live, MEDIUM, seed=103)
    # Only the first events connection is cut, right after its first event.
    relay = Relay(live.port, lambda m, p, n: Fault(marker=END_OF_FIRST_EVENT)
                  if p.endswith("/events") and n == 0 else None)
    updates: list[tuple[str, int]] = []
    with relay, Client(relay.url, key=live.alice) as c:
        final = c.wait(job_id, on_progress=lambda j: updates.append((j.state, j.shards_done)))
    assert final.state == "succeeded" and final.shards_done == 8
    assert relay.cuts == 1 and relay.count("GET", "/events") >= 2  # dropped once, reconnected
    done = [n for _, n in updates]
    assert done == sorted(done) and done[-1] == 8  # progress never goes backwards


def test_wait_falls_back_to_polling(live: Live) -> None:
    """Every events stream dies before its first event (a proxy that cannot stream): wait polls."""
    job_id = submit(live, LONG, seed=104)
    relay = Relay(live.port, lambda m, p, n: Fault(marker=b"\r\n\r\n") if p.endswith("/events") else None)
    polls_after_streams: list[Job] = []

    def on_progress(job: Job) -> None:
        if relay.count("GET", "/events") == 3:
            polls_after_streams.append(job)
            if len(polls_after_streams) == 3:  # polled three times after giving up the stream
                cancel(live, job_id)

    with relay, Client(relay.url, key=live.alice) as c:
        final = c.wait(job_id, on_progress=on_progress, poll_interval=0.05)
    assert final.state == "cancelled" and final.error == "cancelled by its owner"
    assert relay.count("GET", "/events") == 3  # three failed stream attempts, then polling only
    assert relay.count("GET", f"/v1/jobs/{job_id}") >= 5
    done = [j.shards_done for j in polls_after_streams]
    assert done == sorted(done)


def test_wait_raises_for_unknown_and_foreign_jobs(live: Live) -> None:
    job_id = live.done["id"]
    with Client(live.url, key=live.bob) as bob, pytest.raises(ApiError) as e:
        bob.wait(job_id)
    assert str(e.value) == f"404 job_id: no job {job_id}"
    with Client(live.url, key=live.alice) as c, pytest.raises(ApiError, match=r"^404 job_id: no job nope$"):
        list(c.events("nope"))


def test_wait_on_finished_job_returns_it(live: Live) -> None:
    with Client(live.url, key=live.alice) as c:
        first = c.wait(live.done["id"])
        again = c.wait(live.done["id"])
        polled = c.job(live.done["id"])
    assert first.state == again.state == "succeeded"
    assert json.dumps(first.raw, sort_keys=True) == json.dumps(again.raw, sort_keys=True)
    assert first.raw == polled.raw  # the end event carries the job exactly as GET shows it


def test_wait_survives_a_restart_of_the_service(live: Live) -> None:
    """The API process is SIGKILLed mid-stream and started again on its port: wait reconnects and finishes."""
    svc = live.svc
    job_id = submit(live, STEADY, seed=105)
    first_event = threading.Event()
    updates: list[Job] = []
    result: list[object] = []

    def on_progress(job: Job) -> None:
        updates.append(job)
        first_event.set()

    c = Client(live.url, key=live.alice)

    def run() -> None:
        try:
            result.append(c.wait(job_id, on_progress=on_progress, poll_interval=0.2))
        except Exception as e:  # reported by the assertions below
            result.append(e)

    t = threading.Thread(target=run)
    t.start()
    try:
        assert first_event.wait(60)
        assert svc.api is not None
        old = svc.api.pid
        os.killpg(old, signal.SIGKILL)  # the stream breaks; polls are refused while it is down
        svc.api.wait(30)
        n_before = len(updates)
        assert t.is_alive() and not updates[-1].finished  # the wait really spans the outage
        svc.start_api()  # same port
        assert svc.api.pid != old
        t.join(120)
    finally:
        c.close()
        if svc.api is None or svc.api.poll() is not None:  # a failed assertion above: the next tests need an API
            svc.start_api()
    assert len(result) == 1 and isinstance(result[0], Job), result
    assert result[0].state == "succeeded" and result[0].shards_done == 8
    assert len(updates) > n_before  # heard from the new API process
    done = [j.shards_done for j in updates]
    assert done == sorted(done)


def test_wait_fails_at_once_when_never_reached() -> None:
    with Client(f"http://127.0.0.1:{free_port()}", key="k") as c, pytest.raises(UnreachableError,
                                                                                   match=r"^cannot reach"):
        c.wait("j0001", poll_interval=0.01, max_outage=3600)

