"""rasklad's games as OpenSpiel Python games (``pip install rasklad[openspiel]``; docs/interop.md).

Importing this module registers every game that has an ``Adapter`` (``rasklad.interop.adapters``) as
``rasklad_<game with underscores>``, its rule options as game parameters beside ``players``, ``dealer``
and ``preset``::

    import pyspiel
    import rasklad.interop.openspiel  # registers the games
    game = pyspiel.load_game("rasklad_liars_poker(players=2,digits_per_note=1,digit_values=2)")

A state is the game's own ``State`` under the hood: chance nodes draw the chance stub event by event
(the adapter's ``chance``; the same distribution as ``GameEntry.deal``), then every decision is applied
to the engine, so legality and scoring are the engine's. A game whose engine takes its stub as it goes
(the adapter's ``lazy_chance``: dice poker's faces) has its chance nodes during play, each when the
engine needs it: a decision that needs chance (a re-roll) waits, pending, until its outcomes are drawn.
Information-state and observation strings and tensors come from ``view(player)``; returns are ``scores()``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pyspiel

from games.core import registry
from games.core.entry import GameEntry
from rasklad.interop.adapters import ADAPTERS, Adapter

__all__ = ["RaskladGame", "RaskladState", "from_engine", "game_for", "game_name", "load", "plain", "resample"]


def game_name(game: str) -> str:
    """The OpenSpiel short name of a rasklad game: ``liars-poker`` -> ``rasklad_liars_poker``."""
    return "rasklad_" + game.replace("-", "_")


_SCALARS = frozenset({int, float, str, bool, type(None)})


def plain(value: Any) -> Any:
    """A view's value as JSON: dataclasses and named tuples as objects, tuples as lists."""
    kind = type(value)
    if kind in _SCALARS:  # most of a view (cards, seats, flags): the checks below cost 10x more
        return value
    convert = _CONVERTERS.get(kind)
    if convert is None:  # how a type converts is decided once per type (a match's view holds thousands)
        convert = _CONVERTERS[kind] = _converter(kind)
    return convert(value)


_CONVERTERS: dict[type, Any] = {}


def _converter(kind: type) -> Any:
    """How ``plain`` converts a value of ``kind`` (not a plain scalar)."""
    if dataclasses.is_dataclass(kind):
        names = tuple(f.name for f in dataclasses.fields(kind))
        return lambda v: {n: plain(getattr(v, n)) for n in names}
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        fields = tuple(kind._fields)
        return lambda v: {k: plain(x) for k, x in zip(fields, v, strict=True)}
    if issubclass(kind, Mapping):
        return lambda v: {str(k): plain(x) for k, x in v.items()}
    if issubclass(kind, list | tuple):
        return lambda v: [plain(x) for x in v]
    if issubclass(kind, np.integer | bool | int):  # numpy ints, IntEnum-like int subclasses
        return int
    if issubclass(kind, np.floating | Fraction | float):
        return float  # Fraction: Raspisnoy's half points
    if issubclass(kind, enum.Enum):
        return lambda v: plain(v.value)
    return lambda v: plain(v.value) if hasattr(v, "value") and kind.__module__ != "builtins" else v


def _view_string(view: Mapping[str, Any]) -> str:
    return json.dumps({k: plain(v) for k, v in view.items() if k != "rules"}, sort_keys=True, separators=(",", ":"))


# ------------------------------------------------------------------------------------------- parameters
def _reads_back(value: str) -> bool:
    """A string OpenSpiel's game string gives back as a string (it reads ``11`` as an int, ``true`` as a bool)."""
    if value in ("true", "false"):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def _rule_params(entry: GameEntry) -> dict[str, Any]:
    """The rules' options that OpenSpiel can carry (int, float, str, bool), with the default rules' values;
    not a string option whose default reads as a number (blackjack's ``ace="11"``): a serialized game
    would give it back as an int, which OpenSpiel refuses for a string parameter."""
    default = entry.rules_class()
    out: dict[str, Any] = {}
    for f in dataclasses.fields(default):
        value = getattr(default, f.name)
        if f.name != "preset" and isinstance(value, bool | int | float | str) and \
                (not isinstance(value, str) or _reads_back(value)):
            out[f.name] = value
    return out


def _rules_of(entry: GameEntry, params: Mapping[str, Any]) -> Any:
    """The rules named by a game's parameters: ``preset`` first, then every option whose value differs from
    the default rules' (a parameter left at its default keeps the preset's value)."""
    defaults = _rule_params(entry)
    opts = {k: params[k] for k in defaults if k in params and params[k] != defaults[k]}
    preset = params.get("preset") or None
    return entry.rules({**({"preset": preset} if preset else {}), **opts})


def _game_type(entry: GameEntry, ad: Adapter) -> Any:
    default = entry.rules_class()
    lo, hi = entry.seats(default)
    # The default rules' own preset (dice poker's is full, not its first preset simple, which needs 2 seats).
    preset = getattr(default, "preset", None)
    spec: dict[str, Any] = {"players": lo, "dealer": 0,
                            "preset": preset if preset in entry.presets else next(iter(entry.presets), "")}
    spec.update(_rule_params(entry))
    return pyspiel.GameType(
        short_name=game_name(entry.name),
        long_name=f"rasklad {entry.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if ad.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


# ------------------------------------------------------------------------------------------- game, state
class Table:
    """What a game's states share: entry, adapter, rules, seats, dealer (never copied with a state)."""

    def __init__(self, entry: GameEntry, ad: Adapter, params: Mapping[str, Any], rules: Any = None) -> None:
        self.entry, self.adapter, self.params = entry, ad, dict(params)
        self.rules = _rules_of(entry, params) if rules is None else rules
        self.players = int(params["players"])
        self.dealer = int(params["dealer"])
        problem = entry.check_players(self.rules, self.players)
        if problem:
            raise ValueError(problem)
        if not 0 <= self.dealer < self.players:
            raise ValueError(f"dealer must be a seat 0..{self.players - 1}, not {self.dealer}")

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # a serialized state names its game, never pickles the entry
        return _table, (self.entry.name, self.params, self.entry.rules_dict(self.rules))


def _table(game: str, params: Mapping[str, Any], rules: Mapping[str, Any]) -> Table:
    from rasklad.interop.adapters import adapter

    entry = registry.game(game)
    return Table(entry, adapter(game), params, entry.rules(rules))


class RaskladGame(pyspiel.Game):  # type: ignore[misc]
    """One rasklad game under fixed rules, seats and dealer, as an OpenSpiel game."""

    def __init__(self, entry: GameEntry, ad: Adapter, game_type: Any, params: Mapping[str, Any] | None,
                 rules: Any = None) -> None:
        merged = {**game_type.parameter_specification, **dict(params or {})}
        if rules is not None:  # exact rules given (game_for): the parameters then only describe them
            merged.update({k: getattr(rules, k) for k in _rule_params(entry)})
        self.table = Table(entry, ad, merged, rules)
        self.entry, self.adapter = entry, ad
        self.rules, self.players, self.dealer = self.table.rules, self.table.players, self.table.dealer
        low, high = ad.utility(self.rules, self.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=ad.num_actions(self.rules, self.players),
            max_chance_outcomes=ad.chance_max(self.rules, self.players),
            num_players=self.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if ad.zero_sum else None,
            max_game_length=ad.max_length(self.rules, self.players),
        )
        super().__init__(game_type, info, dict(merged))

    def new_initial_state(self) -> RaskladState:
        """The state before the first chance event."""
        return RaskladState(self, self.table)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """Strings and tensors from ``view(player)`` (perfect recall: the information state)."""
        return Observer(self.table, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Engine:
    """Holds a state's engine. OpenSpiel clones a Python state by deep-copying its attributes; this copies
    the engine with its own ``copy()`` instead, which shares what never changes (a match's finished deals):
    a deep copy of a whole Raspisnoy match cost more than everything else a step does."""

    __slots__ = ("cache", "state")

    def __init__(self, state: Any) -> None:
        self.state = state
        # What a player's view gives (its JSON, its tensor), kept until the state changes: random_sim_test
        # asks for the strings and tensors of every player several times per state.
        self.cache: dict[tuple[str, int], Any] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(None if self.state is None else self.state.copy())


class _Log(list):  # type: ignore[type-arg]
    """A list of immutable entries (chance outcomes, decisions) that a clone copies shallowly: deep-copying a
    match's hundreds of chance outcomes item by item was most of a clone's cost."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Log:
        return _Log(self)


class RaskladState(pyspiel.State):  # type: ignore[misc]
    """Chance events until the stub is whole, then the engine's ``State`` (with chance events during play
    where the adapter has ``lazy_chance``)."""

    def __init__(self, game: RaskladGame, table: Table) -> None:
        super().__init__(game)
        self._game = table
        self.drawn: list[int] = _Log()
        self.decisions: list[tuple[int, int]] = _Log()  # (seat, action id) of every decision so far
        self.engine: Any = None
        self.pending: int | None = None  # a decision chosen, waiting for the chance it needs (lazy_chance)
        self._start_if_dealt()

    @property
    def engine(self) -> Any:
        """The game's own ``State`` (None while the stub is being dealt)."""
        return self._engine.state

    @engine.setter
    def engine(self, value: Any) -> None:
        self._engine = _Engine(value)

    def _start_if_dealt(self) -> None:
        g = self._game
        if self.engine is None and not g.adapter.chance(g.rules, g.players, self.drawn):
            self.engine = g.adapter.start(g.rules, g.players, g.dealer, self.drawn)

    def _lazy(self) -> list[tuple[int, float]]:
        """The outcomes of the chance event the engine needs during play now ([] when none)."""
        lazy = self._game.adapter.lazy_chance
        if lazy is None or self.engine is None:
            return []
        return lazy(self.engine, self.pending)

    # The OpenSpiel API -------------------------------------------------------------------
    def current_player(self) -> int:
        """The chance player while dealing, the engine's seat to act, or TERMINAL."""
        if self.engine is None or self._lazy():
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.engine.to_act())

    def _legal_actions(self, player: int) -> list[int]:
        ad, st = self._game.adapter, self.engine
        return sorted(ad.action_id(st, a) for a in st.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next chance event's outcomes and probabilities."""
        g = self._game
        if self.engine is not None:
            return self._lazy()
        return g.adapter.chance(g.rules, g.players, self.drawn)

    def _apply_action(self, action: int) -> None:
        ad = self._game.adapter
        self._engine.cache.clear()  # the engine changes below
        if self.engine is None:
            self.drawn.append(int(action))
            self._start_if_dealt()
            return
        if self._lazy():  # a chance event during play: the engine takes it; a pending decision may now go on
            assert ad.feed_chance is not None
            self.drawn.append(int(action))
            ad.feed_chance(self.engine, int(action))
            if self.pending is not None and not self._lazy():
                chosen, self.pending = self.pending, None
                self.engine.apply(ad.action(self.engine, chosen))
            return
        seat = int(self.engine.to_act())
        self.decisions.append((seat, int(action)))
        if ad.lazy_chance is not None and ad.lazy_chance(self.engine, int(action)):
            self.pending = int(action)  # it needs chance first (a re-roll's new faces)
            return
        self.engine.apply(ad.action(self.engine, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        g = self._game
        if player == pyspiel.PlayerId.CHANCE or self.engine is None or self._lazy():
            if g.adapter.chance_name is not None:
                return g.adapter.chance_name(g.rules, g.players, self.drawn, int(action))
            return f"chance {len(self.drawn)}: {action}"
        encode = g.adapter.encode or g.entry.encode_action  # the adapter's for a wrapped state (quintet)
        encoded: Any = encode(self.engine, g.adapter.action(self.engine, int(action)))
        if isinstance(encoded, Mapping):
            encoded = {k: v for k, v in encoded.items() if k != "seat"}
        elif isinstance(encoded, list | tuple) and len(encoded) == 2:
            encoded = encoded[1]  # a record's [seat, token] pair (Raspisnoy, Preferans): the token
        return json.dumps(plain(encoded), sort_keys=True)

    def is_terminal(self) -> bool:
        """The engine's unit is over."""
        return self.engine is not None and self.pending is None and bool(self.engine.is_over())

    def returns(self) -> list[float]:
        """``scores()`` at the end, zeros before."""
        if not self.is_terminal():
            return [0.0] * self._game.players
        return [float(x) for x in self.engine.scores()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> RaskladState:
        """A state ``player_id`` cannot tell from this one (``GameEntry.resample_hidden``), for ISMCTS."""
        return resample(self, player_id, np.random.default_rng())

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing, {len(self.drawn)} chance events drawn"
        # a record is JSON already (plain only for what is not: walking a whole match's record was slow)
        return json.dumps(self.engine.record(), sort_keys=True, default=plain)


def resample(state: RaskladState, player: int, rng: np.random.Generator) -> RaskladState:
    """``state`` with everything ``player`` may not see dealt again (the entry's ``resample_hidden``, else
    the adapter's ``resample``)."""
    g = state._game
    fn = g.adapter.resample or g.entry.resample_hidden  # the adapter's first: a wrapped state is its own
    if fn is None:
        raise NotImplementedError(f"{g.entry.name} declares no resample_hidden")
    new = state.clone()
    if state.engine is not None:
        new.engine = fn(state.engine, player, rng)
    return new  # type: ignore[no-any-return]


def from_engine(game: RaskladGame, engine: Any) -> RaskladState:
    """An OpenSpiel state around an engine state made elsewhere (its chance history is not known)."""
    st = RaskladState(game, game.table)
    st.engine = engine
    return st


class Observer:
    """OpenSpiel's PyObserver over ``view(player)``: the adapter's tensor; the view as JSON for strings."""

    def __init__(self, game: Table, iig_obs_type: Any) -> None:
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.adapter.tensor_size(game.rules, game.players), np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: RaskladState, player: int) -> None:
        """The tensor of ``player``'s view (zeros while dealing)."""
        g = self.game
        if state.engine is None:
            self.tensor.fill(0)
            return
        cache = state._engine.cache
        tensor = cache.get(("tensor", player))
        if tensor is None:
            tensor = cache[("tensor", player)] = g.adapter.tensor(state.engine.view(player), g.rules, g.players)
        self.tensor[:] = tensor

    def string_from(self, state: RaskladState, player: int) -> str:
        """``player``'s view as JSON; the information state adds every decision when all are public."""
        if state.engine is None:
            return f"p{player} dealing {len(state.drawn)}"
        cache = state._engine.cache
        text = cache.get(("string", player))
        if text is None:
            text = cache[("string", player)] = f"p{player} " + _view_string(state.engine.view(player))
        if self.perfect_recall and self.game.adapter.public_actions:
            text += " " + ",".join(f"{s}:{a}" for s, a in state.decisions)
        return text


# ------------------------------------------------------------------------------------------- registration
_GAME_TYPES: dict[str, Any] = {}
_CLASSES: dict[str, type] = {}


def _register(entry: GameEntry, ad: Adapter) -> None:
    game_type = _game_type(entry, ad)
    _GAME_TYPES[entry.name] = game_type

    def __init__(self: RaskladGame, params: Mapping[str, Any] | None = None, rules: Any = None) -> None:
        RaskladGame.__init__(self, entry, ad, game_type, params, rules)

    # OpenSpiel keeps the class it is given (a closure instead aborts the interpreter at its exit).
    cls = type(game_name(entry.name), (RaskladGame,), {"__init__": __init__, "__module__": __name__})
    _CLASSES[entry.name] = cls
    pyspiel.register_game(game_type, cls)


def game_for(game: str, rules: Any, players: int, dealer: int = 0) -> RaskladGame:
    """The OpenSpiel game of ``game`` under exactly ``rules`` (a rules object, as a view holds it)."""
    return _CLASSES[game]({"players": players, "dealer": dealer}, rules=rules)  # type: ignore[no-any-return]


def load(game: str, **params: Any) -> RaskladGame:
    """``pyspiel.load_game`` of a rasklad game by its registry name, with parameters as keywords."""
    loaded = pyspiel.load_game(game_name(game), params)
    return loaded  # type: ignore[no-any-return]


for _name, _ad in ADAPTERS.items():
    if _name in registry.games() and game_name(_name) not in pyspiel.registered_names():
        _register(registry.game(_name), _ad)
