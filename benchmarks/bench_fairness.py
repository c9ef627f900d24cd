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

Usage: python benchmarks/bench_fairness.py [--large-shards 60] [--shard-deals 40] [--workers 2]
       [--windows 100000,4,2] [--json FILE]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--large-shards", type=int, default=60)
    ap.add_argument("--shard-deals", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--windows", default="100000,4,2")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
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
