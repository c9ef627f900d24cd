"""What ``openspiel/ismcts`` costs per game: the figures of ``rasklad/interop/bots.py``'s ``SPEED_PER_SIMULATION``.

    .venv/bin/python benchmarks/bench_ismcts_cost.py                        # every adapted game, 20 simulations
    .venv/bin/python benchmarks/bench_ismcts_cost.py --game raspisnoy --simulations 4 --units 1

For each game: units of its default rules at its fewest seats, ``openspiel/ismcts`` in seat 0 and the
game's random bot in the others, played as a shard plays them (``sims.run.play_deal``, the readable
engine), timed in CPU seconds (``time.process_time``) until ``--units`` units or ``--budget`` seconds. A
table of ISMCTS bots searches in every seat, so its speed is the measured one over the seats; times
the simulations, that is C, the speed at one simulation (the search is ``simulations`` roll-outs a
decision). Prints one line per game and the C it measured, beside the declared one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.core import registry
from rasklad.interop.adapters import ADAPTERS
from rasklad.interop.bots import NAME, SPEED_PER_SIMULATION, UNMEASURED_SPEED_PER_SIMULATION
from sims.run import play_deal


def measure(game: str, simulations: int, units: int, budget: float) -> tuple[int, float]:
    """(units played, CPU seconds) of ``game`` with ISMCTS in seat 0 against random bots."""
    entry = registry.game(game)
    rules = entry.rules({})
    n = entry.seats(rules)[0]
    bots = [registry.make(NAME, {"simulations": simulations}, game)] + \
        [registry.make(f"{game}/random") for _ in range(n - 1)]
    t0 = time.process_time()
    played = 0
    for u in range(units):
        rng = np.random.default_rng(u)
        play_deal(entry.deal(rules, n, 0, rng), bots, rng)
        played += 1
        if time.process_time() - t0 > budget:
            break
    return played, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="only this game (repeatable; default: every adapted one)")
    ap.add_argument("--simulations", type=int, default=20)
    ap.add_argument("--units", type=int, default=5)
    ap.add_argument("--budget", type=float, default=60.0, help="CPU seconds a game may take (after a unit)")
    args = ap.parse_args()
    for game in args.game or sorted(ADAPTERS):
        played, seconds = measure(game, args.simulations, args.units, args.budget)
        seats = registry.game(game).seats(registry.game(game).rules_class())[0]
        c = played / seconds / seats * args.simulations
        declared = SPEED_PER_SIMULATION.get(game, UNMEASURED_SPEED_PER_SIMULATION)
        print(f"{game:14} {seats} seats  {played} units in {seconds:7.2f} s CPU  "
              f"{seconds / played:8.3f} s/unit  C = {c:9.3f}  (declared {declared:g})")


if __name__ == "__main__":
    main()
