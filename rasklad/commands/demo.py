"""``rasklad demo``: the quick start's main job, embedded (no server).

It runs the example Order Poker tournament (montecarlo, heuristic and two random bots,
duplicate seating) and the exact robot-combination deal-stats job through the same path as
``rasklad run``, prints the leaderboard, the tables and where the reports are, and ends with
one line of evaluator figures. Both jobs land in the data root (``--data``, ``RASKLAD_DATA`` or
``./data``); running the demo again resumes them, so a second run only prints.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from rasklad.commands.run import DataOpt, _bad, print_run_result, run_with_progress

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEMO_SPECS = ("order-poker-tournament.yaml", "robot-combination.yaml")


def demo(
    data: DataOpt = None,
    workers: Annotated[int | None, typer.Option("--workers", "-w", help="worker processes (default: all cores)")]
    = None,
) -> None:
    """The quick-start demo: an Order Poker tournament and a dealing-statistics job, run here."""
    from rasklad.commands.stats import demo_benchmark_line
    from sims.spec import SpecError, load_spec

    n = workers if workers is not None else max(1, min(len(os.sched_getaffinity(0)), 4))
    if n < 1:
        _bad(f"--workers must be >= 1, not {n}")
    for name in DEMO_SPECS:
        path = EXAMPLES / name
        try:
            spec = load_spec(path)
        except (OSError, SpecError) as e:
            _bad(f"{path}: {e}")
        typer.echo(f"\n== {spec.name or name} ({path.relative_to(EXAMPLES.parent)}), {n} worker(s)")
        print_run_result(run_with_progress(spec, str(path), data=data, workers=n), max_rows=12)
    typer.echo("")
    typer.echo(demo_benchmark_line())


def register(app: typer.Typer) -> None:
    """Add ``rasklad demo`` to the CLI."""
    app.command("demo")(demo)
