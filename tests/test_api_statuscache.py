"""The status cache of ``GET /v1/jobs/{id}`` (api.deps.StatusCache): one load per job however
many pollers miss at once, and a drop (a cancel through this process) never undone by a load
that began before it."""

from __future__ import annotations

import asyncio
import threading

from api.deps import StatusCache


def test_concurrent_misses_share_one_load() -> None:
    calls: list[int] = []
    release = threading.Event()

    def loader() -> tuple[str, bytes]:
        calls.append(1)
        release.wait(5)
        return "alice", b'{"state": "running"}'

    async def main() -> list[tuple[str, bytes] | None]:
        cache = StatusCache(ttl_s=60)
        pollers = [asyncio.ensure_future(cache.load("j-1", loader)) for _ in range(50)]
        await asyncio.sleep(0.05)
        release.set()
        got = await asyncio.gather(*pollers)
        assert cache.get("j-1") == ("alice", b'{"state": "running"}')  # and cached for the next
        return got

    got = asyncio.run(main())
    assert len(calls) == 1 and set(got) == {("alice", b'{"state": "running"}')}


def test_a_load_begun_before_a_drop_is_not_cached_and_later_requests_read_afresh() -> None:
    states = iter([b"running", b"cancelled"])
    release = threading.Event()

    def loader() -> tuple[str, bytes]:
        body = next(states)
        if body == b"running":
            release.wait(5)
        return "alice", body

    async def main() -> None:
        cache = StatusCache(ttl_s=60)
        early = asyncio.ensure_future(cache.load("j-1", loader))
        await asyncio.sleep(0.05)
        cache.drop("j-1")  # the cancel's route: the status just changed
        late = await cache.load("j-1", loader)  # a request after the cancel answered
        assert late == ("alice", b"cancelled")
        release.set()
        assert await early == ("alice", b"running")  # concurrent with the cancel: either is right
        assert cache.get("j-1") == ("alice", b"cancelled")  # the stale read was not put back

    asyncio.run(main())


def test_a_missing_job_is_not_cached() -> None:
    async def main() -> None:
        cache = StatusCache(ttl_s=60)
        assert await cache.load("j-none", lambda: None) is None
        assert cache.get("j-none") is None

    asyncio.run(main())
