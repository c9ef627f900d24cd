"""Raspisnoy for ``make bench``: the compiled random play-out against OpenSpiel's ``oh_hell`` (when
installed), the double-dummy solver's median / p99 per full solve, pimc's time per decision, and,
with ``--round-robin``, the issue's round robin (2,000+ matches, hours on 2 cores).

    .venv/bin/python benchmarks/bench_raspisnoy.py                 # about a minute
    .venv/bin/python benchmarks/bench_raspisnoy.py --round-robin   # runs examples/raspisnoy-round-robin-{3,4}.yaml
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_raspisnoy_openspiel import openspiel, ours, ours_compiled, pimc_decision, solve_times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--round-robin", action="store_true")
    args = ap.parse_args()
    a, c, b = ours(args.seconds), ours_compiled(args.seconds), openspiel(args.seconds)
    out = {"engine_deals_per_s": round(a, 1), "compiled_deals_per_s": round(c, 1),
           "openspiel_oh_hell_games_per_s": None if b is None else round(b, 1),
           "ratio_compiled": None if b is None else round(c / b, 2),
           "solves": [solve_times(3, 7, 20), solve_times(4, 6, 20)], "pimc": pimc_decision(1)}
    print(json.dumps(out, indent=2))
    if args.round_robin:
        root = Path(__file__).resolve().parent.parent
        for n in (3, 4):
            spec = root / f"examples/raspisnoy-round-robin-{n}.yaml"
            subprocess.run([sys.executable, "-m", "rasklad", "run", str(spec), "--workers", "2"], check=True)


if __name__ == "__main__":
    main()
