"""Fixed cost of the command line (issue 30 item 4): ``rasklad games``, ``rasklad bots`` and a one-deal job per game.

Each command runs in its own ``python -m rasklad ...`` process, measured by its CPU time (user + system,
from ``wait4``; a one-deal job has one shard, which ``rasklad run`` plays in its own process with one
worker, so this is the parent process's CPU: no pool is started). Each round runs every command once
per code tree, one after the other (interleaved, so a burst of load from other processes hits every
case alike); figures are medians over the rounds. With ``--before DIR`` (a copy of the code before a
change, put first on ``PYTHONPATH``) both trees are measured in the same run.

Compiled bytecode: the processes write and read their ``.pyc`` files under a temporary
``PYTHONPYCACHEPREFIX`` (one per tree) and a first, unmeasured round warms it, as an installed
package's bytecode is; ``PYTHONDONTWRITEBYTECODE`` is dropped from the environment, so a shell that
sets it does not make every run compile the sources again (that alone costs about 0.2 s).

A one-deal job is a tournament of one unit (a deal; a match where the game's unit is a match) of the
game's random bots, fixed seating (``ONE_DEAL_JOBS``); a case that fails in a tree (a game broken
there) is shown as failed and the others are still measured.

    .venv/bin/python benchmarks/bench_fixed_cost.py [--before /tmp/before] [--rounds 5] [--games quintet ...]

Where the time goes: ``python -X importtime -m rasklad games 2> imports.txt``.
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

ROOT = Path(__file__).resolve().parent.parent

#: One deal (or match, the game's unit) of each game with its random bot, one shard, one worker.
ONE_DEAL_JOBS: dict[str, dict[str, object]] = {
    "blackjack home, 3 × random": {"game": "blackjack", "rules": {"preset": "home"}, "players": 3,
                                   "bots": ["blackjack/random"] * 3},
    "classic poker stud7, 6 × random": {"game": "classic-poker", "rules": {"preset": "stud7"}, "players": 6,
                                        "bots": ["classic-poker/random"] * 6},
    "dice poker simple, 4 × random": {"game": "dice-poker", "rules": {"preset": "simple"}, "players": 4,
                                      "bots": ["dice-poker/random"] * 4},
    "liar's poker classic, 3 × random, one match": {"game": "liars-poker", "rules": {"preset": "classic"},
                                                    "players": 3, "bots": ["liars-poker/random"] * 3},
    "Order Poker, 4 × random": {"game": "order-poker", "players": 4, "bots": ["order-poker/random"] * 4},
    "Preferans sochi, 3 × random, one match": {"game": "preferans", "rules": {"preset": "sochi"}, "players": 3,
                                               "bots": ["preferans/random"] * 3},
    "Quintet, 2 × random": {"game": "quintet", "players": 2, "bots": ["quintet/random"] * 2},
    "Raspisnoy classic, 4 × random, one match": {"game": "raspisnoy", "rules": {"preset": "classic"},
                                                 "players": 4, "bots": ["raspisnoy/random"] * 4},
}


def cpu_of(cmd: list[str], code: Path, pycache: Path) -> float:
    """CPU seconds (user + system) of ``cmd`` run with ``code`` first on the path and its bytecode in ``pycache``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(code), PYTHONPYCACHEPREFIX=str(pycache))
    proc = subprocess.Popen(cmd, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {err}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="a copy of the code before the change (measured alongside)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", nargs="*", help="one-deal jobs of these games only (default: every game)")
    args = ap.parse_args()
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", ROOT)]
    with tempfile.TemporaryDirectory() as tmp:
        cases: dict[str, list[str]] = {"`rasklad games`": ["games"], "`rasklad bots`": ["bots"]}
        for label, job in ONE_DEAL_JOBS.items():
            if args.games and not any(g in label for g in args.games):
                continue
            spec = Path(tmp) / f"{len(cases)}.json"
            spec.write_text(json.dumps({"kind": "tournament", "name": "one deal", "seating": "fixed", "deals": 1,
                                        "seed": 1, **job}))
            cases[f"one-deal job (`rasklad run`, {label})"] = [
                "run", str(spec), "--workers", "1", "--new", "-q", "--data", str(Path(tmp) / "data")]
        runs: dict[tuple[str, str], list[float]] = {}
        failed: dict[tuple[str, str], str] = {}
        for r in range(args.rounds + 1):  # round 0 writes the bytecode and is not counted
            for case, argv in cases.items():
                for label, code in trees:
                    if (case, label) in failed:
                        continue
                    try:
                        cpu = cpu_of([sys.executable, "-m", "rasklad", *argv], code, Path(tmp) / f"pyc-{label}")
                    except RuntimeError as e:  # a game broken in one tree: said in the table, the rest measured
                        failed[(case, label)] = str(e).strip().splitlines()[-1]
                        continue
                    if r:
                        runs.setdefault((case, label), []).append(cpu)
    print(f"medians of {args.rounds} rounds, CPU seconds (user + system), load average at the end "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| command | " + " | ".join(f"{label} (s CPU)" for label, _ in trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for case in cases:
        cells = [f"failed: {failed[(case, label)][:60]}" if (case, label) in failed else
                 f"{statistics.median(runs[(case, label)]):.2f}" for label, _ in trees]
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
