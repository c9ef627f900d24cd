"""Fairness between jobs and keys: a small job submitted behind a large one (issue 21, item 5).

Real processes (the harness of the service tests): ``rasklad serve``, ``--workers`` Celery
workers of one process each, Redis on a private database. For each setting of
``RASKLAD_JOB_WINDOW`` (shards of one job queued or running at once):

1. tenant A submits a large tournament (``--large-shards`` shards of ``--shard-deals`` deals);
2. once it is running, tenant B submits a one-shard job of the same shard size;
3. we record B's latency (submit → succeeded), the median shard duration (from the workers'
   logs) and A's wall time (``finished_at - created_at``).

The window ``100000`` is the old behaviour (every shard queued at submit, one FIFO queue: the
small job waits for the whole large job). Reported: B's latency in seconds and in shard
durations, and A's wall time relative to the unbounded window (its throughput cost).

With ``--attacks``, instead: the victim's latency on every route while another key attacks
(issue 33, items 3 to 6): eight deal-viewer replays of a heavy spec, two downloads read slowly
past their slot's TTL, two slow queries, and a heavy job's shards ahead of a one-shard job. For
each attack the victim calls its job list, status, cancel, report, sign-in, a stored deal, a
query and ``/healthz`` a few times (fresh connections) and the worst and median answers are printed,
and the one-shard job's wait in shard durations.

Usage: python benchmarks/bench_fairness.py [--large-shards 60] [--shard-deals 40] [--workers 2]
       [--windows 100000,4,2] [--json FILE]
       python benchmarks/bench_fairness.py --attacks [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from service_harness import Service, redis_db  # noqa: E402

DONE = re.compile(r"Task rasklad\.run_shard\[[^]]+\] succeeded in ([0-9.]+)s: 'committed'")


def spec(shards: int, shard_deals: int, seed: int) -> dict[str, Any]:
    return {"kind": "tournament", "game": "order-poker", "players": 3,
            "bots": ["order-poker/heuristic"] * 3, "deals": shards * shard_deals, "shard_deals": shard_deals,
            "seating": "duplicate", "seed": seed}


def _seconds(job: dict[str, Any]) -> float:
    return (datetime.fromisoformat(job["finished_at"]) - datetime.fromisoformat(job["created_at"])).total_seconds()


def one_run(window: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d, redis_db() as db:
        svc = Service(Path(d), db, shard_seconds=60, visibility=600,
                      extra_env={"RASKLAD_JOB_WINDOW": str(window), "RASKLAD_RECONCILE_SECONDS": "30"})
        try:
            svc.start_api()
            a, b = svc.create_key("tenant-a"), svc.create_key("tenant-b")
            for i in range(args.workers):
                svc.start_worker(f"w{i}", 1)
            for i in range(args.workers):
                svc.wait_worker_ready(f"w{i}")
            with svc.client(a) as ha, svc.client(b) as hb:
                large = ha.post("/v1/jobs", json=spec(args.large_shards, args.shard_deals, 1)).json()
                while ha.get(f"/v1/jobs/{large['id']}").json()["shards_done"] < args.workers:
                    time.sleep(0.05)
                t0 = time.monotonic()
                small = hb.post("/v1/jobs", json=spec(1, args.shard_deals, 2)).json()
                small_done = svc.wait_job(hb, small["id"], timeout=3600)
                small_latency = time.monotonic() - t0
                large_done = svc.wait_job(ha, large["id"], timeout=3600)
            assert small_done["state"] == large_done["state"] == "succeeded"
            durations = [float(x) for i in range(args.workers)
                         for x in DONE.findall((Path(d) / f"worker-w{i}.log").read_text(errors="replace"))]
            return {"window": window, "small_latency_s": small_latency, "shard_s": statistics.median(durations),
                    "large_s": _seconds(large_done)}
        finally:
            svc.stop()


ATTACK_ENV = {"RASKLAD_QUERY_TIMEOUT_S": "10", "RASKLAD_QUERY_SLOT_TTL_S": "3", "RASKLAD_REPLAY_TIMEOUT_S": "5",
              "RASKLAD_JOB_WINDOW": "4"}


def _victim(url: str, key: str, job_id: str) -> dict[str, Any]:
    """Each of the victim's routes once, on a fresh connection: route -> seconds."""
    import httpx

    auth = {"Authorization": f"Bearer {key}"}
    calls = {
        "jobs": lambda: httpx.get(f"{url}/v1/jobs", headers=auth, timeout=120),
        "status": lambda: httpx.get(f"{url}/v1/jobs/{job_id}", headers=auth, timeout=120),
        "cancel": lambda: httpx.post(f"{url}/v1/jobs/{job_id}/cancel", headers=auth, timeout=120),
        "report": lambda: httpx.get(f"{url}/v1/jobs/{job_id}/report", headers=auth, timeout=120),
        "sign-in": lambda: httpx.post(f"{url}/web/session", json={"key": key}, timeout=120),
        "deal": lambda: httpx.get(f"{url}/web/api/jobs/{job_id}/deals/3", headers=auth, timeout=120),
        "query": lambda: httpx.post(f"{url}/v1/query", json={"sql": "SELECT count(*) FROM seats"}, headers=auth,
                                    timeout=120),
        "healthz": lambda: httpx.get(f"{url}/healthz", timeout=120),
    }
    out = {}
    for name, call in calls.items():
        t0 = time.monotonic()
        call()
        out[name] = time.monotonic() - t0
    return out


def _slow_download(port: int, key: str, path: str) -> Any:
    import socket

    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\r\n".encode())
    s.recv(4096)
    return s


def attacks(args: argparse.Namespace) -> None:
    """The victim's latency per route during each attack (see the module's docstring)."""
    from concurrent.futures import ThreadPoolExecutor

    mc = {"name": "order-poker/montecarlo", "params": {"samples": 1000}}
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as d, redis_db() as db:
        svc = Service(Path(d), db, shard_seconds=60, visibility=600, extra_env=ATTACK_ENV)
        try:
            svc.start_api()
            svc.start_worker("w1", 1)
            svc.wait_worker_ready("w1")
            a, b = svc.create_key("attacker"), svc.create_key("victim")
            with svc.client(a) as ha, svc.client(b) as hb:
                big = ha.post("/v1/jobs", json={**spec(1, 8000, 3), "shard_deals": 2000, "record": "full",
                                                "bots": ["order-poker/random"] * 3}).json()
                mine = hb.post("/v1/jobs", json={**spec(1, 40, 4), "record": "full"}).json()
                svc.wait_job(ha, big["id"], timeout=600)
                svc.wait_job(hb, mine["id"], timeout=600)
                heavy = ha.post("/v1/jobs", json={**spec(4, 1, 5), "bots": [mc] * 3}).json()
                ha.post(f"/v1/jobs/{heavy['id']}/cancel")

                def during(name: str, start: Any) -> None:
                    handle = start()
                    time.sleep(1.0)
                    lat: dict[str, list[float]] = {}
                    for _ in range(args.rounds):
                        for route, s in _victim(svc.url, b, mine["id"]).items():
                            lat.setdefault(route, []).append(s)
                    handle()
                    rows.append((name, {r: max(v) for r, v in lat.items()}))

                with ThreadPoolExecutor(8) as ex:
                    def replays() -> Any:
                        futs = [ex.submit(ha.get, f"/web/api/jobs/{heavy['id']}/deals/{n % 4}") for n in range(8)]
                        return lambda: [f.result() for f in futs]

                    def downloads() -> Any:
                        socks = [_slow_download(svc.port, a, f"/v1/jobs/{big['id']}/tables/records?format=jsonl")
                                 for _ in range(2)]
                        time.sleep(7)  # the slots' TTL passes twice
                        return lambda: [s.close() for s in socks]

                    def queries() -> Any:
                        sql = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"
                        futs = [ex.submit(ha.post, "/v1/query", json={"sql": sql}) for _ in range(2)]
                        return lambda: [f.result() for f in futs]

                    during("8 viewer replays of a heavy deal", replays)
                    during("2 downloads read slowly", downloads)
                    during("2 slow queries", queries)
        finally:
            svc.stop()
    routes = list(rows[0][1])
    print("victim's worst latency per route (s) during each attack of another key, "
          f"{args.rounds} rounds, fresh connections")
    print(f"{'attack':<34}" + "".join(f"{r:>9}" for r in routes))
    for name, lat in rows:
        print(f"{name:<34}" + "".join(f"{lat[r]:>9.3f}" for r in routes))
    run = one_run(4, argparse.Namespace(**{**vars(args), "large_shards": 12, "shard_deals": 1000, "workers": 1}))
    print(f"heavy job's shards ahead of a 1-shard job (1 worker): its latency {run['small_latency_s']:.1f} s = "
          f"{run['small_latency_s'] / run['shard_s']:.1f} shard durations")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attacks", action="store_true", help="the victim's route latencies during attacks 3-6")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--large-shards", type=int, default=60)
    ap.add_argument("--shard-deals", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--windows", default="100000,4,2")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.attacks:
        attacks(args)
        return
    rows = [one_run(int(w), args) for w in args.windows.split(",")]
    base = rows[0]["large_s"]
    print(f"large job: {args.large_shards} shards of {args.shard_deals} deals; small job: 1 shard; "
          f"{args.workers} workers x 1 process")
    print(f"{'window':>8} {'small job latency':>18} {'in shards':>10} {'shard':>7} {'large job':>10} {'vs first':>9}")
    for r in rows:
        print(f"{r['window']:>8} {r['small_latency_s']:>16.1f} s {r['small_latency_s'] / r['shard_s']:>10.1f} "
              f"{r['shard_s']:>5.2f} s {r['large_s']:>8.1f} s {r['large_s'] / base:>8.2f}x")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
