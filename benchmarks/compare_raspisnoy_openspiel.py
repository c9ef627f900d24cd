"""Raspisnoy side by side with OpenSpiel's ``oh_hell``, and the double-dummy solver's times.

    .venv/bin/pip install open-spiel          # benchmark only, not a runtime dependency
    .venv/bin/python benchmarks/compare_raspisnoy_openspiel.py --seconds 10 --solves 20
    .venv/bin/python benchmarks/compare_raspisnoy_openspiel.py --pipeline --matches 20000 --rounds 3

1. Random play of one 4-player 9-card deal (36 cards, 9 tricks), one process, one run:
   ours through the compiled play-out (``fast/_playout.pyx``, the engine's choices exactly, tested
   by tests/games/raspisnoy/test_rasp_playout.py; decks drawn by numpy in the loop) and through the
   readable engine (``games.raspisnoy.state.Deal``: the classic top deal, looks or
   dark bids, bids, 36 plays, scoring) and OpenSpiel's ``oh_hell`` configured as close as it goes
   (``players=4, num_suits=4, num_cards_per_suit=9``, 36 cards; ``num_tricks_fixed=8``, because
   with 9 tricks all 36 cards are dealt and its trump-card chance node has no outcome left, so the
   game cannot be played; its chance nodes deal card by card and turn the trump; it has no joker)
   through its Python API with a uniformly random legal action at each node. Deals (games) per second and the ratio.
   With ``--pipeline`` (issue 30's target): ``rasklad run`` end to end, one worker, CPU time
   (``pipeline_cpu.rasklad_run``), a 4-player classic job of ``--matches`` matches in duplicate seating
   (every match under 4 rotations; the compiled fast path ``fast/_match.pyx`` plays random and heuristic
   bots), interleaved with OpenSpiel ``oh_hell`` as above measured in CPU time for as long, ``--rounds``
   times; the medians of deals (rows of ``deals``: a deal of the match, 1 to 9 cards) per CPU second
   and of oh_hell games per CPU second, and their ratio; also per trick (ours 153 tricks a 25-deal
   match, oh_hell 8 a game).
2. The double-dummy solver: median and p99 time of a full solve of a deal's start (every hand
   known, the root maximising its tricks) for 3 hands of 7 cards, 4 hands of 6 cards and, fewer, 4
   hands of 9 cards; and the time per decision of ``pimc`` in a short match against heuristics.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np

from games.raspisnoy.rules import CLASSIC, schedule
from games.raspisnoy.state import Deal, State, draw_stubs


def ours(seconds: float) -> float:
    rules, n = CLASSIC, 4
    plan = schedule(rules, n)
    index = plan.index(("normal", 9))
    trules = rules.trick_rules()
    rng = np.random.default_rng(1)
    deals = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        stubs = draw_stubs(rules, n, [("normal", 9)] * 100, rng)
        for stub in stubs:
            d = Deal(rules, trules, n, index, "normal", 9, stub, (0,) * n)
            while not d.over:
                la = d.legal()
                d.try_apply(la[int(rng.integers(len(la)))])
            deals += 1
    return deals / (time.perf_counter() - t0)


def ours_compiled(seconds: float) -> float:
    """The compiled random play-out (games/raspisnoy/fast/_playout.pyx, equal to the engine's choices)."""
    from games.raspisnoy.fast._playout import random_deals

    rng = np.random.default_rng(1)
    deals = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        decks = rng.permuted(np.tile(np.arange(16, 52, dtype=np.int64), (2000, 1)), axis=1)
        random_deals(decks, 4, 9, 3, "normal", 1, CLASSIC, rng)
        deals += 2000
    return deals / (time.perf_counter() - t0)


def openspiel(seconds: float, clock: Any = time.perf_counter) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_suits": 4, "num_cards_per_suit": 9,
                                         "num_tricks_fixed": 8})
    rng = np.random.default_rng(1)
    games = 0
    t0 = clock()
    while clock() - t0 < seconds:
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                la = st.legal_actions()
                st.apply_action(la[int(rng.integers(len(la)))])
        games += 1
    return games / (clock() - t0)


def pipeline(matches: int, rounds: int, bot: str = "raspisnoy/random") -> dict[str, Any]:
    """``rasklad run`` (one worker, CPU time) of a 4-player classic job against OpenSpiel's oh_hell (CPU
    time), interleaved ``rounds`` times; medians."""
    from pipeline_cpu import rasklad_run

    spec = {"kind": "tournament", "game": "raspisnoy", "players": 4, "bots": [bot] * 4, "deals": matches,
            "seating": "duplicate", "seed": 11, "record": "summary"}
    ours_rates, peer_rates = [], []
    for _ in range(rounds):
        cpu, rows = rasklad_run(spec)
        ours_rates.append(rows / cpu)
        peer = openspiel(min(cpu, 20.0), time.process_time)
        if peer is not None:
            peer_rates.append(peer)
    a = statistics.median(ours_rates)
    b = statistics.median(peer_rates) if peer_rates else None
    per_trick = None if b is None else (a * 153 / 25) / (b * 8)
    return {"bot": bot, "matches": matches, "rasklad_run_deals_per_cpu_s": round(a),
            "runs": [round(x) for x in ours_rates],
            "openspiel_oh_hell_games_per_cpu_s": None if b is None else round(b),
            "peer_runs": [round(x) for x in peer_rates],
            "ratio": None if b is None else round(a / b, 1), "ratio_per_trick": None if per_trick is None else
            round(per_trick, 1)}


def solve_times(players: int, cards: int, solves: int) -> dict[str, Any]:
    from games.raspisnoy.dd import Solver, solve_value

    solver = Solver(20)
    rules = CLASSIC
    times = []
    for seed in range(solves):
        st = State.deal(rules, players, np.random.default_rng(seed))
        while st.current.k != cards or st.current.bidding_open:
            la = st.legal_actions()
            st.apply("look" if la[0] == "look" else la[0])
        d = st.current
        t = time.perf_counter()
        solve_value(solver, d, [sorted(h) for h in d.hands], d.to_act(), list(range(cards + 1)))
        times.append(time.perf_counter() - t)
    times.sort()
    return {"hands": players, "cards": cards, "solves": solves, "median_s": statistics.median(times),
            "p99_s": times[min(len(times) - 1, int(0.99 * len(times)))], "max_s": times[-1]}


def pimc_decision(matches: int, players: int = 3, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wall time of pimc's decisions (its defaults unless ``params``) in whole matches against heuristics."""
    from games.core import registry

    times = []
    for m in range(matches):
        rng = np.random.default_rng(m)
        st = State.deal(CLASSIC, players, rng)
        bots = [registry.make("raspisnoy/pimc", params or {})] + \
            [registry.make("raspisnoy/heuristic") for _ in range(players - 1)]
        while not st.is_over():
            s = st.to_act()
            t = time.perf_counter()
            a = bots[s].act(st.view(s), st.legal_actions(), rng)
            if s == 0 and len(st.legal_actions()) > 1:
                times.append(time.perf_counter() - t)
            st.apply(a)
    return {"decisions": len(times), "mean_ms": 1000 * statistics.fmean(times),
            "median_ms": 1000 * statistics.median(times), "p99_ms": 1000 * sorted(times)[int(0.99 * len(times))]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--solves", type=int, default=20)
    ap.add_argument("--big-solves", type=int, default=3, help="full 9-card 4-hand solves (slow: seconds to minutes)")
    ap.add_argument("--pimc-matches", type=int, default=1)
    ap.add_argument("--pipeline", action="store_true", help="only rasklad run end to end against oh_hell (CPU)")
    ap.add_argument("--matches", type=int, default=20000, help="--pipeline: matches of the job")
    ap.add_argument("--rounds", type=int, default=3, help="--pipeline: interleaved runs of each side")
    args = ap.parse_args()
    if args.pipeline:
        print(json.dumps([pipeline(args.matches, args.rounds, bot) for bot in ("raspisnoy/random",
                                                                                "raspisnoy/heuristic")], indent=2))
        return
    a = ours(args.seconds)
    c = ours_compiled(args.seconds)
    b = openspiel(args.seconds)
    out: dict[str, Any] = {"ours_engine_deals_per_s": round(a, 1), "ours_compiled_deals_per_s": round(c, 1),
                           "openspiel_oh_hell_games_per_s": None if b is None else round(b, 1),
                           "ratio_engine": None if b is None else round(a / b, 3),
                           "ratio_compiled": None if b is None else round(c / b, 2)}
    out["solves"] = [solve_times(3, 7, args.solves), solve_times(4, 6, args.solves)]
    if args.big_solves:
        out["solves"].append(solve_times(4, 9, args.big_solves))
    if args.pimc_matches:
        out["pimc"] = {f"{n}_players": pimc_decision(args.pimc_matches, n) for n in (3, 4)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
