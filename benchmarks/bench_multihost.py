"""Scaling across "hosts": the same job with one and with two worker hosts (network namespaces).

The cluster of ``tests/multihost`` (hub namespace: API, Redis, PostgreSQL, moto_server; one
``rasklad worker -c 1`` per worker namespace, reaching the hub over its own veth pair; data
root ``s3://...``, no shared filesystem). The job's ``finished_at - created_at`` with 1 and 2
worker hosts; deals/s and the efficiency of the second host (rate(2) / (2 x rate(1))). Needs
root and ``ip netns`` (as the test); on a 2-core machine the hub's servers share the cores.

Usage: python benchmarks/bench_multihost.py [--deals 1200] [--shard-deals 40] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # the harness; after the packages (tests/games is not games/)

from multihost.cluster import PORTS, cluster, env_for, why_skip  # noqa: E402
from service_harness import wait_for  # noqa: E402


def job_seconds(worker_hosts: tuple[str, ...], spec: dict[str, Any]) -> float:
    with tempfile.TemporaryDirectory() as d, cluster(Path(d), worker_hosts) as (hosts, _workers):
        hub = hosts.hub_address("test")
        out = subprocess.run([sys.executable, "-m", "rasklad", "keys", "create", "--name", "bench"], cwd=ROOT,
                             env=env_for(hub), capture_output=True, text=True, timeout=60, check=True)
        with httpx.Client(base_url=f"http://{hub}:{PORTS['api']}", timeout=30,
                          headers={"Authorization": f"Bearer {out.stdout.strip()}"}) as http:
            job_id = http.post("/v1/jobs", json=spec).json()["id"]
            wait_for(lambda: http.get(f"/v1/jobs/{job_id}").json()["state"] in ("succeeded", "failed"), 900,
                     "the job", 0.5)
            job = http.get(f"/v1/jobs/{job_id}").json()
    assert job["state"] == "succeeded", job

    def ts(s: str) -> float:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

    return ts(job["finished_at"]) - ts(job["created_at"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1200)
    ap.add_argument("--shard-deals", type=int, default=40)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if (reason := why_skip()) is not None:
        print(f"skipped: {reason}")
        return
    spec = {"kind": "tournament", "game": "order-poker", "players": 3, "bots": ["order-poker/heuristic"] * 3,
            "deals": args.deals, "shard_deals": args.shard_deals, "seating": "duplicate", "seed": 13}
    rows = []
    for hosts in (("w1",), ("w1", "w2")):
        secs = job_seconds(hosts, spec)
        rows.append({"hosts": len(hosts), "seconds": secs, "jobs_per_s": 1 / secs, "deals_per_s": args.deals / secs})
    for r in rows:
        r["efficiency"] = r["deals_per_s"] / (r["hosts"] * rows[0]["deals_per_s"])
    print(f"service across namespace hosts, {args.deals} deals, one worker process per host:")
    for r in rows:
        print(f"  {r['hosts']} host(s): {r['seconds']:6.2f} s  {r['jobs_per_s']:.4f} jobs/s  "
              f"{r['deals_per_s']:8.1f} deals/s  efficiency {r['efficiency']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
