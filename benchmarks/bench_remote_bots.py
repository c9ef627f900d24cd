"""Remote-bot decisions per second of one worker process (docs/remote-bots.md, "Throughput").

A bot server in a process of its own answers every ``rasklad-act/1`` request after ``--delay-ms``
(1 ms: a bot next door) with the first legal action; one process runs a shard of a tournament of the
remote bot against the game's random bots through ``sims.run.run_shard``, as a worker does, and the
script prints decisions per second of wall time and per CPU-second of that process, with the units
in flight. The same shard with every unit played one after another (``--in-flight 1``) is the
serial baseline a shard would have without concurrency.

    python benchmarks/bench_remote_bots.py [--game order-poker] [--deals 300] [--delay-ms 1]
                                           [--in-flight 1,64]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _serve(port: int, delay_ms: float) -> None:
    from sims.botserve import serve

    async def first_legal(req: Any) -> tuple[int, Any]:
        await asyncio.sleep(delay_ms / 1000.0)
        return 200, {"action": req["legal"][0]}

    serve(first_legal, "127.0.0.1", port, lambda p: print(p, flush=True))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="order-poker")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--delay-ms", type=float, default=1.0)
    ap.add_argument("--in-flight", default="1,64")
    ap.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve is not None:
        _serve(args.serve, args.delay_ms)
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve", "0", "--delay-ms", str(args.delay_ms)],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        from sims.remote import RemoteAccess
        from sims.run import run_shard
        from sims.spec import parse_spec

        bots: list[Any] = [{"remote": f"http://127.0.0.1:{port}/", "label": "remote", "timeout_ms": 10_000}]
        bots += [f"{args.game}/random"] * (args.players - 1)
        spec = parse_spec({"kind": "tournament", "game": args.game, "players": args.players, "bots": bots,
                           "deals": args.deals, "shard_deals": args.deals, "seed": 1, "seating": "fixed",
                           "max_faults": 0, "record": "decisions"})
        print(f"{args.game}, {args.players} players, {args.deals} deals (seating fixed), bot server answers in "
              f"{args.delay_ms:g} ms, load average {os.getloadavg()[0]:.1f}")
        for n in (int(x) for x in args.in_flight.split(",")):
            t0, c0 = time.perf_counter(), time.process_time()
            tables = run_shard(spec, 0, access=RemoteAccess(in_flight=n))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            decisions = _remote_decisions(spec, tables)
            print(f"  in flight {n:>4}: {decisions} remote decisions in {wall:.2f} s: {decisions / wall:,.0f}/s wall, "
                  f"{decisions / cpu:,.0f} per CPU-second")
    finally:
        server.terminate()
        server.wait()


def _remote_decisions(spec: Any, tables: Any) -> int:
    """Remote decisions of a ``seating: fixed`` shard whose seat 0 is the remote bot: its rows in
    ``decisions`` (the spec records them)."""
    d = tables["decisions"]
    return sum(1 for seat in d.column("seat").to_pylist() if seat == 0)


if __name__ == "__main__":
    main()
