"""Views and copies that cost what changed (issue 30 item 2): ``rasklad run`` before and after, interleaved.

Each round runs every case once with the code of ``--before DIR`` (a checkout of the code before the
change, put first on ``PYTHONPATH``) and once with this checkout, one after the other, each as its own
``python -m rasklad run SPEC --workers 1 --new -q`` process measured by its CPU time (user + system of
the process and its children, from ``wait4``). Figures are medians over the rounds, in units per CPU
second of the whole command (imports, planning, Parquet and the report included).

    .venv/bin/python benchmarks/bench_views.py --before /tmp/before [--rounds 3]

Cases: classic poker seven-card stud, 6 x random (the issue's profile), and Preferans (sochi) with
3 x random, both on the readable engine (no fast path declared for them).
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

#: (case, game, rules, bots, units)
CASES: list[tuple[str, str, dict[str, Any], list[str], int]] = [
    ("classic poker stud7, 6 x random (6 rotations)", "classic-poker", {"preset": "stud7"},
     ["classic-poker/random"] * 6, 400),
    ("preferans sochi, 3 x random (3 rotations)", "preferans", {"preset": "sochi"}, ["preferans/random"] * 3, 4),
]


def spec(game: str, rules: dict[str, Any], bots: list[str], units: int) -> dict[str, Any]:
    return {"kind": "tournament", "name": f"bench views {game}", "game": game, "rules": rules,
            "players": len(bots), "bots": [{"name": b} for b in bots], "deals": units,
            "seating": "duplicate", "seed": 1, "record": "summary"}


def cpu_of(cmd: list[str], code: Path) -> float:
    """CPU seconds (user + system, children included) of ``cmd`` run with ``code`` first on the path."""
    env = dict(os.environ, PYTHONPATH=str(code))
    proc = subprocess.Popen(cmd, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {err}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    runs: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for case, game, rules, bots, units in CASES:
                path = Path(tmp) / f"{game}.json"
                path.write_text(json.dumps(spec(game, rules, bots, units)))
                for label, code in (("before", args.before.resolve()), ("after", ROOT)):
                    cmd = [sys.executable, "-m", "rasklad", "run", str(path), "--workers", "1", "--new", "-q",
                           "--data", str(Path(tmp) / f"data-{label}")]
                    cpu = cpu_of(cmd, code)
                    runs.setdefault((case, label), []).append(units / cpu)
                    print(f"round {r + 1} {label:6} {case}: {units / cpu:,.2f} units/s ({cpu:.2f} s CPU)",
                          file=sys.stderr)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print("| case | before (units/s, CPU) | after | ratio |\n|---|---:|---:|---:|")
    for case, *_ in CASES:
        b, a = statistics.median(runs[(case, "before")]), statistics.median(runs[(case, "after")])
        print(f"| {case} | {b:,.2f} | {a:,.2f} | {a / b:.2f}x |")


if __name__ == "__main__":
    main()
