"""Order Poker bot comparison over duplicate seating (the "Bots compared" table of README.md).

    .venv/bin/python benchmarks/compare_order_poker.py --deals 1000 --workers 2
    .venv/bin/python benchmarks/compare_order_poker.py --bots montecarlo heuristic random random

Every deal k is dealt from ``default_rng([seed, k])`` and played 4 times, once per cyclic
rotation of the bots over the seats, so every bot holds every seat's cards once (card luck
cancels). A deal-set's unit is the mean score of a bot over its 4 rotations; the report is
the mean over deal-sets with a 95% normal interval, and each bot's paired margin over the
last bot (``random``). A stand-in for the tournament runner's ``duplicate`` format.

    .venv/bin/python benchmarks/compare_order_poker.py --job data/jobs/j-...   # a rasklad job

``--job DIR`` reads the committed ``seats`` shards of a ``rasklad run`` tournament (finished
or not: a long montecarlo job can be stopped and summarised, or resumed later) and prints the
same table from ``sims.stats`` (per-deal means with 95% intervals; paired and unpaired
differences against each ``random`` bot).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from games.core import registry
from games.order_poker import Rules, State


def play_set(args: tuple[int, int, list[str], dict[str, Any]]) -> list[float]:
    """Deal ``k`` under all cyclic rotations; mean score per deal of each bot (by bot index)."""
    k, seed, names, params = args
    m = len(names)
    totals = [0.0] * m
    for r in range(m):
        bots = [registry.make(f"order-poker/{names[(i + r) % m]}", params.get(names[(i + r) % m], {}))
                for i in range(m)]
        st = State.deal(Rules(), m, k % m, np.random.default_rng([seed, k]))
        st.play_out(bots, np.random.default_rng([seed, k, r, 1]))
        for i, x in enumerate(st.scores()):
            totals[(i + r) % m] += x
    return [t / m for t in totals]


def ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


def from_job(job: str, out_json: str | None) -> None:
    """Summarise the committed shards of a rasklad tournament job (duplicate seating)."""
    from pathlib import Path

    from sims.report import read_job_table
    from sims.stats import leaderboard

    seats = read_job_table(Path(job), "seats")
    if seats is None:
        raise SystemExit(f"no committed seats shards under {job}")
    board = leaderboard(seats, with_rating=False)
    print(f"{board['deals']:,} deals x {board['rotations']} rotations = {seats.num_rows // 4:,} games "
          f"({seats.num_rows:,} seat rows) from {job}")
    for r in board["rows"]:
        print(f"  {r['bot']:28s} {r['mean']:+.3f} per deal, 95% [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]")
    randoms = [r["bot"] for r in board["rows"] if "random" in r["bot"]]
    out: dict[str, Any] = {"deals": board["deals"], "rotations": board["rotations"], "rows": board["rows"],
                           "pairs": []}
    for p in board["pairs"]:
        if (p["b"] in randoms) != (p["a"] in randoms) or (p["a"] not in randoms and p["b"] not in randoms):
            pa_, un = p["paired"], p["unpaired"]
            print(f"  {p['a']} - {p['b']}: {pa_['mean']:+.3f}, paired 95% [{pa_['ci_low']:+.3f}, "
                  f"{pa_['ci_high']:+.3f}], unpaired [{un['ci_low']:+.3f}, {un['ci_high']:+.3f}] "
                  f"(variance ratio {p['variance_ratio']:.2f})")
            out["pairs"].append(p)
    if out_json:
        with open(out_json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--job", default=None, help="summarise this rasklad job directory instead of playing")
    ap.add_argument("--bots", nargs="+", default=["montecarlo", "heuristic", "random", "random"])
    ap.add_argument("--deals", type=int, default=1000, help="deal-sets (each played under every rotation)")
    ap.add_argument("--samples", type=int, default=12, help="montecarlo samples per decision")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.job:
        from_job(args.job, args.json)
        return
    params = {"montecarlo": {"samples": args.samples}}
    t0 = time.perf_counter()
    jobs = [(k, args.seed, args.bots, params) for k in range(args.deals)]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = np.asarray(list(pool.map(play_set, jobs, chunksize=8)))
    secs = time.perf_counter() - t0
    labels = [f"{b}#{i}" if args.bots.count(b) > 1 else b for i, b in enumerate(args.bots)]
    print(f"{args.deals} deals x {len(args.bots)} rotations = {args.deals * len(args.bots)} games, "
          f"{secs:.0f} s on {args.workers} workers; montecarlo samples={args.samples}")
    out: dict[str, Any] = {"deals": args.deals, "rotations": len(args.bots), "seconds": secs, "bots": {}}
    base = rows[:, -1]
    for i, name in enumerate(labels):
        mean, half = ci(rows[:, i])
        dmean, dhalf = ci(rows[:, i] - base)
        print(f"  {name:14s} {mean:+.3f} ± {half:.3f} per deal;  vs {labels[-1]}: {dmean:+.3f} ± {dhalf:.3f}")
        out["bots"][name] = {"mean": mean, "ci95": half, "vs_last": dmean, "vs_last_ci95": dhalf}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
