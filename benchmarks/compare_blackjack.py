"""Blackjack random-bot rounds per second beside OpenSpiel's ``blackjack`` and RLCard's ``blackjack``, and the
solver's time (benchmark only: ``pip install open-spiel rlcard``; neither is a dependency of rasklad).

    .venv/bin/python benchmarks/compare_blackjack.py --seconds 5

Each side plays whole rounds with uniformly random legal actions on one core, measured in the same run:

* rasklad, compiled (``games/blackjack/fast/_play.pyx``): one player, casino rules (BJ-7: double, split,
  peek, S17, 3:2), a fresh 1- or 6-deck shoe drawn for every round as the engine draws it (numpy's
  permutation of the whole shoe: the chance stub of BJ-8.1), parity-tested against the readable engine;
* rasklad, readable engine (``State.view`` -> ``RandomBot.act`` -> ``apply``), the same rounds;
* OpenSpiel ``blackjack`` (C++ game through pyspiel): one player, hit/stand only, one 52-card deck,
  random chance outcomes sampled in Python (``state.chance_outcomes``) as its Python examples do;
* RLCard ``blackjack`` (``env.run`` with ``RandomAgent``): one player, hit/stand only, one deck.

Then the exact solver (``rasklad solve blackjack``) on the infinite deck and on 1 and 6 decks.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np


def rasklad_compiled(decks: int, seconds: float) -> float:
    from games.blackjack.fast._play import play_random

    rng = np.random.default_rng(1)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        play_random(rng, 1, decks, 10, 3, 2, True, False, 20_000)
        n += 20_000
    return n / (time.perf_counter() - t0)


def rasklad_readable(decks: int, seconds: float) -> float:
    from games.blackjack.dealing import deal
    from games.blackjack.rules import Rules
    from games.blackjack.simple_bots import RandomBot

    rules, bot, rng = Rules(preset="casino", decks=decks), RandomBot(), np.random.default_rng(1)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        st = deal(rules, 1, None, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
        n += 1
    return n / (time.perf_counter() - t0)


def openspiel(seconds: float) -> float:
    import pyspiel

    game, rng = pyspiel.load_game("blackjack"), np.random.default_rng(1)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = st.legal_actions()
                st.apply_action(legal[int(rng.random() * len(legal))])
        n += 1
    return n / (time.perf_counter() - t0)


def rlcard_side(seconds: float) -> float:
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("blackjack", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions)])
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.run(is_training=False)
        n += 1
    return n / (time.perf_counter() - t0)


def solver_times() -> dict[str, Any]:
    from games.blackjack.solver import CasinoRules, Solver

    out = {}
    for decks in (None, 1, 6):
        t0 = time.perf_counter()
        ev = Solver(CasinoRules(decks=decks)).expected_value()
        out["infinite" if decks is None else f"{decks} deck(s)"] = {"expected_value": round(ev, 6),
                                                                     "seconds": round(time.perf_counter() - t0, 2)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    res: dict[str, Any] = {}
    for decks in (1, 6):
        res[f"rasklad compiled, {decks} deck(s)"] = round(rasklad_compiled(decks, a.seconds))
        res[f"rasklad readable, {decks} deck(s)"] = round(rasklad_readable(decks, a.seconds))
    res["openspiel blackjack"] = round(openspiel(a.seconds))
    res["rlcard blackjack"] = round(rlcard_side(a.seconds))
    peer = max(res["openspiel blackjack"], res["rlcard blackjack"])
    for decks in (1, 6):
        ours = res[f"rasklad compiled, {decks} deck(s)"]
        res[f"ratio compiled {decks} deck(s) / faster peer"] = round(ours / peer, 2)
    res["solver"] = solver_times()
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
