"""The FastAPI application: ``create_app()``; served by ``rasklad serve``.

The API queues jobs and serves results. It never plays a deal: shards reach the workers
by task name through the broker. A reconciler thread repairs lost work periodically
(see ``workers.jobs.reconcile``).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
import redis
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import web
from api.deps import Services, StatusCache
from api.errors import ApiError, validation_handler
from api.fastpath import StatusFastPath
from api.replays import ReplayPool
from api.routes import data, jobs, meta
from api.sqlexec import SqlExecutor
from api.streams import StreamLimit
from games.core import registry
from sims.settings import Settings, get_settings
from storage.apikeys import KeyStore
from storage.jobstore import JobStore
from workers.celery_app import make_app
from workers.jobs import OUTAGES, Control, one_line, reap_dead, reconcile
from workers.tracking import Tracker

log = logging.getLogger("rasklad.api")

DESCRIPTION = """
Simulations of card games at scale: submit a job spec (a bot tournament or a dealing-statistics
question), follow its progress, download its tables as Parquet/CSV/JSON lines, and query them
with SQL. Authenticate with `Authorization: Bearer <api key>` (`rasklad keys create --name you`).
Every error is `{"detail": [{"field": ..., "message": ...}]}`.
"""


def _too_large(limit: int) -> ApiError:
    return ApiError(413, f"request body too large (limit {limit:,} bytes)", "body")


class BodyLimitMiddleware:
    """413 for a request body over ``limit`` bytes, in the API's error format.

    Starlette's own ``max_body_size`` answers with plain text; this one refuses a too-large
    ``Content-Length`` before reading anything and stops a chunked body as soon as it passes
    the limit (the error is raised from ``receive`` inside the route, where FastAPI passes an
    HTTPException through to the API's handler).
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            e = _too_large(self.limit)
            await JSONResponse({"detail": e.detail}, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _too_large(self.limit)
            return message

        await self.app(scope, limited, send)


def reap_period(settings: Settings, every_s: float) -> float:
    """Seconds between two looks of the reaper: a third of a lease (2 s with the default 6 s), or the
    reconciler's period when that is shorter. A dead worker's shard is queued again at most a lease
    after its last heartbeat plus one period (8 s by default; docs/service.md)."""
    return min(every_s, settings.lease_seconds / 3)


def _reconcile_loop(ctl: Control, stop: threading.Event, every_s: float) -> None:
    """``reconcile`` every ``every_s`` seconds and, in between, ``reap_dead`` every ``reap_period``:
    the shards of a dead worker run again within seconds. An error of either (the job store or the
    object store out of reach past its outage budget) is logged in one line and the loop goes on."""
    reap_every = reap_period(ctl.settings, every_s)
    last = time.monotonic()
    while not stop.wait(reap_every):
        try:
            if time.monotonic() - last >= every_s:
                last = time.monotonic()
                reconcile(ctl)
            else:
                reap_dead(ctl)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # keep the loop alive (pyo3's PanicException is a BaseException too)
            if isinstance(e, OUTAGES):  # a store out of reach: the next round may succeed
                log.warning("reconcile: %s; tried again in %.0f s", one_line(e), reap_every)
            else:
                log.exception("reconcile failed")


def create_app(settings: Settings | None = None, broker: str | None = None,
               reconcile_every_s: float | None = None, events_poll_s: float = 0.5) -> FastAPI:
    """The API for ``settings`` (default: the environment's) and ``broker`` (default: the settings' broker).

    The API group of the settings applies here: ``api_threads`` (threads serving sync routes;
    raise it for a remote job store), ``max_body_bytes`` (larger bodies get 413; a spec is a few
    KiB) and ``reconcile_seconds`` (unless ``reconcile_every_s`` is given). The broker's Celery
    app is built from the same settings, and the routes see them as ``services.settings``.
    """
    settings = settings if settings is not None else get_settings()
    # The API never waits out an object-store outage (RASKLAD_S3_OUTAGE_S is the workers' and `rasklad
    # run`'s): a request answers with the error at once, and the reconciler tries again next round.
    settings = settings.model_copy(update={"s3_outage_s": 0.0})
    registry.configure(settings.game_module_names, settings.bot_module_names)
    if not settings.data_is_remote:
        Path(settings.data).mkdir(parents=True, exist_ok=True)
    celery = make_app(broker, settings=settings)
    broker_url = str(celery.conf.broker_url)
    store = JobStore(settings.db_url)
    # A key's query slots are counted in the broker's Redis, across every API process; a live slot
    # is renewed (a slow download keeps it), one of a process that died stops counting after its TTL.
    shared = redis.Redis.from_url(broker_url, socket_timeout=2, socket_connect_timeout=2)
    sql = SqlExecutor(settings.query_workers, settings.query_per_key, retry_after_s=5, shared=shared,
                      slot_ttl_s=settings.query_slot_ttl_s)
    svc = Services(settings, store, KeyStore(store.engine), celery, Tracker(broker_url), broker_url, sql,
                   StatusCache(settings.status_max_age_s), streams=StreamLimit(settings.events_per_key, shared),
                   replays=ReplayPool(settings.replay_workers, settings.replay_per_key, settings.replay_timeout_s,
                                      (settings.game_module_names, settings.bot_module_names), shared=shared))
    every = reconcile_every_s if reconcile_every_s is not None else float(settings.reconcile_seconds)
    api_threads = settings.api_threads

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Sync routes run in anyio's thread pool (40 threads by default). Their work is short
        # and CPU-bound (a local SQLite read, JSON): dozens of threads only fight over the GIL.
        # Measured under 200 clients of GET /v1/jobs/{id}: 8 threads answer about 1.3x as many
        # requests as 40, with less CPU and a lower p99.
        anyio.to_thread.current_default_thread_limiter().total_tokens = api_threads
        # Everything imported and built so far lives as long as the process: move it out of the
        # cyclic collector's reach. A full collection then scans only what requests allocate,
        # not the ~130,000 objects of the app and its libraries (a 50 ms pause of every request
        # in flight, which made the tail of GET /v1/jobs/{id} under load).
        gc.collect()
        gc.freeze()
        stop = threading.Event()
        thread = None
        if every > 0:
            ctl = Control(settings, store, celery, svc.tracker)
            thread = threading.Thread(target=_reconcile_loop, args=(ctl, stop, every), daemon=True,
                                      name="rasklad-reconciler")
            thread.start()
        yield
        stop.set()
        sql.shutdown()
        if thread is not None:
            thread.join(timeout=5)

    # /docs and /redoc come from api.web, their files served from the package (no CDN).
    app = FastAPI(title="rasklad", version="0.1.0", description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    if settings.status_max_age_s > 0:  # outermost: a cached status skips the framework (api.fastpath)
        app.add_middleware(StatusFastPath, services=svc)
    app.state.services = svc
    app.state.events_poll_s = events_poll_s
    app.add_exception_handler(RequestValidationError, validation_handler)  # type: ignore[arg-type]

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail: Any = exc.detail
        if not isinstance(detail, list):
            detail = [{"field": "", "message": str(detail)}]
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RecursionError)
    async def too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        # A body (JSON, YAML) or a query nested thousands of levels deep exhausts Python's stack
        # wherever it is walked; it is the client's input that is wrong, whatever the route.
        return JSONResponse({"detail": [{"field": "body", "message": "the request is nested too deeply"}]},
                            status_code=400)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        # The last resort, so that even a bug answers in the API's format (and is logged).
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": [{"field": "", "message": f"internal error ({type(exc).__name__})"}]},
                            status_code=500)

    app.include_router(jobs.router)
    app.include_router(data.router)
    app.include_router(meta.router)
    app.include_router(web.router)
    return app
