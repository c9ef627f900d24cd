"""What classic poker's luck estimator costs inside the compiled random play-out (issue 31: at most 20% of play).

In one process, per preset: the same deals (6 random seats, duplicate seating: every rotation of a deal) played
by the compiled path's ``play_rows`` (``variance_reduction: none``: rows only) and by ``play_rows_corrected``
(``auto``: rows and each seat's correction), alternating in blocks, CPU time (``time.process_time``) per deal,
dealing included in both. The estimator's cost is ``corrected / plain - 1``. ``--before DIR`` runs the same
measurement with a copy of the code before a change first on ``PYTHONPATH`` (a subprocess), interleaved round by
round. Medians over the rounds.

    .venv/bin/python benchmarks/bench_classic_poker_luck_cost.py [--deals 300] [--rounds 3] [--before /tmp/before]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ("draw", "stud7", "stud7-hilo")


def measure(preset: str, players: int, deals: int) -> tuple[float, float]:
    """(ms per deal of ``play_rows``, ms per deal of ``play_rows_corrected``), two blocks each, alternating."""
    import numpy as np

    from games.classic_poker import luck
    from games.classic_poker.fast.playout import FAST
    from games.classic_poker.tables import TABLES
    from games.core import registry

    entry = registry.game("classic-poker")
    rules = entry.rules({"preset": preset})
    rots = [[registry.make("classic-poker/random", {})] * players] * players

    def block(corrected: bool, first: int) -> float:
        t = time.process_time()
        for d in range(first, first + deals // 2):
            st = entry.deal(rules, players, d % players, np.random.default_rng([1, d]))
            rng_at = (lambda dd: lambda r: np.random.default_rng([1, dd, r]))(d)
            if corrected:
                FAST.play_rows_corrected(st, TABLES, rots, rng_at, luck.LUCK)
            else:
                FAST.play_rows(st, TABLES, rots, rng_at)
        return time.process_time() - t

    block(True, 10**6)  # warm: the evaluator's tables, the completions
    plain = block(False, 0) + block(False, deals // 2)
    corr = block(True, deals // 2) + block(True, 0)
    return plain / deals * 1e3, corr / deals * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # a single measurement (the subprocess of --before)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.players, args.deals)))
        return
    trees = [("before", args.before.resolve()), ("after", ROOT)] if args.before else [("", ROOT)]
    got: dict[tuple[str, str], list[tuple[float, float]]] = {}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for preset in PRESETS:
            for label, code in trees:
                env = {**os.environ, "PYTHONPATH": str(code)}
                out = subprocess.run([sys.executable, __file__, "--one", preset, "--deals", str(args.deals),
                                      "--players", str(args.players)], env=env, cwd=code, check=True,
                                     capture_output=True, text=True).stdout
                got.setdefault((preset, label), []).append(tuple(json.loads(out)))
        load = max(load, os.getloadavg()[0])
        print(f"round {r + 1} done", flush=True)
    print(f"\nmedians of {args.rounds} rounds, {args.deals} deals, {args.players} random seats, duplicate; "
          f"CPU ms per deal; load average up to {load:.1f} on {os.cpu_count()} cores")
    print("| preset | code | rows only | rows and corrections | estimator's cost |")
    print("|---|---|---:|---:|---:|")
    for (preset, label), v in got.items():
        plain = statistics.median(x for x, _ in v)
        corr = statistics.median(y for _, y in v)
        cost = statistics.median(y / x - 1 for x, y in v)
        print(f"| {preset} | {label} | {plain:.3f} | {corr:.3f} | {cost:.0%} |")


if __name__ == "__main__":
    main()
