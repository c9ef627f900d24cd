"""One executor for every piece of user SQL the API runs: queries, download filters, column lists.

Why it exists: a user's SQL may run for its whole time limit on every core it gets. Run on the
threads that serve the other routes (anyio's pool) or on the event loop, a few such statements
stalled every tenant, ``/healthz`` included. Here:

- user SQL (and the Arrow→JSON/CSV/Parquet encoding of its result) runs only on this
  executor's own small thread pool (``query_workers`` threads), never on the event loop or on
  the threads of the other routes;
- each key may have ``query_per_key`` statements in flight (queries and downloads together)
  across every API process that shares the broker's Redis (a sorted set of slots per key,
  taken and counted by one Lua script), and each process at most ``4 x query_workers``: over
  either, 429 with ``Retry-After`` at once (nothing queues behind a tenant's runaway
  statements). A key's count is also checked in this process, with or without Redis, so one key
  never holds more than ``query_per_key`` of the process's places: the rest stay for the others.
  A live slot is renewed every third of ``query_slot_ttl_s`` by one thread of the process (a
  download that a slow client reads for minutes keeps its slot: before, the slot expired after
  120 s and one key held 8); a slot of a process that died stops counting after the TTL;
- the statements are scheduled fairly across keys: a key with nothing running starts at once,
  whatever the others run (the pool has a thread for every admitted statement; the OS shares the
  cores), and beyond ``query_workers`` running statements the next to start is the waiting one of
  the key with the fewest running. Downloads are scheduled chunk by chunk, so a long download
  yields between chunks. Before, two 30 s queries of one key took both threads and another key's
  trivial query waited 30.6 s behind them;
- a statement is interrupted when its client goes away (``stop`` event → ``con.interrupt()``)
  and by the sandbox's time, memory, row and byte limits (``storage.query``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import redis
from starlette.requests import Request

from api.errors import ApiError
from api.slots import TAKE as _TAKE_SLOT  # take a place of a key if fewer than the limit are held
from storage.query import QueryError

T = TypeVar("T")

#: How often a waiting route checks whether its client is still connected (seconds).
DISCONNECT_POLL_S = 0.2
log = logging.getLogger("rasklad.api")

#: Renew the slots ARGV[2..] of KEYS[1] (only those still there: an expired slot does not come back).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
"""


class Slot:
    """One statement's place in the executor; ``release()`` may be called more than once."""

    def __init__(self, owner: SqlExecutor, key: str, token: str | None) -> None:
        self._owner = owner
        self.key = key
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
        # A thread for every admitted statement: one waiting for its turn (``_turn``) never keeps
        # another key's statement from starting.
        self.pool = ThreadPoolExecutor(self.max_in_flight, thread_name_prefix="rasklad-sql")
        self.shared = shared
        self.slot_ttl_s = slot_ttl_s
        self.slot_ttl_ms = max(1, round(slot_ttl_s * 1000))
        self._take = shared.register_script(_TAKE_SLOT) if shared is not None else None
        self._renew = shared.register_script(_RENEW) if shared is not None else None
        self._lock = threading.Lock()
        self._by_key: dict[str, int] = {}
        self._total = 0
        self._live: dict[str, str] = {}  # token -> key: the slots this process renews
        self._renewer: threading.Thread | None = None
        self._closed = threading.Event()
        # The fair scheduler: statements running per key, and the ones waiting (key, arrival).
        self._turns = threading.Condition()
        self._running: dict[str, int] = {}
        self._running_total = 0
        self._waiting: list[tuple[str, int]] = []
        self._arrivals = itertools.count()

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
            if mine >= self.per_key:  # this process's own count holds even when Redis's is lost
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
        if token is not None:
            with self._lock:
                self._live[token] = key
                if self._renewer is None:
                    self._renewer = threading.Thread(target=self._renew_loop, name="rasklad-sql-slots",
                                                     daemon=True)
                    self._renewer.start()
        return Slot(self, key, token)

    def _renew_loop(self) -> None:
        """Every third of the TTL: renew every live slot of this process (one script per key)."""
        while not self._closed.wait(self.slot_ttl_s / 3):
            self.renew_all()

    def renew_all(self) -> None:
        """Renew the expiry of every slot this process holds (a long download keeps its place)."""
        with self._lock:
            by_key: dict[str, list[str]] = {}
            for token, key in self._live.items():
                by_key.setdefault(key, []).append(token)
        if self._renew is None:
            return
        for key, tokens in by_key.items():
            try:
                self._renew(keys=[self._slots(key)], args=[self.slot_ttl_ms, *tokens])
            except redis.RedisError as e:
                log.warning("per-key SQL slots: cannot renew (%s)", e)

    def _release(self, key: str, token: str | None) -> None:
        if token is not None and self.shared is not None:
            with self._lock:
                self._live.pop(token, None)
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

    def running(self) -> dict[str, int]:
        """Statements running now per key (not those waiting for their turn)."""
        with self._turns:
            return dict(self._running)

    def _may_start(self, key: str, arrival: int) -> bool:
        """Whether the waiting statement (``key``, ``arrival``) may start now (hold ``_turns``)."""
        if self._running.get(key, 0) == 0:
            return True  # a key with nothing running never waits behind another key's work
        if self._running_total >= self.workers:
            return False
        best = min(self._waiting, key=lambda w: (self._running.get(w[0], 0), w[1]))
        return best == (key, arrival)

    def _turn(self, key: str, stop: threading.Event, fn: Callable[..., T], *args: Any) -> T:
        """On a pool thread: wait for the statement's turn (``_may_start``), run it, hand the turn on."""
        with self._turns:
            me = (key, next(self._arrivals))
            self._waiting.append(me)
            try:
                while not self._may_start(*me):
                    if stop.is_set():
                        raise QueryError("the statement was not started: the client went away")
                    self._turns.wait(0.5)
            finally:
                self._waiting.remove(me)
            self._running[key] = self._running.get(key, 0) + 1
            self._running_total += 1
        try:
            return fn(*args)
        finally:
            with self._turns:
                n = self._running[key] - 1
                if n:
                    self._running[key] = n
                else:
                    del self._running[key]
                self._running_total -= 1
                self._turns.notify_all()

    async def call(self, request: Request | None, stop: threading.Event, fn: Callable[..., T], *args: Any,
                   key: str = "") -> T:
        """``fn(*args)`` on the pool, in ``key``'s fair turn; sets ``stop`` (and waits for ``fn`` to end)
        if the client goes away.

        ``fn`` must watch ``stop`` (the sandbox interrupts its statement when it is set).
        """
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self.pool, self._turn, key, stop, fn, *args)
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
        self._closed.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
