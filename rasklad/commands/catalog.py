"""``rasklad games`` and ``rasklad bots [GAME]``: what is installed, from the games' entries.

Both print a table for people and, with ``--json``, the same objects the API's ``/v1/games`` and
``/v1/bots`` return (``sims.catalog``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]


def _schema_type(p: dict[str, Any]) -> str:
    t = p.get("type", "any")
    return " | ".join(t) if isinstance(t, list) else str(t)


def _allowed(p: dict[str, Any]) -> str:
    if "enum" in p:
        return ", ".join(map(str, p["enum"]))
    alts = p.get("oneOf") or p.get("anyOf")
    if alts:
        return " | ".join(_allowed(a) or _schema_type(a) for a in alts)
    if "const" in p:
        return repr(p["const"])
    lo = p.get("minimum", p.get("exclusiveMinimum"))
    hi = p.get("maximum", p.get("exclusiveMaximum"))
    if lo is not None or hi is not None:
        return f"{'' if lo is None else lo}..{'' if hi is None else hi}"
    return ""


def games_command(as_json: JsonOpt = False) -> None:
    """The installed games: name, title, seats, unit and rule presets."""
    from rich.console import Console
    from rich.table import Table

    from rasklad.catalogcache import games

    items = games()  # sims.catalog.game of every game, kept between runs (rasklad.catalogcache)
    if as_json:
        typer.echo(json.dumps({"games": items}, indent=2, ensure_ascii=False))
        return
    t = Table("game", "title", "seats", "unit", "presets", "rule options", "bots")
    for g in items:
        assert g is not None
        seats = g["players"]
        t.add_row(g["name"], g["title"], str(seats["min"]) if seats["min"] == seats["max"]
                  else f"{seats['min']}-{seats['max']}", g["unit"], ", ".join(g["presets"]),
                  ", ".join(o["name"] for o in g["options"]), str(len(g["bots"])))
    Console().print(t)


def bots_command(
    game: Annotated[str | None, typer.Argument(help="only the bots of this game")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The bots (of one game): parameters with types, defaults, allowed values and descriptions."""
    from rich.console import Console
    from rich.table import Table

    from rasklad.catalogcache import bots, games

    items = bots(game)  # sims.catalog.bots, kept between runs (rasklad.catalogcache)
    if items is None:
        typer.echo(f"error: unknown game {game!r}: known games are {', '.join(g['name'] for g in games())}", err=True)
        raise typer.Exit(code=2)
    if as_json:
        typer.echo(json.dumps({"bots": items}, indent=2, ensure_ascii=False))
        return
    console = Console()
    for b in items:
        own = b["games"] == [b["name"].split("/", 1)[0]]  # else a game-generic bot: say which games it plays
        plays = "" if own else f" (plays {', '.join(b['games']) or 'no game here'})"
        console.print(f"[bold]{b['name']}[/bold]{plays}: {b['description']}")
        props = b["params_schema"].get("properties", {})
        if not props:
            console.print("  (no parameters)")
            continue
        t = Table("parameter", "type", "default", "allowed", "description", box=None, padding=(0, 2))
        for name, p in props.items():
            t.add_row(name, _schema_type(p), json.dumps(p.get("default")) if "default" in p else "",
                      _allowed(p), p.get("description", ""))
        console.print(t)


def register(app: typer.Typer) -> None:
    """Add ``rasklad games`` and ``rasklad bots``."""
    app.command("games")(games_command)
    app.command("bots")(bots_command)
