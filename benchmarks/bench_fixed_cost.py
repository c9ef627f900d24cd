"""Fixed cost of the command line (issue 30 item 4): ``rasklad games`` and a one-deal job, before and after.

Each round runs every command once with the code of ``--before DIR`` (first on ``PYTHONPATH``) and once
with this checkout, one after the other, each in its own process measured by its CPU time (user +
system, from ``wait4``). A one-deal job has one shard, which ``rasklad run`` plays in its own process,
so the figure is the parent's CPU. Medians over the rounds.

    .venv/bin/python benchmarks/bench_fixed_cost.py --before /tmp/before [--rounds 5]

Where the time goes: ``python -X importtime -m rasklad games 2> imports.txt``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_views import cpu_of

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "one.json"
        spec.write_text(json.dumps({"kind": "tournament", "name": "one deal", "game": "classic-poker",
                                    "rules": {"preset": "stud7"}, "players": 6, "seating": "fixed",
                                    "bots": ["classic-poker/random"] * 6, "deals": 1, "seed": 1}))
        cases = {"rasklad games": ["games"],
                 "one-deal job (classic poker stud7, 6 x random)": ["run", str(spec), "--workers", "1", "--new",
                                                                    "-q", "--data", str(Path(tmp) / "data")]}
        runs: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for case, argv in cases.items():
                for label, code in (("before", args.before.resolve()), ("after", ROOT)):
                    cpu = cpu_of([sys.executable, "-m", "rasklad", *argv], code)
                    runs.setdefault((case, label), []).append(cpu)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print("| command | before (s CPU) | after (s CPU) |\n|---|---:|---:|")
    for case in cases:
        b, a = statistics.median(runs[(case, "before")]), statistics.median(runs[(case, "after")])
        print(f"| {case} | {b:.2f} | {a:.2f} |")


if __name__ == "__main__":
    main()
