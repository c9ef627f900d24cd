"""What the service offers (games, bots), its health and its metrics."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from api import catalog
from api.deps import Services, ServicesDep
from api.errors import ApiError
from api.schemas import BOTS_EXAMPLE, GAME_EXAMPLE, GAMES_EXAMPLE, HEALTH_EXAMPLE, METRICS_EXAMPLE, ErrorOut, example
from storage.jobstore import STATES
from storage.objectstore import Location, ObjectPath, data_root

router = APIRouter(tags=["service"])


@router.get("/v1/games", summary="Games the service runs", responses={200: example(GAMES_EXAMPLE)})
def games() -> dict[str, Any]:
    """Every installed game with a short description."""
    return {"games": catalog.games()}


@router.get("/v1/games/{game}", summary="One game: rule options, presets, bots",
            responses={200: example(GAME_EXAMPLE), 404: {"model": ErrorOut, "description": "no such game"}})
def game(game: str) -> dict[str, Any]:
    """The rule options (with defaults), named presets and bots of a game."""
    info = catalog.game(game)
    if info is None:
        raise ApiError(404, f"no game {game!r}: known games are {', '.join(g['name'] for g in catalog.games())}",
                       "game")
    return info


@router.get("/v1/bots", summary="Bots and the JSON schemas of their parameters",
            responses={200: example(BOTS_EXAMPLE)})
def bots() -> dict[str, Any]:
    """Every registered bot, by name (``order-poker/heuristic``), with its parameter schema."""
    return {"bots": catalog.bots()}


#: Bytes the readiness check writes to the data root: a whole block, so a full disk refuses them.
_PROBE_BYTES = 4096


def _check_data_root(root: Location) -> None:
    """The data root takes a write: an object PUT and DELETE, or a file of ``_PROBE_BYTES`` written
    and flushed to the disk. An empty file is not enough: with the disk full, creating one still
    succeeds (it needs an inode, not a block), and ``/healthz`` stayed 200 while no shard could be
    committed."""
    if isinstance(root, ObjectPath):  # a PUT and a DELETE of a probe object
        probe = root / f".healthz-{os.getpid()}"
        probe.write_bytes(b"ok")
        probe.unlink()
        return
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=root, prefix=".healthz-") as f:
        f.write(b"\0" * _PROBE_BYTES)
        f.flush()
        os.fsync(f.fileno())


@router.get("/healthz", summary="Health of the broker, the job store and the data root",
            responses={200: example(HEALTH_EXAMPLE),
                       503: example({"status": "degraded", "checks": {
                           "broker": "error: ConnectionError: Error 111 connecting to redis:6379.",
                           "store": "ok", "data_root": "ok"}}, description="something is down")})
async def healthz(svc: ServicesDep) -> JSONResponse:
    """Readiness: ``ok`` when the broker answers, the store answers and the data root takes a
    write (a full data disk is ``503``); ``/livez`` is the liveness probe."""
    checks: dict[str, str] = {}

    async def check(name: str, fn: Any) -> None:
        try:
            await asyncio.wait_for(asyncio.to_thread(fn), timeout=5)
            checks[name] = "ok"
        except Exception as e:
            checks[name] = f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"

    await check("broker", svc.tracker.r.ping)
    await check("store", lambda: svc.store.list_jobs(limit=1))
    await check("data_root", lambda: _check_data_root(data_root(svc.settings)))
    ok = all(v == "ok" for v in checks.values())
    return JSONResponse({"status": "ok" if ok else "degraded", "checks": checks}, status_code=200 if ok else 503)


@router.get("/livez", summary="Liveness: the process serves requests",
            responses={200: example({"status": "alive"})})
async def livez() -> dict[str, str]:
    """``200`` whenever the process answers: no check of the broker, the store or the data root, so
    that their outage makes the API unready (``/healthz``: 503) without restarting it."""
    return {"status": "alive"}


class _Metrics:
    """The service's metrics, read when scraped: Prometheus naming (counters end in ``_total``)."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc

    def collect(self) -> Iterator[Metric]:
        """Every family: jobs by state, totals, per key (API key name) and per worker, the queue."""
        svc = self.svc
        counts = svc.store.count_by_state()
        jobs = GaugeMetricFamily("rasklad_jobs", "jobs by state", labels=["state"])
        for s in STATES:
            jobs.add_metric([s], counts.get(s, 0))
        yield jobs
        totals = svc.store.totals()
        yield CounterMetricFamily("rasklad_shards_committed", "shards committed (all jobs)",
                                  value=totals.get("shards", 0))
        yield CounterMetricFamily("rasklad_deals_simulated", "deals (or samples) in committed shards",
                                  value=totals.get("deals", 0))
        by_key = svc.store.totals_by_owner()
        key_jobs = GaugeMetricFamily("rasklad_key_jobs", "jobs by API key and state", labels=["key", "state"])
        key_shards = CounterMetricFamily("rasklad_key_shards_committed", "shards committed, by API key",
                                         labels=["key"])
        key_deals = CounterMetricFamily("rasklad_key_deals_simulated", "deals (or samples) simulated, by API key",
                                        labels=["key"])
        for owner, t in sorted(by_key.items()):
            for s in STATES:
                key_jobs.add_metric([owner, s], t.get(f"state:{s}", 0))
            key_shards.add_metric([owner], t.get("shards", 0))
            key_deals.add_metric([owner], t.get("deals", 0))
        yield from (key_jobs, key_shards, key_deals)
        worker = CounterMetricFamily("rasklad_worker_shards_committed", "shards committed, by worker",
                                     labels=["worker"])
        queue = GaugeMetricFamily("rasklad_queue_length", "shard tasks waiting in the broker")
        try:
            for name, n in sorted(svc.tracker.shards_by_worker().items()):
                worker.add_metric([name], n)
            queue.add_metric([], svc.tracker.queue_length())
        except Exception:  # the broker is down: the store's series still answer
            queue.add_metric([], float("nan"))
        yield from (worker, queue)


@router.get("/metrics/backlog", summary="Work waiting for workers, as JSON (for autoscalers)",
            responses={200: example({"backlog_shards": 37, "active_jobs": 3, "queued_messages": 6})})
def backlog(svc: ServicesDep) -> dict[str, int | None]:
    """``backlog_shards``: shards of queued and running jobs not committed yet (the whole remaining
    work, not only the few shards each job has in the broker at once); ``active_jobs``: those jobs;
    ``queued_messages``: shard tasks waiting in the broker now (None while the broker is down). KEDA's
    ``metrics-api`` scaler sizes the workers by ``backlog_shards`` (deploy/k8s/keda)."""
    b = svc.store.backlog()
    try:
        queued: int | None = svc.tracker.queue_length()
    except Exception:  # the broker is down: the store's figures still answer
        queued = None
    return {"backlog_shards": b["shards"], "active_jobs": b["jobs"], "queued_messages": queued}


@router.get("/metrics", summary="Prometheus metrics", response_class=Response,
            responses={200: example(METRICS_EXAMPLE, "text/plain; version=0.0.4", "Prometheus text format")})
def metrics(svc: ServicesDep) -> Response:
    """Jobs by state, shards committed, deals simulated (in all and per API key), shards per worker,
    shard durations, queue length."""
    reg = CollectorRegistry()
    reg.register(_Metrics(svc))
    try:
        hist = svc.tracker.shard_histogram_text().encode()
    except Exception:
        hist = b""
    return Response(generate_latest(reg) + hist, media_type=CONTENT_TYPE_LATEST)
