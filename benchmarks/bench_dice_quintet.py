"""Dice Poker and Quintet through ``rasklad run`` end to end (issue 30), against pyhtzee in the same run.

Each round runs, one after the other (interleaved, so a burst of load from other processes hits every
case alike), each case in its own process and measured by that process's CPU time (user + system, from
``wait4``): ``rasklad run SPEC --workers 1 --new -q`` of a job large enough that its fixed cost (imports,
planning, report; about 2 s of CPU) is under 10% of it, and pyhtzee 1.2's solitaire Yahtzee played by
its own random policy (``random.choice(get_possible_actions())`` until ``is_finished()``, pyhtzee's
Python API). Figures are the medians over the rounds; units per CPU second of the whole command.

    .venv/bin/pip install pyhtzee     # the peer: for this benchmark only
    .venv/bin/python benchmarks/bench_dice_quintet.py [--rounds 3] [--scale 1.0] [--json out.json]
        [--case quintet] [--before /tmp/before]

``--case TEXT`` keeps the cases whose name contains TEXT; ``--before DIR`` (a copy of the code before a
change) runs every case with that code too (``python -m rasklad`` with DIR first on ``PYTHONPATH``),
interleaved with this checkout's run of the same case. Bytecode is written under a temporary
``PYTHONPYCACHEPREFIX`` per tree (``PYTHONDONTWRITEBYTECODE`` dropped), as an installed package's is.

Cases: dice poker ``mixed`` and ``full`` with one random player (pyhtzee's solitaire game is the peer),
``full`` with two greedy players, ``simple`` with four random players, ``full`` optimal against greedy (the
solved strategy cached beforehand: ``rasklad solve dice-poker``); Quintet random against random
(target: 20,000 deals/s; no peer), greedy against blotto and equilibrium (k = 200) against greedy (issue 30
item 3: target 60 deals/s); Order Poker's ``montecarlo`` against
``heuristic`` and two ``random`` (issue 30 item 3: strong bots; ``--scale 0.5`` keeps the old code's run near
a minute of CPU); Order Poker's ``heuristic`` and two ``random`` (the compiled play-out's heuristic seats;
``--scale 0.08`` for the readable engine's run with ``--before``). Seating is duplicate (one rotation per
seat); ``variance_reduction: none`` where the spec knows the field, or ``--variance auto`` (the jobs'
default: the luck-adjusted score, its correction's cost included).
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

PYHTZEE = """
import random, sys, time
from pyhtzee import Pyhtzee
n = int(sys.argv[1])
rnd = random.Random(1)
for i in range(n):
    p = Pyhtzee(seed=i)
    while not p.is_finished():
        p.take_action(rnd.choice(p.get_possible_actions()))
"""

#: (case, game, rules, bots, units at scale 1, the unit)
CASES: list[tuple[str, str, dict[str, Any], list[str], int, str]] = [
    ("dice poker mixed, 1 × random", "dice-poker", {"preset": "mixed"}, ["dice-poker/random"], 200_000, "games"),
    ("dice poker full, 1 × random", "dice-poker", {"preset": "full"}, ["dice-poker/random"], 200_000, "games"),
    ("dice poker full, greedy vs random (2 rotations)", "dice-poker", {"preset": "full"},
     ["dice-poker/greedy", "dice-poker/random"], 60_000, "games"),
    ("dice poker simple, 4 × random (4 rotations)", "dice-poker", {"preset": "simple"}, ["dice-poker/random"] * 4,
     40_000, "games"),
    # The optimal bot's seats in the compiled play-out (issue 30 item 1: a look-up in the solved strategy);
    # ``--scale 0.04`` for the readable engine's run with ``--before``.
    ("dice poker full, optimal vs greedy (2 rotations)", "dice-poker", {"preset": "full"},
     ["dice-poker/optimal", "dice-poker/greedy"], 60_000, "games"),
    ("quintet, random vs random (2 rotations)", "quintet", {}, ["quintet/random"] * 2, 300_000, "deals"),
    ("quintet, greedy vs blotto (2 rotations)", "quintet", {}, ["quintet/greedy", "quintet/blotto"], 6_000, "deals"),
    # issue 30 item 3: the equilibrium bot (k = 200) decides once per rotation; ``--scale 0.15`` keeps the
    # code before its compiled candidates (about 5 deals/s) near a minute of CPU per run.
    ("quintet, equilibrium vs greedy (2 rotations)", "quintet", {}, ["quintet/equilibrium", "quintet/greedy"],
     2_000, "deals"),
    # Strong bots (issue 30 item 3) against rule-based ones; every rotation seats the strong bot once.
    ("order poker, montecarlo vs heuristic + 2 random (4 rotations)", "order-poker", {},
     ["order-poker/montecarlo", "order-poker/heuristic", "order-poker/random", "order-poker/random"], 600, "deals"),
    # Rule-based bots in the compiled play-out (issue 30 item 1): capital O, so --case "order poker" (the
    # montecarlo case) does not select it.
    ("Order Poker, heuristic + 2 random (3 rotations)", "order-poker", {},
     ["order-poker/heuristic", "order-poker/random", "order-poker/random"], 150_000, "deals"),
]


def _has_variance_field() -> bool:
    from sims.spec import TournamentSpec

    return "variance_reduction" in TournamentSpec.model_fields


def spec(game: str, rules: dict[str, Any], bots: list[str], deals: int, variance: str = "none") -> dict[str, Any]:
    """The job of one case (summary rows, duplicate seating, shards of 10,000, ``variance_reduction``)."""
    out: dict[str, Any] = {"kind": "tournament", "name": f"bench {game}", "game": game, "rules": rules,
                           "players": len(bots), "bots": [{"name": b} for b in bots], "deals": deals,
                           "seating": "duplicate", "seed": 1, "record": "summary",
                           "shard_deals": min(deals, 10_000)}
    if _has_variance_field():
        out["variance_reduction"] = variance
    return out


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's size (0.05: a smoke run)")
    ap.add_argument("--peer-games", type=int, default=4_000)
    ap.add_argument("--json")
    ap.add_argument("--case", help="only the cases whose name contains this text")
    ap.add_argument("--before", type=Path, help="a copy of the code before a change, run interleaved")
    ap.add_argument("--variance", default="none", choices=("none", "auto"),
                    help="the jobs' variance_reduction (auto: the luck-adjusted score's cost included)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-dq-"))
    specs = []
    for i, (name, game, rules, bots, units, unit) in enumerate(CASES):
        if args.case and args.case not in name:
            continue
        n = max(100, int(units * args.scale))
        path = work / f"case{i}.json"
        path.write_text(json.dumps(spec(game, rules, bots, n, args.variance)))
        specs.append((name, path, n, unit))
    try:
        import pyhtzee  # noqa: F401
        peer = True
    except ImportError:
        print("pyhtzee is not installed (pip install pyhtzee): no peer figures")
        peer = False
    if args.before:  # each case before and after, the same spec, one after the other
        trees = [("before", args.before.resolve()), ("after", ROOT)]
        specs = [(f"{name} [{label}]", path, n, unit, code) for name, path, n, unit in specs for label, code in trees]
    else:
        specs = [(name, path, n, unit, None) for name, path, n, unit in specs]
    rates: dict[str, list[float]] = {name: [] for name, *_ in specs}
    peer_rates: list[float] = []
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        if peer:
            peer_rates.append(args.peer_games / cpu_of([PY, "-c", PYHTZEE, str(args.peer_games)]))
        for name, path, n, _, code in specs:
            argv = ["run", str(path), "--workers", "1", "--new", "-q", "--data", str(work / "data")]
            if code is None:
                cpu = cpu_of([RASKLAD, *argv])
            else:
                cpu = cpu_of([PY, "-m", "rasklad", *argv], code, work / f"pyc-{code.name}")
            rates[name].append(n / cpu)
        print(f"round {r + 1}: " + ", ".join(f"{v[-1]:,.0f}" for v in rates.values())
              + (f"; pyhtzee {peer_rates[-1]:,.0f}" if peer else ""), flush=True)
    load = max(load, os.getloadavg()[0])
    p = statistics.median(peer_rates) if peer_rates else None
    print(f"\nmedians of {args.rounds} rounds, CPU time, load average up to {load:.1f} on {os.cpu_count()} cores")
    print("| case | units/s | pyhtzee games/s | ratio |")
    print("|---|---:|---:|---:|")
    out: dict[str, Any] = {"load": load, "rounds": args.rounds, "pyhtzee": p, "cases": {}}
    for name, _, n, unit, _ in specs:
        m = statistics.median(rates[name])
        ratio = f"{m / p:.1f}×" if p and name.startswith("dice poker") else ""
        print(f"| {name} | {m:,.{1 if m < 100 else 0}f} {unit}/s | {f'{p:,.0f}' if p and ratio else ''} | {ratio} |")
        out["cases"][name] = {"rate": m, "unit": unit, "units": n, "rates": rates[name]}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
