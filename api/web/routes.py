"""Routes of the web app: pages, their JSON helpers under ``/web/api``, offline API docs, assets.

Pages need a session (``session.py``); without one they redirect to ``/signin``. The helpers
answer what the ``/v1`` API does not: an interim leaderboard of a running job, the tables of a
job, a spec checked as it is typed, example specs, a record as viewer frames, a live list of
the user's jobs (server-sent events).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import fastapi_offline
from fastapi import APIRouter, Query, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from api.deps import KeyDep, Services, ServicesDep
from api.errors import ApiError
from api.replays import stored_record
from api.routes.jobs import own_job
from api.schemas import JobOut
from api.streams import held
from api.web import examples, pages, session
from api.web.deals import frames
from games.core.protocol import IllegalAction, RulesError
from sims.report import unit_names
from sims.spec import SpecError, parse_spec, syntax_error_text
from storage.apikeys import ApiKey
from storage.layout import job_dir
from storage.objectstore import data_root
from storage.parquet import job_tables_on_disk
from storage.query import QueryError, json_number, run_query

router = APIRouter(include_in_schema=False)

STATIC = Path(__file__).resolve().parent / "static"
DOCS_STATIC = Path(fastapi_offline.__file__).resolve().parent / "static"
#: Served files and their types; nothing else under the folders is reachable.
ASSETS = {"app.js": "text/javascript", "app.css": "text/css", "favicon.svg": "image/svg+xml"}
DOCS_ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
               "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}


def _page_key(request: Request) -> ApiKey | None:
    return session.key_of(request)


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers={
        "Cache-Control": "no-store",
        # Everything is the app's own: no inline script, no other origin.
        "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                                   "frame-ancestors 'self'"})


# ------------------------------------------------------------------------------------------ pages


@router.get("/")
def home(request: Request) -> Response:
    """The jobs list of the signed-in user (else the sign-in page)."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    return _html(pages.jobs_page(key.name))


@router.get("/signin")
def signin_page(request: Request) -> Response:
    """Sign in with an API key."""
    return _html(pages.signin_page())


@router.get("/jobs/{job_id}")
def job_page(job_id: str, request: Request, svc: ServicesDep) -> Response:
    """One job: live progress, interim leaderboard, the report, downloads, SQL."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    try:
        job = own_job(svc, key, job_id)
    except ApiError:
        return _html(pages.not_found(key.name, f"no job {job_id}"), 404)
    return _html(pages.job_page(key.name, job.id))


@router.get("/workers")
def workers_page(request: Request) -> Response:
    """Workers alive, what they run, the queue per API key (``/web/api/workers``)."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    return _html(pages.workers_page(key.name))


@router.get("/submit")
def submit_page(request: Request) -> Response:
    """The spec editor: validation as you type, examples."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    return _html(pages.submit_page(key.name))


@router.get("/deals")
def deals_page(request: Request) -> Response:
    """The deal viewer: a job's deal or an uploaded record, step by step."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    return _html(pages.deals_page(key.name))


@router.get("/sql")
def sql_page(request: Request) -> Response:
    """The SQL console over the user's jobs."""
    key = _page_key(request)
    if key is None:
        return RedirectResponse("/signin", status_code=303)
    return _html(pages.sql_page(key.name))


# -------------------------------------------------------------------------------------- session


class SignIn(BaseModel):
    key: str = Field(min_length=1, max_length=500)


@router.post("/web/session")
def sign_in(body: SignIn, request: Request, svc: ServicesDep) -> JSONResponse:
    """Check the key and set the session cookie (HTTP-only, SameSite=Strict); 401 for a wrong key."""
    key = svc.keys_cache.verify(svc.keys, body.key.strip())
    if key is None:
        raise ApiError(401, "unknown or revoked API key", "key")
    token = session.create(svc, key)
    resp = JSONResponse({"name": key.name})
    resp.set_cookie(session.COOKIE, token, max_age=session.TTL_S, httponly=True, samesite="strict",
                    secure=request.url.scheme == "https", path="/")
    return resp


@router.post("/web/session/end")
def sign_out(request: Request, svc: ServicesDep) -> JSONResponse:
    """Forget the session and clear the cookie; like every cookie-authenticated POST it needs the
    page's CSRF header (a cross-site form could otherwise sign the user out)."""
    session.check_csrf(request)
    token = request.cookies.get(session.COOKIE)
    if token:
        session.end(svc, token)
    resp = JSONResponse({"signed_out": True})
    resp.delete_cookie(session.COOKIE, path="/")
    return resp


# ------------------------------------------------------------------------------------- helpers


@router.get("/web/api/jobs/{job_id}/interim")
def interim(job_id: str, svc: ServicesDep, key: KeyDep) -> dict[str, Any]:
    """The leaderboard so far, over the committed shards: bot, deals, mean score per deal and a
    normal 95% interval over deals (each deal counts once, its rotations averaged, as in the
    final leaderboard; the report's t intervals and paired tests come when the job succeeds)."""
    job = own_job(svc, key, job_id)
    jd = job_dir(data_root(svc.settings), job.id)
    out: dict[str, Any] = {"job": JobOut.of(job).model_dump(mode="json"), "rows": [],
                           "unit_one": unit_names(job.spec)["one"]}
    if "seats" not in (job_tables_on_disk(jd) if jd.exists() else []):
        return out
    sql = ("WITH per_deal AS (SELECT bot, deal, avg(score) AS m FROM seats GROUP BY bot, deal) "
           "SELECT bot, count(*) AS n, avg(m) AS mean, stddev_samp(m) AS sd FROM per_deal "
           "GROUP BY bot ORDER BY mean DESC, bot")
    s = svc.settings
    try:
        t = run_query(sql, {job.id: jd}, memory_limit=s.query_memory_limit, timeout_s=s.query_timeout_s,
                      max_rows=1000)
    except QueryError as e:
        raise ApiError(400, str(e), "job_id") from None
    for r in t.to_pylist():
        half = 1.96 * r["sd"] / r["n"] ** 0.5 if r["sd"] is not None and r["n"] > 1 else None
        out["rows"].append({"bot": r["bot"], "deals": r["n"], "mean": json_number(r["mean"]),
                            "lo": json_number(r["mean"] - half) if half is not None else None,
                            "hi": json_number(r["mean"] + half) if half is not None else None})
    return out


@router.get("/web/api/jobs/{job_id}/report")
def report_fragment(job_id: str, svc: ServicesDep, key: KeyDep) -> Response:
    """The report of a succeeded job as a fragment the job page lays out in itself (``sims.report.
    render_fragment``: scoped styles, inline SVG, no script; every user string escaped), rendered from
    its ``report.json``; 409 before the job has succeeded."""
    from sims.report import render_fragment

    job = own_job(svc, key, job_id)
    path = job_dir(data_root(svc.settings), job.id) / "report.json"
    if job.state != "succeeded" or not path.exists():
        raise ApiError(409, f"job {job.id} is {job.state}: its report exists once it has succeeded", "job_id")
    html = render_fragment(json.loads(path.read_bytes()), heading=False)
    return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})


def _ping(svc: Services, timeout_s: float = 1.0) -> set[str] | None:
    """The workers that answer a broadcast ping within ``timeout_s`` (None: the broker did not answer)."""
    try:
        replies = svc.celery.control.ping(timeout=timeout_s)
    except Exception:  # the broker is down: say so, do not fail the page
        return None
    return {name for r in replies for name in r}


@router.get("/web/api/workers")
def workers(svc: ServicesDep, key: KeyDep) -> dict[str, Any]:
    """Workers and queue from what the service tracks, so nobody needs Flower for the basics: workers
    alive (a broadcast ping), the shards they hold a lease on now with the units played so far (the job
    store), the shards each committed (Redis), the broker's queue length, and per API key its active
    jobs' shards running, queued and not yet queued (a job has at most ``job_window`` in the queue).
    Another key's job ids are shown to an admin key only."""
    alive = _ping(svc)
    running = svc.store.running_shards()
    committed = svc.tracker.shards_by_worker()
    mine = (lambda owner: True) if key.admin else (lambda owner: owner == key.name)
    by_worker: dict[str, list[dict[str, Any]]] = {}
    for r in running:
        node = r["holder"].split("|", 1)[0]
        by_worker.setdefault(node, []).append({
            "job": r["job_id"] if mine(r["owner"]) else None, "shard": r["shard"] if mine(r["owner"]) else None,
            "game": r["game"], "units": r["units"], "committing": r["committing"],
            "heartbeat_at": r["heartbeat_at"].isoformat()})
    names = sorted(set(by_worker) | set(alive or ()) | set(committed))
    out_workers = [{"name": n, "alive": None if alive is None else n in alive, "running": by_worker.get(n, []),
                    "committed": committed.get(n, 0)} for n in names]
    keys: dict[str, dict[str, int]] = {}
    leased: dict[str, set[int]] = {}
    for r in running:
        leased.setdefault(r["job_id"], set()).add(int(r["shard"]))
    for state in ("queued", "running"):
        for job in svc.store.list_jobs(state=state, limit=1000):
            name = job.owner if mine(job.owner) else "(other keys)"
            row = keys.setdefault(name, {"jobs": 0, "running": 0, "queued": 0, "not_queued": 0})
            marked = svc.tracker.queued(job.id)
            run_now = len(leased.get(job.id, set()))
            row["jobs"] += 1
            row["running"] += run_now
            row["queued"] += max(0, len(marked - leased.get(job.id, set())))
            row["not_queued"] += max(0, job.shards_total - job.shards_done - len(marked | leased.get(job.id, set())))
    return {"workers": out_workers, "broker_queue": svc.tracker.queue_length(), "broker_answered": alive is not None,
            "keys": [{"key": k, **v} for k, v in sorted(keys.items())]}


@router.get("/web/api/jobs/{job_id}/tables")
def tables(job_id: str, svc: ServicesDep, key: KeyDep) -> dict[str, Any]:
    """The tables a job has on disk (each downloadable as Parquet, CSV or JSON lines)."""
    job = own_job(svc, key, job_id)
    jd = job_dir(data_root(svc.settings), job.id)
    return {"job": job.id, "tables": job_tables_on_disk(jd) if jd.exists() else []}


@router.get("/web/api/jobs/{job_id}/deals/{deal}")
async def job_deal(job_id: str, deal: int, request: Request, svc: ServicesDep, key: KeyDep,
                   rotation: Annotated[int, Query(ge=0, le=64)] = 0,
                   part: Annotated[int, Query(ge=0)] = 0) -> dict[str, Any]:
    """Viewer frames of one deal of a tournament job (of a match, the frames of its deal ``part``):
    its stored record when the job keeps records (``source: "stored"``), else the deal played again
    exactly as its shard played it, in a process of its own with a time limit, a few at once and per
    key (``source: "replayed"``; ``api.replays``)."""
    from sims.spec import TournamentSpec

    job = await asyncio.to_thread(own_job, svc, key, job_id)
    spec = await asyncio.to_thread(parse_spec, job.spec)
    if not isinstance(spec, TournamentSpec):
        raise ApiError(400, f"job {job.id} is a {spec.kind} job: only tournament deals have records", "job_id")
    if not 0 <= deal < int(spec.deals):
        raise ApiError(404, f"job {job.id} has deals 0..{int(spec.deals) - 1}, not {deal}", "deal")
    if spec.record in ("full", "decisions"):
        assert spec.shard_deals is not None
        jd = job_dir(data_root(svc.settings), job.id)
        text = await asyncio.to_thread(stored_record, jd, int(spec.shard_deals), deal, rotation)
        if text is not None:
            record = json.loads(text)
            try:
                return {"record": record, "source": "stored", **await asyncio.to_thread(frames, record, part)}
            except ValueError as e:
                raise ApiError(404, str(e), "part") from None
    out = await svc.replays.replay(key.name, job.spec, deal, rotation, part, request)
    return {**out, "source": "replayed"}


@router.post("/web/api/deal")
async def uploaded_deal(request: Request, key: KeyDep, part: Annotated[int, Query(ge=0)] = 0) -> dict[str, Any]:
    """Viewer frames of an uploaded record (rasklad-record/1 JSON; of a match, its deal ``part``); an
    invalid record gets 400 with the replay's error (the action's index and the rule it breaks)."""
    raw = await request.body()
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        where = syntax_error_text(e) if isinstance(e, json.JSONDecodeError) else str(e)
        raise ApiError(400, f"the record is not valid JSON: {where}", "body") from None
    if not isinstance(record, dict):
        raise ApiError(400, "a record is a JSON object", "body")
    try:
        return {"record": record, **await asyncio.to_thread(frames, record, part)}
    except IllegalAction as e:
        raise ApiError(400, f"illegal record: {e}", "actions") from None
    except (RulesError, ValueError, KeyError, TypeError) as e:
        raise ApiError(400, f"invalid record: {e}", "body") from None


class SpecText(BaseModel):
    text: str = Field(max_length=200_000)
    format: str = Field(default="yaml", pattern="^(yaml|json)$")


@router.post("/web/api/validate")
def validate(body: SpecText, svc: ServicesDep, key: KeyDep) -> dict[str, Any]:
    """Check a spec as ``POST /v1/jobs`` would (the same parser, the same messages, the same limits)
    without queueing it: ``{"ok": true, "plan": {...}}`` or ``{"ok": false, "detail": [...]}``."""
    import yaml

    from sims.plan import plan
    from workers.jobs import shard_limit_s

    try:
        data = json.loads(body.text) if body.format == "json" else yaml.safe_load(body.text)
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        kind = "JSON" if body.format == "json" else "YAML"
        return {"ok": False, "detail": [{"field": "body", "message": f"the body is not valid {kind}: "
                                                                     f"{syntax_error_text(e)}"}]}
    try:
        spec = parse_spec(data)
        p = plan(spec, "check", settings=svc.settings, shard_limit_s=shard_limit_s(svc.settings))
    except SpecError as e:
        return {"ok": False, "detail": [{"field": f, "message": m} for f, m in e.errors]}
    deals = int(getattr(spec, "deals", 0) or getattr(spec, "samples", 0) or 0)
    if deals > key.max_deals_per_job:
        return {"ok": False, "detail": [{"field": "deals", "message": f"this key may run at most "
                                         f"{key.max_deals_per_job:,} deals per job, the spec asks for {deals:,}"}]}
    unit = unit_names(p.spec)["many"] if p.kind == "tournament" else "samples"
    return {"ok": True, "plan": {"kind": p.kind, "game": p.game, "shards": p.shards_total, "deals": p.deals_total,
                                 "unit": unit}}


@router.get("/web/api/examples")
def example_specs(key: KeyDep) -> dict[str, Any]:
    """Example specs to start from: one tournament per registered game, and its deal-stats questions."""
    return {"examples": examples.examples()}


@router.get("/web/api/events")
async def jobs_events(request: Request, svc: ServicesDep, key: KeyDep) -> StreamingResponse:
    """The user's latest jobs as ``event: jobs`` whenever any of them changes (and at once); counted
    in the key's ``events_per_key`` streams (429 past it)."""
    poll = float(request.app.state.events_poll_s)
    owner = None if key.admin else key.name
    place = await asyncio.to_thread(svc.streams.open, key.name)

    async def stream() -> AsyncIterator[str]:
        last: list[tuple[Any, ...]] | None = None
        quiet = 0.0
        yield "retry: 2000\n\n"
        while not await request.is_disconnected():
            rows = await asyncio.to_thread(svc.store.list_jobs, owner=owner, limit=100)
            now = [(j.id, j.state, j.shards_done, j.units_running, j.error) for j in rows]
            if now != last:
                last, quiet = now, 0.0
                body = json.dumps([{**JobOut.of(j).model_dump(mode="json"), "name": (j.spec or {}).get("name")}
                                   for j in rows])
                yield f"event: jobs\ndata: {body}\n\n"
            elif quiet >= 15:
                quiet = 0.0
                yield ": ping\n\n"
            await asyncio.sleep(poll)
            quiet += poll

    return StreamingResponse(held(place, stream()), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# ------------------------------------------------------------------------------- docs and assets


#: The docs pages load nothing from elsewhere: ReDoc's sidebar logo (from its CDN) is blocked
#: here rather than fetched, so an offline page makes no request that can hang.
_DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
             "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'")


def _docs(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = _DOCS_CSP
    return page


@router.get("/docs")
def swagger_ui() -> HTMLResponse:
    """Swagger UI, its files served from the package (no CDN)."""
    return _docs(get_swagger_ui_html(openapi_url="/openapi.json", title="rasklad API",
                                     swagger_js_url="/static/docs/swagger-ui-bundle.js",
                                     swagger_css_url="/static/docs/swagger-ui.css",
                                     swagger_favicon_url="/static/docs/favicon.png"))


@router.get("/redoc")
def redoc() -> HTMLResponse:
    """ReDoc, its file served from the package (no CDN, no web fonts)."""
    return _docs(get_redoc_html(openapi_url="/openapi.json", title="rasklad API",
                                redoc_js_url="/static/docs/redoc.standalone.js",
                                redoc_favicon_url="/static/docs/favicon.png", with_google_fonts=False))


def _asset(folder: Path, name: str, types: dict[str, str]) -> FileResponse:
    if name not in types:
        raise ApiError(404, f"no file {name}", "name")
    return FileResponse(folder / name, media_type=types[name], headers={"Cache-Control": "public, max-age=3600"})


@router.get("/static/web/{name}")
def web_asset(name: str) -> FileResponse:
    """The web app's own script, style and icon."""
    return _asset(STATIC, name, ASSETS)


@router.get("/static/docs/{name}")
def docs_asset(name: str) -> FileResponse:
    """Swagger UI's and ReDoc's files, from the fastapi-offline package."""
    return _asset(DOCS_STATIC, name, DOCS_ASSETS)


def services_of(request: Request) -> Services:
    """The API's services (for tests and helpers)."""
    svc: Services = request.app.state.services
    return svc
