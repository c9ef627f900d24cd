"""Scaling of ``rasklad run`` with worker processes: 2 workers against 1, wall time (issue 30's target:
2 worker processes >= 1.8x one on an otherwise idle 2-core machine).

Each round runs every case twice, one after the other: ``rasklad run SPEC --workers 1 --new -q`` and the
same with ``--workers 2`` (interleaved, so a burst of load from other processes hits both alike), each
timed by the wall clock of the whole command (imports, planning, every shard, the report). The speedup is
the median over the rounds of wall(1 worker) / wall(2 workers). The machine's load average before and
after is printed: on a 2-core machine anything else running takes a share of the second core, so the
figure means something only near load 0 (say the load with it).

    .venv/bin/python benchmarks/bench_workers.py [--rounds 3] [--scale 1.0] [--case TEXT] [--json out.json]

Cases (duplicate seating, summary rows, ``variance_reduction: none`` where the spec has the field, shards
of a twentieth of the job so both workers stay busy to the end): compiled play-outs (Raspisnoy 4 x random,
Order Poker heuristic + 2 random, blackjack casino 1 x random, dice poker full 1 x random, Quintet random)
and a bot on the readable engine (Quintet equilibrium against greedy). Sizes make one worker take about
20 s of wall time at scale 1 on the 2-core VM (2026-12-07: the shard kernels made the earlier sizes
2-9 s jobs, mostly fixed cost).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RASKLAD = str(Path(sys.executable).with_name("rasklad"))

#: (case, game, rules, bots, units at scale 1)
CASES: list[tuple[str, str, dict[str, Any], list[str], int]] = [
    ("raspisnoy classic, 4 x random", "raspisnoy", {"preset": "classic"}, ["raspisnoy/random"] * 4, 40_000),
    ("order poker, heuristic + 2 random", "order-poker", {}, ["order-poker/heuristic"] + ["order-poker/random"] * 2,
     200_000),
    ("blackjack casino, 1 x random", "blackjack", {"preset": "casino"}, ["blackjack/random"], 6_000_000),
    ("dice poker full, 1 x random", "dice-poker", {"preset": "full"}, ["dice-poker/random"], 2_000_000),
    ("quintet, random vs random", "quintet", {}, ["quintet/random"] * 2, 2_000_000),
    ("quintet, equilibrium vs greedy (readable engine)", "quintet", {}, ["quintet/equilibrium", "quintet/greedy"],
     3_600),
]


def spec(game: str, rules: dict[str, Any], bots: list[str], deals: int) -> dict[str, Any]:
    """The job of one case: duplicate seating, summary rows, 20 shards."""
    from sims.spec import TournamentSpec

    out: dict[str, Any] = {"kind": "tournament", "name": f"bench workers {game}", "game": game, "rules": rules,
                           "players": len(bots), "bots": [{"name": b} for b in bots], "deals": deals,
                           "seating": "duplicate", "seed": 1, "record": "summary",
                           "shard_deals": max(1, deals // 20)}
    if "variance_reduction" in TournamentSpec.model_fields:
        out["variance_reduction"] = "none"
    return out


def wall_of(cmd: list[str]) -> float:
    """Wall seconds of one command run to its end (its failure raises)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-2000:]}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's size (0.05: a smoke run)")
    ap.add_argument("--case", help="only the cases whose name contains this text")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    cases = []
    for i, (name, game, rules, bots, units) in enumerate(CASES):
        if args.case and args.case not in name:
            continue
        path = work / f"case{i}.json"
        path.write_text(json.dumps(spec(game, rules, bots, max(40, int(units * args.scale)))))
        cases.append((name, path))
    walls: dict[str, dict[int, list[float]]] = {name: {1: [], 2: []} for name, _ in cases}
    load0 = os.getloadavg()
    for r in range(args.rounds):
        for name, path in cases:
            for workers in (1, 2):
                argv = [RASKLAD, "run", str(path), "--workers", str(workers), "--new", "-q",
                        "--data", str(work / "data")]
                walls[name][workers].append(wall_of(argv))
        print(f"round {r + 1}: " + ", ".join(f"{w[1][-1] / w[2][-1]:.2f}x" for w in walls.values()), flush=True)
    load1 = os.getloadavg()
    print(f"\nmedians of {args.rounds} rounds, wall time, {os.cpu_count()} cores; load average (1/5/15 min) "
          f"before {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}, after {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}")
    print("| case | 1 worker s | 2 workers s | speedup |")
    print("|---|---:|---:|---:|")
    out: dict[str, Any] = {"load_before": load0, "load_after": load1, "rounds": args.rounds, "cases": {}}
    for name, _ in cases:
        w = walls[name]
        ratios = [a / b for a, b in zip(w[1], w[2], strict=True)]
        print(f"| {name} | {statistics.median(w[1]):.2f} | {statistics.median(w[2]):.2f} | "
              f"{statistics.median(ratios):.2f}x |")
        out["cases"][name] = {"walls_1": w[1], "walls_2": w[2], "speedup": statistics.median(ratios)}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
