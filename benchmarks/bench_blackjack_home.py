"""Blackjack ``home`` and ``ochko`` through ``rasklad run`` (issue 30): the C kernel against the readable engine.

Each case is ``rasklad run SPEC --workers 1 --new -q`` of a duplicate-seating summary job, in its own process,
measured by its CPU time (``pipeline_cpu.rasklad_run``), net of the same spec's one-deal job run just before
it (the fixed cost); rounds interleave the cases and the trees, figures are medians. ``--before DIR`` (a copy
of the code before a change, e.g. ``git archive`` of a commit with the tree's built extensions) runs every
case with that code first on ``PYTHONPATH`` too, with ``--before-deals`` deals. No peer plays these games
(OpenSpiel's ``blackjack`` is the casino game: ``bench_blackjack.py``).

    .venv/bin/python benchmarks/bench_blackjack_home.py [--rounds 3] [--deals 150000] [--before /tmp/before]
"""

from __future__ import annotations

import argparse
import os
import statistics
from typing import Any

from pipeline_cpu import rasklad_run

#: (case, preset, bots): the kernel's random and rule-based players.
CASES: list[tuple[str, str, list[str]]] = [
    ("home, 4 × random", "home", ["blackjack/random"] * 4),
    ("home, 4 × home/heuristic", "home", ["blackjack/home/heuristic"] * 4),
    ("ochko, 4 × dealer-rule", "ochko", ["blackjack/dealer-rule"] * 4),
]


def spec(preset: str, bots: list[str], deals: int) -> dict[str, Any]:
    """A duplicate-seating summary job of ``deals`` deals (each played once per rotation of the bots)."""
    return {"kind": "tournament", "name": "bench blackjack home", "game": "blackjack", "rules": {"preset": preset},
            "players": len(bots), "bots": bots, "deals": deals, "seating": "duplicate", "seed": 1,
            "record": "summary"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--deals", type=int, default=150_000)
    ap.add_argument("--before", help="a copy of the code before a change, run interleaved")
    ap.add_argument("--before-deals", type=int, default=4_000)
    args = ap.parse_args()
    trees: list[tuple[str, dict[str, str] | None, int]] = [("after" if args.before else "", None, args.deals)]
    if args.before:
        trees.insert(0, ("before", {**os.environ, "PYTHONPATH": os.path.abspath(args.before)}, args.before_deals))
    rates: dict[tuple[str, str], list[float]] = {}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for name, preset, bots in CASES:
            for label, env, deals in trees:
                fixed, _ = rasklad_run(spec(preset, bots, 1), env=env)
                cpu, _ = rasklad_run(spec(preset, bots, deals), env=env)
                rates.setdefault((name, label), []).append((deals - 1) / (cpu - fixed))
        loads.append(os.getloadavg()[0])
        print(f"round {r + 1}: load average {loads[-1]:.1f}", flush=True)
    print(f"\nmedians of {args.rounds} rounds, deals per CPU second net of a one-deal job, load average "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    print("| case | deals/s |\n|---|---:|")
    for (name, label), v in rates.items():
        print(f"| {name}{f' [{label}]' if label else ''} | {statistics.median(v):,.0f} |")


if __name__ == "__main__":
    main()
