"""What the service offers (games, bots), its health and its metrics."""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, generate_latest

from api import catalog
from api.deps import ServicesDep
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


def _check_data_root(root: Location) -> None:
    if isinstance(root, ObjectPath):  # a PUT and a DELETE of a probe object
        probe = root / f".healthz-{os.getpid()}"
        probe.write_bytes(b"ok")
        probe.unlink()
        return
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=root, prefix=".healthz-"):
        pass


@router.get("/healthz", summary="Health of the broker, the job store and the data root",
            responses={200: example(HEALTH_EXAMPLE),
                       503: example({"status": "degraded", "checks": {
                           "broker": "error: ConnectionError: Error 111 connecting to redis:6379.",
                           "store": "ok", "data_root": "ok"}}, description="something is down")})
async def healthz(svc: ServicesDep) -> JSONResponse:
    """``ok`` when the broker answers, the store answers and the data root is writable."""
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


@router.get("/metrics", summary="Prometheus metrics", response_class=Response,
            responses={200: example(METRICS_EXAMPLE, "text/plain; version=0.0.4", "Prometheus text format")})
def metrics(svc: ServicesDep) -> Response:
    """Jobs by state, shards committed, deals simulated, shard durations, queue length."""
    reg = CollectorRegistry()
    by_state = Gauge("rasklad_jobs", "jobs by state", ["state"], registry=reg)
    counts = svc.store.count_by_state()
    for s in STATES:
        by_state.labels(s).set(counts.get(s, 0))
    shards = Gauge("rasklad_shards_committed", "shards committed (all jobs)", registry=reg)
    deals = Gauge("rasklad_deals_simulated", "deals (or samples) in committed shards", registry=reg)
    totals = svc.store.totals()
    shards.set(totals.get("shards", 0))
    deals.set(totals.get("deals", 0))
    queue = Gauge("rasklad_queue_length", "shard tasks waiting in the broker", registry=reg)
    try:
        queue.set(svc.tracker.queue_length())
    except Exception:
        queue.set(float("nan"))
    try:
        hist = svc.tracker.shard_histogram_text().encode()
    except Exception:
        hist = b""
    return Response(generate_latest(reg) + hist, media_type=CONTENT_TYPE_LATEST)
