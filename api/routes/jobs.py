"""Jobs: submit, list, show, follow (server-sent events), cancel."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

import yaml
from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import StreamingResponse

from api.deps import KeyDep, Services, ServicesDep, status_loader
from api.errors import ApiError
from api.schemas import SPEC_EXAMPLE, SPEC_YAML_EXAMPLE, ErrorOut, JobList, JobOut
from api.streams import held
from sims.remoteurl import remote_refusals
from sims.spec import SpecError, parse_spec, syntax_error_text
from storage.apikeys import ApiKey
from storage.jobstore import InvalidTransition, Job, LimitReached
from workers import jobs as control

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "no or invalid API key"},
    404: {"model": ErrorOut, "description": "no such job (or not yours)"},
}


def own_job(svc: Services, key: ApiKey, job_id: str) -> Job:
    """The job if the caller may see it; 404 otherwise (another key's job is never revealed)."""
    job = svc.store.get(job_id) if len(job_id) <= 64 else None
    if job is not None and (job.owner == key.name or key.admin):
        return job
    # A unique prefix of one of the caller's job ids works as on the command line (at least 4
    # characters after the ``j-``, so a stray short string never matches by accident).
    if 6 <= len(job_id) <= 64 and job_id.isascii():
        hits = svc.store.ids_with_prefix(job_id, owner=None if key.admin else key.name, limit=6)
        if len(hits) == 1 and (found := svc.store.get(hits[0])) is not None:
            return found
        if len(hits) > 1:
            raise ApiError(404, f"job prefix {job_id} is ambiguous: {', '.join(hits[:5])}", "job_id")
    raise ApiError(404, f"no job {job_id}", "job_id")


def _ctl(svc: Services) -> control.Control:
    return control.Control(svc.settings, svc.store, svc.celery, svc.tracker)


async def _spec_body(request: Request) -> Any:
    raw = await request.body()
    ctype = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    try:
        if ctype in ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"):
            data = await asyncio.to_thread(yaml.safe_load, raw.decode("utf-8"))
        elif ctype in ("application/json", "text/json", ""):
            data = json.loads(raw.decode("utf-8"))
        else:
            raise ApiError(415, f"send the spec as application/json or application/yaml, not {ctype}",
                           "Content-Type")
    except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as e:
        where = syntax_error_text(e) if not isinstance(e, UnicodeDecodeError) else str(e)
        raise ApiError(400, f"the body is not valid {'YAML' if 'yaml' in ctype else 'JSON'}: {where}",
                       "body") from None
    except RecursionError:
        raise _too_deep() from None
    if isinstance(data, dict | list) and _depth_over(data, MAX_SPEC_DEPTH):
        raise _too_deep()
    return data


#: Nesting a spec may have (a real one has 4 or 5 levels: spec, bots, a bot, its params, a list).
MAX_SPEC_DEPTH = 32
#: Lists and mappings a spec may hold in all (a tournament of 16 bots has a few dozen).
MAX_SPEC_NODES = 10_000


def _too_deep() -> ApiError:
    return ApiError(400, f"the body is nested too deeply or is too large a tree (a spec may nest at most "
                         f"{MAX_SPEC_DEPTH} levels and hold {MAX_SPEC_NODES:,} lists and mappings)", "body")


def _depth_over(data: Any, limit: int) -> bool:
    """Whether ``data`` nests lists/dicts more than ``limit`` levels, or has more than
    ``MAX_SPEC_NODES`` of them (YAML aliases can make a small body a huge tree: it is refused
    too). Iterative: no recursion to exhaust."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if depth > limit or seen > MAX_SPEC_NODES:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


@router.post(
    "", status_code=202, response_model=JobOut,
    responses={**ERRORS, 422: {"model": ErrorOut, "description": "invalid spec, with the field path"},
               429: {"model": ErrorOut, "description": "a per-key limit was reached"},
               503: {"model": ErrorOut, "description": "the broker is unavailable: no job was created"},
               413: {"model": ErrorOut, "description": "body too large"}},
    openapi_extra={"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object"}, "example": SPEC_EXAMPLE},
        "application/yaml": {"schema": {"type": "string"}, "example": SPEC_YAML_EXAMPLE}}}},
    summary="Submit a job spec (JSON or YAML)",
)
async def submit(request: Request, response: Response, svc: ServicesDep, key: KeyDep,
                 idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> JobOut:
    """Validate and queue a job. A retried POST with the same ``Idempotency-Key`` returns the same job."""
    data = await _spec_body(request)
    if idempotency_key:
        existing = svc.keys.idempotent_job(key.name, idempotency_key)
        if existing is not None and (found := svc.store.get(existing)) is not None:
            response.headers["Location"] = f"/v1/jobs/{found.id}"
            return JobOut.of(found)
    try:
        spec = await asyncio.to_thread(parse_spec, data)
    except SpecError as e:
        raise ApiError422(e) from None
    refused = await asyncio.to_thread(remote_refusals, spec, key.remote_bots)
    if refused:  # a remote bot outside the key's allow-list, or at a private address (docs/remote-bots.md)
        raise ApiError(403, refused[0][1], refused[0][0],
                       problems=[{"field": f, "message": m} for f, m in refused])
    deals = int(getattr(spec, "deals", 0) or getattr(spec, "samples", 0) or 0)
    if deals > key.max_deals_per_job:
        raise ApiError(429, f"this key may run at most {key.max_deals_per_job:,} deals per job, "
                            f"the spec asks for {deals:,}", "deals")
    # A quick answer before planning; the job store checks the limit again atomically (start).
    active = sum(svc.store.count_jobs(owner=key.name, state=s) for s in ("queued", "running"))
    if active >= key.max_concurrent_jobs:
        raise _too_many_jobs(active, key.max_concurrent_jobs)
    try:
        p = await asyncio.to_thread(control.prepare, _ctl(svc), spec)
    except SpecError as e:  # a limit of the settings (deals, shards)
        raise ApiError422(e) from None
    if idempotency_key:
        # Reserve the key for this job id before the job exists: of two concurrent retries of
        # one POST exactly one reserves it, and the other answers with that job.
        winner = svc.keys.reserve_idempotent(key.name, idempotency_key, p.job_id)
        if winner != p.job_id:
            for _ in range(100):
                if (j := svc.store.get(winner)) is not None:
                    response.headers["Location"] = f"/v1/jobs/{j.id}"
                    return JobOut.of(j)
                await asyncio.sleep(0.05)
            raise ApiError(409, "a request with this Idempotency-Key is still being processed", "Idempotency-Key")
    try:
        job = await asyncio.to_thread(control.start, _ctl(svc), p, key.name, key.max_concurrent_jobs)
    except (LimitReached, control.BrokerUnavailable) as e:
        if idempotency_key:  # nothing was created: a retry with this key must be free to create it
            await asyncio.to_thread(svc.keys.release_idempotent, key.name, idempotency_key, p.job_id)
        if isinstance(e, LimitReached):
            raise _too_many_jobs(e.active, e.limit) from None
        raise ApiError(503, f"{e}: try again shortly", "broker", headers={"Retry-After": "10"}) from None
    response.headers["Location"] = f"/v1/jobs/{job.id}"
    return JobOut.of(job)


def _too_many_jobs(active: int, limit: int) -> ApiError:
    return ApiError(429, f"this key already has {active} unfinished jobs (its limit is {limit}): "
                         "wait for one to finish", "", headers={"Retry-After": "10"})


class ApiError422(ApiError):
    """422 with every (path, message) of a SpecError."""

    def __init__(self, e: SpecError) -> None:
        super().__init__(422, str(e), problems=[{"field": p, "message": m} for p, m in e.errors])


@router.get("", response_model=JobList, responses=ERRORS, summary="List your jobs")
def list_jobs(svc: ServicesDep, key: KeyDep,
              state: Annotated[str | None, Query(pattern="^(queued|running|succeeded|failed|cancelled)$")] = None,
              game: Annotated[str | None, Query(max_length=64)] = None,
              limit: Annotated[int, Query(ge=1, le=500)] = 50,
              offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0) -> JobList:
    """Your jobs, newest first (an admin key sees every job)."""
    owner = None if key.admin else key.name
    rows = svc.store.list_jobs(owner=owner, state=state, game=game, limit=limit, offset=offset)
    total = svc.store.count_jobs(owner=owner, state=state, game=game)
    return JobList(jobs=[JobOut.of(j) for j in rows], total=total, limit=limit, offset=offset)


@router.get("/{job_id}", response_model=JobOut, responses=ERRORS, summary="One job: state, progress, ETA")
async def get_job(job_id: str, svc: ServicesDep, key: KeyDep) -> Response:
    """State, shards done/total, deals/s, ETA and error of a job (at most ``status_max_age_s`` old)."""
    hit = None
    if len(job_id) <= 64:
        loader = status_loader(svc.store, job_id)
        hit = svc.status.get(job_id, reload=loader) or await svc.status.load(job_id, loader)  # one load per job
    if hit is None:
        # own_job: the owner check, and a unique prefix of one of the caller's ids, as every route.
        job = await asyncio.to_thread(own_job, svc, key, job_id)
        hit = (job.owner, JobOut.of(job).model_dump_json().encode())
        svc.status.put(job.id, *hit)
    owner, body = hit
    if owner != key.name and not key.admin:  # another key's job is never revealed
        raise ApiError(404, f"no job {job_id}", "job_id")
    return Response(body, media_type="application/json")


@router.post("/{job_id}/cancel", response_model=JobOut,
             responses={**ERRORS, 409: {"model": ErrorOut, "description": "the job already finished"}},
             summary="Cancel a job (committed shards are kept)")
def cancel_job(job_id: str, svc: ServicesDep, key: KeyDep) -> JobOut:
    """Stop a job: running shards stop, pending ones are dropped; it ends ``cancelled``."""
    job = own_job(svc, key, job_id)
    try:
        job = control.cancel(_ctl(svc), job.id)
    except InvalidTransition:
        raise ApiError(409, f"job {job_id} already finished ({job.state})", "job_id") from None
    finally:
        svc.status.drop(job_id)
    return JobOut.of(job)


@router.post("/{job_id}/resume", response_model=JobOut,
             responses={**ERRORS, 409: {"model": ErrorOut, "description": (
                 "the job is not cancelled or failed, or another version of its game wrote its committed shards")}},
             summary="Resume a cancelled or failed job (committed shards are kept)")
def resume_job(job_id: str, svc: ServicesDep, key: KeyDep) -> JobOut:
    """Queue the shards a cancelled (or failed) job has not committed; it goes back to ``queued``."""
    job = own_job(svc, key, job_id)
    try:
        job = control.resume(_ctl(svc), job.id)
    except InvalidTransition:
        raise ApiError(409, f"job {job.id} is {job.state}: only a cancelled or failed job resumes",
                       "job_id") from None
    except control.StaleJob as e:  # another version of the game wrote its committed shards
        raise ApiError(409, str(e), "job_id") from None
    finally:
        svc.status.drop(job.id)
    return JobOut.of(job)


@router.get("/{job_id}/events", responses={**ERRORS, 429: {
    "model": ErrorOut, "description": "the key has events_per_key streams open"}, 200: {
    "content": {"text/event-stream": {"example": "event: progress\ndata: {...job...}\n\n"}},
    "description": "`progress` events with the job as JSON whenever it changes, then one `end`"}},
    summary="Follow a job (server-sent events)")
async def events(job_id: str, request: Request, svc: ServicesDep, key: KeyDep) -> StreamingResponse:
    """Progress events until the job ends: ``event: progress`` with the job, then ``event: end``.
    A key may have ``events_per_key`` streams open at once (this route and the web app's); more get 429."""
    job_id = own_job(svc, key, job_id).id
    poll = float(request.app.state.events_poll_s)
    place = await asyncio.to_thread(svc.streams.open, key.name)

    async def stream() -> AsyncIterator[str]:
        last = None
        quiet = 0.0
        yield "retry: 2000\n\n"
        while True:
            if await request.is_disconnected():
                return
            job = await asyncio.to_thread(svc.store.get, job_id)
            if job is None:
                return
            body = JobOut.of(job).model_dump_json()
            key_now = (job.state, job.shards_done, job.units_running, job.error)
            if job.state in ("succeeded", "failed", "cancelled"):
                yield f"event: end\ndata: {body}\n\n"
                return
            if key_now != last:
                last = key_now
                quiet = 0.0
                yield f"event: progress\ndata: {body}\n\n"
            elif quiet >= 15:
                quiet = 0.0
                yield ": ping\n\n"
            await asyncio.sleep(poll)
            quiet += poll

    return StreamingResponse(held(place, stream()), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
