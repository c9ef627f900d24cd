"""``rasklad solve`` reports as it works (issue 34 §3): a solver that declares ``progress``
(``games.core.entry.Solver``) gets a callback; liar's poker's CFR+ reports its iterations and the
exploitability at each checkpoint, which reach stderr while it still trains, not all at the end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from games.core import registry
from games.liars_poker.cfr.train import train

RASKLAD = [sys.executable, "-m", "rasklad"]
ROOT = Path(__file__).resolve().parent.parent


def test_liars_poker_solve_prints_progress_lines_before_its_end() -> None:
    env = {**os.environ, "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    env.pop("FORCE_COLOR", None)
    p = subprocess.Popen([*RASKLAD, "solve", "liars-poker", "--iterations", "8", "--checkpoints", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert p.stderr is not None and p.stdout is not None
    first = p.stderr.readline()
    running_at_first = p.poll() is None
    t_first = time.monotonic()
    rest = p.stderr.read()
    out = p.stdout.read()
    assert p.wait(timeout=300) == 0, rest
    t_end = time.monotonic()
    # The first line came while the solver still trained (the 3-digit game takes seconds an iteration
    # batch), long before the result.
    assert running_at_first and t_end - t_first > 0.5, (first, t_end - t_first)
    lines = [first.strip(), *rest.strip().splitlines()]
    assert all(re.fullmatch(r"\d+/8(, seconds [\d.]+)?(, exploitability [\d.e-]+)?", ln) for ln in lines), lines
    assert any("exploitability" in ln for ln in lines) and lines[-1].startswith("8/8")
    assert "CFR+ 8 iterations" in out  # the result still goes to stdout, the progress to stderr


def test_a_solver_declares_progress_and_is_called_with_it() -> None:
    solver = registry.game("liars-poker").solver
    assert solver is not None and solver.progress
    seen: list[tuple[int, int, dict[str, float]]] = []
    opts = {"players": 2, "digits": 2, "values": 3, "iterations": 40, "checkpoints": 4, "out": ""}
    result = solver.run(opts, lambda done, total, figures: seen.append((done, total, dict(figures))))
    checkpoints = [f for _, _, f in seen if "exploitability" in f]
    assert [p["exploitability"] for p in result["curve"]] == [f["exploitability"] for f in checkpoints]
    assert all(total == 40 for _, total, _ in seen) and seen[-1][0] == 40
    # The same result as a silent solve: reporting iterates the kernel in pieces, which changes nothing.
    quiet, _ = train(2, 3, 40, 4)
    assert [p["exploitability"] for p in quiet["curve"]] == [p["exploitability"] for p in result["curve"]]
