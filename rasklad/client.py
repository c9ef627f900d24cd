"""A small typed client for the rasklad HTTP API (``rasklad serve``), on httpx.

>>> from rasklad.client import Client
>>> with Client("http://127.0.0.1:8000", key="...") as c:      # doctest: +SKIP
...     job = c.submit("examples/order-poker-tournament.yaml")
...     job = c.wait(job.id, on_progress=lambda j: print(j.shards_done, "/", j.shards_total))
...     c.download(job.id, "seats", "seats.parquet")
...     cols, rows, truncated = c.query("SELECT bot, avg(score) FROM seats GROUP BY bot", jobs=[job.id])

The URL and key default to ``RASKLAD_URL`` (else ``http://127.0.0.1:8000``) and ``RASKLAD_KEY``.
Every error of the service is an :class:`ApiError` whose ``str`` is one readable line
(``422 bots[2].params.samples: must be > 0``); a service that cannot be reached is an
:class:`UnreachableError`. Both derive from :class:`RaskladError`.

The server-sent events of ``GET /v1/jobs/{id}/events`` are parsed by :class:`SSEParser`,
written here so that the client needs nothing beyond httpx.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

import httpx

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "DEFAULT_URL",
    "TERMINAL_STATES",
    "ApiError",
    "Client",
    "Job",
    "JobList",
    "Problem",
    "QueryResult",
    "RaskladError",
    "SSEEvent",
    "SSEParser",
    "StreamInterrupted",
    "UnreachableError",
]

#: Where the client looks when neither ``url`` nor ``RASKLAD_URL`` is given.
DEFAULT_URL = "http://127.0.0.1:8000"
#: A job in one of these states never changes again.
TERMINAL_STATES = frozenset({"succeeded", "failed", "cancelled"})
#: Download formats of ``GET /v1/jobs/{id}/tables/{table}``.
TABLE_FORMATS = ("parquet", "csv", "jsonl")
_PARQUET = "application/vnd.apache.parquet"
#: The server sends a keep-alive at least every 15 s: a stream silent for 4x that is dead.
_EVENTS_READ_TIMEOUT = 60.0
_CHUNK = 1 << 16


# --------------------------------------------------------------------------- errors


class RaskladError(Exception):
    """Base of the client's errors: its ``str`` is always a single readable line."""


@dataclass(frozen=True)
class Problem:
    """One thing the service objected to: the field path (may be empty) and the message."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class ApiError(RaskladError):
    """The service answered with an error status (4xx/5xx).

    ``problems`` come from the body ``{"detail": [{"field", "message"}, ...]}``; bodies of
    other shapes (a plain string detail, pydantic ``loc``/``msg`` items, HTML from a proxy)
    are turned into problems too, so the one-line message always says something useful.
    """

    def __init__(self, status: int, problems: list[Problem], retry_after: float | None = None) -> None:
        self.status = status
        self.problems = problems
        #: Seconds the service asked to wait (``Retry-After`` of a 429/503), if it said.
        self.retry_after = retry_after
        super().__init__(self._line())

    def _line(self) -> str:
        if not self.problems:
            return f"{self.status} {_reason(self.status)}"
        text = "; ".join(str(p) for p in self.problems)
        return f"{self.status} " + " ".join(text.split())  # one line, whatever the server sent

    def __str__(self) -> str:
        return self._line()

    @classmethod
    def from_response(cls, response: httpx.Response) -> ApiError:
        """Build the error of a (fully read) error response."""
        return cls(response.status_code, _problems(response), _retry_after(response))


class UnreachableError(RaskladError):
    """The service could not be reached, or the connection broke mid-answer."""


class StreamInterrupted(RaskladError):
    """The events stream closed before its ``end`` event (``wait`` reconnects on this)."""


def _reason(status: int) -> str:
    with contextlib.suppress(ValueError):
        return httpx.codes(status).name.replace("_", " ").lower()
    return "error"


def _problems(response: httpx.Response) -> list[Problem]:
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        text = " ".join(response.text.split())[:200] if response.content else ""
        return [Problem("", text)] if text and not text.startswith("<") else []
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, str):
        return [Problem("", detail)]
    if isinstance(detail, dict):
        detail = [detail]
    out: list[Problem] = []
    if isinstance(detail, list):
        for item in detail:
            if isinstance(item, dict):
                where = item.get("field")
                if where is None and isinstance(item.get("loc"), list | tuple):
                    where = _loc_path(item["loc"])
                msg = item.get("message", item.get("msg", ""))
                out.append(Problem(str(where or ""), str(msg)))
            else:
                out.append(Problem("", str(item)))
    return out


def _loc_path(loc: list[Any] | tuple[Any, ...]) -> str:
    """A pydantic ``loc`` as ``bots[2].params.samples`` (the API's own field-path style)."""
    out = ""
    for part in loc:
        if part in ("body", "query", "path", "header") and not out:
            continue
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- data


def _when(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class Job:
    """A job as the service reports it (the Job JSON of the API)."""

    id: str
    kind: str
    game: str | None
    state: str
    shards_done: int = 0
    shards_total: int = 0
    deals_total: int = 0
    deals_done: int = 0
    deals_per_s: float | None = None
    #: What the deal counts count, plural (deals, matches, pulkas, samples).
    unit: str = "deals"
    eta_s: float | None = None
    error: str | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    owner: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    #: The JSON as received, fields this client does not know included.
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def finished(self) -> bool:
        """True once the job is succeeded, failed or cancelled."""
        return self.state in TERMINAL_STATES

    @property
    def succeeded(self) -> bool:
        """True if the job finished with every shard committed and its report written."""
        return self.state == "succeeded"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        """Build a job from its JSON; unknown fields are kept in ``raw`` only."""
        if not isinstance(data, dict) or "id" not in data:
            raise RaskladError(f"not a job: {str(data)[:120]}")
        return cls(
            id=str(data["id"]),
            kind=str(data.get("kind") or ""),
            game=data.get("game"),
            state=str(data.get("state") or ""),
            shards_done=int(data.get("shards_done") or 0),
            shards_total=int(data.get("shards_total") or 0),
            deals_total=int(data.get("deals_total") or 0),
            deals_done=int(data.get("deals_done") or 0),
            deals_per_s=_float(data.get("deals_per_s")),
            unit=str(data.get("unit") or "deals"),
            eta_s=_float(data.get("eta_s")),
            error=data.get("error"),
            created_at=_when(data.get("created_at")),
            started_at=_when(data.get("started_at")),
            finished_at=_when(data.get("finished_at")),
            owner=data.get("owner"),
            links={str(k): str(v) for k, v in (data.get("links") or {}).items()},
            raw=dict(data),
        )


@dataclass(frozen=True)
class JobList:
    """One page of ``GET /v1/jobs``: the jobs, how many match in all, and the page bounds."""

    jobs: list[Job]
    total: int
    limit: int
    offset: int

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)


class _Rows(NamedTuple):
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


class QueryResult(_Rows):
    """The answer of ``POST /v1/query``: column names, rows, and whether the row limit cut it.

    It unpacks as ``columns, rows, truncated``; besides, ``jobs`` are the jobs the query ran
    over and ``partial`` those of them whose data is incomplete (``{"job", "state",
    "shards_done", "shards_total"}`` each).
    """

    jobs: tuple[str, ...]
    partial: tuple[dict[str, Any], ...]

    def __new__(cls, columns: list[str], rows: list[list[Any]], truncated: bool, jobs: tuple[str, ...] = (),
                partial: tuple[dict[str, Any], ...] = ()) -> QueryResult:
        self = super().__new__(cls, columns, rows, truncated)
        self.jobs = jobs
        self.partial = partial
        return self


# --------------------------------------------------------------------------- SSE

__all__ = ["SSEEvent", "SSEParser"]


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event: its type (``message`` unless named), data, last id and retry hint."""

    event: str
    data: str
    id: str | None = None
    retry_ms: int | None = None


class SSEParser:
    """Feed it text as it arrives; it returns the events completed by that text.

    >>> p = SSEParser()
    >>> p.feed(": ping\\n\\nevent: progress\\ndata: {\\"a\\":\\ndata: 1}\\n")
    []
    >>> p.feed("\\n")
    [SSEEvent(event='progress', data='{"a":\\n1}', id=None, retry_ms=None)]
    """

    def __init__(self) -> None:
        self._buf = ""
        self._started = False
        self._event = ""
        self._data: list[str] = []
        self._has_data = False
        #: The last event id seen (kept across events, as the spec says), sent back on reconnect.
        self.last_id: str | None = None
        #: The server's reconnection delay hint, in milliseconds, if it sent one.
        self.retry_ms: int | None = None
        #: How many comment lines (keep-alives) were seen: lets callers tell a live stream.
        self.comments = 0

    def feed(self, text: str) -> list[SSEEvent]:
        """Parse ``text`` (any slice of the stream) and return the events it completed."""
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")  # a leading BOM is not part of the first field
        buf = self._buf + text
        out: list[SSEEvent] = []
        start = 0
        n = len(buf)
        while True:
            i_n = buf.find("\n", start)
            i_r = buf.find("\r", start)
            if i_n < 0 and i_r < 0:
                break
            if i_r >= 0 and (i_n < 0 or i_r < i_n):
                # A CR at the very end may be the first half of a CRLF in the next chunk: wait.
                if i_r == n - 1:
                    break
                end, nxt = i_r, i_r + (2 if buf[i_r + 1] == "\n" else 1)
            else:
                end, nxt = i_n, i_n + 1
            ev = self._line(buf[start:end])
            if ev is not None:
                out.append(ev)
            start = nxt
        self._buf = buf[start:]
        return out

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated last event is discarded (as browsers do)."""
        out: list[SSEEvent] = []
        if self._buf.endswith("\r"):
            ev = self._line(self._buf[:-1])
            if ev is not None:
                out.append(ev)
        self._buf = ""
        self._reset()
        return out

    def _reset(self) -> None:
        self._event = ""
        self._data = []
        self._has_data = False

    def _line(self, line: str) -> SSEEvent | None:
        if line == "":
            if not self._has_data:
                self._reset()
                return None
            ev = SSEEvent(self._event or "message", "\n".join(self._data), self.last_id, self.retry_ms)
            self._reset()
            return ev
        if line.startswith(":"):
            self.comments += 1
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
            self._has_data = True
        elif field == "event":
            self._event = value
        elif field == "id":
            if "\0" not in value:
                self.last_id = value
        elif field == "retry" and value.isdigit():
            self.retry_ms = int(value)
        # Any other field is ignored, as the format requires.
        return None


# --------------------------------------------------------------------------- client


def _url_from_env() -> str:
    return os.environ.get("RASKLAD_URL") or DEFAULT_URL


def _key_from_env() -> str | None:
    return os.environ.get("RASKLAD_KEY") or None


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


@contextlib.contextmanager
def _transport_errors(what: str) -> Iterator[None]:
    """Turn httpx's transport failures into :class:`UnreachableError` naming ``what``."""
    try:
        yield
    except httpx.TimeoutException as e:
        raise UnreachableError(f"{what}: timed out ({type(e).__name__})") from e
    except httpx.TransportError as e:
        raise UnreachableError(f"{what}: {_one_line(e)}") from e


def _spec_body(spec: dict[str, Any] | str | Path) -> tuple[bytes, str]:
    """The request body and content type for a spec given as a dict, a file or spec text.

    A ``str`` naming an existing file (one line) is read as that file; any other ``str`` is
    the spec itself, JSON if it starts with ``{`` and YAML otherwise. YAML is sent as it is
    (``application/yaml``) so that the service reports errors against the user's own text.
    """
    if isinstance(spec, dict):
        return json.dumps(spec).encode(), "application/json"
    if isinstance(spec, str) and ("\n" in spec or not spec.strip() or not Path(spec).is_file()):
        text = spec
        kind = "json" if text.lstrip().startswith("{") else "yaml"
        return text.encode(), f"application/{kind}"
    path = Path(spec)
    data = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == ".json" or (suffix not in (".yaml", ".yml") and data.lstrip().startswith(b"{")):
        return data, "application/json"
    return data, "application/yaml"


_FILENAME = re.compile(r"""filename\*?=(?:UTF-8'')?"?([^";]+)"?""", re.IGNORECASE)


def _attachment_name(response: httpx.Response, fallback: str) -> str:
    """The file name of ``Content-Disposition``, reduced to a bare, safe name."""
    m = _FILENAME.search(response.headers.get("content-disposition", ""))
    name = Path(m.group(1)).name if m else ""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")
    return name or fallback


@dataclass
class _StreamState:
    """What survives a reconnect of the events stream: the last event id and retry hint."""

    last_id: str | None = None
    retry_ms: int | None = None


def _query_body(sql: str, jobs: list[str] | None, all_jobs: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"sql": sql, "jobs": jobs}
    if all_jobs:
        body["all_jobs"] = True
    return body


class Client:
    """A connection to a rasklad service.

    ``url`` defaults to ``RASKLAD_URL`` (else :data:`DEFAULT_URL`), ``key`` to ``RASKLAD_KEY``;
    ``timeout`` (seconds) bounds connecting and each read of ordinary requests. Downloads
    and queries allow a longer wait for the first byte (``stream_timeout``), because the
    service may filter a large table before it sends anything. Use it as a context manager
    or call :meth:`close`.
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        timeout: float = 30.0,
        *,
        stream_timeout: float = 300.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = (url or _url_from_env()).rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise RaskladError(f"service URL must start with http:// or https://, not {self.url!r}")
        self.key = key if key is not None else _key_from_env()
        self.timeout = timeout
        self.stream_timeout = max(stream_timeout, timeout)
        headers = {"User-Agent": "rasklad-client", "Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout,
                                  transport=transport, follow_redirects=False)

    # -- plumbing

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        with _transport_errors(f"cannot reach {self.url}"):
            response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise ApiError.from_response(response)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._request(method, path, **kwargs)
        try:
            return response.json()
        except ValueError as e:
            raise RaskladError(f"{method} {path}: the service did not answer with JSON") from e

    @staticmethod
    def _job_path(job_id: str, *rest: str) -> str:
        if not job_id:
            raise RaskladError("empty job id")
        return "/".join(["/v1/jobs", quote(job_id, safe=""), *rest])

    # -- jobs

    def submit(self, spec: dict[str, Any] | str | Path, idempotency_key: str | None = None) -> Job:
        """Queue a job (``POST /v1/jobs``) and return it as the service created it.

        ``spec`` is a dict, a spec file (``Path``, or a ``str`` naming an existing file) or
        spec text (YAML or JSON). With ``idempotency_key``, retrying the same submission
        (after a timeout, say) returns the job of the first attempt instead of a new one.
        """
        body, ctype = _spec_body(spec)
        headers = {"Content-Type": ctype}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        return Job.from_json(self._json("POST", "/v1/jobs", content=body, headers=headers))

    def job(self, job_id: str) -> Job:
        """The job ``job_id`` now (``GET /v1/jobs/{id}``)."""
        return Job.from_json(self._json("GET", self._job_path(job_id)))

    def jobs(self, state: str | None = None, game: str | None = None, limit: int = 50,
             offset: int = 0) -> JobList:
        """One page of the caller's jobs, newest first, optionally only one state or game."""
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if state is not None:
            params["state"] = state
        if game is not None:
            params["game"] = game
        body = self._json("GET", "/v1/jobs", params=params)
        jobs = [Job.from_json(j) for j in body.get("jobs", [])]
        return JobList(jobs, int(body.get("total", len(jobs))), int(body.get("limit", limit)),
                       int(body.get("offset", offset)))

    def cancel(self, job_id: str) -> Job:
        """Ask the service to cancel a job; committed shards are kept (409 if it already finished)."""
        return Job.from_json(self._json("POST", self._job_path(job_id, "cancel")))

    def resume(self, job_id: str) -> Job:
        """Resume a cancelled or failed job: its missing shards are queued again (409 otherwise)."""
        return Job.from_json(self._json("POST", self._job_path(job_id, "resume")))

    def report(self, job_id: str) -> dict[str, Any]:
        """The report of a succeeded job, as JSON (409 while it is not succeeded)."""
        body = self._json("GET", self._job_path(job_id, "report"))
        return dict(body)

    def report_html(self, job_id: str) -> str:
        """The HTML report of a succeeded job."""
        path = self._job_path(job_id, "report.html")
        return self._request("GET", path, headers={"Accept": "text/html"}).text

    # -- progress

    def events(self, job_id: str) -> Iterator[Job]:
        """The job after each change, from the server-sent events stream, ending with the final job.

        One connection: if it breaks before the ``end`` event, :class:`StreamInterrupted` is
        raised (use :meth:`wait` to follow a job through reconnects).
        """
        for _, job in self._event_stream(job_id, _StreamState()):
            yield job

    def _event_stream(self, job_id: str, state: _StreamState) -> Iterator[tuple[str, Job]]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if state.last_id is not None:
            headers["Last-Event-ID"] = state.last_id
        timeout = httpx.Timeout(self.timeout, read=max(self.timeout, _EVENTS_READ_TIMEOUT))
        path = self._job_path(job_id, "events")
        parser = SSEParser()
        with _transport_errors(f"cannot reach {self.url}"):
            cm = self._http.stream("GET", path, headers=headers, timeout=timeout)
            response = cm.__enter__()
        try:
            if response.status_code >= 400:
                with _transport_errors(f"cannot reach {self.url}"):
                    response.read()
                raise ApiError.from_response(response)
            ctype = response.headers.get("content-type", "")
            if not ctype.startswith("text/event-stream"):
                raise StreamInterrupted(f"{path}: expected an event stream, got {ctype or 'no content type'}")
            try:
                for chunk in response.iter_text():
                    for ev in parser.feed(chunk):
                        state.last_id, state.retry_ms = parser.last_id, parser.retry_ms
                        if ev.event not in ("progress", "end"):
                            continue
                        try:
                            job = Job.from_json(json.loads(ev.data))
                        except ValueError as e:
                            raise StreamInterrupted(f"{path}: event {ev.event!r} is not a job: {e}") from e
                        yield ev.event, job
                        if ev.event == "end":
                            return
            except httpx.TransportError as e:
                raise StreamInterrupted(f"{path}: stream broke: {_one_line(e)}") from e
            raise StreamInterrupted(f"{path}: stream closed before the end event")
        finally:
            with contextlib.suppress(httpx.HTTPError):
                cm.__exit__(None, None, None)

    def wait(
        self,
        job_id: str,
        on_progress: Callable[[Job], None] | None = None,
        *,
        poll_interval: float = 2.0,
        max_outage: float = 300.0,
    ) -> Job:
        """Follow a job until it finishes and return it (succeeded, failed or cancelled).

        Progress comes from the events stream; ``on_progress`` is called with every update.
        When the stream drops, the job is polled once (it may have finished meanwhile) and
        the stream is reopened after the server's ``retry`` hint. A stream that fails three
        times in a row without a single event (a proxy that buffers, say) is given up for
        polling every ``poll_interval`` seconds. Once the service has answered, an outage
        (unreachable, 5xx, 429) is ridden out for up to ``max_outage`` seconds in a row, so a
        restart of the API does not end the wait; a service that never answered, and API
        errors such as 404, raise at once.
        """
        rng = random.Random()  # jitter only: spreads reconnects of many clients, no result depends on it
        state = _StreamState()
        stream_failures = 0
        down_since: float | None = None
        reached = False  # a wrong URL should fail at once; a restart mid-wait should not

        def report(job: Job) -> None:
            if on_progress is not None:
                on_progress(job)

        def outage(e: RaskladError) -> None:
            nonlocal down_since
            now = time.monotonic()
            down_since = down_since if down_since is not None else now
            if not reached or now - down_since > max_outage:
                raise e

        while True:
            if stream_failures < 3:
                delivered = False
                try:
                    for name, job in self._event_stream(job_id, state):
                        delivered, reached, down_since = True, True, None
                        report(job)
                        if name == "end" or job.finished:
                            return job
                except (StreamInterrupted, UnreachableError):
                    pass
                except ApiError as e:
                    if e.status < 500 and e.status != 429:
                        raise
                    reached = True
                stream_failures = 0 if delivered else stream_failures + 1
            try:
                job = self.job(job_id)
                reached, down_since = True, None
                report(job)
                if job.finished:
                    return job
            except UnreachableError as e:
                outage(e)
            except ApiError as e:
                if e.status < 500 and e.status != 429:
                    raise
                outage(e)
            if stream_failures == 0 and down_since is None:
                delay = state.retry_ms / 1000 if state.retry_ms is not None else min(1.0, poll_interval)
            else:
                delay = poll_interval
            time.sleep(delay * (0.75 + 0.5 * rng.random()))

    # -- results

    def download(
        self,
        job_id: str,
        table: str,
        out_path: str | Path,
        format: str = "parquet",
        columns: list[str] | tuple[str, ...] | str | None = None,
        where: str | None = None,
        on_partial: Callable[[str], None] | None = None,
    ) -> Path:
        """Stream a table of a job to ``out_path`` and return the path written.

        The body goes to disk chunk by chunk under a temporary name in the same directory,
        then is renamed into place: ``out_path`` is either the whole file or untouched (a
        file already there survives a failed download). ``out_path`` may be a directory; the
        service's file name is used then. ``columns`` and ``where`` are applied by the service.
        When the job has not committed every shard, ``on_partial`` is called with ``done/total``.
        """
        if format not in TABLE_FORMATS:
            raise RaskladError(f"unknown format {format!r}: {', '.join(TABLE_FORMATS)}")
        params: dict[str, str] = {"format": format}
        if columns:
            params["columns"] = columns if isinstance(columns, str) else ",".join(columns)
        if where:
            params["where"] = where
        out = Path(out_path)
        path = self._job_path(job_id, "tables", quote(table, safe=""))
        timeout = httpx.Timeout(self.timeout, read=self.stream_timeout)
        written = 0
        request = self._http.build_request("GET", path, params=params, timeout=timeout,
                                           headers={"Accept": "*/*"})
        with _transport_errors(f"download of {table} from {self.url}"), \
                contextlib.closing(self._http.send(request, stream=True)) as r:
            if r.status_code >= 400:
                r.read()
                raise ApiError.from_response(r)
            if on_partial is not None and (partial := r.headers.get("X-Rasklad-Partial")):
                on_partial(partial)
            if out.is_dir():
                out = out / _attachment_name(r, f"{table}.{format}")
            tmp = out.with_name(f".{out.name}.{os.getpid()}-{random.getrandbits(32):08x}.part")
            try:
                with open(tmp, "xb") as f:
                    for chunk in r.iter_bytes(_CHUNK):
                        f.write(chunk)
                        written += len(chunk)
                    f.flush()
                    os.fsync(f.fileno())  # the rename must not publish a file whose bytes are not on disk
                os.replace(tmp, out)
            except BaseException as e:
                tmp.unlink(missing_ok=True)
                if isinstance(e, httpx.TransportError):
                    raise UnreachableError(f"download of {table} broke after {written} bytes: "
                                           f"{_one_line(e)}") from e
                raise
        return out

    def query(self, sql: str, jobs: list[str] | None = None, all_jobs: bool = False) -> QueryResult:
        """Run read-only SQL over the caller's jobs: ``jobs`` (ids or unique prefixes), every job
        (``all_jobs``), or by default the latest job with data. Columns, rows, truncated, the jobs
        it ran over and those of them whose data is incomplete."""
        body = self._json("POST", "/v1/query", json=_query_body(sql, jobs, all_jobs),
                          timeout=httpx.Timeout(self.timeout, read=self.stream_timeout))
        return QueryResult([str(c) for c in body.get("columns", [])], [list(r) for r in body.get("rows", [])],
                           bool(body.get("truncated", False)), tuple(str(j) for j in body.get("jobs", [])),
                           tuple(dict(p) for p in body.get("partial", [])))

    def query_table(self, sql: str, jobs: list[str] | None = None, all_jobs: bool = False) -> pa.Table:
        """Like :meth:`query`, but the answer comes as Parquet and is returned as a pyarrow table.

        The table's schema metadata carries ``rasklad.jobs`` (the jobs queried, comma-separated)
        and, for incomplete data, ``rasklad.partial`` (``job:done/total,...``).
        """
        import io

        import pyarrow.parquet as pq

        response = self._request("POST", "/v1/query", json=_query_body(sql, jobs, all_jobs),
                                 headers={"Accept": _PARQUET},
                                 timeout=httpx.Timeout(self.timeout, read=self.stream_timeout))
        # One thread, no pre-buffering: a query answer is small (the row limit bounds it), and
        # Arrow's I/O and CPU pools left alive at interpreter exit can abort a short-lived CLI
        # with "terminate called without an active exception" (apache/arrow#34314; seen here).
        table = pq.read_table(io.BytesIO(response.content), use_threads=False, pre_buffer=False)
        meta = dict(table.schema.metadata or {})
        meta[b"rasklad.jobs"] = response.headers.get("X-Rasklad-Jobs", "").encode()
        if partial := response.headers.get("X-Rasklad-Partial"):
            meta[b"rasklad.partial"] = partial.encode()
        return table.replace_schema_metadata(meta)

    # -- catalogue

    def games(self) -> list[dict[str, Any]]:
        """The games the service runs: ``[{"name", "description"}, ...]``."""
        return list(self._json("GET", "/v1/games").get("games", []))

    def game(self, name: str) -> dict[str, Any]:
        """One game: description, rules options, presets and bots."""
        return dict(self._json("GET", f"/v1/games/{quote(name, safe='')}"))

    def bots(self) -> list[dict[str, Any]]:
        """The bots: ``[{"name", "description", "params_schema"}, ...]``."""
        return list(self._json("GET", "/v1/bots").get("bots", []))

    def health(self) -> dict[str, Any]:
        """``GET /healthz``: ``{"status": "ok"|"degraded", "checks": {...}}`` (503 is returned too)."""
        with _transport_errors(f"cannot reach {self.url}"):
            response = self._http.get("/healthz")
        if response.status_code not in (200, 503):
            raise ApiError.from_response(response)
        return dict(response.json())
