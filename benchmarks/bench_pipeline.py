"""Pipeline overhead: deals/s of ``rasklad run`` against the bare engine loop on the same bots.

Measured in one run (issue 5 §7):
* bare loop: ``State.deal`` + ``State.play_out`` (the runner's way to play a deal) + the
  record the runner needs, one generator, nothing stored;
* embedded run, 1 worker (in process): planning, per-deal streams, duplicate-seating replays,
  building Arrow tables, Parquet commits, job store, report;
* embedded run, 2 worker processes: the speed-up of the pool.
Plays are counted (one deal under one rotation), so both sides do the same game work.

Usage: python benchmarks/bench_pipeline.py [--deals N] [--bots random|heuristic] [--players 4]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def bare_loop(bots_names: list[str], players: int, plays: int, seed: int) -> float:
    """Plays per second of the engine alone."""
    import importlib

    from games.core import registry

    engine = importlib.import_module("games.order_poker")  # the engine under test
    Rules, State = engine.Rules, engine.State
    rules = Rules()
    bots = [registry.make(n, {}) for n in bots_names]
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for i in range(plays):
        st: Any = State.deal(rules, players, i % players, rng)
        st.play_out(bots, rng)  # as the runner plays (the C play-out when every bot is random)
        st.scores()
        st.summary()  # the runner needs the outcome of every play (a summary job): so does this loop
    return plays / (time.perf_counter() - t0)


def pipeline(bots_names: list[str], players: int, deals: int, seed: int, workers: int, shard_deals: int) -> float:
    """Plays per second of a whole embedded job (a fresh data root, so nothing is resumed)."""
    from sims.embedded import run_job
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": players, "bots": bots_names,
                       "deals": deals, "seating": "duplicate", "seed": seed, "shard_deals": shard_deals})
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_job(spec, data=Path(d), workers=workers)
        dt = time.perf_counter() - t0
    assert res.state == "succeeded"
    return deals * players / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=10_000, help="deals of the job (each played once per rotation)")
    ap.add_argument("--bots", default="random", help="bot kind at every seat")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--shard-deals", type=int, default=0, help="deals per shard (default: deals / 20)")
    args = ap.parse_args()
    names = [f"order-poker/{args.bots}"] * args.players
    plays = args.deals * args.players
    shard = args.shard_deals or max(1, args.deals // 20)
    bare = bare_loop(names, args.players, plays, 1)
    one = pipeline(names, args.players, args.deals, 1, 1, shard)
    two = pipeline(names, args.players, args.deals, 1, 2, shard)
    print(f"{args.players} x {args.bots}, {args.deals:,} deals x {args.players} rotations = {plays:,} plays, "
          f"shards of {shard:,} deals")
    print(f"{'bare engine loop':<28} {bare:>10,.0f} plays/s")
    print(f"{'rasklad run, 1 worker':<28} {one:>10,.0f} plays/s   overhead {100 * (bare / one - 1):+.1f}%")
    print(f"{'rasklad run, 2 workers':<28} {two:>10,.0f} plays/s   speed-up x{two / one:.2f} over 1 worker")


if __name__ == "__main__":
    main()
