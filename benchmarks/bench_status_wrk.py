"""Status under load: ``GET /v1/jobs/{id}`` under 200 keep-alive clients, measured by wrk.

wrk (``apt install wrk``) runs as a separate process, so the load generator's own cost is
its C event loop, not Python's. The API is ``rasklad serve --workers N`` (uvicorn processes
sharing one port) on a real job store (SQLite in the data root) and Redis; the job is a queued
job of the benchmark's key. For each N in ``--processes``: a 3 s warm-up, then ``--seconds`` of
``wrk -t2 -c200 --latency --timeout 30s`` (so that no slow answer is dropped from the
percentiles as a timeout); printed: requests/s, p50, p90, p99 and errors (non-2xx answers and
socket errors). The deploy files (deploy/compose.yaml, deploy/Dockerfile) run one API process
unless ``--workers`` is added to their command.

Usage: python benchmarks/bench_status_wrk.py [--processes 1,2,4] [--clients 200] [--seconds 15]
       [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from service_harness import Service, redis_db  # noqa: E402

SPEC = {"kind": "tournament", "game": "order-poker", "players": 3, "bots": ["order-poker/random"] * 3,
        "deals": 30, "seed": 1}
UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", text.strip())
    if not m:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def parse_wrk(out: str) -> dict[str, Any]:
    """Requests/s, latency percentiles (ms) and errors from ``wrk --latency`` output."""
    if "Latency Distribution" not in out:
        raise ValueError(f"no latency distribution in wrk's output:\n{out}")
    pct = {p: _ms(v) for p, v in re.findall(r"^\s+(50|75|90|99)\.?0*%\s+(\S+)", out, re.M)}
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(int(x) for x in sock.groups()) if sock else 0)
    return {"rps": rps, "p50_ms": pct["50"], "p90_ms": pct["90"], "p99_ms": pct["99"], "errors": errors,
            "error_lines": [ln.strip() for ln in out.splitlines() if "errors" in ln or "Non-2xx" in ln]}


def measure(processes: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d, redis_db() as db:
        svc = Service(Path(d), db, extra_env={"RASKLAD_RECONCILE_SECONDS": "30"})
        try:
            svc.start_api("--workers", str(processes))
            key = svc.create_key("bench")
            with svc.client(key) as http:
                job = http.post("/v1/jobs", json=SPEC).json()
            url = f"{svc.url}/v1/jobs/{job['id']}"
            header = f"Authorization: Bearer {key}"
            subprocess.run(["wrk", "-t2", f"-c{args.clients}", "-d3s", "--timeout", "30s", "-H", header, url],
                           capture_output=True, check=True)
            out = subprocess.run(["wrk", "-t2", f"-c{args.clients}", f"-d{args.seconds}s", "--latency",
                                  "--timeout", "30s", "-H", header, url],
                                 capture_output=True, text=True, check=True).stdout
            return {"processes": processes, **parse_wrk(out)}
        finally:
            svc.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--processes", default="1,2,4")
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (bash scripts/ensure_wrk.sh installs it with apt; make bench runs it)")
    rows = [measure(int(n), args) for n in args.processes.split(",")]
    print(f"GET /v1/jobs/{{id}}, {args.clients} keep-alive clients (wrk -t2), {args.seconds} s")
    print(f"{'API processes':>13} {'req/s':>8} {'p50':>9} {'p90':>9} {'p99':>9} {'errors':>7}")
    for r in rows:
        print(f"{r['processes']:>13} {r['rps']:>8.0f} {r['p50_ms']:>7.1f}ms {r['p90_ms']:>7.1f}ms "
              f"{r['p99_ms']:>7.1f}ms {r['errors']:>7}  {'; '.join(r['error_lines'])}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
