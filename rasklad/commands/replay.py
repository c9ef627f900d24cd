"""``rasklad replay FILE|-``: validate and replay a deal record, print its outcome as JSON.

The record's ``game`` picks the engine: ``order-poker`` -> ``games.order_poker.record.replay``,
``quintet`` -> ``games.quintet.record.replay`` (any ``games.<pkg>.record`` with a
``replay(record) -> outcome`` plugs in the same way). An illegal record exits with code 2
and one line naming the action index and the rule it breaks (DESIGN.md, "Deal records").
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer


def _bad(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def game_package(game: str) -> str:
    """The Python package of a record's game name (``order-poker`` -> ``games.order_poker``)."""
    return "games." + game.replace("-", "_")


def replayer(game: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The ``replay`` function of ``game``; ``ValueError`` if no installed game has one."""
    if not isinstance(game, str) or not game.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"the record's 'game' must be a game name, not {game!r}")
    module = game_package(game) + ".record"
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and module.startswith(e.name):
            raise ValueError(f"unknown game {game!r}: no module {module}") from None
        raise
    fn = getattr(mod, "replay", None)
    if not callable(fn):
        raise ValueError(f"game {game!r} has no replay function in {module}")
    return fn  # type: ignore[no-any-return]


def _load(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        _bad(f"cannot read {path}: {e.strerror or e}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        _bad(f"{path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}")


def replay_command(
    file: Annotated[str, typer.Argument(help="a JSON deal record, or - for standard input")],
    indent: Annotated[int | None, typer.Option("--indent", help="indent the JSON output")] = None,
) -> None:
    """Validate and replay a deal record; print the outcome as JSON (exit 2 if it breaks a rule)."""
    record = _load(file)
    if not isinstance(record, dict):
        _bad("a record must be a JSON object")
    try:
        fn = replayer(record.get("game"))
        outcome = fn(record)
    except ValueError as e:  # IllegalAction is a ValueError: "action 7: ... (OP-6.5)"
        where = "record: " if getattr(e, "rule", None) and getattr(e, "index", None) is None else ""
        _bad(where + str(e))
    typer.echo(json.dumps(outcome, indent=indent, ensure_ascii=False))


def register(app: typer.Typer) -> None:
    """Add ``rasklad replay`` to the command line."""
    app.command("replay")(replay_command)
