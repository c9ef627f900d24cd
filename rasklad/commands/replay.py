"""``rasklad replay FILE|-``: validate and replay a deal record, print its outcome as JSON.

The record's ``game`` picks the engine through the registry (``games.core.replay``), so every
installed game replays the same way, and records of the older per-game shapes still do. An illegal
record exits with code 2 and one line naming the action index and the rule it breaks (DESIGN.md,
"Deal records"); ``--steps`` prints a readable playthrough instead of the outcome: the deal as dealt,
then each action and what it changed, in the game's words (``GameEntry.playthrough``); ``--seat S``
with it shows only what seat S may know (its view).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer


def _bad(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _load(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        _bad(f"cannot read {path}: {e.strerror or e}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        _bad(f"{path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}")


def error_line(e: ValueError) -> str:
    """One line for a replay error: ``action 7: ... (OP-6.5)``, ``rules.points: ... (Q-1.4)``, ``record: ...``."""
    from games.core.protocol import IllegalAction, RulesError

    if isinstance(e, RulesError):
        return (f"rules.{e.field}: " if e.field else "rules: ") + str(e)
    if isinstance(e, IllegalAction) and e.index is None and e.deal is None:
        return "record: " + str(e)
    return str(e)


def replay_command(
    file: Annotated[str, typer.Argument(help="a JSON deal record, or - for standard input")],
    indent: Annotated[int | None, typer.Option("--indent", help="indent the JSON output")] = None,
    steps: Annotated[bool, typer.Option("--steps", help="print a readable playthrough: who did what, "
                                                        "with the cards, in the rules' words")] = False,
    deal: Annotated[int | None, typer.Option("--deal", metavar="N",
                                             help="replay deal N (from 1) of a match record alone (the match "
                                                  "up to it) and print that deal's outcome entry")] = None,
    seat: Annotated[int | None, typer.Option("--seat", metavar="S",
                                             help="with --steps: show only what seat S may see (its view)")] = None,
) -> None:
    """Validate and replay a deal record; print the outcome as JSON (exit 2 if it breaks a rule).

    A match record replays whole, or one of its deals with ``--deal N``; a single deal of a match
    game written alone, as the rules show one, replays as it is."""
    from games.core import replay

    record = _load(file)
    if not isinstance(record, dict):
        _bad("a record must be a JSON object")
    if deal is not None and steps:
        _bad("--deal and --steps do not go together: --steps prints the whole record")
    if seat is not None and not steps:
        _bad("--seat goes with --steps: it chooses whose view the playthrough shows")
    try:
        if deal is not None:
            typer.echo(json.dumps(replay.replay_deal(record, deal), indent=indent, ensure_ascii=False))
            return
        if steps:
            if replay.is_single_deal(record):
                _bad("--steps prints match and deal records in the envelope; replay a deal written alone "
                     "without it")
            for line in replay.steps(record, seat):
                typer.echo(line)
            return
        outcome = replay.replay(record)
    except ValueError as e:  # IllegalAction and RulesError are ValueErrors with structured fields
        _bad(error_line(e))
    typer.echo(json.dumps(outcome, indent=indent, ensure_ascii=False))


def register(app: typer.Typer) -> None:
    """Add ``rasklad replay`` to the command line."""
    app.command("replay")(replay_command)
