"""Preferans pimc (issue 30 item 3): CPU time per decision, by kind, before and after, and the same decisions.

Decision points: seeded Sochi pulkas of 3 heuristic bots (pulka m from ``default_rng(m)``, the first
``--deals`` deals); at every decision with a choice, of every seat, ``preferans/pimc`` (8 samples, one bot
per pulka, so its auction cache works as in play) decides from ``default_rng(m * 1000 + step)``; its
choice is recorded and the heuristic's move is played. Kinds: bid (auction), discard, contract
(declare), whist (respond), card (play), other (forced talon tricks of raspasy and the like).

``--before COMMIT`` runs the same points with that commit's code (``git archive`` under /tmp, the
Preferans solver built there from its source) in a child process, then this tree's in another, ``--repeat``
times interleaved, and prints per kind the medians over the runs of the mean CPU ms per decision, their
ratio, and whether both made the same decisions (and estimates). ``--record PATH`` writes the decisions
(with ``--before``: that commit's) as the fixture of tests/games/preferans/test_pf_pimc_same.py.

    .venv/bin/python benchmarks/bench_preferans_pimc.py --pulkas 4 --deals 10 --before COMMIT --repeat 3
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

KINDS = {"auction": "bid", "discard": "discard", "declare": "contract", "respond": "whist", "play": "card"}


def decision_points(pulkas: int, deals: int) -> Iterator[tuple[int, int, Any, Any]]:
    """(pulka, step, view, legal) of every choice in heuristic-played Sochi pulkas (first ``deals`` deals)."""
    from games.core import registry
    from games.preferans.rules import SOCHI
    from games.preferans.state import State

    heur = registry.make("preferans/heuristic", {})
    for m in range(pulkas):
        rng = np.random.default_rng(m)
        st = State.deal(SOCHI, 3, 0, rng)
        step = 0
        while not st.is_over() and st.deal_no < deals:
            s, la = st.to_act(), st.legal_actions()
            v = st.view(s)
            if len(la) > 1:
                yield m, step, v, la
            st.apply(heur.act(v, la, rng))
            step += 1


def decide(pulkas: int, deals: int) -> list[dict[str, Any]]:
    """pimc's action, estimate, kind and CPU seconds at every decision point."""
    from games.preferans.pimc import PimcBot

    out: list[dict[str, Any]] = []
    bot, cur = PimcBot(8), -1
    for m, step, view, la in decision_points(pulkas, deals):
        if m != cur:
            bot, cur = PimcBot(8), m
        t = time.process_time()
        a = bot.act(view, la, np.random.default_rng(m * 1000 + step))
        cpu = time.process_time() - t
        out.append({"pulka": m, "step": step, "kind": KINDS.get(view["deal"]["step"], "other"), "action": a,
                    "estimate": bot.estimate(), "cpu": cpu})
    return out


def _child(root: str, pulkas: int, deals: int) -> list[dict[str, Any]]:
    cmd = [sys.executable, os.path.abspath(__file__), "--json", "--pulkas", str(pulkas), "--deals", str(deals)]
    r = subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.PIPE, text=True,
                       env={**os.environ, "BENCH_PIMC_ROOT": root})
    out: list[dict[str, Any]] = json.loads(r.stdout)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pulkas", type=int, default=4)
    ap.add_argument("--deals", type=int, default=10, help="deals of each pulka")
    ap.add_argument("--before", help="a commit to compare with (its own worktree and build)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs of each side")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's output
    ap.add_argument("--record", help="write the decisions (no times) to this file: the test's fixture")
    a = ap.parse_args()
    if a.json:
        print(json.dumps(decide(a.pulkas, a.deals)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if a.record:
        root = before_tree(a.before, ["preferans/fast/_dd"], "bench_preferans_pimc") if a.before else here
        rows = _child(root, a.pulkas, a.deals)
        with open(a.record, "w") as out:
            json.dump([{k: r[k] for k in ("pulka", "step", "kind", "action", "estimate")} for r in rows], out,
                      indent=0)
        print(f"{len(rows)} decisions written to {a.record}")
        return
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    sides = [("after", here)]
    if a.before:
        sides.insert(0, ("before", before_tree(a.before, ["preferans/fast/_dd"], "bench_preferans_pimc")))
    runs: dict[str, list[list[dict[str, Any]]]] = {name: [] for name, _ in sides}
    for _ in range(a.repeat):
        for name, root in sides:
            runs[name].append(_child(root, a.pulkas, a.deals))
    kinds = sorted({r["kind"] for r in runs["after"][0]})
    per: dict[str, dict[str, tuple[float, float, int]]] = {}
    for name, rs in runs.items():
        per[name] = {}
        for k in [*kinds, "all"]:
            means = [statistics.fmean([r["cpu"] for r in run if k in ("all", r["kind"])]) * 1e3 for run in rs]
            medians = [statistics.median([r["cpu"] for r in run if k in ("all", r["kind"])]) * 1e3 for run in rs]
            per[name][k] = (statistics.median(means), statistics.median(medians),
                            sum(k in ("all", r["kind"]) for r in rs[0]))
    for k in [*kinds, "all"]:
        line = f"{k:9s} {per['after'][k][2]:4d} decisions:"
        for name, _ in sides:
            mean, med, _n = per[name][k]
            line += f"  {name} mean {mean:7.2f} ms, median {med:6.2f} ms;"
        if a.before:
            b, f = per["before"][k], per["after"][k]
            line += f"  {b[0] / f[0]:5.1f}x mean, {b[1] / f[1]:4.1f}x median"
        print(line)
    if a.before:
        pairs = list(zip(runs["before"][0], runs["after"][0], strict=True))
        same = sum(x["action"] == y["action"] for x, y in pairs)
        same_est = sum(x["estimate"] == y["estimate"] for x, y in pairs)
        print(f"same decisions: {same} / {len(pairs)}, same estimates: {same_est} / {len(pairs)} "
              f"(medians of {a.repeat} interleaved runs each, CPU time)")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
