"""The event streams (server-sent events) a key may hold open at once, across the API processes.

Why: an event stream lives as long as its client wants, and each one polls the job store every
``events_poll_s``; 400 streams of one key were all accepted. A key may have ``events_per_key``
streams open (``/v1/jobs/{id}/events`` and the web app's ``/web/api/events`` together); one more
is a 429 naming the setting, before the stream starts.

The streams are counted where a key's SQL slots are (``api.sqlexec``): a sorted set per key in the
broker's Redis, member a stream's token, score its expiry in Redis's own clock. A stream renews its
entry while it lives (every ``ttl_s / 3``), so a stream of a process that died stops counting
after ``ttl_s`` while a live one never expires however long it lasts. Without Redis the count
falls back to this process's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import time
import weakref
from collections.abc import AsyncIterator

import redis

from api.errors import ApiError
from api.slots import TAKE as _OPEN  # take a place of a key if fewer than the limit are held

log = logging.getLogger("rasklad.api")

#: Renew one token's expiry (only if it is still there: an expired stream does not come back).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return n
"""


class Stream:
    """One open event stream's place; ``renew()`` while it lives, ``close()`` (idempotent) at its end."""

    def __init__(self, owner: StreamLimit, key: str, token: str | None) -> None:
        self._owner = owner
        self._key = key
        self._token = token
        self._renewed = time.monotonic()
        self._closed = False

    def due(self) -> bool:
        """Whether the entry should be renewed now (every ``ttl_s / 3``)."""
        return self._token is not None and not self._closed and \
            time.monotonic() - self._renewed >= self._owner.ttl_s / 3

    def renew(self) -> None:
        """Keep the entry alive (one Redis round trip: blocking)."""
        if self._token is not None and not self._closed:
            self._renewed = time.monotonic()
            self._owner._renew(self._key, self._token)

    def close(self) -> None:
        with self._owner._lock:
            if self._closed:
                return
            self._closed = True
        self._owner._close(self._key, self._token)


class StreamLimit:
    """At most ``per_key`` open event streams per key (``events_per_key``), counted in ``shared``."""

    def __init__(self, per_key: int, shared: redis.Redis | None = None, ttl_s: float = 60.0) -> None:
        self.per_key = per_key
        self.shared = shared
        self.ttl_s = ttl_s
        self._open_script = shared.register_script(_OPEN) if shared is not None else None
        self._renew_script = shared.register_script(_RENEW) if shared is not None else None
        self._lock = threading.Lock()
        self._by_key: dict[str, int] = {}

    @staticmethod
    def _set(key: str) -> str:
        return f"rasklad:event-streams:{key}"

    def _refused(self, held: int) -> ApiError:
        return ApiError(429, f"this key already has {held} event streams open (its limit is {self.per_key}, "
                             "events_per_key): close one, or poll GET /v1/jobs/{id} instead", "",
                        headers={"Retry-After": "5"})

    def open(self, key: str) -> Stream:
        """A place for one more stream of ``key``; 429 past the limit. Blocking (one Redis round trip)."""
        with self._lock:
            mine = self._by_key.get(key, 0)
            if self._open_script is None and mine >= self.per_key:
                raise self._refused(mine)
            self._by_key[key] = mine + 1
        token = None
        if self._open_script is not None:
            token = secrets.token_hex(8)
            try:
                held = int(self._open_script(keys=[self._set(key)],
                                             args=[self.per_key, round(self.ttl_s * 1000), token]))
            except redis.RedisError as e:  # Redis down: this process's own count is the limit
                log.warning("event streams: Redis unreachable (%s), counting in this process only", e)
                token, held = None, (mine if mine >= self.per_key else -1)
            if held >= 0:
                self._close(key, None)
                raise self._refused(held)
        return Stream(self, key, token)

    def _renew(self, key: str, token: str) -> None:
        assert self._renew_script is not None
        with contextlib.suppress(redis.RedisError):
            self._renew_script(keys=[self._set(key)], args=[round(self.ttl_s * 1000), token])

    def _close(self, key: str, token: str | None) -> None:
        if token is not None and self.shared is not None:
            with contextlib.suppress(redis.RedisError):
                self.shared.zrem(self._set(key), token)
        with self._lock:
            n = self._by_key.get(key, 0) - 1
            if n > 0:
                self._by_key[key] = n
            else:
                self._by_key.pop(key, None)

    def open_count(self) -> dict[str, int]:
        """Streams open in this process, per key (for tests and metrics)."""
        with self._lock:
            return dict(self._by_key)


def held(stream: Stream, events: AsyncIterator[str]) -> AsyncIterator[str]:
    """``events`` while ``stream`` holds its place: renewed as they flow (the streams send a ping at
    least every 15 s), closed when they end, fail or the client goes away, or when the body is
    dropped without ever being iterated (a client gone before the response started)."""

    async def body() -> AsyncIterator[str]:
        try:
            async for item in events:
                if stream.due():
                    await asyncio.to_thread(stream.renew)
                yield item
        finally:
            stream.close()

    out = body()
    weakref.finalize(out, stream.close)
    return out
