"""Liar's poker speed: random-bot rounds per second for 2-10 players, the truthful bot, CFR iterations.

    .venv/bin/python benchmarks/bench_liars_poker.py              # the README's table
    .venv/bin/python benchmarks/bench_liars_poker.py --seconds 0.5 # smoke run

A "round" is one round of the readable engine (``games.liars_poker.state.State``) played to its end
by bots that see only their views, exactly as the shard runner plays it (``view``, ``legal_actions``,
``act``, ``apply`` per action), classic preset. CFR iterations are full-width CFR+ iterations of the
compiled kernel (both players updated, exact over chance) on the small games.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from typing import Any

import numpy as np

from games.core import registry
from games.liars_poker.cfr.game import SmallGame
from games.liars_poker.cfr.train import kernel
from games.liars_poker.rules import PRESETS
from games.liars_poker.state import State


def rounds_per_second(bot: str, players: int, seconds: float, seed: int = 1) -> dict[str, Any]:
    """Rounds of ``players`` copies of ``bot`` per second (and actions per round)."""
    rules = dataclasses.replace(PRESETS["classic"], rounds=100)
    bots = [registry.make(f"liars-poker/{bot}", {}) for _ in range(players)]
    rng = np.random.default_rng(seed)
    rounds = actions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        st = State.deal(rules, players, 0, rng)
        while not st.is_over():
            s = st.to_act()
            st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
            actions += 1
        rounds += rules.rounds
    dt = time.perf_counter() - t0
    return {"bot": bot, "players": players, "rounds_per_second": round(rounds / dt), "actions_per_round":
            round(actions / rounds, 1)}


def cfr_speed(digits: int, values: int, iterations: int) -> dict[str, Any]:
    """Compiled CFR+ iterations per second on notes of ``digits`` digits over ``values`` values."""
    g = SmallGame(digits, values)
    k = kernel(g)
    t0 = time.perf_counter()
    k.iterate(iterations)
    dt = time.perf_counter() - t0
    return {"digits": digits, "values": values, "chain": g.chain, "hands": g.H, "public_nodes": 1 << g.chain,
            "iterations_per_second": round(iterations / dt, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict[str, Any] = {"random": [rounds_per_second("random", n, args.seconds) for n in range(2, 11)],
                           "truthful": [rounds_per_second("truthful", n, args.seconds) for n in (2, 3, 5, 10)],
                           "cfr": [cfr_speed(1, 4, 200), cfr_speed(2, 3, 50), cfr_speed(3, 2, 50),
                                   cfr_speed(2, 4, 5), cfr_speed(3, 3, 3)]}
    if args.json:
        print(json.dumps(out))
        return
    print("| players | random rounds/s | actions/round |")
    print("|---:|---:|---:|")
    for r in out["random"]:
        print(f"| {r['players']} | {r['rounds_per_second']:,} | {r['actions_per_round']} |")
    print("\n| players | truthful rounds/s | actions/round |")
    print("|---:|---:|---:|")
    for r in out["truthful"]:
        print(f"| {r['players']} | {r['rounds_per_second']:,} | {r['actions_per_round']} |")
    print("\n| notes (L digits over D) | bid chain | hands | public nodes | CFR+ iterations/s |")
    print("|---|---:|---:|---:|---:|")
    for r in out["cfr"]:
        print(f"| {r['digits']} over {r['values']} | {r['chain']} | {r['hands']} | {r['public_nodes']:,} | "
              f"{r['iterations_per_second']} |")


if __name__ == "__main__":
    main()
