"""A tiny stand-in for the rasklad HTTP API, served by a real uvicorn on 127.0.0.1.

The real API (``api/``) is written in parallel with the client; this app follows the HTTP
contract the client is written against (routes, Job JSON, error bodies, the SSE framing)
so the client can be tested over real sockets. It is a fixture of the client tests, not a
model of the service's behaviour: jobs advance one shard per event or poll, and a few
job names and table names switch on the awkward cases the client must survive
(``drop`` — the events stream closes early once; ``nostream`` — the events route always
fails, so the client must poll; ``flaky`` — polls 2 and 3 answer 503; ``hold`` — the events
stream pauses after its first event until ``gate`` is set; ``fail`` — the job ends failed;
table ``broken`` — the connection dies mid-download; table ``gated`` — the body pauses half
way until ``gate`` is set).
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import uvicorn
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

KEYS = {"k-alice": "alice", "k-bob": "bob"}
MAX_BODY = 4096
MAX_DEALS = 1_000_000
TABLE_BYTES = 3 * (1 << 20) + 12345  # not a multiple of any chunk size
CHUNK = 1 << 16


def table_bytes(table: str, fmt: str) -> bytes:
    """The deterministic body of a table download (random bytes from a fixed seed)."""
    seed = sum(map(ord, f"{table}/{fmt}"))
    return np.random.default_rng(seed).integers(0, 256, TABLE_BYTES, dtype=np.uint8).tobytes()


def problem(status: int, message: str, where: str = "",
            headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"detail": [{"field": where, "message": message}]}
    return JSONResponse(body, status_code=status, headers=headers)


@dataclass
class FakeJob:
    id: str
    owner: str
    spec: dict[str, Any]
    shards_total: int
    shards_done: int = 0
    state: str = "queued"
    error: str | None = None
    connections: int = 0
    polls: int = 0
    last_event_ids: list[str | None] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.spec.get("name", ""))

    def advance(self) -> None:
        """One more shard committed; at the last one, the job's final state."""
        if self.state in ("succeeded", "failed", "cancelled"):
            return
        self.state = "running"
        self.shards_done = min(self.shards_total, self.shards_done + 1)
        if self.shards_done == self.shards_total:
            if "fail" in self.name:
                self.state, self.error = "failed", "shard 2 killed its worker 3 times (out of memory?)"
            else:
                self.state = "succeeded"

    def to_json(self) -> dict[str, Any]:
        done = self.state in ("succeeded", "failed", "cancelled")
        per = 1000
        return {
            "id": self.id, "kind": self.spec.get("kind", "tournament"), "game": self.spec.get("game"),
            "state": self.state, "shards_done": self.shards_done, "shards_total": self.shards_total,
            "deals_total": per * self.shards_total, "deals_done": per * self.shards_done,
            "deals_per_s": 2500.0 if self.shards_done else None,
            "eta_s": None if done or not self.shards_done else 0.4 * (self.shards_total - self.shards_done),
            "error": self.error, "created_at": "2025-01-02T03:04:05Z",
            "started_at": "2025-01-02T03:04:06+00:00" if self.shards_done else None,
            "finished_at": "2025-01-02T03:05:00Z" if done else None, "owner": self.owner,
            "links": {"self": f"/v1/jobs/{self.id}", "events": f"/v1/jobs/{self.id}/events",
                      "report": f"/v1/jobs/{self.id}/report",
                      "report_html": f"/v1/jobs/{self.id}/report.html",
                      "tables": f"/v1/jobs/{self.id}/tables"},
            "future_field": 1,
        }


class StandIn:
    """State of the stand-in service; tests read it to see what the client sent."""

    def __init__(self) -> None:
        self.jobs: dict[str, FakeJob] = {}
        self.idempotent: dict[tuple[str, str], str] = {}
        self.downloads: list[dict[str, str]] = []
        self.queries: list[dict[str, Any]] = []
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.app = Starlette(routes=[
            Route("/v1/jobs", self.create, methods=["POST"]),
            Route("/v1/jobs", self.list_jobs, methods=["GET"]),
            Route("/v1/jobs/{id}", self.get_job, methods=["GET"]),
            Route("/v1/jobs/{id}/cancel", self.cancel, methods=["POST"]),
            Route("/v1/jobs/{id}/events", self.events, methods=["GET"]),
            Route("/v1/jobs/{id}/report", self.report, methods=["GET"]),
            Route("/v1/jobs/{id}/report.html", self.report_html, methods=["GET"]),
            Route("/v1/jobs/{id}/tables/{table}", self.table, methods=["GET"]),
            Route("/v1/query", self.query, methods=["POST"]),
            Route("/v1/games", self.games, methods=["GET"]),
            Route("/v1/bots", self.bots, methods=["GET"]),
            Route("/healthz", self.health, methods=["GET"]),
        ])

    # -- helpers

    def owner(self, request: Request) -> str | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return KEYS.get(token) if scheme.lower() == "bearer" else None

    def unauthorized(self) -> JSONResponse:
        return problem(401, "missing API key: send Authorization: Bearer <key>", "Authorization",
                       {"WWW-Authenticate": "Bearer"})

    def find(self, request: Request) -> tuple[FakeJob | None, Response | None]:
        who = self.owner(request)
        if who is None:
            return None, self.unauthorized()
        job = self.jobs.get(request.path_params["id"])
        if job is None or job.owner != who:  # another key's job is not revealed
            return None, problem(404, f"no job {request.path_params['id']!r}")
        return job, None

    # -- routes

    async def create(self, request: Request) -> Response:
        who = self.owner(request)
        if who is None:
            return self.unauthorized()
        body = await request.body()
        if len(body) > MAX_BODY:
            return problem(413, f"request body over {MAX_BODY} bytes")
        ctype = request.headers.get("content-type", "")
        try:
            spec = yaml.safe_load(body) if "yaml" in ctype else json.loads(body)
        except (ValueError, yaml.YAMLError) as e:
            return problem(400, f"not valid {'YAML' if 'yaml' in ctype else 'JSON'}: {e}".splitlines()[0])
        if not isinstance(spec, dict):
            return problem(422, "a job spec is a mapping")
        problems = []
        if spec.get("kind") not in ("tournament", "deal-stats"):
            problems.append({"field": "kind", "message": "must be tournament or deal-stats"})
        for i, bot in enumerate(spec.get("bots") or []):
            if int((bot.get("params") or {}).get("samples", 1)) <= 0:
                problems.append({"field": f"bots[{i}].params.samples", "message": "must be > 0"})
        if problems:
            return JSONResponse({"detail": problems}, status_code=422)
        if int(spec.get("deals", 0)) > MAX_DEALS:
            return problem(429, f"deals per job over your limit of {MAX_DEALS}", "deals",
                           {"Retry-After": "30"})
        key = request.headers.get("idempotency-key")
        with self.lock:
            if key and (who, key) in self.idempotent:
                job = self.jobs[self.idempotent[(who, key)]]
            else:
                job = FakeJob(f"j{len(self.jobs) + 1:04d}", who, spec, int(spec.get("shards", 4)))
                self.jobs[job.id] = job
                if key:
                    self.idempotent[(who, key)] = job.id
        return JSONResponse(job.to_json(), status_code=202, headers={"Location": f"/v1/jobs/{job.id}"})

    async def list_jobs(self, request: Request) -> Response:
        who = self.owner(request)
        if who is None:
            return self.unauthorized()
        q = request.query_params
        mine = [j for j in reversed(self.jobs.values()) if j.owner == who
                and q.get("state") in (None, j.state) and q.get("game") in (None, j.spec.get("game"))]
        limit, offset = int(q.get("limit", 50)), int(q.get("offset", 0))
        return JSONResponse({"jobs": [j.to_json() for j in mine[offset:offset + limit]], "total": len(mine),
                             "limit": limit, "offset": offset})

    async def get_job(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        job.polls += 1
        if "flaky" in job.name and job.polls in (2, 3):
            return problem(503, "the job store is restarting")
        job.advance()  # polling makes progress too, so a client that only polls still finishes
        return JSONResponse(job.to_json())

    async def cancel(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        if job.state in ("succeeded", "failed", "cancelled"):
            return problem(409, f"job {job.id} already {job.state}")
        job.state = "cancelled"
        return JSONResponse(job.to_json())

    async def events(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        job.connections += 1
        job.last_event_ids.append(request.headers.get("last-event-id"))
        if "nostream" in job.name:
            return problem(503, "events are not available behind this proxy")
        drop_now = "drop" in job.name and job.connections == 1
        gate = self.gate

        async def stream() -> AsyncIterator[bytes]:
            yield b"retry: 20\n: ping\n\n"
            n = 0
            while job.state not in ("succeeded", "failed", "cancelled"):
                job.advance()
                n += 1
                eol = "\r\n" if n % 2 else "\n"  # both line endings in one stream
                data = eol.join(f"data: {line}" for line in json.dumps(job.to_json(), indent=2).splitlines())
                msg = f"event: progress{eol}id: {job.id}-{job.shards_done}{eol}{data}{eol}{eol}"
                # Split each event across writes, mid-line, so the parser must join chunks.
                raw = msg.encode()
                yield raw[:7]
                await asyncio.sleep(0)
                yield raw[7:] + b": ping\n\n"
                if drop_now:
                    return  # closes without an end event: the client has to reconnect
                while "hold" in job.name and not gate.is_set():
                    await asyncio.sleep(0.01)
            yield f"event: end\ndata: {json.dumps(job.to_json())}\n\n".encode()

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def report(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        if job.state != "succeeded":
            return problem(409, f"job {job.id} is {job.state}, not succeeded")
        return JSONResponse({"job": job.id, "leaderboard": [{"bot": "order-poker/heuristic", "mean": 0.25}]})

    async def report_html(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        return Response(f"<html><body>{job.id}</body></html>", media_type="text/html")

    async def table(self, request: Request) -> Response:
        job, err = self.find(request)
        if err is not None:
            return err
        assert job is not None
        table = request.path_params["table"]
        fmt = request.query_params.get("format", "parquet")
        self.downloads.append(dict(request.query_params))
        if table not in ("seats", "deals", "broken", "gated"):
            return problem(404, f"job {job.id} has no table {table!r}", "table")
        data = table_bytes(table, fmt)
        gate = self.gate

        async def body() -> AsyncIterator[bytes]:
            for i in range(0, len(data), CHUNK):
                if i >= len(data) // 2:
                    if table == "broken":
                        raise RuntimeError("stand-in: the connection dies mid-download")
                    while table == "gated" and not gate.is_set():
                        await asyncio.sleep(0.01)
                yield data[i:i + CHUNK]

        media = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv",
                 "jsonl": "application/x-ndjson"}
        name = f"{job.id}-{table}.{fmt}"
        return StreamingResponse(body(), media_type=media.get(fmt, "application/octet-stream"),
                                 headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def query(self, request: Request) -> Response:
        who = self.owner(request)
        if who is None:
            return self.unauthorized()
        body = await request.json()
        self.queries.append(body)
        if "read_csv" in body.get("sql", ""):
            return problem(400, "read_csv is not allowed: only the job views can be read", "sql")
        columns = ["bot", "n", "avg_score"]
        rows = [["order-poker/heuristic", 4000, 0.25], ["order-poker/random", 4000, -0.25]]
        if "parquet" in request.headers.get("accept", ""):
            import pyarrow as pa
            import pyarrow.parquet as pq

            buf = io.BytesIO()
            pq.write_table(pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)}), buf)
            return Response(buf.getvalue(), media_type="application/vnd.apache.parquet")
        return JSONResponse({"columns": columns, "rows": rows, "truncated": "LIMIT" not in body["sql"]})

    async def games(self, request: Request) -> Response:
        return JSONResponse({"games": [{"name": "order-poker", "description": "Order Poker"}]})

    async def bots(self, request: Request) -> Response:
        return JSONResponse({"bots": [{"name": "order-poker/heuristic", "description": "greedy",
                                       "params_schema": {"type": "object"}}]})

    async def health(self, request: Request) -> Response:
        checks = {"broker": "down", "store": "ok", "data_root": "ok"}
        return JSONResponse({"status": "degraded", "checks": checks}, status_code=503)


@contextmanager
def serve(app: Any, port: int = 0) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 (a free port by default) in a thread; yield its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="critical", lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        threading.Event().wait(0.01)
    else:
        raise RuntimeError("uvicorn did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def closed_port_url() -> str:
    """A URL on which nothing listens (a port bound and released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"
