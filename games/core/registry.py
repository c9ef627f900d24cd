"""The registry: games by name (``order-poker``) and bots by name (``order-poker/heuristic``).

Games are found through the ``rasklad.games`` entry-point group: each entry point loads a
``GameEntry`` (the built-in games are declared in ``pyproject.toml``). Operators add games without
installing a distribution by naming modules in ``RASKLAD_GAME_MODULES`` (comma-separated; each
module exposes ``ENTRY``, a ``GameEntry``). A game's bots come from its entry (``entry.bots()``);
extra bots register through the ``rasklad.bots`` entry-point group (each entry point is a callable
that calls :func:`register`) or modules named in ``RASKLAD_BOT_MODULES``. Uploaded code is never
executed: only installed games and bots exist.

A *game-generic* bot (:func:`register_generic`) plays every game it says it supports under one name
without a game prefix (``openspiel/ismcts``: OpenSpiel's ISMCTS over each game's adapter). It is
resolved against a game: ``get(name, game)`` gives a ``BotInfo`` bound to that game (its factory and
cost see the game; ``BotInfo.game`` is that game), or a ``KeyError`` saying why the bot does not play
it; ``bots(game)`` lists it among the game's bots.

Loading is as lazy as the question: :func:`game` loads only the entry point named like the game (a
job's one game, without importing the other games' packages), :func:`get` only that game's bots and the
``rasklad.bots`` plug-ins (a plug-in's ``register`` is cheap: ``openspiel/ismcts`` imports pyspiel only
when asked whether it plays a game), :func:`generic_bots` only the plug-ins; :func:`games` and
:func:`bots` load everything, as the catalogue needs. With extra game modules configured, or an entry
point whose name is not its game's, every lookup loads every game as before.

The two module lists are settings (``sims.settings``); the service layers pass them down with
:func:`configure`. A process that was not configured (a worker of a process pool, a script) reads
the same two environment variables, so every process of one run sees the same games.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, NamedTuple

from games.core.entry import FastPath, GameEntry
from games.core.protocol import Bot

__all__ = ["BotInfo", "GenericBot", "bot_factory", "bots", "configure", "game", "games", "generic_bots", "get", "make",
           "register", "register_generic", "reset"]


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
    plays: str | None = None
    """The game a game-generic bot was resolved for (``openspiel/ismcts`` playing ``liars-poker``);
    None for a game's own bot, whose name starts with its game."""

    def speed(self, params: Mapping[str, Any], rules: Any = None, players: int | None = None) -> float:
        """``cost`` under ``rules`` and ``players`` (None: the game's default rules, its fewest seats)."""
        if rules is None or players is None:
            entry = game(self.game)
            rules = entry.rules_class() if rules is None else rules
            players = entry.seats(rules)[0] if players is None else players
        return float(self.cost(params, rules, players))

    @property
    def game(self) -> str:
        """The game the bot plays: the game part of the name (``order-poker/random`` -> ``order-poker``),
        or the game a game-generic bot was resolved for."""
        return self.plays or self.name.split("/", 1)[0]


@dataclass(frozen=True)
class GenericBot:
    """A bot that plays several games under one name without a game prefix (``openspiel/ismcts``).

    ``factory(game, **params)`` makes the bot for ``game``; ``supports(game)`` is None when the bot plays
    ``game`` and otherwise the reason it does not (a sentence a spec error shows: no adapter, a package
    not installed); ``cost(game, params, rules, players)`` is ``BotInfo.cost`` for ``game``. The schema
    of the parameters is the same for every game."""

    name: str
    factory: Callable[..., Bot]
    supports: Callable[[str], str | None]
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    description: str = ""
    cost: Callable[[str, Mapping[str, Any], Any, int], float] = field(
        default=lambda game, params, rules, players: 2_000.0)

    def games(self) -> list[str]:
        """The installed games this bot plays, sorted."""
        return [g for g in games() if self.supports(g) is None]

    def bind(self, game_name: str) -> BotInfo:
        """The bot as it plays ``game_name``; ``KeyError`` with the reason when it does not play it."""
        why = self.supports(game_name) if game_name in games() else f"unknown game {game_name!r}"
        if why is not None:
            plays = ", ".join(self.games()) or "none"
            raise KeyError(f"{self.name} does not play {game_name}: {why} (it plays: {plays})")
        factory, cost = self.factory, self.cost

        def make(**params: Any) -> Bot:
            return factory(game_name, **params)

        def bound_cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
            return cost(game_name, params, rules, players)

        return BotInfo(self.name, make, self.schema, self.description, bound_cost, plays=game_name)


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
_GENERIC_BOTS: dict[str, GenericBot] = {}
_BOTS: dict[str, BotInfo] | None = None
_ONE_GAME: dict[str, GameEntry] = {}
"""Games loaded one by one (:func:`game` before :func:`games` ran), by name."""
_plugins_loaded = False
_config: dict[str, tuple[str, ...]] = {}
_ENTRY_POINTS: Any = None
"""Every installed entry point, read once (``importlib.metadata`` reads every distribution's file on each
call, whatever the group: issue 30 item 4, a job's fixed cost); :func:`reset` forgets them."""


def _split(text: str | Sequence[str] | None) -> tuple[str, ...]:
    if text is None:
        return ()
    parts = text.split(",") if isinstance(text, str) else list(text)
    return tuple(p.strip() for p in parts if p and p.strip())


def configure(game_modules: str | Sequence[str] | None = None,
              bot_modules: str | Sequence[str] | None = None) -> None:
    """Set the extra game and bot modules (the settings' ``game_modules``/``bot_modules``); reloads."""
    global _GAMES, _BOTS, _plugins_loaded
    with _lock:
        _config["game_modules"] = _split(game_modules)
        _config["bot_modules"] = _split(bot_modules)
        _GAMES = None
        _BOTS = None
        _ONE_GAME.clear()
        _plugins_loaded = False


def reset() -> None:
    """Forget what :func:`configure` set and every loaded game and bot: the environment decides again."""
    global _GAMES, _BOTS, _plugins_loaded, _ENTRY_POINTS
    with _lock:
        _config.clear()
        _GAMES = None
        _BOTS = None
        _ONE_GAME.clear()
        _plugins_loaded = False
        _ENTRY_POINTS = None


def _entry_points(group: str) -> Any:
    """The installed entry points of ``group`` (``rasklad.games``, ``rasklad.bots``)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        _ENTRY_POINTS = entry_points()
    return _ENTRY_POINTS.select(group=group)


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
    for ep in _entry_points("rasklad.games"):
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


def _one_game(name: str) -> GameEntry | None:
    """The game ``name`` loaded alone from the entry point of that name, or None when it takes loading
    every game to say (extra game modules may add or replace games; an entry point named otherwise)."""
    if _GAMES is not None:
        return _GAMES.get(name)
    if name in _ONE_GAME:
        return _ONE_GAME[name]
    if _modules("game_modules", "RASKLAD_GAME_MODULES"):
        return None
    found = [ep for ep in _entry_points("rasklad.games") if ep.name == name]
    if len(found) != 1:
        return None
    entry = _check_entry(found[0].load(), f"entry point {found[0].name} ({found[0].value})")
    if entry.name != name:
        return None
    with _lock:
        _ONE_GAME[name] = entry
    return entry


def game(name: str) -> GameEntry:
    """The game ``name``; ``KeyError`` naming the known games otherwise."""
    entry = _one_game(name)
    if entry is not None:
        return entry
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


def register_generic(name: str, factory: Callable[..., Bot], supports: Callable[[str], str | None],
                     schema: Mapping[str, Any] | None = None, description: str = "",
                     cost: Callable[[str, Mapping[str, Any], Any, int], float] | None = None) -> None:
    """Register a game-generic bot (``GenericBot``) under ``name``: ``"<family>/<bot>"``, the family not
    a game's name (``openspiel/ismcts``). ``factory(game, **params)``; ``supports(game)`` is None or why not."""
    global _BOTS
    if "/" not in name:
        raise ValueError(f"a game-generic bot is named FAMILY/NAME (e.g. openspiel/ismcts), not {name!r}")
    _GENERIC_BOTS[name] = GenericBot(name, factory, supports, schema or {"type": "object", "properties": {}},
                                     description, cost or (lambda game, params, rules, players: 2_000.0))
    _BOTS = None


def _load_plugins() -> None:
    """Run the ``rasklad.bots`` entry points and import the extra bot modules (they register bots)."""
    global _plugins_loaded
    for ep in _entry_points("rasklad.bots"):
        ep.load()()
    for module in _modules("bot_modules", "RASKLAD_BOT_MODULES"):
        importlib.import_module(module)
    _plugins_loaded = True


def _load_bots() -> dict[str, BotInfo]:
    _load_plugins()
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


def generic_bots() -> dict[str, GenericBot]:
    """Every game-generic bot by name, sorted (loading the bot plug-ins, not the games)."""
    if not _plugins_loaded:
        _load_plugins()
    return dict(sorted(_GENERIC_BOTS.items()))


def bots(game: str | None = None) -> dict[str, BotInfo]:
    """Every game's own bots, sorted by name; with ``game``, that game's own bots and the game-generic
    bots that play it (bound to it)."""
    own = {n: b for n, b in _all_bots().items() if game is None or b.game == game}
    if game is None:
        return own
    for name, g in generic_bots().items():
        if name not in own and g.supports(game) is None:
            own[name] = g.bind(game)
    return dict(sorted(own.items()))


def get(name: str, game: str | None = None) -> BotInfo:
    """The bot ``name``; a game-generic bot resolved for ``game`` (``KeyError`` without a game, or with
    one it does not play, saying why); ``KeyError`` naming the known bots otherwise. A game's own bot
    is returned whatever ``game`` says (whether it may play there is the caller's check)."""
    found = _one_bot(name)
    if found is not None:
        return found
    all_bots = _all_bots()
    if name in all_bots:
        return all_bots[name]
    generic = _GENERIC_BOTS.get(name)
    if generic is not None:
        if game is None:
            raise KeyError(f"{name} is a game-generic bot (it plays: {', '.join(generic.games()) or 'none'}): "
                           "name the game it is to play (the spec's game, --game)")
        return generic.bind(game)
    game_name = game or name.split("/", 1)[0]
    known = list(bots(game_name)) if game_name in games() else []
    raise KeyError(f"unknown bot {name!r}: known bots are {', '.join(known or all_bots) or 'none'}")


def _one_bot(name: str) -> BotInfo | None:
    """The own bot ``name`` found loading only its game (the part of the name before ``/``) and the bot
    plug-ins, or None when it takes loading every bot to say (or it is no game's own bot)."""
    if _BOTS is not None:
        return _BOTS.get(name)
    if not _plugins_loaded:
        _load_plugins()
    if name in _EXTRA_BOTS:  # a registered bot wins over a game's own of the same name, as in _load_bots
        return _EXTRA_BOTS[name]
    if name in _GENERIC_BOTS or "/" not in name:
        return None
    entry = _one_game(name.split("/", 1)[0])
    if entry is None:
        return None
    return next((b for b in entry.bots() if b.name == name), None)


def make(name: str, params: Mapping[str, Any] | None = None, game: str | None = None) -> Bot:
    """Create the bot ``name`` (a game-generic bot: for ``game``) with ``params`` (validated by its factory)."""
    return get(name, game).factory(**dict(params or {}))


class FastPathTable(NamedTuple):
    """One table a game's fast path names for its parity tests (``FastPath.bots_for_test``)."""

    entry: GameEntry
    path: FastPath
    preset: str
    rules: Any  # the preset's rules
    players: int
    number: int  # the table's place in ``bots_for_test(players)``
    table: Sequence[tuple[str, Mapping[str, Any]]]  # (bot name, params) per seat


def fast_path_tables() -> Iterator[FastPathTable]:
    """Every table of every registered game's fast paths, for every preset and seat count the preset allows
    (``GameEntry.seats``): what the parity tests, the shard-sizing test and ``bench_pipeline_rules.py
    --speeds`` walk. A table the path does not play under a preset (its ``supports``) is included."""
    for entry in games().values():
        for fp in entry.fast_paths:
            for preset, rules in entry.presets.items():
                lo, hi = entry.seats(rules)
                for players in range(lo, hi + 1):
                    for i, table in enumerate(fp.bots_for_test(players)):
                        yield FastPathTable(entry, fp, preset, rules, players, i, table)
