"""Liar's poker bots at one table under duplicate seating (classic or any preset), with 95% intervals.

Match m deals its notes from the seed ``[seed, m]`` (``State.deal``: ``rounds`` rounds of notes up front)
and is played once per rotation of the bot list over the seats, on the same notes; a bot's match score
is its mean over the seats it held and the rotations. Printed: each bot's mean score a match with its
95% interval, and each pair's paired difference.

    .venv/bin/python benchmarks/liars_poker_tables.py --bots cfr,truthful,random --matches 1000 --rounds 10
    .venv/bin/python benchmarks/liars_poker_tables.py --bots cfr,truthful,random,truthful,random --matches 300
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from itertools import combinations

import numpy as np

from games.core import registry
from games.liars_poker.rules import PRESETS
from games.liars_poker.state import State


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default="cfr,truthful,random")
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    names = args.bots.split(",")
    n = len(names)
    rules = dataclasses.replace(PRESETS[args.preset], rounds=args.rounds)
    bots = [registry.make(f"liars-poker/{b}", {}) for b in names]
    kinds = sorted(set(names))
    per: dict[str, list[float]] = {k: [] for k in kinds}
    start = time.perf_counter()
    for m in range(args.matches):
        dealt = State.deal(rules, n, 0, np.random.default_rng([args.seed, m]))
        acc = {k: 0.0 for k in kinds}
        for r in range(n):
            seat_bot = [(s + r) % n for s in range(n)]  # seat s plays bot seat_bot[s]
            st = State(rules, n, 0, dealt.notes)
            rng = np.random.default_rng([args.seed, m, r])
            while not st.is_over():
                s = st.to_act()
                st.apply(bots[seat_bot[s]].act(st.view(s), st.legal_actions(), rng))
            for s, x in enumerate(st.scores()):
                acc[names[seat_bot[s]]] += x / (n * names.count(names[seat_bot[s]]))
        for k in kinds:
            per[k].append(acc[k])
    took = time.perf_counter() - start
    print(f"{args.preset}, {n} seats ({args.bots}), {args.matches} matches of {args.rounds} rounds x {n} rotations "
          f"({took:.0f} s)")
    for k in kinds:
        arr = np.array(per[k])
        h = 1.96 * arr.std(ddof=1) / math.sqrt(len(arr))
        print(f"  {k:>9}: {arr.mean():+.3f} [{arr.mean() - h:+.3f}, {arr.mean() + h:+.3f}] a match")
    for a, b in combinations(kinds, 2):
        d = np.array(per[a]) - np.array(per[b])
        h = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
        print(f"  {a} - {b}: {d.mean():+.3f} [{d.mean() - h:+.3f}, {d.mean() + h:+.3f}]")


if __name__ == "__main__":
    main()
