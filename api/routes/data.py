"""Results: reports, table downloads (streamed) and SQL over the caller's jobs."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse

from api.answers import file_answer, json_answer
from api.deps import KeyDep, Services, ServicesDep
from api.errors import ApiError
from api.routes.jobs import ERRORS, own_job
from api.schemas import REPORT_EXAMPLE, ErrorOut, PartialJob, QueryIn, QueryOut, example
from api.sqlexec import Slot
from storage.apikeys import ApiKey
from storage.jobstore import Job
from storage.layout import job_dir
from storage.objectstore import Location, data_root, read_stream
from storage.parquet import job_tables_on_disk
from storage.query import QueryError, filter_sql, is_truncated, run_query, stream_query
from storage.tableformats import FORMATS, MEDIA_TYPES, encode

router = APIRouter(prefix="/v1", tags=["results"])

PARQUET = MEDIA_TYPES["parquet"]
#: Set when the data served is incomplete: ``done/total`` shards (a download) or
#: ``job:done/total,...`` (a Parquet query answer).
PARTIAL_HEADER = "X-Rasklad-Partial"
#: The jobs a query answer as a file ran over, comma-separated.
JOBS_HEADER = "X-Rasklad-Jobs"
#: Set to ``true`` on a query answer as a file that was cut at the row limit (``query_max_rows``).
TRUNCATED_HEADER = "X-Rasklad-Truncated"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
#: report.html is a stored page with inline styles and SVG only: no script, no request anywhere, shown
#: only in the web app's own frame (sandboxed: a unique origin without the session's cookies).
REPORT_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               "frame-ancestors 'self'; base-uri 'none'; form-action 'none'; sandbox",
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
}


def _job_dir(svc: Services, job_id: str) -> Location:
    return job_dir(data_root(svc.settings), job_id)


def _succeeded(svc: Services, key: Any, job_id: str) -> Location:
    job = own_job(svc, key, job_id)
    if job.state != "succeeded":
        raise ApiError(409, f"job {job.id} is {job.state}: its report exists once it has succeeded", "job_id")
    return _job_dir(svc, job.id)


def _partial(job: Job) -> PartialJob | None:
    """What is missing from a job's data, or None when every shard is in."""
    if job.state == "succeeded" or job.shards_done >= job.shards_total:
        return None
    return PartialJob(job=job.id, state=job.state, shards_done=job.shards_done, shards_total=job.shards_total)


@router.get("/jobs/{job_id}/report", responses={**ERRORS, 409: {"model": ErrorOut, "description": "not succeeded"},
                                               200: example(REPORT_EXAMPLE, description="the report")},
            summary="The job's report")
def report(job_id: str, svc: ServicesDep, key: KeyDep) -> Response:
    """The report JSON: leaderboard with intervals, paired differences, ratings (tournaments),
    or the tables of a deal-stats job."""
    path = _succeeded(svc, key, job_id) / "report.json"
    if not path.exists():
        raise ApiError(409, f"job {job_id} has no report yet", "job_id")
    return Response(path.read_bytes(), media_type="application/json")


@router.get("/jobs/{job_id}/report.html", responses={
    **ERRORS, 409: {"model": ErrorOut, "description": "not succeeded"},
    200: example("<!doctype html><html>...<svg>...</svg>...</html>", "text/html", "the report page")},
            response_class=StreamingResponse, summary="The job's report as a self-contained HTML page")
def report_html(job_id: str, svc: ServicesDep, key: KeyDep) -> StreamingResponse:
    """The same report as a page (inline SVG charts, no external resources), streamed from the store."""
    path = _succeeded(svc, key, job_id) / "report.html"
    if not path.is_file():
        raise ApiError(409, f"job {job_id} has no report yet", "job_id")
    return StreamingResponse(read_stream(path), media_type="text/html; charset=utf-8", headers=REPORT_HEADERS)


def _download_sql(table: str, columns: str | None, where: str | None) -> str:
    """The one statement of a download. Its rows are a subset of the table's: ``where`` is one
    expression (``filter_sql``; run with ``rows_of``, which checks the statement whole), so the
    table's size bounds the result: no row limit is needed beyond the time limit."""
    names = None
    if columns:
        names = [c.strip() for c in columns.split(",") if c.strip()]
        bad = [c for c in names if not _IDENT.match(c)]
        if bad or not names:
            raise ApiError(400, f"columns must be plain column names, not {bad[0] if bad else columns!r}", "columns")
    try:
        return filter_sql(table, names, where)
    except QueryError as e:
        raise ApiError(400, str(e), e.field or "where") from None


def _download_dir(svc: Services, key: ApiKey, job_id: str, table: str) -> tuple[Job, Location]:
    job = own_job(svc, key, job_id)
    job_id = job.id
    jd = _job_dir(svc, job_id)
    tables = job_tables_on_disk(jd) if jd.exists() else []
    if table not in tables:
        raise ApiError(404, f"job {job_id} has no table {table!r}" + (f": it has {', '.join(tables)}" if tables
                                                                        else " (no shard committed yet)"), "table")
    return job, jd


_END = object()
log = logging.getLogger("rasklad.api")


class EncodeError(Exception):
    """A table's rows could not be written in the format asked for (a server fault, a 500)."""


@router.get("/jobs/{job_id}/tables/{table}", responses={**ERRORS, 400: {"model": ErrorOut}, 429: {"model": ErrorOut},
                                                        200: {
    "content": {PARQUET: {"example": "(Parquet bytes)"},
                "text/csv": {"example": '"deal","seat","bot","score"\n0,0,"order-poker/heuristic",2\n'},
                "application/x-ndjson": {"example": '{"deal": 0, "seat": 0, "bot": "order-poker/heuristic", '
                                                    '"score": 2}\n'}},
    "description": "the table, streamed"}}, summary="Download a table (Parquet, CSV or JSON lines)")
async def download(job_id: str, table: str, request: Request, svc: ServicesDep, key: KeyDep,
                   format: Annotated[str, Query(pattern="^(parquet|csv|jsonl)$")] = "parquet",
                   columns: Annotated[str | None, Query(max_length=2000, description="comma-separated columns")] = None,
                   where: Annotated[str | None, Query(max_length=2000, description="a SQL condition")] = None,
                   ) -> StreamingResponse:
    """Stream a table; ``columns`` and ``where`` are pushed into DuckDB, sandboxed and limited
    like /v1/query (time, memory, one of the key's ``query_per_key`` places; stopped when the
    client goes away)."""
    job, jd = await asyncio.to_thread(_download_dir, svc, key, job_id, table)
    sql = _download_sql(table, columns, where)
    s = svc.settings
    slot = await asyncio.to_thread(svc.sql.acquire, key.name)
    stop = threading.Event()

    def start() -> tuple[bytes | None, Iterator[bytes]]:
        batches = stream_query(sql, {job.id: jd}, memory_limit=s.query_memory_limit, timeout_s=s.query_timeout_s,
                               threads=s.query_threads, stop=stop, rows_of=table)
        chunks = encode(batches, batches.schema, format)
        # The first piece now, before the status line: a failing filter is a 400 and a table that
        # cannot be encoded a 500, each with its message, never a 200 cut off at 0 bytes.
        try:
            return next(chunks, None), chunks
        except QueryError:
            raise
        except Exception as e:
            batches.close()
            raise EncodeError(f"table {table} of job {job.id} cannot be written as {format}: "
                              f"{type(e).__name__}: {e}") from e

    try:
        head, chunks = await svc.sql.call(request, stop, start, key=key.name)
    except QueryError as e:
        slot.release()
        raise ApiError(400, str(e), e.field or ("where" if where else "columns")) from None
    except EncodeError as e:
        slot.release()
        log.exception("download of %s/%s as %s failed", job.id, table, format)
        raise ApiError(500, str(e), "format") from None
    except BaseException:
        slot.release()
        raise

    async def body() -> AsyncIterator[bytes]:
        # A failure after the first byte cannot change the status: the exception ends the
        # response without its last chunk, so the client sees a broken transfer, not a whole file.
        try:
            if head is None:  # no rows (JSON lines): nothing to send
                return
            yield head
            while True:
                chunk = await svc.sql.call(None, stop, next, chunks, _END, key=key.name)
                if chunk is _END:
                    return
                yield chunk
        finally:
            _end_download(stop, slot)  # a client that went away cancels this generator

    stream = body()
    # A client gone before the body was first iterated never enters the generator (no finally):
    # the statement and the key's place are freed when the generator is dropped.
    weakref.finalize(stream, _end_download, stop, slot)
    headers = {"Content-Disposition": f'attachment; filename="{job.id}-{table}.{format}"'}
    if (missing := _partial(job)) is not None:  # partial data is never passed on silently
        headers[PARTIAL_HEADER] = f"{missing.shards_done}/{missing.shards_total}"
    return StreamingResponse(stream, media_type=MEDIA_TYPES[format], headers=headers)


def _end_download(stop: threading.Event, slot: Slot) -> None:
    stop.set()  # interrupts the statement if it still runs
    slot.release()


def _query_jobs(svc: Services, key: ApiKey, wanted: list[str] | None,
                all_jobs: bool) -> tuple[dict[str, Location], list[PartialJob]]:
    """The jobs a query runs over (job id -> data location) and what is missing from any of them."""
    if wanted is None:
        # Newest first. Without all_jobs only the latest job with data: the bot labels of
        # different jobs repeat, so an average over all of them silently mixes tournaments.
        own = svc.store.list_jobs(owner=key.name, limit=1000)
        chosen = [j for j in own if _job_dir(svc, j.id).exists()]
        chosen = chosen if all_jobs else chosen[:1]
    else:
        chosen = [own_job(svc, key, j) for j in wanted]
    jobs = {j.id: _job_dir(svc, j.id) for j in chosen if _job_dir(svc, j.id).exists()}
    if not jobs:
        raise ApiError(404, "no job with data to query", "jobs")
    partial = [p for j in chosen if j.id in jobs and (p := _partial(j)) is not None]
    return jobs, partial


def _file_format(accept: str) -> str | None:
    """The file format a query answer is asked for in (``Accept``: a download format's media type),
    or None for the JSON answer."""
    return next((f for f in FORMATS if MEDIA_TYPES[f] in accept), None)


@router.post("/query", response_model=QueryOut, responses={
    401: {"model": ErrorOut}, 400: {"model": ErrorOut, "description": "refused or failed query"},
    404: {"model": ErrorOut}, 429: {"model": ErrorOut, "description": "too many queries of this key"},
    200: {"content": {PARQUET: {"example": "(Parquet bytes)"},
                      "text/csv": {"example": '"bot","n","mean"\n"order-poker/heuristic",72,0.6666666666666666\n'},
                      "application/x-ndjson": {"example": '{"bot": "order-poker/heuristic", "n": 72, '
                                                          '"mean": 0.6666666666666666}\n'}}}},
    summary="SQL over your jobs")
async def query(body: QueryIn, request: Request, svc: ServicesDep, key: KeyDep) -> Response:
    """One read-only SELECT over the views of your jobs (``deals``, ``seats``, ...), with row,
    cell, byte, memory and time limits. ``Accept: application/vnd.apache.parquet``, ``text/csv`` or
    ``application/x-ndjson`` returns the result as that file (the downloads' encoder, the same limits)."""
    if body.jobs is not None and body.all_jobs:
        raise ApiError(400, "give either jobs or all_jobs, not both", "all_jobs")
    jobs, partial = await asyncio.to_thread(_query_jobs, svc, key, body.jobs, body.all_jobs)
    s = svc.settings
    as_file = _file_format(request.headers.get("accept", ""))
    stop = threading.Event()

    def work() -> Response:
        result = run_query(body.sql, jobs, memory_limit=s.query_memory_limit, timeout_s=s.query_timeout_s,
                           max_rows=s.query_max_rows, max_bytes=s.query_max_bytes, max_cells=s.query_max_cells,
                           threads=s.query_threads, stop=stop)
        # Encoding is user-sized work as well: it runs here, on the SQL pool, not on the event loop,
        # a chunk at a time, and what it writes counts against the byte limit (api.answers).
        if as_file is not None:
            headers = {JOBS_HEADER: ",".join(jobs),
                       "Content-Disposition": f'attachment; filename="query.{as_file}"'}
            if partial:
                headers[PARTIAL_HEADER] = ",".join(f"{p.job}:{p.shards_done}/{p.shards_total}" for p in partial)
            if is_truncated(result):
                headers[TRUNCATED_HEADER] = "true"
            return Response(file_answer(result, as_file, s.query_max_bytes), media_type=MEDIA_TYPES[as_file],
                            headers=headers)
        head = {"truncated": is_truncated(result), "jobs": list(jobs), "partial": partial}  # QueryOut's fields
        return Response(json_answer(result, head, s.query_max_bytes), media_type="application/json")

    slot = await asyncio.to_thread(svc.sql.acquire, key.name)
    try:
        return await svc.sql.call(request, stop, work, key=key.name)
    except QueryError as e:
        raise ApiError(400, str(e), "sql") from None
    finally:
        slot.release()
