"""Exact optimal solitaire expectations of Dice Poker for the option sets of DP-5 (and solver timings).

``full`` is the school plus the main game, two independent sub-games (DP-10.5): the school depends on
``reroll_rule``, ``school_bonus`` and ``school_order``, the main game on ``reroll_rule``,
``first_throw_double`` and ``poker_bonus``; every full option set's expectation is the sum of one row
of each table. ``mixed`` is one 15-line game, solved per option set (``--mixed all`` for all 48).

    .venv/bin/python benchmarks/solve_dice_poker.py [--mixed some|all|none] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import itertools
import time

from games.dice_poker.rules import CLASSES, MAIN, Rules
from games.dice_poker.solver import SubGame, strategy


def full_tables() -> None:
    print("## full: the school (6 classes)\n")
    print("| reroll_rule | school_bonus | school_order | expected school | solve s |")
    print("|---|---|---|---:|---:|")
    for rr, sb, so in itertools.product(("locked", "free"), ("plus", "minus", "both", "none"), ("free", "fixed")):
        rules = Rules(preset="full", reroll_rule=rr, school_bonus=sb, school_order=so)
        t = time.perf_counter()
        v = SubGame(rules, CLASSES, fixed_order=so == "fixed").solve()
        print(f"| {rr} | {sb} | {so} | {v:.6f} | {time.perf_counter() - t:.2f} |")
    print("\n## full: the main game (9 lines)\n")
    print("| reroll_rule | first_throw_double | poker_bonus | expected main | solve s |")
    print("|---|---|---|---:|---:|")
    for rr, ftd, pb in itertools.product(("locked", "free"), ("all", "except_chance", "none"), (50, 0)):
        rules = Rules(preset="full", reroll_rule=rr, first_throw_double=ftd, poker_bonus=pb)
        t = time.perf_counter()
        v = SubGame(rules, MAIN).solve()
        print(f"| {rr} | {ftd} | {pb} | {v:.6f} | {time.perf_counter() - t:.2f} |")


def mixed_table(which: str, cache_dir: str | None) -> None:
    if which == "none":
        return
    if which == "all":
        sets = [dict(reroll_rule=rr, school_bonus=sb, first_throw_double=ftd, poker_bonus=pb)
                for rr, sb, ftd, pb in itertools.product(("locked", "free"), ("plus", "minus", "both", "none"),
                                                         ("all", "except_chance", "none"), (50, 0))]
    else:
        sets = [dict(reroll_rule=rr, school_bonus=sb) for rr in ("locked", "free")
                for sb in ("plus", "minus", "both", "none")]
        sets += [dict(first_throw_double="except_chance"), dict(first_throw_double="none"), dict(poker_bonus=0)]
    print("\n## mixed (15 lines in any order)\n")
    print("| options (others default) | expected score | states | solve s |")
    print("|---|---:|---:|---:|")
    for opts in sets:
        rules = Rules(preset="mixed", **opts)  # type: ignore[arg-type]
        st = strategy(rules, cache_dir)
        text = ", ".join(f"{k}={v}" for k, v in opts.items())
        print(f"| {text} | {st.expected['expected_score']:.6f} | {st.parts['mixed'].states:,} | "
              f"{st.seconds:.1f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mixed", choices=("some", "all", "none"), default="some")
    ap.add_argument("--cache-dir", default=None)
    args = ap.parse_args()
    full_tables()
    mixed_table(args.mixed, args.cache_dir)


if __name__ == "__main__":
    main()
