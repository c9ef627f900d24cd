"""Shared services of the API process and the dependencies routes ask for."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from celery import Celery
from fastapi import Depends, Header, Request

from api.errors import ApiError
from api.replays import ReplayPool
from api.sqlexec import SqlExecutor
from api.streams import StreamLimit
from sims.settings import Settings
from storage.apikeys import ApiKey, KeyStore
from storage.jobstore import JobStore
from workers.tracking import Tracker


@dataclass
class Services:
    """Everything a request may touch: settings, the stores, the broker."""

    settings: Settings
    store: JobStore
    keys: KeyStore
    celery: Celery
    tracker: Tracker
    broker_url: str
    sql: SqlExecutor
    status: StatusCache
    keys_cache: KeyCache = field(default_factory=lambda: KeyCache())
    #: Open event streams per key (``events_per_key``); ``create_app`` counts them in the broker's Redis.
    streams: StreamLimit = field(default_factory=lambda: StreamLimit(10))
    #: Deal-viewer replays, each in a killable process (``replay_workers``, ``replay_per_key``).
    replays: ReplayPool = field(default_factory=lambda: ReplayPool(2, 1, 20.0))


class KeyCache:
    """Verified keys, remembered for ``ttl_s`` seconds in this API process.

    Checking a key is a database read, as costly as the job lookup of ``GET /v1/jobs/{id}``
    itself; polling clients send the same key many times a second. The price: a revoked key
    keeps working for up to ``ttl_s`` seconds in each API process that saw it. Only valid
    keys are kept (by the SHA-256 of the whole key), at most ``size`` of them.
    """

    def __init__(self, ttl_s: float = 5.0, size: int = 10_000) -> None:
        self.ttl_s = ttl_s
        self.size = size
        self._keys: dict[str, tuple[float, ApiKey]] = {}
        self._lock = threading.Lock()

    def cached(self, token: str) -> ApiKey | None:
        """The key of ``token`` if the cache holds a fresh answer (no database read)."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self._lock:
            hit = self._keys.get(digest)
        return hit[1] if hit is not None and hit[0] > time.monotonic() else None

    def verify(self, keys: KeyStore, token: str) -> ApiKey | None:
        """``keys.verify(token)``, answered from the cache while the answer is fresh."""
        hit = self.cached(token)
        if hit is not None:
            return hit
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        key = keys.verify(token)
        if key is not None:
            with self._lock:
                if len(self._keys) >= self.size:
                    self._keys.clear()
                self._keys[digest] = (now + self.ttl_s, key)
        return key


#: Reads one job's status for the cache: (owner, JSON body), or None when there is no such job.
Loader = Callable[[], "tuple[str, bytes] | None"]


def status_loader(store: JobStore, job_id: str) -> Loader:
    """The loader of ``job_id``'s status answer from ``store`` (exact id, no owner check: the
    caller checks the owner it returns)."""
    from api.schemas import JobOut

    def load() -> tuple[str, bytes] | None:
        job = store.get(job_id)
        return None if job is None else (job.owner, JobOut.of(job).model_dump_json().encode())

    return load


class StatusCache:
    """The answer of ``GET /v1/jobs/{id}`` per job, reused for ``ttl_s`` seconds in this API process.

    Clients poll a job's status many times a second; with 200 of them each answer cost a
    database read, a model and its JSON, and the queue of requests made p99 352 ms. A status
    about ``ttl_s`` old is as good to a poller (a shard lasts seconds). The owner is kept
    with the body so that the ownership check still runs on every request; a cancel through
    this process drops the entry at once. ``ttl_s = 0`` turns the cache off.
    """

    def __init__(self, ttl_s: float, size: int = 10_000) -> None:
        self.ttl_s = ttl_s
        self.size = size
        self._jobs: dict[str, tuple[float, str, bytes]] = {}
        self._lock = threading.Lock()
        #: Loads in flight, by job id.
        self._loading: dict[str, asyncio.Future[tuple[str, bytes] | None]] = {}
        #: Counts drops: a load that began before a drop must not put back what it read.
        self._drops = 0

    async def load(self, job_id: str, loader: Loader) -> tuple[str, bytes] | None:
        """(owner, body) of ``job_id`` from ``loader`` (run in a thread; None: no such job), cached.

        Concurrent misses of one job share one load. Without that, every poller of a job whose
        entry just expired read the database at once (a herd of 100 reads on 8 threads every
        ``ttl_s``), which made the tail of the status route. The load is shielded: a client
        that goes away does not cancel it for the others.
        """
        task = self._loading.get(job_id) or self._start(job_id, loader)
        return await asyncio.shield(task)

    def _start(self, job_id: str, loader: Loader) -> asyncio.Future[tuple[str, bytes] | None]:
        """Begin one load of ``job_id`` (on the running event loop); its result is cached unless
        the job was dropped meanwhile."""
        drops = self._drops
        task = asyncio.ensure_future(asyncio.to_thread(loader))
        self._loading[job_id] = task

        def settle(t: asyncio.Future[tuple[str, bytes] | None]) -> None:
            hit = None if t.cancelled() or t.exception() is not None else t.result()
            with self._lock:
                if self._loading.get(job_id) is t:
                    del self._loading[job_id]
                if hit is not None and self._drops == drops:
                    self._put(job_id, *hit)

        task.add_done_callback(settle)
        return task

    def get(self, job_id: str, reload: Loader | None = None) -> tuple[str, bytes] | None:
        """(owner, JSON body) of the job while fresh.

        With ``reload`` (and on the event loop): an entry in the last quarter of its life is
        loaded again in the background while it still answers, so that a job polled steadily
        never expires and no poller waits for the database (a load takes several of the GIL's
        5 ms switch intervals when the event loop is busy: every poller arriving meanwhile
        would wait with it).
        """
        now = time.monotonic()
        with self._lock:
            hit = self._jobs.get(job_id)
        if hit is None or hit[0] <= now:
            return None
        if reload is not None and hit[0] - now < self.ttl_s / 4 and job_id not in self._loading:
            self._start(job_id, reload)
        return hit[1], hit[2]

    def put(self, job_id: str, owner: str, body: bytes) -> None:
        with self._lock:
            self._put(job_id, owner, body)

    def _put(self, job_id: str, owner: str, body: bytes) -> None:  # the lock held
        if self.ttl_s <= 0:
            return
        if len(self._jobs) >= self.size:
            self._jobs.clear()
        self._jobs[job_id] = (time.monotonic() + self.ttl_s, owner, body)

    def drop(self, job_id: str) -> None:
        """Forget the job's status (it just changed here): requests from now on read it afresh."""
        with self._lock:
            self._jobs.pop(job_id, None)
            self._loading.pop(job_id, None)
            self._drops += 1


async def services(request: Request) -> Services:
    """The services of this API process (set up by ``api.app.create_app``).

    Async, like ``current_key``: a sync dependency costs every request a hop to a worker thread.
    """
    svc: Services = request.app.state.services
    return svc


async def current_key(
    request: Request,
    authorization: Annotated[str | None, Header(description="`Bearer <api key>`")] = None,
) -> ApiKey:
    """The caller's API key, from ``Authorization: Bearer`` or else the web app's session cookie
    (``api.web.session``); 401 without a valid one."""
    if not authorization:
        from api.web import session

        key = session.key_of(request)
        if key is not None:
            if request.method not in ("GET", "HEAD"):
                session.check_csrf(request)
            return key
        raise ApiError(401, "missing API key: send Authorization: Bearer <key>", "Authorization",
                       headers={"WWW-Authenticate": "Bearer"})
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "Authorization must be 'Bearer <key>'", "Authorization",
                       headers={"WWW-Authenticate": "Bearer"})
    svc: Services = request.app.state.services
    token = token.strip()
    # A polling client's key is in the cache: answered on the event loop, no thread, no database.
    key = svc.keys_cache.cached(token)
    if key is None:
        key = await asyncio.to_thread(svc.keys_cache.verify, svc.keys, token)
    if key is None:
        raise ApiError(401, "unknown or revoked API key", "Authorization", headers={"WWW-Authenticate": "Bearer"})
    return key


ServicesDep = Annotated[Services, Depends(services)]
KeyDep = Annotated[ApiKey, Depends(current_key)]
