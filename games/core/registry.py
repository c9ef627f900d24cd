"""The registry: games by name (``order-poker``) and bots by name (``order-poker/heuristic``).

Games are found through the ``rasklad.games`` entry-point group: each entry point loads a
``GameEntry`` (the built-in games are declared in ``pyproject.toml``). Operators add games without
installing a distribution by naming modules in ``RASKLAD_GAME_MODULES`` (comma-separated; each
module exposes ``ENTRY``, a ``GameEntry``). A game's bots come from its entry (``entry.bots()``);
extra bots register through the ``rasklad.bots`` entry-point group (each entry point is a callable
that calls :func:`register`) or modules named in ``RASKLAD_BOT_MODULES``. Uploaded code is never
executed: only installed games and bots exist.

The two module lists are settings (``sims.settings``); the service layers pass them down with
:func:`configure`. A process that was not configured (a worker of a process pool, a script) reads
the same two environment variables, so every process of one run sees the same games.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from games.core.entry import GameEntry
from games.core.protocol import Bot

__all__ = ["BotInfo", "bot_factory", "bots", "configure", "game", "games", "get", "make", "register", "reset"]


@dataclass(frozen=True)
class BotInfo:
    """A bot: its factory, the JSON schema of its parameters and its declared cost.

    ``cost(params, rules, players)`` is the bot's rough speed in units per second of one process (plays
    of one unit -- a deal, or a whole match for a match-unit game -- by a table of such bots under
    ``rules`` with ``players`` seats), used only to size shards so one takes a few seconds. It sees
    the rules because a match's length does (Raspisnoy's schedule, a Preferans pulka's points, the
    rounds of a liar's poker match); ``speed`` calls it with a game's default rules.
    """

    name: str
    factory: Callable[..., Bot]
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    description: str = ""
    cost: Callable[[Mapping[str, Any], Any, int], float] = field(default=lambda params, rules, players: 2_000.0)

    def speed(self, params: Mapping[str, Any], rules: Any = None, players: int | None = None) -> float:
        """``cost`` under ``rules`` and ``players`` (None: the game's default rules, its fewest seats)."""
        if rules is None or players is None:
            entry = game(self.game)
            rules = entry.rules_class() if rules is None else rules
            players = entry.seats(rules)[0] if players is None else players
        return float(self.cost(params, rules, players))

    @property
    def game(self) -> str:
        """The game part of the name (``order-poker/random`` -> ``order-poker``)."""
        return self.name.split("/", 1)[0]


def bot_factory(name: str, cls: Callable[..., Bot], schema: Mapping[str, Any]) -> Callable[..., Bot]:
    """A factory for ``BotInfo``: ``cls(**params)``, refusing parameters the schema does not name
    (a ``ValueError`` naming them and the bot, which the spec layer reports at ``bots[i].params``)."""
    def make(**params: Any) -> Bot:
        unknown = set(params) - set(schema.get("properties", {}))
        if unknown:
            raise ValueError(f"unknown parameter(s) of {name}: {', '.join(sorted(unknown))}")
        return cls(**params)
    return make


_lock = threading.Lock()
_GAMES: dict[str, GameEntry] | None = None
_EXTRA_BOTS: dict[str, BotInfo] = {}
_BOTS: dict[str, BotInfo] | None = None
_config: dict[str, tuple[str, ...]] = {}


def _split(text: str | Sequence[str] | None) -> tuple[str, ...]:
    if text is None:
        return ()
    parts = text.split(",") if isinstance(text, str) else list(text)
    return tuple(p.strip() for p in parts if p and p.strip())


def configure(game_modules: str | Sequence[str] | None = None,
              bot_modules: str | Sequence[str] | None = None) -> None:
    """Set the extra game and bot modules (the settings' ``game_modules``/``bot_modules``); reloads."""
    global _GAMES, _BOTS
    with _lock:
        _config["game_modules"] = _split(game_modules)
        _config["bot_modules"] = _split(bot_modules)
        _GAMES = None
        _BOTS = None


def reset() -> None:
    """Forget what :func:`configure` set and every loaded game and bot: the environment decides again."""
    global _GAMES, _BOTS
    with _lock:
        _config.clear()
        _GAMES = None
        _BOTS = None


def _modules(key: str, env: str) -> tuple[str, ...]:
    if key in _config:
        return _config[key]
    return _split(os.environ.get(env))


def _check_entry(obj: Any, where: str) -> GameEntry:
    if not isinstance(obj, GameEntry):
        raise TypeError(f"{where} is not a GameEntry (it is {type(obj).__name__})")
    return obj


def _load_games() -> dict[str, GameEntry]:
    found: dict[str, GameEntry] = {}
    for ep in entry_points(group="rasklad.games"):
        entry = _check_entry(ep.load(), f"entry point {ep.name} ({ep.value})")
        found[entry.name] = entry
    for module in _modules("game_modules", "RASKLAD_GAME_MODULES"):
        mod = importlib.import_module(module)
        entry = _check_entry(getattr(mod, "ENTRY", None), f"{module}.ENTRY")
        found[entry.name] = entry
    return dict(sorted(found.items()))


def games() -> dict[str, GameEntry]:
    """Every installed game by name, sorted."""
    global _GAMES
    if _GAMES is None:
        with _lock:
            if _GAMES is None:
                _GAMES = _load_games()
    return _GAMES


def game(name: str) -> GameEntry:
    """The game ``name``; ``KeyError`` naming the known games otherwise."""
    try:
        return games()[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}: known games are {', '.join(games()) or 'none'}") from None


def register(name: str, factory: Callable[..., Bot], schema: Mapping[str, Any] | None = None,
             description: str = "", cost: Callable[[Mapping[str, Any], Any, int], float] | None = None) -> None:
    """Register an extra bot ``factory(**params) -> Bot`` under ``name`` (``"<game>/<bot>"``)."""
    global _BOTS
    info = BotInfo(name, factory, schema or {"type": "object", "properties": {}}, description,
                   cost or (lambda params, rules, players: 2_000.0))
    _EXTRA_BOTS[name] = info
    _BOTS = None


def _load_bots() -> dict[str, BotInfo]:
    for ep in entry_points(group="rasklad.bots"):
        ep.load()()
    for module in _modules("bot_modules", "RASKLAD_BOT_MODULES"):
        importlib.import_module(module)
    out: dict[str, BotInfo] = {}
    for entry in games().values():
        for b in entry.bots():
            out[b.name] = b
    out.update(_EXTRA_BOTS)
    return out


def _all_bots() -> dict[str, BotInfo]:
    global _BOTS
    if _BOTS is None:
        loaded = _load_bots()
        loaded.update(_EXTRA_BOTS)  # bots registered while loading
        _BOTS = dict(sorted(loaded.items()))
    return _BOTS


def bots(game: str | None = None) -> dict[str, BotInfo]:
    """Every bot (of one game, when given), sorted by name."""
    return {n: b for n, b in _all_bots().items() if game is None or b.game == game}


def get(name: str) -> BotInfo:
    """The bot ``name``; ``KeyError`` naming the known bots otherwise."""
    all_bots = _all_bots()
    try:
        return all_bots[name]
    except KeyError:
        game_name = name.split("/", 1)[0]
        known = [n for n in all_bots if n.startswith(game_name + "/")] or list(all_bots)
        raise KeyError(f"unknown bot {name!r}: known bots are {', '.join(known) or 'none'}") from None


def make(name: str, params: Mapping[str, Any] | None = None) -> Bot:
    """Create the bot ``name`` with ``params`` (validated by the bot's factory)."""
    return get(name).factory(**dict(params or {}))
