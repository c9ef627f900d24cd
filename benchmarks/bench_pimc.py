"""Raspisnoy full-deal pimc (issue 30 item 3): CPU time per decision and per match, before and after.

Decision points: seeded 4-player classic matches played by heuristic bots; at every decision of seat 0
with a choice (no ``look``), ``raspisnoy/pimc`` with ``dd_cards: 9`` (every decision solved, full
deal) and ``samples: 12`` decides from ``default_rng(seed * 1000 + step)``; its choice is recorded,
the heuristic's move is played (so the points do not depend on the bot under test).
``--before COMMIT`` times the same points with that commit's code (``git archive`` under /tmp, the
Raspisnoy solver built there) in a child process, then the current code in another, and checks that
both make the same decisions. ``--match`` also times one whole match of full-deal
pimc against three heuristics.

    .venv/bin/python benchmarks/bench_pimc.py --matches 2 --limit 200 [--before COMMIT] [--match]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from before_tree import before_tree

# the code under test: this tree, or the one --before made (the child runs this script against it)
sys.path.insert(0, os.environ.get("BENCH_PIMC_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FULL = {"samples": 12, "dd_cards": 9}


def decision_points(matches: int, players: int = 4, max_cards: int = 9) -> Iterator[tuple[int, int, Any, list[str]]]:
    """(match seed, step, view, legal) of seat 0's choices in heuristic-played classic matches."""
    from games.raspisnoy.rules import CLASSIC
    from games.raspisnoy.simple_bots import HeuristicBot
    from games.raspisnoy.state import State

    for m in range(matches):
        rng = np.random.default_rng(m)
        st = State.deal(CLASSIC, players, rng)
        bot = HeuristicBot()
        step = 0
        while not st.is_over():
            la = st.legal_actions()
            s = st.to_act()
            if s == 0 and len(la) > 1 and la[0] != "look" and st.current.k <= max_cards:
                yield m, step, st.view(0), la
            st.apply(bot.act(st.view(s), la, rng))
            step += 1


def decide(points: int, matches: int, params: dict[str, Any], max_cards: int = 9) -> list[tuple[str, float]]:
    """pimc's action and CPU seconds at the first ``points`` decision points."""
    from games.raspisnoy.pimc import PimcBot

    bot = PimcBot(**params)
    out = []
    for i, (m, step, view, la) in enumerate(decision_points(matches, max_cards=max_cards)):
        if i >= points:
            break
        t = time.process_time()
        a = bot.act(view, la, np.random.default_rng(m * 1000 + step))
        out.append((a, time.process_time() - t))
    return out


def record(path: str) -> None:
    """Write the fixture of ``tests/games/raspisnoy/test_rasp_pimc_same.py``: pimc's action and estimate
    at every decision point of deals of at most 5 cards in 2 matches at 3 and at 4 players."""
    from games.raspisnoy.pimc import PimcBot

    out = []
    for players in (3, 4):
        bot = PimcBot(**FULL)
        for m, step, view, la in decision_points(2, players, max_cards=5):
            a = bot.act(view, la, np.random.default_rng(m * 1000 + step))
            out.append({"players": players, "match": m, "step": step, "action": a, "estimate": bot.estimate()})
    with open(path, "w") as f:
        json.dump(out, f, indent=0)


def match_time(seed: int, params: dict[str, Any]) -> float:
    """CPU seconds of one 4-player classic match: full-deal pimc in seat 0, heuristics elsewhere."""
    from games.raspisnoy.pimc import PimcBot
    from games.raspisnoy.rules import CLASSIC
    from games.raspisnoy.simple_bots import HeuristicBot
    from games.raspisnoy.state import State

    rng = np.random.default_rng(seed)
    st = State.deal(CLASSIC, 4, rng)
    bots = [PimcBot(**params)] + [HeuristicBot() for _ in range(3)]
    t = time.process_time()
    while not st.is_over():
        s = st.to_act()
        st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=2)
    ap.add_argument("--limit", type=int, default=200, help="decision points")
    ap.add_argument("--before", help="a commit to compare with (its own worktree and build)")
    ap.add_argument("--match", action="store_true", help="also time one whole full-deal match")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's output
    ap.add_argument("--record", help="write the test fixture of recorded decisions to this file (see record())")
    a = ap.parse_args()
    if a.record:
        record(a.record)
        return
    if a.json:
        out: dict[str, Any] = {"decisions": decide(a.limit, a.matches, FULL)}
        if a.match:
            out["match_s"] = match_time(0, FULL)
        print(json.dumps(out))
        return
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    runs = {}
    sides = [("after", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    if a.before:
        sides.insert(0, ("before", before_tree(a.before, ["raspisnoy/fast/_dd"], "bench_pimc")))
    for name, root in sides:
        cmd = [sys.executable, os.path.abspath(__file__), "--json",
               "--matches", str(a.matches), "--limit", str(a.limit)] + (["--match"] if a.match else [])
        r = subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "BENCH_PIMC_ROOT": root})
        runs[name] = json.loads(r.stdout)
        ts = [t for _, t in runs[name]["decisions"]]
        print(f"{name}: {len(ts)} decisions, CPU total {sum(ts):.2f} s, mean {1e3 * statistics.fmean(ts):.1f} ms, "
              f"median {1e3 * statistics.median(ts):.1f} ms, max {1e3 * max(ts):.0f} ms"
              + (f"; one full-deal match {runs[name]['match_s']:.1f} s CPU" if a.match else ""))
    if a.before:
        same = sum(x[0] == y[0] for x, y in zip(runs["before"]["decisions"], runs["after"]["decisions"], strict=True))
        b = sum(t for _, t in runs["before"]["decisions"])
        f = sum(t for _, t in runs["after"]["decisions"])
        print(f"same decisions: {same} / {len(runs['after']['decisions'])}; speed-up {b / f:.1f}x per decision"
              + (f", {runs['before']['match_s'] / runs['after']['match_s']:.1f}x per match" if a.match else ""))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
