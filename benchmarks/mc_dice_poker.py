"""Monte Carlo of the optimal Dice Poker bot against its exact expectation (DP-10.5), and engine speeds.

Plays N solitaire games of a preset with ``dice-poker/optimal`` (seeded), prints the mean, its 95%
interval and whether the exact expectation of ``rasklad solve`` lies inside; a line every 10,000
games. ``--speed`` instead measures games per second (of wall time, and of the process's CPU time, which
is what a shared machine's load does not change) of the readable engine with random bots (simple,
2 players; full, 1 and 2 players) and with the optimal bot (full, 1 player).

    .venv/bin/python benchmarks/mc_dice_poker.py --preset full --games 100000 --seed 1
    .venv/bin/python benchmarks/mc_dice_poker.py --speed
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from games.dice_poker.bots import GreedyBot, RandomBot
from games.dice_poker.optimal import OptimalBot, load_strategy
from games.dice_poker.rules import Rules
from games.dice_poker.state import State


def play(rules: Rules, players: int, bot: object, rng: np.random.Generator) -> State:
    st = State.deal(rules, players, 0, rng)
    while not st.is_over():
        seat = st.to_act()
        st.apply(bot.act(st.view(seat), st.legal_actions(), rng))  # type: ignore[attr-defined]
    return st


def monte_carlo(preset: str, games: int, seed: int) -> None:
    rules = Rules(preset=preset)
    exact = load_strategy(rules).expected["expected_score"]
    bot = OptimalBot()
    rng = np.random.default_rng(seed)
    n, total, total2 = 0, 0.0, 0.0
    start = time.perf_counter()
    for i in range(games):
        x = float(play(rules, 1, bot, rng).scores()[0])
        n, total, total2 = n + 1, total + x, total2 + x * x
        if (i + 1) % 10_000 == 0 or i + 1 == games:
            mean = total / n
            se = math.sqrt(max(0.0, total2 / n - mean * mean) / (n - 1))
            inside = abs(mean - exact) <= 1.96 * se
            print(f"{preset}: {n:,} games, mean {mean:.4f}, 95% CI [{mean - 1.96 * se:.4f}, {mean + 1.96 * se:.4f}], "
                  f"exact {exact:.4f}: {'inside' if inside else 'OUTSIDE'} ({time.perf_counter() - start:.0f} s)",
                  flush=True)


def speed(seconds: float = 5.0) -> None:
    rng = np.random.default_rng(1)
    cases = [("simple", 2, RandomBot()), ("simple", 4, GreedyBot()), ("full", 1, RandomBot()),
             ("full", 2, RandomBot()), ("full", 1, GreedyBot()), ("full", 1, OptimalBot()),
             ("mixed", 1, OptimalBot())]
    for preset, players, bot in cases:
        rules = Rules(preset=preset)
        if isinstance(bot, OptimalBot):
            load_strategy(rules)
        n, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            play(rules, players, bot, rng)
            n += 1
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        print(f"| {preset} | {players} | {type(bot).__name__} | {n / wall:,.0f} | {n / used:,.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="full", choices=("full", "mixed"))
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", action="store_true")
    args = ap.parse_args()
    if args.speed:
        speed()
    else:
        monte_carlo(args.preset, args.games, args.seed)


if __name__ == "__main__":
    main()
