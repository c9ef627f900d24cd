"""Casino blackjack through ``rasklad run`` end to end (issue 30, 31), against OpenSpiel ``blackjack`` in the same run.

Each round runs, one after the other (interleaved, so a burst of load from other processes hits every
case alike), each case in its own process measured by that process's CPU time (user + system, from
``wait4``): ``rasklad run SPEC --workers 1 --new -q`` of a casino job (6 decks, BJ-7), and OpenSpiel's
``blackjack`` (C++ through pyspiel, one player, hit/stand, one deck) played by uniformly random chance
outcomes and actions in Python, as ``benchmarks/compare_blackjack.py`` plays it. Figures are the medians
over the rounds, rounds per CPU second of the whole command (fixed cost included: imports, planning, the
report, the Parquet files).

    .venv/bin/pip install open-spiel    # the peer: for this benchmark only
    .venv/bin/python benchmarks/bench_blackjack.py [--rounds 3] [--scale 1.0] [--case TEXT] [--before DIR]
        [--json out.json]

Cases: one player and two players (duplicate seating: two rotations of each deal) of ``blackjack/random``,
each with ``variance_reduction: none`` and the default ``auto`` (the AIVAT correction of every seat,
docs/statistics.md), and one ``dealer-rule`` and one ``basic`` player. ``--before DIR`` (a copy of the
code before a change, its extensions built in place) runs every case with that code too, interleaved
with this checkout's run of the same case. ``--case TEXT`` keeps the cases whose name contains TEXT.

``--kernel`` measures instead, in this process, what the AIVAT correction costs on the compiled path
(issue 31: at most 20% of play time): ``FastPath.play_shard`` over the same deals with and without the
correction, interleaved, CPU time, medians of the rounds (the correction's tables built before timing).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
RASKLAD = str(Path(PY).with_name("rasklad"))

OPENSPIEL = """
import sys
import numpy as np
import pyspiel
game, rng = pyspiel.load_game("blackjack"), np.random.default_rng(1)
for _ in range(int(sys.argv[1])):
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            outcomes = st.chance_outcomes()
            st.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        else:
            legal = st.legal_actions()
            st.apply_action(legal[int(rng.random() * len(legal))])
"""

#: (case, bots, variance_reduction, rounds at scale 1)
CASES: list[tuple[str, list[str], str, int]] = [
    ("1 × random, none", ["blackjack/random"], "none", 2_000_000),
    ("1 × random, auto", ["blackjack/random"], "auto", 2_000_000),
    ("2 × random (2 rotations), none", ["blackjack/random"] * 2, "none", 1_000_000),
    ("2 × random (2 rotations), auto", ["blackjack/random"] * 2, "auto", 1_000_000),
    ("1 × dealer-rule, none", ["blackjack/dealer-rule"], "none", 2_000_000),
    ("1 × dealer-rule, auto", ["blackjack/dealer-rule"], "auto", 2_000_000),
    ("1 × basic, none", ["blackjack/basic"], "none", 100_000),
]


def spec(bots: list[str], variance: str, deals: int) -> dict[str, Any]:
    """The job of one case (casino, 6 decks, summary rows, duplicate seating, shards of 100,000)."""
    return {"kind": "tournament", "name": "bench blackjack", "game": "blackjack",
            "rules": {"preset": "casino", "decks": 6}, "players": len(bots), "bots": [{"name": b} for b in bots],
            "deals": deals, "seating": "duplicate", "seed": 1, "record": "summary",
            "shard_deals": min(deals, 100_000), "variance_reduction": variance}


def cpu_of(cmd: list[str], code: Path | None = None, pycache: Path | None = None) -> float:
    """CPU seconds (user + system) of one child process run to its end (``code`` first on the path and
    its bytecode under ``pycache`` when given)."""
    env = None
    if code is not None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(code), **({"PYTHONPYCACHEPREFIX": str(pycache)} if pycache else {}))
    proc = subprocess.Popen(cmd, cwd=code or ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return usage.ru_utime + usage.ru_stime


KERNEL_TABLES: list[tuple[str, list[str]]] = [
    ("1 × random", ["blackjack/random"]),
    ("basic v random (2 rotations)", ["blackjack/basic", "blackjack/random"]),
    ("basic v dealer-rule (2 rotations)", ["blackjack/basic", "blackjack/dealer-rule"]),
]


def kernel_cost(rounds: int, deals: int) -> None:
    """Rounds/s of ``play_shard`` without and with the correction (6 decks), and the correction's share."""
    import time

    from games.blackjack.fast.playout import FAST, luck_tables
    from games.blackjack.rules import Rules
    from games.core import registry
    from games.core.streams import Streams
    from sims.plan import deal_seed

    rules = Rules(preset="casino", decks=6)
    luck_tables(rules)
    streams = Streams(deal_seed(1))
    print(f"play_shard, casino 6 decks, {deals:,} deals, CPU time, medians of {rounds} (load {os.getloadavg()[0]:.1f})")
    print("| table | deals/s, none | deals/s, auto | correction / play |")
    print("|---|---:|---:|---:|")
    for name, names in KERNEL_TABLES:
        bots = [registry.make(b, {}, "blackjack") for b in names]
        rotations = [[bots[(s + r) % len(bots)] for s in range(len(bots))] for r in range(len(bots))]
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(rounds):
            for luck in (False, True):
                t0 = time.process_time()
                FAST.play_shard(rules, len(bots), range(deals), streams, rotations, luck)
                times[luck].append(time.process_time() - t0)
        plain, adjusted = statistics.median(times[False]), statistics.median(times[True])
        print(f"| {name} | {deals / plain:,.0f} | {deals / adjusted:,.0f} | {(adjusted - plain) / plain:.1%} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's size (0.05: a smoke run)")
    ap.add_argument("--peer-games", type=int, default=100_000)
    ap.add_argument("--json")
    ap.add_argument("--case", help="only the cases whose name contains this text")
    ap.add_argument("--before", type=Path, help="a copy of the code before a change, run interleaved")
    ap.add_argument("--kernel", action="store_true", help="the correction's cost inside play_shard (issue 31)")
    args = ap.parse_args()
    if args.kernel:
        kernel_cost(max(args.rounds, 3), int(400_000 * args.scale))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-bj-"))
    specs = []
    for i, (name, bots, variance, units) in enumerate(CASES):
        if args.case and args.case not in name:
            continue
        n = max(100, int(units * args.scale))
        path = work / f"case{i}.json"
        path.write_text(json.dumps(spec(bots, variance, n)))
        specs.append((name, path, n))
    trees: list[tuple[str, Path | None]] = [("", None)]
    if args.before:
        trees = [(" [before]", args.before.resolve()), (" [after]", None)]
    runs = [(f"{name}{label}", path, n, code) for name, path, n in specs for label, code in trees]
    rates: dict[str, list[float]] = {name: [] for name, *_ in runs}
    peer: list[float] = []
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        peer.append(args.peer_games / cpu_of([PY, "-c", OPENSPIEL, str(args.peer_games)]))
        for name, path, n, code in runs:
            argv = ["run", str(path), "--workers", "1", "--new", "-q", "--data", str(work / "data")]
            cpu = cpu_of([RASKLAD, *argv]) if code is None else \
                cpu_of([PY, "-m", "rasklad", *argv], code, work / f"pyc-{code.name}")
            rates[name].append(n / cpu)
            loads.append(os.getloadavg()[0])
        print(f"round {r + 1}: " + ", ".join(f"{v[-1]:,.0f}" for v in rates.values())
              + f"; openspiel {peer[-1]:,.0f}", flush=True)
    p = statistics.median(peer)
    print(f"\nmedians of {args.rounds} rounds, CPU time, load average {min(loads):.1f}-{max(loads):.1f} on "
          f"{os.cpu_count()} cores; OpenSpiel blackjack random {p:,.0f} games/s")
    print("| case | deals/s | ratio to OpenSpiel |")
    print("|---|---:|---:|")
    out: dict[str, Any] = {"load": [min(loads), max(loads)], "rounds": args.rounds, "openspiel": p, "cases": {}}
    for name, _, n, _ in runs:
        m = statistics.median(rates[name])
        print(f"| {name} | {m:,.0f} | {m / p:.1f}× |")
        out["cases"][name] = {"rate": m, "units": n, "rates": rates[name]}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
