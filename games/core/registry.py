"""The bot registry: bots are found by name (``order-poker/heuristic``).

Game packages register their bots on import; operators add their own through the
``rasklad.bots`` entry-point group (each entry point is a callable that registers bots),
or by naming installed modules in ``RASKLAD_BOT_MODULES`` (comma-separated; each module
registers its bots on import). Uploaded code is never executed: only installed bots exist.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from games.core.protocol import Bot


@dataclass(frozen=True)
class BotInfo:
    """A registered bot: its factory and the JSON schema of its parameters."""

    name: str
    factory: Callable[..., Bot]
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    description: str = ""


_BOTS: dict[str, BotInfo] = {}
#: Game packages whose import registers their bots (name prefix -> module).
GAME_MODULES: dict[str, str] = {
    "order-poker": "games.order_poker.bots",
    "quintet": "games.quintet.bots",
}
_loaded_plugins = False


def register(name: str, factory: Callable[..., Bot], schema: Mapping[str, Any] | None = None,
             description: str = "") -> None:
    """Register ``factory(**params) -> Bot`` under ``name`` (``"<game>/<bot>"``)."""
    _BOTS[name] = BotInfo(name, factory, schema or {"type": "object", "properties": {}}, description)


def _load(game: str | None = None) -> None:
    global _loaded_plugins
    for prefix, module in GAME_MODULES.items():
        if game is None or game == prefix:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as e:
                if e.name is None or not module.startswith(e.name):
                    raise
    if not _loaded_plugins:
        _loaded_plugins = True
        for ep in entry_points(group="rasklad.bots"):
            ep.load()()
        for module in filter(None, (m.strip() for m in os.environ.get("RASKLAD_BOT_MODULES", "").split(","))):
            importlib.import_module(module)


def bots(game: str | None = None) -> dict[str, BotInfo]:
    """Every registered bot (of one game, when given)."""
    _load(game)
    return {n: b for n, b in sorted(_BOTS.items()) if game is None or n.startswith(game + "/")}


def get(name: str) -> BotInfo:
    """The bot registered as ``name``; ``KeyError`` with the known names otherwise."""
    _load(name.split("/", 1)[0] if "/" in name else None)
    try:
        return _BOTS[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r}: known bots are {', '.join(sorted(_BOTS)) or 'none'}") from None


def make(name: str, params: Mapping[str, Any] | None = None) -> Bot:
    """Create the bot ``name`` with ``params`` (validated by the bot's factory)."""
    return get(name).factory(**dict(params or {}))
