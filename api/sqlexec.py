"""One executor for every piece of user SQL the API runs: queries, download filters, column lists.

Why it exists: a user's SQL may run for its whole time limit on every core it gets. Run on the
threads that serve the other routes (anyio's pool) or on the event loop, a few such statements
stalled every tenant, ``/healthz`` included. Here:

- user SQL (and the Arrow→JSON/CSV/Parquet encoding of its result) runs only on this
  executor's own small thread pool (``query_workers`` threads), never on the event loop or on
  the threads of the other routes;
- each key may have ``query_per_key`` statements in flight (queries and downloads together) in
  this API process, and the process at most ``4 x query_workers``: over either, 429 with
  ``Retry-After`` at once (nothing queues behind a tenant's runaway statements);
- a statement is interrupted when its client goes away (``stop`` event → ``con.interrupt()``)
  and by the sandbox's time, memory, row and byte limits (``storage.query``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.requests import Request

from api.errors import ApiError

T = TypeVar("T")

#: How often a waiting route checks whether its client is still connected (seconds).
DISCONNECT_POLL_S = 0.2


class Slot:
    """One statement's place in the executor; ``release()`` may be called more than once."""

    def __init__(self, owner: SqlExecutor, key: str) -> None:
        self._owner = owner
        self._key = key
        self._released = False

    def release(self) -> None:
        with self._owner._lock:
            if self._released:
                return
            self._released = True
        self._owner._release(self._key)


class SqlExecutor:
    """The pool and the per-key admission of user SQL in one API process."""

    def __init__(self, workers: int, per_key: int, retry_after_s: float) -> None:
        self.workers = workers
        self.per_key = per_key
        self.max_in_flight = 4 * workers
        self.retry_after_s = retry_after_s
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="rasklad-sql")
        self._lock = threading.Lock()
        self._by_key: dict[str, int] = {}
        self._total = 0

    def acquire(self, key: str) -> Slot:
        """A place for one statement of ``key``; 429 with Retry-After when a limit is reached."""
        retry = {"Retry-After": str(max(1, round(self.retry_after_s)))}
        with self._lock:
            mine = self._by_key.get(key, 0)
            if mine >= self.per_key:
                raise ApiError(429, f"this key already has {mine} queries or downloads running (its limit is "
                                    f"{self.per_key}, query_per_key): wait for one to finish", "",
                               headers=retry)
            if self._total >= self.max_in_flight:
                raise ApiError(429, f"the server is running {self._total} queries and downloads, its limit "
                                    f"(4 x query_workers): try again shortly", "", headers=retry)
            self._by_key[key] = mine + 1
            self._total += 1
        return Slot(self, key)

    def _release(self, key: str) -> None:
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
