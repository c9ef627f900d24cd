"""One executor for every piece of user SQL the API runs: queries, download filters, column lists.

Why it exists: a user's SQL may run for its whole time limit on every core it gets. Run on the
threads that serve the other routes (anyio's pool) or on the event loop, a few such statements
stalled every tenant, ``/healthz`` included. Here:

- user SQL (and the Arrow→JSON/CSV/Parquet encoding of its result) runs only on this
  executor's own small thread pool (``query_workers`` threads), never on the event loop or on
  the threads of the other routes;
- each key may have ``query_per_key`` statements in flight (queries and downloads together)
  across every API process that shares the broker's Redis (a sorted set of slots per key,
  taken and counted by one Lua script; a slot of a process that died expires), and each
  process at most ``4 x query_workers``: over either, 429 with ``Retry-After`` at once
  (nothing queues behind a tenant's runaway statements). Without Redis the per-key count
  falls back to this process's own;
- a statement is interrupted when its client goes away (``stop`` event → ``con.interrupt()``)
  and by the sandbox's time, memory, row and byte limits (``storage.query``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import redis
from starlette.requests import Request

from api.errors import ApiError

T = TypeVar("T")

#: How often a waiting route checks whether its client is still connected (seconds).
DISCONNECT_POLL_S = 0.2
log = logging.getLogger("rasklad.api")

#: Take one of a key's slots if it has fewer than ARGV[1] unexpired ones: KEYS[1] is the key's
#: sorted set (member: a slot token, score: its expiry in ms of Redis's own clock, so API hosts
#: need no common clock). Returns -1 when taken, else the number of slots held.
_TAKE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then return held end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return -1
"""


class Slot:
    """One statement's place in the executor; ``release()`` may be called more than once."""

    def __init__(self, owner: SqlExecutor, key: str, token: str | None) -> None:
        self._owner = owner
        self._key = key
        self._token = token
        self._released = False

    def release(self) -> None:
        with self._owner._lock:
            if self._released:
                return
            self._released = True
        self._owner._release(self._key, self._token)


class SqlExecutor:
    """The pool and the per-key admission of user SQL of one API process.

    ``shared``: the Redis that every API process of the deployment reaches (the broker's), where
    a key's slots are counted across processes; ``slot_ttl_s``: how long a slot of a process
    that died without releasing it keeps counting (longer than any statement may run).
    """

    def __init__(self, workers: int, per_key: int, retry_after_s: float,
                 shared: redis.Redis | None = None, slot_ttl_s: float = 120.0) -> None:
        self.workers = workers
        self.per_key = per_key
        self.max_in_flight = 4 * workers
        self.retry_after_s = retry_after_s
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="rasklad-sql")
        self.shared = shared
        self.slot_ttl_ms = max(1, round(slot_ttl_s * 1000))
        self._take = shared.register_script(_TAKE_SLOT) if shared is not None else None
        self._lock = threading.Lock()
        self._by_key: dict[str, int] = {}
        self._total = 0

    @staticmethod
    def _slots(key: str) -> str:
        return f"rasklad:sql-slots:{key}"

    def acquire(self, key: str) -> Slot:
        """A place for one statement of ``key``; 429 with Retry-After when a limit is reached.

        Blocking (one Redis round trip): call it off the event loop.
        """
        retry = {"Retry-After": str(max(1, round(self.retry_after_s)))}

        def refused(held: int) -> ApiError:
            return ApiError(429, f"this key already has {held} queries or downloads running (its limit is "
                                 f"{self.per_key}, query_per_key): wait for one to finish", "", headers=retry)

        with self._lock:
            mine = self._by_key.get(key, 0)
            if self._take is None and mine >= self.per_key:
                raise refused(mine)
            if self._total >= self.max_in_flight:
                raise ApiError(429, f"the server is running {self._total} queries and downloads, its limit "
                                    f"(4 x query_workers): try again shortly", "", headers=retry)
            self._by_key[key] = mine + 1
            self._total += 1
        token = None
        if self._take is not None:
            token = secrets.token_hex(8)
            try:
                held = int(self._take(keys=[self._slots(key)], args=[self.per_key, self.slot_ttl_ms, token]))
            except redis.RedisError as e:  # Redis down: this process's own count is the limit
                log.warning("per-key SQL slots: Redis unreachable (%s), counting in this process only", e)
                token, held = None, (mine if mine >= self.per_key else -1)
            if held >= 0:
                self._release(key, None)
                raise refused(held)
        return Slot(self, key, token)

    def _release(self, key: str, token: str | None) -> None:
        if token is not None and self.shared is not None:
            with contextlib.suppress(redis.RedisError):
                self.shared.zrem(self._slots(key), token)
        with self._lock:
            n = self._by_key.get(key, 0) - 1
            if n > 0:
                self._by_key[key] = n
            else:
                self._by_key.pop(key, None)
            self._total -= 1

    def in_flight(self) -> dict[str, int]:
        """Statements in flight per key (for tests and metrics)."""
        with self._lock:
            return dict(self._by_key)

    async def call(self, request: Request | None, stop: threading.Event, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the pool; sets ``stop`` (and waits for ``fn`` to end) if the client goes away.

        ``fn`` must watch ``stop`` (the sandbox interrupts its statement when it is set).
        """
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self.pool, fn, *args)
        try:
            while True:
                done, _ = await asyncio.wait({fut}, timeout=DISCONNECT_POLL_S)
                if done:
                    return fut.result()
                if request is not None and await request.is_disconnected():
                    stop.set()
        except asyncio.CancelledError:
            stop.set()  # the route was cancelled (client gone): interrupt the statement
            raise

    def shutdown(self) -> None:
        """Stop taking work; running statements finish (they have their own time limit)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
