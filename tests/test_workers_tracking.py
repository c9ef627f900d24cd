"""The delivery counter of shards (workers/tracking.py) in a real Redis database.

A shard fails its job after ``max_deliveries`` starts whose worker died. Celery starts one
message again only after the process running it died, so a message's own starts count; the
reaper's finds (a lease nobody renewed) count; but another message of the same shard running
beside it is a duplicate (a message sent before a cancel and run after the resume), not a death.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from service_harness import REDIS_HOST, REDIS_PORT, redis_db

from workers.tracking import Tracker


@pytest.fixture
def tracker() -> Iterator[Tracker]:
    with redis_db() as db:
        yield Tracker(f"redis://{REDIS_HOST}:{REDIS_PORT}/{db}")


def test_duplicate_messages_of_a_shard_are_not_deaths(tracker: Tracker) -> None:
    assert tracker.count_delivery("j", 3, "old-message") == 1
    assert tracker.count_delivery("j", 3, "resumed-message") == 1  # runs beside it: no death
    assert tracker.count_delivery("j", 4, "old-message") == 1  # another shard counts apart


def test_a_redelivered_message_and_the_reapers_finds_are_deaths(tracker: Tracker) -> None:
    assert tracker.count_delivery("j", 0, "m1") == 1
    assert tracker.count_delivery("j", 0, "m1") == 2  # the pool process running m1 died
    tracker.note_reaped("j", 0)  # then the whole worker died: the reaper queued m2
    assert tracker.count_delivery("j", 0, "m2") == 1 + 1
    assert tracker.count_delivery("j", 0, "m1") == 3 + 1


def test_a_normal_end_forgets_its_own_starts_and_the_reapers_only(tracker: Tracker) -> None:
    tracker.count_delivery("j", 0, "a")
    tracker.count_delivery("j", 0, "a")
    tracker.count_delivery("j", 0, "b")
    tracker.note_reaped("j", 0)
    tracker.reset_deliveries("j", 0, "a")
    assert tracker.count_delivery("j", 0, "a") == 1
    assert tracker.count_delivery("j", 0, "b") == 2  # b's own earlier start is still counted
    tracker.reset_deliveries("j", 0)  # a resumed job starts every shard afresh
    assert tracker.count_delivery("j", 0, "b") == 1


def test_forget_job_drops_the_counters(tracker: Tracker) -> None:
    tracker.count_delivery("j", 0, "a")
    tracker.note_reaped("j", 1)
    tracker.forget_job("j")
    assert not list(tracker.r.scan_iter("rasklad:deliveries:j:*"))


def test_a_mark_stays_pending_until_its_send_is_confirmed(tracker: Tracker) -> None:
    """A process killed between ``mark_queued`` and its sends leaves pending marks (workers.jobs reconciles)."""
    tracker.mark_queued("j", [4, 5, 6])
    assert tracker.stale_pending("j", -1.0) == {4, 5, 6}  # older than "1 s in the future": all three
    assert tracker.stale_pending("j", 3600.0) == set()  # just marked: not stale yet
    tracker.sent("j", [4])
    tracker.unmark("j", 5)  # committed before its sender confirmed: no longer pending either
    assert tracker.stale_pending("j", -1.0) == {6}
    assert tracker.queued("j") == {4, 6}
    tracker.forget_job("j")
    assert tracker.stale_pending("j", -1.0) == set() and tracker.in_flight("j") == 0


def test_the_fleet_drops_expired_workers_but_not_one_that_noted_itself_again(tracker: Tracker) -> None:
    from workers.tracking import _DROP_IF_UNCHANGED

    tracker.note_worker("w1", 2, 30.0)
    tracker.note_worker("w2", 3, -1.0)  # its heartbeat ran out a second ago
    assert tracker.fleet() == {"w1": 2}
    assert tracker.r.hget(Tracker._FLEET, "w2") is None  # dropped from the hash too
    # The drop compares the value it read: a worker back from a cut-off that noted itself between the
    # read and the drop keeps its new entry.
    tracker.note_worker("w3", 1, -1.0)
    stale = tracker.r.hget(Tracker._FLEET, "w3")
    tracker.note_worker("w3", 4, 30.0)
    tracker.r.eval(_DROP_IF_UNCHANGED, 1, Tracker._FLEET, "w3", str(stale))
    assert tracker.fleet() == {"w1": 2, "w3": 4}
