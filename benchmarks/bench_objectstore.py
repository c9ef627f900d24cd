"""The object-store data root against the local root: throughput, shard commit latency, scaling.

Real processes only: the S3 endpoint is ``moto_server`` (moto's S3 over HTTP, a Python server
on this machine's cores: a pessimistic stand-in for MinIO or S3, whose request handling costs
the shared CPUs nothing), the service is ``rasklad serve`` + ``rasklad worker`` processes on a
private Redis database (the harness of the service tests).

* **Throughput, embedded.** One tournament spec by ``rasklad run``'s runner (``run_job``, 2
  processes) into a fresh local root and into a fresh bucket, alternating in ABBA order; the
  best of ``--repeats`` each; deals/s and the ratio (goal: the object store within 10%).
* **Shard commit latency.** ``write_shards`` of one real shard (the spec's shard 0: its
  ``deals`` and ``seats`` tables) ``--commits`` times into each root, plus the commit marker on
  the store; p50 and p99 of the wall time of one commit.
* **Scaling.** The service with the object-store root and 1, 2 and 4 worker processes (one
  process per ``rasklad worker``); the job's ``finished_at - created_at``; jobs/s, deals/s and
  the efficiency per added worker (rate(n) / (n x rate(1))). On a 2-core machine the 4-worker
  figure shows the cores running out, not the design.

Usage: python benchmarks/bench_objectstore.py [--deals 1200] [--shard-deals 40] [--repeats 3]
       [--commits 60] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # the harness; after the packages (tests/games is not games/)

from s3_harness import MotoServer, s3_env  # noqa: E402
from service_harness import Service, redis_db  # noqa: E402


def spec_of(deals: int, shard_deals: int, seed: int) -> dict[str, Any]:
    return {"kind": "tournament", "game": "order-poker", "players": 3,
            "bots": ["order-poker/heuristic"] * 3, "deals": deals, "shard_deals": shard_deals,
            "seating": "duplicate", "seed": seed}


def settings_for(tmp: Path, moto: MotoServer | None) -> Any:
    from sims.settings import Settings

    db = f"sqlite:///{tmp / 'jobs.sqlite'}"
    if moto is None:
        return Settings(data=tmp / "data", db=db)
    env = s3_env(moto.endpoint, moto.bucket())
    return Settings(data=Path(env["RASKLAD_DATA"]), db=db, s3_endpoint=moto.endpoint, s3_region="us-east-1",
                    s3_access_key="test", s3_secret_key="test")


def embedded_seconds(spec: dict[str, Any], moto: MotoServer | None, workers: int) -> float:
    from sims.embedded import run_job
    from sims.spec import parse_spec

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_job(parse_spec(spec), settings=settings_for(Path(d), moto), workers=workers)
        dt = time.perf_counter() - t0
        assert res.state == "succeeded", res
    return dt


def throughput(args: argparse.Namespace, moto: MotoServer) -> dict[str, Any]:
    spec = spec_of(args.deals, args.shard_deals, 11)
    best = {"local": float("inf"), "s3": float("inf")}
    for r in range(args.repeats):
        order = ("local", "s3") if r % 2 == 0 else ("s3", "local")  # ABBA
        for kind in order:
            best[kind] = min(best[kind], embedded_seconds(spec, moto if kind == "s3" else None, 2))
    rate = {k: args.deals / v for k, v in best.items()}
    return {"deals": args.deals, "shards": -(-args.deals // args.shard_deals), "seconds": best,
            "deals_per_s": rate, "s3_vs_local": rate["s3"] / rate["local"]}


def commit_latency(args: argparse.Namespace, moto: MotoServer) -> dict[str, Any]:
    from sims.run import run_shard
    from sims.spec import parse_spec
    from storage.layout import job_dir
    from storage.objectstore import data_root
    from storage.parquet import write_shards

    spec = parse_spec(spec_of(args.deals, args.shard_deals, 11))
    tables = run_shard(spec, 0)
    size = {t: tables[t].nbytes for t in tables}
    out: dict[str, Any] = {"rows": {t: tables[t].num_rows for t in tables}, "arrow_bytes": size}
    for kind in ("local", "s3"):
        with tempfile.TemporaryDirectory() as d:
            jd = job_dir(data_root(settings_for(Path(d), moto if kind == "s3" else None)), "bench")
            times = []
            for k in range(args.commits):
                t0 = time.perf_counter()
                write_shards(jd, k, tables)
                times.append(time.perf_counter() - t0)
        times.sort()
        out[kind] = {"p50_ms": 1000 * statistics.median(times),
                     "p99_ms": 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]}
    return out


def service_seconds(tmp: Path, moto: MotoServer, workers: int, spec: dict[str, Any]) -> float:
    with redis_db() as db:
        svc = Service(tmp, db, extra_env={**s3_env(moto.endpoint, moto.bucket()),
                                          "RASKLAD_RECONCILE_SECONDS": "30", "RASKLAD_RESTORE_INTERVAL": "10"})
        try:
            svc.start_api()
            for i in range(workers):
                svc.start_worker(f"w{i}", 1)
            for i in range(workers):
                svc.wait_worker_ready(f"w{i}")
            key = svc.create_key("bench")
            with svc.client(key) as http:
                job = http.post("/v1/jobs", json=spec).json()
                done = svc.wait_job(http, job["id"], timeout=900)
                assert done["state"] == "succeeded", done
        finally:
            svc.stop()
    from datetime import datetime

    def ts(s: str) -> float:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

    return ts(done["finished_at"]) - ts(done["created_at"])


def scaling(args: argparse.Namespace, moto: MotoServer) -> list[dict[str, Any]]:
    spec = spec_of(args.deals, args.shard_deals, 12)
    rows = []
    for n in (1, 2, 4):
        with tempfile.TemporaryDirectory() as d:
            secs = service_seconds(Path(d), moto, n, spec)
        rows.append({"workers": n, "seconds": secs, "jobs_per_s": 1 / secs, "deals_per_s": args.deals / secs})
    base = rows[0]["deals_per_s"]
    for r in rows:
        r["efficiency"] = r["deals_per_s"] / (r["workers"] * base)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1200)
    ap.add_argument("--shard-deals", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--quick", action="store_true", help="smoke run: a small job, one repeat")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.quick:
        args.deals, args.shard_deals, args.repeats, args.commits = 240, 20, 1, 20
    with tempfile.TemporaryDirectory() as d:
        moto = MotoServer(Path(d) / "moto.log")
        try:
            httpx.get(moto.endpoint, timeout=5)
            result = {"throughput": throughput(args, moto), "commit": commit_latency(args, moto),
                      "scaling": scaling(args, moto)}
        finally:
            moto.stop()
    t, c = result["throughput"], result["commit"]
    print(f"embedded run, {t['deals']} deals in {t['shards']} shards, 2 processes (best of {args.repeats}):")
    print(f"  local root  {t['deals_per_s']['local']:8.1f} deals/s   ({t['seconds']['local']:.2f} s)")
    print(f"  s3 (moto)   {t['deals_per_s']['s3']:8.1f} deals/s   ({t['seconds']['s3']:.2f} s)   "
          f"ratio {t['s3_vs_local']:.2f} (goal >= 0.90)")
    print(f"shard commit ({c['rows']}, {args.commits} commits): local p50 {c['local']['p50_ms']:.1f} ms "
          f"p99 {c['local']['p99_ms']:.1f} ms; s3 p50 {c['s3']['p50_ms']:.1f} ms p99 {c['s3']['p99_ms']:.1f} ms")
    print("service, s3 root, one process per worker:")
    for r in result["scaling"]:
        print(f"  {r['workers']} worker(s): {r['seconds']:6.2f} s  {r['jobs_per_s']:.4f} jobs/s  "
              f"{r['deals_per_s']:8.1f} deals/s  efficiency {r['efficiency']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
