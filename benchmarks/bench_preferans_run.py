"""Preferans pulkas through ``rasklad run`` end to end (issue 30: target 20,000 random deals/s).

Each case runs ``rasklad run SPEC --workers 1 --new -q`` in its own process, measured by that process's
CPU time (user + system of it and the worker it waits for, from ``wait4``); the figure is the deals
(rows of the job's ``deals`` table: every deal of every pulka and rotation) per CPU second of the whole
command, fixed cost included (imports, planning, report: about 2 s of CPU, under 10% of a job at the
default scale). Rounds run the cases one after the other (interleaved, so a burst of load from other
processes hits every case alike); figures are the medians over the rounds, with the load average seen.

    .venv/bin/python benchmarks/bench_preferans_run.py [--rounds 3] [--scale 1.0] [--before DIR]
        [--before-pulkas 20] [--case 4p] [--json out.json]

``--before DIR`` (a copy of the code before a change, its extensions built) runs every case with that
code too (``python -m rasklad`` with DIR first on ``PYTHONPATH``) on ``--before-pulkas`` pulkas (the
readable engine plays a few hundred deals a second: a job of the same size would take an hour).
Bytecode is written under a temporary ``PYTHONPYCACHEPREFIX`` per tree, as an installed package's is.

Cases: Sochi (PF-16), 3 and 4 players, ``preferans/random`` at every seat, and 3 players of
``preferans/heuristic`` against two random bots; duplicate seating (one rotation per seat),
``variance_reduction: none`` (summary rows by ``FastPath.play_rows``). A pulka of three random bots is
about 240 deals, one of the heuristic against two random bots about 430 (three heuristic bots make their
contracts and close a pulka in about 45).
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

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
RASKLAD = str(Path(PY).with_name("rasklad"))

#: (case, rules, players, pulkas at scale 1)
CASES: list[tuple[str, dict[str, Any], list[str], int]] = [
    ("preferans sochi 3p, 3 × random (3 rotations)", {}, ["preferans/random"] * 3, 4000),
    ("preferans sochi 4p, 4 × random (4 rotations)", {}, ["preferans/random"] * 4, 3000),
    ("preferans sochi 3p, heuristic vs 2 × random (3 rotations)", {},
     ["preferans/heuristic", "preferans/random", "preferans/random"], 2000),
]


def spec(rules: dict[str, Any], bots: list[str], pulkas: int) -> dict[str, Any]:
    """The job of one case (summary rows, duplicate seating, one shard per 100 pulkas)."""
    return {"kind": "tournament", "name": "bench preferans", "game": "preferans", "rules": rules,
            "players": len(bots), "bots": [{"name": b} for b in bots], "deals": pulkas,
            "seating": "duplicate", "seed": 1, "record": "summary", "shard_deals": min(pulkas, 100),
            "variance_reduction": "none"}


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


def deals_in(data: Path) -> int:
    """Rows of the ``deals`` table of the one job under the data root ``data``."""
    return sum(pq.ParquetFile(p).metadata.num_rows for p in data.glob("jobs/*/deals/*.parquet"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's size (0.05: a smoke run)")
    ap.add_argument("--before", type=Path, help="a copy of the code before a change, run interleaved")
    ap.add_argument("--before-pulkas", type=int, default=20)
    ap.add_argument("--case", help="only the cases whose name contains this text")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-pref-"))
    runs = []  # (name, spec path, code tree)
    for i, (name, rules, bots, pulkas) in enumerate(CASES):
        if args.case and args.case not in name:
            continue
        trees: list[tuple[str, Path | None, int]] = [("", None, max(1, int(pulkas * args.scale)))]
        if args.before:
            trees = [(" [before]", args.before.resolve(), args.before_pulkas), (" [after]", None, trees[0][2])]
        for label, code, n in trees:
            path = work / f"case{i}{label.strip(' []')}.json"
            path.write_text(json.dumps(spec(rules, bots, n)))
            runs.append((name + label, path, code))
    rates: dict[str, list[float]] = {name: [] for name, *_ in runs}
    cpus: dict[str, list[float]] = {name: [] for name, *_ in runs}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for k, (name, path, code) in enumerate(runs):
            data = work / f"data-{r}-{k}"
            argv = ["run", str(path), "--workers", "1", "--new", "-q", "--data", str(data)]
            if code is None:
                cpu = cpu_of([RASKLAD, *argv])
            else:
                cpu = cpu_of([PY, "-m", "rasklad", *argv], code, work / f"pyc-{code.name}")
            rates[name].append(deals_in(data) / cpu)
            cpus[name].append(cpu)
        load = max(load, os.getloadavg()[0])
        print(f"round {r + 1}: " + ", ".join(f"{v[-1]:,.0f}" for v in rates.values()), flush=True)
    print(f"\nmedians of {args.rounds} rounds, CPU time, load average up to {load:.1f} on {os.cpu_count()} cores")
    print("| case | deals/s CPU | CPU s of the job |")
    print("|---|---:|---:|")
    out: dict[str, Any] = {"load": load, "rounds": args.rounds, "cases": {}}
    for name, *_ in runs:
        m = statistics.median(rates[name])
        print(f"| {name} | {m:,.0f} | {statistics.median(cpus[name]):.1f} |")
        out["cases"][name] = {"rate": m, "rates": rates[name], "cpu": cpus[name]}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
