"""The window follows the fleet: one job's throughput as worker processes are added (issue 33).

For N = 1, 2, ... ``--max`` (default: the machine's cores) worker processes (``--per-worker`` each, one
``rasklad worker`` per group), a fresh service (the real-process harness of the service tests: API,
Celery workers, Redis on a private database) runs one tournament job of many shards with the default
``RASKLAD_JOB_WINDOW`` (4). Reported per N: the job's ``finished_at - created_at``, deals per second,
the speed-up over N = 1 and what the last added process brought, and the most leases the job held at
once (it must reach N: the job spreads over every process, not over 4 of them). Past the machine's
cores the speed-up measures contention, not the service; the table says where the cores end.

Usage: python benchmarks/bench_fleet.py [--max N] [--per-worker 1] [--deals 4800] [--shard-deals 100]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the real-process harness of the service tests

from service_harness import Service, redis_db, wait_for  # noqa: E402


def run_once(processes: int, per_worker: int, spec: dict[str, Any]) -> tuple[float, int]:
    """(seconds from submit to succeeded, most leases held at once) with ``processes`` worker processes."""
    from storage.jobstore import JobStore
    from workers.tracking import Tracker

    with tempfile.TemporaryDirectory() as d, redis_db() as db:
        svc = Service(Path(d), db, shard_seconds=60.0, visibility=400.0,
                      extra_env={"RASKLAD_RECONCILE_SECONDS": "30"})
        try:
            svc.start_api()
            key = svc.create_key("bench")
            groups = [per_worker] * (processes // per_worker)
            if processes % per_worker:
                groups.append(processes % per_worker)
            for i, n in enumerate(groups):
                svc.start_worker(f"b{i}", n)
            tracker = Tracker(svc.broker)
            wait_for(lambda: sum(tracker.fleet().values()) == processes, 120, "the fleet")
            store = JobStore(svc.env["RASKLAD_DB"])
            most = 0
            with svc.client(key) as http:
                r = http.post("/v1/jobs", json=spec)
                if r.status_code >= 300:
                    raise SystemExit(f"submit: {r.status_code} {r.text}")
                job_id = r.json()["id"]
                while True:
                    most = max(most, sum(1 for r in store.running_shards() if r["job_id"] == job_id))
                    job = http.get(f"/v1/jobs/{job_id}").json()
                    if job["state"] in ("succeeded", "failed", "cancelled"):
                        break
                    time.sleep(0.05)
            if job["state"] != "succeeded":
                raise SystemExit(f"job {job_id} {job['state']}: {job.get('error')}")
            took = (datetime.fromisoformat(job["finished_at"]) - datetime.fromisoformat(job["created_at"]))
            return took.total_seconds(), most
        finally:
            svc.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max", type=int, default=os.cpu_count() or 1, help="most worker processes (default: cores)")
    ap.add_argument("--per-worker", type=int, default=1, help="processes per rasklad worker")
    ap.add_argument("--deals", type=int, default=4800)
    ap.add_argument("--shard-deals", type=int, default=100)
    args = ap.parse_args()
    spec = {"kind": "tournament", "game": "order-poker", "players": 3,
            "bots": ["order-poker/heuristic"] * 3, "deals": args.deals, "shard_deals": args.shard_deals,
            "seating": "duplicate", "seed": 7}
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    print(f"{args.deals} deals in {-(-args.deals // args.shard_deals)} shards; {cores} cores, "
          f"load average {load:.1f} at the start; RASKLAD_JOB_WINDOW default (4)")
    print(f"{'processes':>9} {'seconds':>8} {'deals/s':>8} {'speed-up':>8} {'last added':>10} {'leases':>6}")
    base: float | None = None
    prev: float | None = None
    for n in range(1, args.max + 1):
        seconds, most = run_once(n, args.per_worker, spec)
        rate = args.deals / seconds
        base = base or rate
        added = f"{rate / prev:9.2f}x" if prev else f"{'':>10}"
        note = "" if n <= cores else "  (past the cores)"
        print(f"{n:>9} {seconds:8.1f} {rate:8.0f} {rate / base:7.2f}x {added} {most:>6}{note}", flush=True)
        prev = rate


if __name__ == "__main__":
    main()
