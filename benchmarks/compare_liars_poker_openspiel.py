"""Liar's poker side by side with OpenSpiel's ``python_liars_poker`` (benchmark only; ``pip install open-spiel``).

    .venv/bin/python benchmarks/compare_liars_poker_openspiel.py --games 1x2 1x3 2x2 --seconds 20
    .venv/bin/python benchmarks/compare_liars_poker_openspiel.py --pipeline --matches 200000 --rounds 3

``--pipeline`` (issue 30's target): ``rasklad run`` end to end, one worker, CPU time
(``pipeline_cpu.rasklad_run``), the ``openspiel`` preset at 2 players (OpenSpiel's defaults: notes of 10
digits over 10, the rebid) with random bots, matches of 1 and of 10 rounds in duplicate seating (the
compiled fast path ``fast/_play.pyx``), interleaved with random play of OpenSpiel's ``python_liars_poker``
(defaults) through its Python API in CPU time for as long; medians of rounds per CPU second.

For each small game (notes of L digits over D values, 2 players): the game-tree size of both (OpenSpiel:
histories and information states by a full walk; ours: public nodes = 2**K bid sets and information
sets = public nodes x distinct hands), then CFR+ on each for the same wall time (OpenSpiel's
``CFRPlusSolver``, Python, over its tree; ours the compiled kernel), the iterations per second and the
exact exploitability reached (OpenSpiel's ``exploitability.exploitability``; ours the full
best-response walk). The rules differ in one point: OpenSpiel's game always has the rebid of LP-4.6
(our ``rebid=once``), the exact tree here is ``rebid=off`` (the source's rule), so the two numbers are
exploitabilities of two slightly different games, each exact for its own.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from games.liars_poker.cfr.game import SmallGame
from games.liars_poker.cfr.solver import normalise
from games.liars_poker.cfr.train import kernel, measure


def openspiel_side(digits: int, values: int, seconds: float) -> dict[str, Any]:
    import pyspiel
    from open_spiel.python.algorithms import cfr, exploitability
    from open_spiel.python.games import liars_poker  # noqa: F401  (registers python_liars_poker)

    game = pyspiel.load_game("python_liars_poker", {"players": 2, "hand_length": digits, "num_digits": values})
    histories = terminals = 0
    infosets: set[str] = set()
    stack = [game.new_initial_state()]
    t0 = time.perf_counter()
    while stack:
        st = stack.pop()
        histories += 1
        if st.is_terminal():
            terminals += 1
            continue
        if not st.is_chance_node():
            infosets.add(st.information_state_string())
        for a in st.legal_actions():
            stack.append(st.child(a))
    walk = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver = cfr.CFRPlusSolver(game)
    build = time.perf_counter() - t0
    its, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        solver.evaluate_and_update_policy()
        its += 1
    dt = time.perf_counter() - t0
    t1 = time.perf_counter()
    ex = exploitability.exploitability(game, solver.average_policy())
    return {"histories": histories, "terminals": terminals, "infosets": len(infosets),
            "walk_seconds": round(walk, 2), "build_seconds": round(build, 2), "iterations": its,
            "seconds": round(dt, 2), "iterations_per_second": round(its / dt, 2), "exploitability": ex,
            "exploitability_seconds": round(time.perf_counter() - t1, 2)}


def our_side(digits: int, values: int, seconds: float) -> dict[str, Any]:
    g = SmallGame(digits, values)
    k = kernel(g)
    t0 = time.perf_counter()
    step = 1
    while time.perf_counter() - t0 < seconds:
        k.iterate(step)
        step = min(step * 2, 1000)
    dt = time.perf_counter() - t0
    t1 = time.perf_counter()
    m = measure(g, k, normalise(g, k.sums))
    return {"public_nodes": 1 << g.chain, "infosets": (1 << g.chain) * g.H, "iterations": int(k.iterations),
            "seconds": round(dt, 2), "iterations_per_second": round(k.iterations / dt, 2),
            "exploitability": m["exploitability"], "exploitability_seconds": round(time.perf_counter() - t1, 3)}


def openspiel_random(seconds: float) -> float:
    """Random games of OpenSpiel's ``python_liars_poker`` (defaults) per CPU second, chance nodes included."""
    import numpy as np
    import pyspiel
    from open_spiel.python.games import liars_poker  # noqa: F401  (registers python_liars_poker)

    game = pyspiel.load_game("python_liars_poker")
    rng = np.random.default_rng(1)
    games, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                la = st.legal_actions()
                st.apply_action(la[int(rng.integers(len(la)))])
        games += 1
    return games / (time.process_time() - t0)


def pipeline(matches: int, rounds: int, per_match: int, bot: str = "liars-poker/random") -> dict[str, Any]:
    """``rasklad run`` (one worker, CPU) against OpenSpiel's random play (CPU), interleaved; medians."""
    import statistics

    from pipeline_cpu import rasklad_run

    spec = {"kind": "tournament", "game": "liars-poker", "rules": {"preset": "openspiel", "rounds": per_match},
            "players": 2, "bots": [bot, bot], "deals": matches // per_match, "seating": "duplicate", "seed": 5,
            "record": "summary"}
    ours, peer = [], []
    for _ in range(rounds):
        cpu, rows = rasklad_run(spec)
        ours.append(rows / cpu)
        peer.append(openspiel_random(min(cpu, 20.0)))
    a, b = statistics.median(ours), statistics.median(peer)
    return {"bot": bot, "rounds_per_match": per_match, "rounds": matches * 2,
            "rasklad_run_rounds_per_cpu_s": round(a),
            "runs": [round(x) for x in ours], "openspiel_games_per_cpu_s": round(b),
            "peer_runs": [round(x) for x in peer],
            "ratio": round(a / b, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="+", default=["1x2", "1x3", "2x2"], help="LxD: notes of L digits over D")
    ap.add_argument("--seconds", type=float, default=20.0, help="CFR wall time per side")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--pipeline", action="store_true", help="only rasklad run end to end against random play (CPU)")
    ap.add_argument("--matches", type=int, default=200000, help="--pipeline: rounds of a job per rotation")
    ap.add_argument("--rounds", type=int, default=3, help="--pipeline: interleaved runs of each side")
    args = ap.parse_args()
    if args.pipeline:
        print(json.dumps([pipeline(args.matches, args.rounds, k, bot) for bot in ("liars-poker/random",
                                                                                  "liars-poker/truthful")
                          for k in (1, 10)], indent=2))
        return
    rows = []
    for spec in args.games:
        digits, values = (int(x) for x in spec.split("x"))
        rows.append({"digits": digits, "values": values, "openspiel": openspiel_side(digits, values, args.seconds),
                     "rasklad": our_side(digits, values, args.seconds)})
    if args.json:
        print(json.dumps(rows))
        return
    print("| notes | OpenSpiel histories / infosets | ours public nodes / infosets | OpenSpiel CFR+ it/s | ours it/s "
          "| OpenSpiel exploitability | ours exploitability |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        o, s = r["openspiel"], r["rasklad"]
        print(f"| {r['digits']} over {r['values']} | {o['histories']:,} / {o['infosets']:,} | "
              f"{s['public_nodes']:,} / {s['infosets']:,} | {o['iterations_per_second']} | "
              f"{s['iterations_per_second']:,} | {o['exploitability']:.2e} | {s['exploitability']:.2e} |")


if __name__ == "__main__":
    main()
