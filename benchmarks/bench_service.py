"""The service against ``rasklad run``: shard throughput and API latency (docs/service.md, "Tests and benchmark").

Measured with real processes (the harness of the service tests: ``rasklad serve`` under
uvicorn, ``rasklad worker`` Celery processes, Redis on a private database):

* **Throughput.** One tournament spec, run (a) by the embedded runner of ``rasklad run``
  with N processes and (b) by the service with N workers of one process each, N = 1 and 2.
  Embedded: the wall time of ``run_job`` in this process (planning, pool start, shards,
  commits, report). Service: the job's ``finished_at − created_at`` (queueing, workers,
  commits, finalize, report), with the service's default reconciler and sweep intervals.
  The runs alternate in ABBA order (embedded, service, service, embedded, ...) so load
  from other processes, and its drift, hits both alike; the best of ``--repeats`` is kept.
  Overhead = embedded rate ÷ service rate − 1 (target: under 10%).
* **Latency.** ``--clients`` concurrent clients (asyncio tasks, one keep-alive connection
  each, a minimal HTTP/1.1 client on asyncio streams) on loopback send ``GET /v1/jobs/{id}``
  back to back for ``--seconds``; every answer must be 200 with the (succeeded) job. Latency
  is the client-side time of one request, p50/p99/max; errors count any other answer or a
  broken connection. The load generator shares the 2 cores with the API.

Latency is measured with 1 and with 2 API processes (``rasklad serve --workers 2``).

Usage: python benchmarks/bench_service.py [--deals 1500] [--repeats 3] [--clients 200] [--seconds 20]
       [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the real-process harness of the service tests

from service_harness import Service, redis_db  # noqa: E402

SERVICE_DEFAULTS = {"RASKLAD_RECONCILE_SECONDS": "30", "RASKLAD_RESTORE_INTERVAL": "10"}


def spec_of(deals: int, players: int, bots: str, shard_deals: int, seed: int) -> dict[str, Any]:
    return {"kind": "tournament", "game": "order-poker", "players": players,
            "bots": [f"order-poker/{bots}"] * players, "deals": deals, "shard_deals": shard_deals,
            "seating": "duplicate", "seed": seed}


def embedded_seconds(spec: dict[str, Any], workers: int) -> float:
    """Wall time of ``rasklad run``'s runner on ``spec`` with ``workers`` processes (fresh data root)."""
    from sims.embedded import run_job
    from sims.spec import parse_spec

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_job(parse_spec(spec), data=Path(d), workers=workers)
        dt = time.perf_counter() - t0
    assert res.state == "succeeded", res
    return dt


def service_seconds(http: httpx.Client, spec: dict[str, Any]) -> float:
    """The job's own clock: from its creation (in the POST) to ``succeeded`` (after finalize).

    Read from the job's timestamps, so the polling (every 0.25 s, cheap for the API) adds no
    error to the figure.
    """
    r = http.post("/v1/jobs", json=spec)
    r.raise_for_status()
    job_id = r.json()["id"]
    while True:
        job = http.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.25)
    assert job["state"] == "succeeded", job
    created, finished = (datetime.fromisoformat(job[k]) for k in ("created_at", "finished_at"))
    return (finished - created).total_seconds()


def start_service(tmp: Path, db: int, workers: int) -> Service:
    # Shards of a few seconds: the time limits must be far above them (defaults of the service).
    # The service as deployed: the test harness's fast reconciler (every 2 s) and unacked
    # sweep (every 1 s) are for fault tests; here the defaults of the service apply.
    svc = Service(tmp, db, shard_seconds=60, visibility=600, extra_env=SERVICE_DEFAULTS)
    svc.start_api()
    for i in range(workers):
        svc.start_worker(f"w{i}", 1)
    for i in range(workers):
        svc.wait_worker_ready(f"w{i}")
    return svc


def throughput(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    plays = args.deals * args.players
    for n in (1, 2):
        with redis_db() as db, tempfile.TemporaryDirectory() as d:
            svc = start_service(Path(d), db, n)
            try:
                key = svc.create_key("bench", "--max-jobs", "100", "--max-deals", str(10 ** 9))
                with svc.client(key) as http:
                    # Warm-up: the first shard of each worker process imports the game code.
                    service_seconds(http, spec_of(args.players * n, args.players, args.bots, args.players, 0))
                    emb, srv = [], []
                    for r in range(args.repeats):
                        spec = spec_of(args.deals, args.players, args.bots, args.shard_deals, 100 + r)
                        # ABBA order: load that drifts during the run favours neither side.
                        if r % 2 == 0:
                            emb.append(embedded_seconds(spec, n))
                            srv.append(service_seconds(http, spec))
                        else:
                            srv.append(service_seconds(http, spec))
                            emb.append(embedded_seconds(spec, n))
                        print(f"  {n} process(es), round {r + 1}: run {emb[-1]:.2f} s, service {srv[-1]:.2f} s",
                              flush=True)
            finally:
                svc.stop()
        row = {"processes": n, "plays": plays, "run_s": min(emb), "service_s": min(srv),
               "run_plays_per_s": plays / min(emb), "service_plays_per_s": plays / min(srv),
               "overhead_pct": 100 * (min(srv) / min(emb) - 1), "run_all_s": emb, "service_all_s": srv}
        out.append(row)
    return out


async def _get_loop(host: str, port: int, request: bytes, deadline_at: list[float], start: asyncio.Event,
                    latencies: list[float], errors: list[int]) -> None:
    """One client: a keep-alive HTTP/1.1 connection sending the same GET back to back.

    Written on asyncio streams (like ``wrk``) rather than httpx: 200 httpx clients in one
    process spend more CPU per request than the API does, and would measure themselves.
    """
    reader, writer = await asyncio.open_connection(host, port)
    await start.wait()
    while time.perf_counter() < deadline_at[0]:
        t0 = time.perf_counter()
        ok = False
        try:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            body = await reader.readexactly(length)
            ok = status == 200 and json.loads(body)["state"] == "succeeded"
        except (OSError, asyncio.IncompleteReadError, ValueError, StopIteration):
            writer.close()
            reader, writer = await asyncio.open_connection(host, port)
        latencies.append(time.perf_counter() - t0)
        errors[0] += not ok
    writer.close()


async def _hammer(url: str, key: str, path: str, clients: int, seconds: float) -> tuple[list[float], int, int]:
    """``clients`` concurrent keep-alive connections sending ``GET path`` for ``seconds``."""
    host, port = url.removeprefix("http://").split(":")
    request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {key}\r\n"
               "Accept: application/json\r\n\r\n").encode()
    latencies: list[float] = []
    errors = [0]
    start = asyncio.Event()
    deadline_at = [0.0]
    tasks = [asyncio.create_task(_get_loop(host, int(port), request, deadline_at, start, latencies, errors))
             for _ in range(clients)]
    await asyncio.sleep(1.0)  # every client connected before the clock starts
    deadline_at[0] = time.perf_counter() + seconds
    start.set()
    await asyncio.gather(*tasks)
    return latencies, errors[0], len(latencies)


def latency(args: argparse.Namespace, api_processes: int) -> dict[str, Any]:
    import numpy as np

    with redis_db() as db, tempfile.TemporaryDirectory() as d:
        svc = Service(Path(d), db, shard_seconds=60, visibility=600, extra_env=SERVICE_DEFAULTS)
        svc.start_api("--workers", str(api_processes))
        svc.start_worker("w0", 1)
        try:
            key = svc.create_key("bench")
            with svc.client(key) as http:
                job_id = http.post("/v1/jobs", json=spec_of(8, 4, "random", 8, 1)).json()["id"]
                svc.wait_job(http, job_id)
            svc.kill_worker("w0")  # idle from here on: the API alone is measured
            lat, errors, n = asyncio.run(_hammer(svc.url, key, f"/v1/jobs/{job_id}", args.clients, args.seconds))
        finally:
            svc.stop()
    ms = np.array(lat) * 1000
    return {"api_processes": api_processes, "clients": args.clients, "seconds": args.seconds, "requests": n,
            "errors": errors, "requests_per_s": n / args.seconds, "p50_ms": float(np.percentile(ms, 50)),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1500, help="deals of the throughput job")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--bots", default="heuristic", help="bot kind at every seat")
    ap.add_argument("--shard-deals", type=int, default=75, help="deals per shard (default: 20 shards)")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--quick", action="store_true", help="smoke run: small job, 1 repeat, 3 s of load")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    if args.quick:
        args.deals, args.shard_deals, args.repeats, args.seconds = 120, 12, 1, 3.0
    print(f"load average before: {os.getloadavg()[0]:.2f} (2-core machine: other processes share it)")
    print(f"throughput: {args.players} x {args.bots}, {args.deals:,} deals x {args.players} rotations, "
          f"shards of {args.shard_deals} deals", flush=True)
    rows = throughput(args)
    lats = []
    for api_processes in (1, 2):
        print(f"latency: {args.clients} clients, GET /v1/jobs/{{id}} for {args.seconds:.0f} s, "
              f"{api_processes} API process(es)", flush=True)
        lats.append(latency(args, api_processes))
    print()
    print(f"{'processes':>9} {'rasklad run':>14} {'service':>14} {'overhead':>9}")
    for r in rows:
        print(f"{r['processes']:>9} {r['run_plays_per_s']:>8,.0f} pl/s {r['service_plays_per_s']:>8,.0f} pl/s "
              f"{r['overhead_pct']:>+8.1f}%")
    for lat in lats:
        print(f"GET /v1/jobs/{{id}}, {lat['clients']} clients, {lat['api_processes']} API process(es): "
              f"{lat['requests']:,} requests in {lat['seconds']:.0f} s ({lat['requests_per_s']:,.0f}/s), "
              f"p50 {lat['p50_ms']:.0f} ms, p99 {lat['p99_ms']:.0f} ms, max {lat['max_ms']:.0f} ms, "
              f"errors {lat['errors']}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"throughput": rows, "latency": lats}, indent=2))
    if any(lat["errors"] for lat in lats):
        sys.exit(1)


if __name__ == "__main__":
    main()
