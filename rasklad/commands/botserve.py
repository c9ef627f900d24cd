"""``rasklad bot-serve GAME/NAME [--params JSON] --port P``: a registered bot as a remote bot (a bot of
several games, ``openspiel/ismcts``, with ``--game``).

The bot answers the ``rasklad-act/1`` protocol over HTTP (``sims.botserve``; docs/remote-bots.md), so a
spec's ``{"remote": "http://HOST:P/", "label": ...}`` plays it from any worker.
"""

from __future__ import annotations

import contextlib
import json
from typing import Annotated, Any

import typer


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def bot_serve(
    bot: Annotated[str, typer.Argument(metavar="GAME/NAME", help="a registered bot, e.g. order-poker/heuristic")],
    port: Annotated[int, typer.Option("--port", help="TCP port to listen on (0: any free port, printed)")],
    params: Annotated[str | None, typer.Option("--params", metavar="JSON", help="the bot's parameters")] = None,
    host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
    game: Annotated[str | None, typer.Option("--game", help="the game a game-generic bot (openspiel/ismcts) "
                                                            "plays")] = None,
) -> None:
    """Serve a registered bot over the rasklad-act/1 protocol (a remote bot's endpoint)."""
    from games.core import registry
    from sims.botserve import BotHandler, serve
    from sims.spec import check_schema

    values: dict[str, Any] = {}
    if params is not None:
        try:
            parsed = json.loads(params)
        except json.JSONDecodeError as e:
            _fail(f"--params is not JSON: {e}")
        if not isinstance(parsed, dict):
            _fail(f"--params must be a JSON object, not {params}")
        values = dict(parsed)
    try:
        info = registry.get(bot, game)
    except KeyError as e:
        _fail(str(e.args[0]))
    errors = check_schema(values, info.schema, "params")
    if errors:
        _fail("; ".join(f"{p}: {m}" for p, m in errors))
    try:
        handler = BotHandler(bot, values, info.game)
    except (TypeError, ValueError) as e:
        _fail(str(e))

    def ready(p: int) -> None:
        typer.echo(f"serving {bot} on http://{host}:{p}/ (rasklad-act/1)", err=True)

    with contextlib.suppress(KeyboardInterrupt):
        serve(handler, host, port, ready)


def register(app: typer.Typer) -> None:
    """Add ``bot-serve``."""
    app.command("bot-serve")(bot_serve)
