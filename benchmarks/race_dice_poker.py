"""Dice Poker ``optimal-race`` against ``optimal`` head to head (full or mixed, two players).

Game g is dealt from the seed ``[seed, g]``; the race bot sits at seat g mod 2 (each bot opens half the
games). A game is won, tied (½) or lost by total (DP-6.4); the race bot's win rate is printed with its
95% interval, and the mean total of each bot (the race bot gives up expected points for the chance).

    .venv/bin/python benchmarks/race_dice_poker.py --preset full --games 4000 --seed 7
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from games.dice_poker.optimal import OptimalBot
from games.dice_poker.race_sheet import SheetRaceBot
from games.dice_poker.rules import Rules
from games.dice_poker.state import State


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=("full", "mixed"), default="full")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rules = Rules(preset=args.preset)
    race, opt = SheetRaceBot(), OptimalBot()
    wins, race_tot, opt_tot = [], 0.0, 0.0
    start = time.perf_counter()
    for g in range(args.games):
        rng = np.random.default_rng([args.seed, g])
        rs = g % 2
        st = State.deal(rules, 2, 0, rng)
        while not st.is_over():
            seat = st.to_act()
            st.apply((race if seat == rs else opt).act(st.view(seat), st.legal_actions(), rng))
        tot = st.done[0]["totals"]
        d = tot[rs] - tot[1 - rs]
        wins.append(1.0 if d > 0 else 0.5 if d == 0 else 0.0)
        race_tot += tot[rs]
        opt_tot += tot[1 - rs]
    n = len(wins)
    p = float(np.mean(wins))
    se = float(np.std(wins, ddof=1)) / math.sqrt(n)
    print(f"{args.preset}: {n} games, optimal-race win rate {p:.4f} (95% CI [{p - 1.96 * se:.4f}, "
          f"{p + 1.96 * se:.4f}]), mean totals race {race_tot / n:.2f}, optimal {opt_tot / n:.2f} "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
