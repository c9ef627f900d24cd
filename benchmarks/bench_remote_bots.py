"""Remote-bot decisions per second of one worker process (docs/remote-bots.md, "Throughput").

The contract (issue 32): against a local bot server that answers in 1 ms, at least 2,000 remote
decisions per second per worker process. A bot server in a process of its own (so its CPU is not the
worker's) answers every ``rasklad-act/1`` request after ``--delay-ms`` (1 ms: a bot next door) with
the first legal action; this process runs a shard of a tournament of the remote bot against the
game's random bots through ``sims.run.run_shard``, as a worker does, ``--repeat`` times, and prints
for each run the remote decisions per second of wall time and per CPU-second of this process
(``time.process_time``: the worker's own CPU, the figure a loaded machine does not dilute), with the
load average (``/proc/loadavg``) before and after. The same shard with every unit played one after
another (``--in-flight 1``) is the serial baseline a shard would have without concurrency.
``--profile N`` profiles one more run (cProfile on CPU time) and prints its N costliest functions.

    python benchmarks/bench_remote_bots.py [--game order-poker] [--deals 1000] [--delay-ms 1]
                                           [--in-flight 1,64] [--repeat 3] [--profile 25]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Remote decisions per second per worker process the contract asks for (issue 32).
TARGET = 2000


def _serve(port: int, delay_ms: float) -> None:
    from sims.botserve import serve

    async def first_legal(req: Any) -> tuple[int, Any]:
        await asyncio.sleep(delay_ms / 1000.0)
        return 200, {"action": req["legal"][0]}

    serve(first_legal, "127.0.0.1", port, lambda p: print(p, flush=True))


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="order-poker")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--delay-ms", type=float, default=1.0)
    ap.add_argument("--in-flight", default="1,64")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", type=int, default=0, metavar="N")
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
        print(f"{args.game}, {args.players} players, {args.deals} deals (seating fixed), one worker process; "
              f"the bot server (a process of its own) answers in {args.delay_ms:g} ms; {os.cpu_count()} CPUs; "
              f"target {TARGET:,} remote decisions/s per worker process")
        run_shard(spec, 0, access=RemoteAccess(in_flight=8))  # warm: imports, the games' caches
        for n in (int(x) for x in args.in_flight.split(",")):
            for _ in range(args.repeat):
                before = _load()
                t0, c0 = time.perf_counter(), time.process_time()
                tables = run_shard(spec, 0, access=RemoteAccess(in_flight=n))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                remote, total = _decisions(tables)
                print(f"  in flight {n:>4}: {remote} remote decisions ({total} in all) in {wall:.2f} s wall, "
                      f"{cpu:.2f} s CPU: {remote / wall:,.0f} remote decisions/s wall, {remote / cpu:,.0f} per "
                      f"CPU-second of the worker process; load average {before} -> {_load()}")
        if args.profile:
            n = max(int(x) for x in args.in_flight.split(","))
            prof = cProfile.Profile(time.process_time)
            prof.enable()
            run_shard(spec, 0, access=RemoteAccess(in_flight=n))
            prof.disable()
            print(f"  profile of one more run, in flight {n} (CPU time, inflated by the profiler):")
            pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(args.profile)
    finally:
        server.terminate()
        server.wait()


def _decisions(tables: Any) -> tuple[int, int]:
    """(remote decisions, decisions in all) of a ``seating: fixed`` shard whose seat 0 is the remote bot:
    its rows in ``decisions`` (the spec records them)."""
    seats = tables["decisions"].column("seat").to_pylist()
    return sum(1 for seat in seats if seat == 0), len(seats)


if __name__ == "__main__":
    main()
