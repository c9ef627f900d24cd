"""``rasklad solve GAME [--preset P] [--option NAME=VALUE ...] [--json]``: a game's exact solution.

Games declare a solver in their entry (``GameEntry.solve(rules, settings) -> JSON object``); this
command builds the rules from the preset and options exactly as a job spec's ``rules`` would, calls it
and prints the result (``--json``: the solver's object as it is). Dice Poker solves the optimal
solitaire strategy of ``full`` and ``mixed`` (its ``expected_score``); a solver keeps what it computes
in its cache directory (``--cache-dir``; ``--no-cache`` solves again without reading or writing it).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer


def _value(text: str) -> Any:
    """An option's value: JSON when it parses (``20``, ``true``, ``"x"``), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def solve_command(
    game: Annotated[str, typer.Argument(help="the game (rasklad games lists them)")],
    preset: Annotated[str | None, typer.Option("--preset", help="a named preset of the game's rules")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="a rules option NAME=VALUE "
                                                                          "(repeatable)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the solver's JSON object")] = False,
    cache_dir: Annotated[str | None, typer.Option("--cache-dir", help="where solutions are cached")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="solve again; neither read nor write the cache")]
    = False,
) -> None:
    """Compute a game's exact solution (e.g. dice poker's optimal solitaire expectation)."""
    from games.core import registry
    from games.core.protocol import RulesError

    try:
        entry = registry.game(game)
    except KeyError as e:
        raise typer.BadParameter(str(e.args[0]), param_hint="GAME") from None
    if entry.solve is None:
        typer.echo(f"error: {game} has no solver", err=True)
        raise typer.Exit(code=2)
    opts: dict[str, Any] = {} if preset is None else {"preset": preset}
    for item in option or []:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"{item!r} is not NAME=VALUE", param_hint="--option")
        opts[name.strip()] = _value(text.strip())
    try:
        rules = entry.rules(opts)
        result = dict(entry.solve(rules, {"cache_dir": cache_dir, "use_cache": not no_cache}))
    except (RulesError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    for key, value in result.items():
        shown = f"{value:.6f}" if isinstance(value, float) else json.dumps(value, ensure_ascii=False)
        typer.echo(f"{key}: {shown}")


def register(app: typer.Typer) -> None:
    """Add ``rasklad solve`` to the command line."""
    app.command("solve")(solve_command)
