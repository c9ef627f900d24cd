"""CPU time of the bare C play-out of random Order Poker deals, in this tree and in others, same run.

    python benchmarks/bench_playout_cpu.py --deals 20000 --rounds 4 before=/tmp/before-d88 after=.

Each round runs every tree once, in turn, in a fresh process with ``PYTHONPATH`` set to the tree
(build its extensions in place first: ``python setup.py build_ext --inplace`` there). A process plays
``--deals`` deals of 4 ``order-poker/random`` bots from a seeded generator twice: ``play`` is
``State.deal`` + the C play-out (the entry's fast path; ``State.play_out`` in trees older than the
game registry, e.g. d88fa96), what ``bench_order_poker.py`` times for random tables; ``play_score``
adds ``scores()`` and ``summary()`` (``bench_pipeline.py``'s bare loop). Timed by
``time.process_time`` with the GC off; the best and the median of all timings are printed. CPU time, not wall time: the
2-core machine is shared, and a process waiting for a core does not count.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def measure(deals: int, reps: int) -> dict[str, list[float]]:
    """In this process (the tree on ``PYTHONPATH``): CPU seconds of each repetition of each loop."""
    import numpy as np

    import games.order_poker as engine
    from games.core import registry

    rules = engine.Rules()
    bots = [registry.make("order-poker/random", {}) for _ in range(4)]
    fast = registry.game("order-poker").fast_path(rules, bots) if hasattr(registry, "game") else None
    state_cls: Any = engine.State

    def run(score: bool) -> float:
        rng = np.random.default_rng(7)
        gc.disable()
        try:
            t0 = time.process_time()
            for i in range(deals):
                st = state_cls.deal(rules, 4, i % 4, rng)
                if fast is not None:
                    fast.play_out(st, bots, rng)
                else:
                    st.play_out(bots, rng)
                if score:
                    st.scores()
                    st.summary()
            return time.process_time() - t0
        finally:
            gc.enable()

    out: dict[str, list[float]] = {"play": [], "play_score": []}
    for _ in range(reps):
        out["play"].append(run(False))
        out["play_score"].append(run(True))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="*", help="name=DIR of each tree (default: this one)")
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.deals, 2)))
        return
    here = str(Path(__file__).resolve().parent.parent)
    trees = dict(t.split("=", 1) for t in args.trees) if args.trees else {"this": here}
    got: dict[str, dict[str, list[float]]] = {t: {"play": [], "play_score": []} for t in trees}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, tree in trees.items():
            res = subprocess.run([sys.executable, __file__, "--child", "--deals", str(args.deals)], check=True,
                                 capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(Path(tree).resolve())})
            for k, v in json.loads(res.stdout).items():
                got[name][k] += v
    for loop in ("play", "play_score"):
        print(f"{loop}: 4 x random, {args.deals:,} deals, {2 * args.rounds} timings per tree, by CPU time")
        first = None
        for name in trees:
            cpu, med = min(got[name][loop]), statistics.median(got[name][loop])
            first = first or (cpu, med)
            print(f"  {name:<10} best {args.deals / cpu:>8,.0f} deals/s ({1e6 * cpu / args.deals:5.2f} µs/deal, "
                  f"x{cpu / first[0]:.3f})   median {args.deals / med:>8,.0f} deals/s ({1e6 * med / args.deals:5.2f} "
                  f"µs/deal, x{med / first[1]:.3f})   CPU time relative to {next(iter(trees))}")
    print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
