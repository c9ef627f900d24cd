"""``rasklad check-bot``: does a bot keep the ``Bot`` contract (docs/bots.md) before it plays a tournament?

``check_bot(name, params, units, seed)`` plays ``units`` units (deals, or matches for a match-unit
game) with the bot in every seat of every seat count of every preset, the other seats held by the
game's ``random`` bot, through the readable engine (never a fast path: the engine is the referee).
It counts what would break or silently bias a tournament:

* an **illegal action**: a return value that is not an element of ``legal_actions`` (the engine's
  ``IllegalAction`` rule is reported when it names one);
* an **exception** raised by ``act`` (with the game, preset, seat, view, legal actions and traceback);
* a **codec** fault: an action the game's codec cannot write as JSON (a numpy integer where the
  game wants an ``int``), so a ``full`` job could not write its records;
* **nondeterminism**: the first unit of every (preset, players, seat) is played again by a fresh
  bot from the same seeds; any difference in the bot's actions means its choices depend on
  something other than (view, legal actions, rng) -- the ``random`` module, the clock, state kept
  between units -- and a job's rows would no longer be a pure function of its spec.

A unit stops at its first fault (the rest of its decisions would be the engine's guess). It also
measures the bot's decision times (p50, p99, max) and the units per second of the checked tables,
beside the cost the bot declares. Seeds: unit ``u`` with the bot in seat ``s`` of a ``p``-seat table
under the ``k``-th preset deals from ``SeedSequence([seed, k, p, s, u])``'s first child and plays
(every seat's choices, one stream as in a job) from its second, so a report is a pure function of
(bot, params, units, seed) and a table checked alone plays as it did among all.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from games.core import registry
from games.core.entry import GameEntry
from games.core.protocol import Bot, IllegalAction

__all__ = ["FORMAT", "BotCheckError", "Fault", "Report", "check_bot", "jsonable", "resolve"]

FORMAT = "rasklad-check-bot/1"
#: Faults reported in full (every fault is counted).
KEPT_FAULTS = 10
#: Legal actions listed in a fault (``legal_count`` says how many there were).
LISTED_LEGAL = 30


class BotCheckError(ValueError):
    """Bad input to the check (an unknown game or bot, parameters the bot refuses): exit 2, one line."""


@dataclass
class Fault:
    """One fault, located: which table, seat and unit, the decision's step in the unit (0-based over
    every seat's actions), what the seat saw and could do, and what went wrong."""

    kind: str  # illegal | exception | codec | nondeterministic
    preset: str
    players: int
    seat: int
    unit: int
    step: int
    message: str
    rule: str | None = None
    action: Any = None
    view: Any = None
    legal: list[Any] = field(default_factory=list)
    legal_count: int = 0
    traceback: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The fault as the ``--json`` report writes it (docs/bots.md, "check-bot")."""
        return dataclasses.asdict(self)


@dataclass
class Report:
    """What ``check_bot`` found (docs/bots.md documents every key of ``to_json``)."""

    bot: str
    game: str
    params: dict[str, Any]
    seed: int
    units_per_seat: int
    unit: str = "deals"
    tables: list[dict[str, Any]] = field(default_factory=list)
    units: int = 0
    decisions: int = 0
    illegal_actions: int = 0
    exceptions: int = 0
    codec_errors: int = 0
    nondeterministic: int = 0
    determinism_checked: int = 0
    times_ns: list[int] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when nothing at all went wrong: the only state in which ``check-bot`` exits 0."""
        return not (self.illegal_actions or self.exceptions or self.codec_errors or self.nondeterministic)

    def add(self, fault: Fault) -> None:
        """Count ``fault`` and keep it in full while fewer than ``KEPT_FAULTS`` are kept."""
        counter = {"illegal": "illegal_actions", "exception": "exceptions", "codec": "codec_errors",
                   "nondeterministic": "nondeterministic"}[fault.kind]
        setattr(self, counter, getattr(self, counter) + 1)
        if len(self.faults) < KEPT_FAULTS:
            self.faults.append(fault)

    def decision_ms(self) -> dict[str, float | None]:
        """The bot's decision times in milliseconds: p50, p99 and max (None without decisions)."""
        if not self.times_ns:
            return {"p50": None, "p99": None, "max": None}
        t = np.asarray(self.times_ns, dtype=np.float64) / 1e6
        return {"p50": round(float(np.percentile(t, 50)), 4), "p99": round(float(np.percentile(t, 99)), 4),
                "max": round(float(t.max()), 4)}

    def to_json(self) -> dict[str, Any]:
        """The machine-readable report (``check-bot --json``)."""
        return {
            "format": FORMAT, "bot": self.bot, "game": self.game, "params": self.params, "seed": self.seed,
            "unit": self.unit, "units_per_seat": self.units_per_seat, "clean": self.clean, "units": self.units,
            "decisions": self.decisions, "illegal_actions": self.illegal_actions, "exceptions": self.exceptions,
            "codec_errors": self.codec_errors, "deterministic": self.nondeterministic == 0,
            "determinism_checked": self.determinism_checked, "nondeterministic": self.nondeterministic,
            "decision_ms": self.decision_ms(), "tables": self.tables,
            "faults": [f.to_json() for f in self.faults],
        }


def jsonable(value: Any) -> Any:
    """``value`` (a view, an action) as plain JSON: dataclasses as objects, tuples and sets as lists,
    enums by value, numpy scalars as numbers, fractions as strings, anything else by ``repr``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Fraction):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    return repr(value)


def resolve(name: str, params: Mapping[str, Any] | None, info: registry.BotInfo | None = None,
            game: str | None = None) -> tuple[GameEntry, registry.BotInfo, dict[str, Any]]:
    """The game, the bot and its parameters (schema defaults filled in) of ``GAME/NAME`` (``info``:
    a bot not registered, as a test checks one), or of a game-generic bot (``openspiel/ismcts``) for
    ``game``; raises ``BotCheckError`` with one readable line when the game, the bot or a parameter is
    unknown or wrong."""
    from sims.spec import check_schema

    games = registry.games()
    if info is None and name in registry.generic_bots():
        generic = registry.generic_bots()[name]
        if game is None:
            raise BotCheckError(f"{name} plays several games: name one with --game "
                                f"(it plays: {', '.join(generic.games()) or 'none'})")
        if game not in games:
            raise BotCheckError(f"unknown game {game!r}: known games are {', '.join(games)}")
        try:
            info = generic.bind(game)
        except KeyError as e:
            raise BotCheckError(str(e.args[0])) from None
    game_name, sep, bot_name = (info.game, "/", info.name) if info is not None and info.plays else name.partition("/")
    if not sep or not bot_name:
        raise BotCheckError(f"a bot is named GAME/NAME (e.g. dice-poker/random), not {name!r}")
    if game_name not in games:
        raise BotCheckError(f"unknown game {game_name!r}: known games are {', '.join(games)}")
    if game is not None and game != game_name:
        raise BotCheckError(f"{name} is a bot of {game_name}, not of {game} (--game names the game of a bot that "
                            "plays several)")
    if info is None:
        known = registry.bots(game_name)
        if name not in known:
            raise BotCheckError(f"unknown bot {name!r}: the bots of {game_name} are {', '.join(known) or 'none'}")
        info = known[name]
    given = dict(params or {})
    errors = check_schema(given, info.schema, "params")
    if errors:
        raise BotCheckError("; ".join(f"{path}: {msg}" for path, msg in errors))
    props = info.schema.get("properties", {})
    filled = {k: p["default"] for k, p in props.items() if isinstance(p, Mapping) and "default" in p}
    filled.update(given)
    return games[game_name], info, filled


def _make(info: registry.BotInfo, params: Mapping[str, Any]) -> Bot:
    try:
        return info.factory(**params)
    except (TypeError, ValueError) as e:
        raise BotCheckError(f"{info.name} refuses its parameters: {e}") from None


def _is_legal(action: Any, legal: Sequence[Any]) -> bool:
    try:
        return bool(action in legal)
    except Exception:  # an object whose comparison fails is no legal action
        return False


def _rule_of(state: Any, action: Any) -> tuple[str | None, str]:
    """The rule and explanation the engine gives for ``action`` (tried on a copy)."""
    try:
        state.copy().apply(action)
    except IllegalAction as e:
        return e.rule, e.message
    except Exception as e:
        return None, f"the engine cannot apply it: {type(e).__name__}: {e}"
    return None, "the engine would accept it, but it is not an element of legal_actions"


def _legal_listed(entry: GameEntry, state: Any, legal: Sequence[Any]) -> list[Any]:
    out = []
    for i in range(min(len(legal), LISTED_LEGAL)):
        try:
            out.append(entry.encode_action(state, legal[i]))
        except Exception:
            out.append(jsonable(legal[i]))
    return out


@dataclass
class _Table:
    """One checked context: a preset, a seat count and the bot's seat."""

    preset_no: int  # the preset's position in the entry's presets: seeds do not depend on --preset
    preset: str
    rules: Any
    players: int
    seat: int


@dataclass
class _Play:
    """One unit's play: the bot's actions (JSON text), its decision times, its fault if any."""

    actions: list[str] = field(default_factory=list)
    times_ns: list[int] = field(default_factory=list)
    fault: Fault | None = None


def _play_unit(entry: GameEntry, table: _Table, bot: Bot, opponents: Sequence[Bot], seed: int, unit: int) -> _Play:
    """Play unit ``unit`` of ``table`` with ``bot`` in its seat and ``opponents`` elsewhere."""
    deal_seq, play_seq = np.random.SeedSequence([seed, table.preset_no, table.players, table.seat, unit]).spawn(2)
    state = entry.deal(table.rules, table.players, entry.dealer_of(unit, table.players),
                       np.random.default_rng(deal_seq))
    rng = np.random.default_rng(play_seq)
    out = _Play()
    step = 0

    def fault(kind: str, message: str, **more: Any) -> _Play:
        legal = state.legal_actions()
        out.fault = Fault(kind, table.preset, table.players, table.seat, unit, step, message,
                          view=jsonable(state.view(table.seat)), legal=_legal_listed(entry, state, legal),
                          legal_count=len(legal), **more)
        return out

    while not state.is_over():
        seat = state.to_act()
        legal = state.legal_actions()
        if seat != table.seat:
            state.apply(opponents[seat].act(state.view(seat), legal, rng))
            step += 1
            continue
        view = state.view(seat)
        t0 = time.perf_counter_ns()
        try:
            action = bot.act(view, legal, rng)
        except Exception as e:
            return fault("exception", f"{type(e).__name__}: {e}", traceback=traceback.format_exc())
        out.times_ns.append(time.perf_counter_ns() - t0)
        if not _is_legal(action, legal):
            rule, why = _rule_of(state, action)
            return fault("illegal", f"not one of the legal actions: {why}", rule=rule, action=jsonable(action))
        try:
            out.actions.append(json.dumps(entry.encode_action(state, action), sort_keys=True))
        except Exception as e:
            return fault("codec", f"the action cannot be written as JSON: {type(e).__name__}: {e}",
                         action=jsonable(action))
        try:
            state.apply(action)
        except IllegalAction as e:
            return fault("illegal", f"the engine refuses it: {e.message}", rule=e.rule, action=jsonable(action))
        step += 1
    return out


def _compare(first: _Play, again: _Play, table: _Table) -> Fault | None:
    """A nondeterminism fault when the replay of a unit differs from its first play."""
    a, b = first.actions, again.actions
    if a == b and (first.fault is None) == (again.fault is None):
        return None
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    x = json.loads(a[i]) if i < len(a) else None
    y = json.loads(b[i]) if i < len(b) else None
    return Fault("nondeterministic", table.preset, table.players, table.seat, 0, i,
                 f"decision {i} of the bot differs when the unit is played again from the same seeds by a fresh "
                 f"bot: first {json.dumps(x)}, then {json.dumps(y)} (the bot must draw only from the rng it is "
                 "given and keep no state between units)", action={"first": x, "again": y})


def _tables(entry: GameEntry, presets: Sequence[str], players: Sequence[int]) -> list[tuple[str, Any, int]]:
    """(preset, rules, players) of every table to check: every preset and seat count, or those asked."""
    unknown = [p for p in presets if p not in entry.presets]
    if unknown:
        raise BotCheckError(f"unknown preset {unknown[0]!r}: {entry.name} has {', '.join(entry.presets)}")
    out = []
    for preset, rules in entry.presets.items():
        if presets and preset not in presets:
            continue
        lo, hi = entry.seats(rules)
        out += [(preset, rules, n) for n in range(lo, hi + 1) if not players or n in players]
    if not out:
        raise BotCheckError(f"no table of {entry.name} has {' or '.join(map(str, players))} players"
                            + (f" under {', '.join(presets)}" if presets else ""))
    return out


def check_bot(name: str, params: Mapping[str, Any] | None = None, units: int = 3, seed: int = 0,
              presets: Sequence[str] = (), players: Sequence[int] = (),
              progress: Callable[[str], None] | None = None, info: registry.BotInfo | None = None,
              game: str | None = None) -> Report:
    """Check the bot ``name`` (``GAME/NAME``, or a game-generic bot such as ``openspiel/ismcts`` playing
    ``game``) with ``params``: ``units`` units in every seat of every seat count of every preset (or of
    the ``presets`` and ``players`` given) against the game's random bot. Raises ``BotCheckError`` on
    bad input; ``progress`` hears one line per table checked. ``info`` checks a bot that is not
    registered (its ``name`` is then ``info.name``)."""
    if units < 1:
        raise BotCheckError(f"--deals must be at least 1, not {units}")
    entry, info, filled = resolve(name, params, info, game)
    tables = _tables(entry, presets, players)
    bot = _make(info, filled)
    report = Report(name, entry.name, filled, seed, units, entry.unit_names[1])
    random_name = f"{entry.name}/random"
    preset_no = {p: i for i, p in enumerate(entry.presets)}
    for preset, rules, n in tables:
        opponents = [registry.make(random_name) for _ in range(n)]
        t0 = time.perf_counter()
        played = plays = 0
        for seat in range(n):
            table = _Table(preset_no[preset], preset, rules, n, seat)
            for u in range(units):
                play = _play_unit(entry, table, bot, opponents, seed, u)
                played += 1
                plays += 1
                report.decisions += len(play.times_ns)
                report.times_ns += play.times_ns
                if play.fault is not None:
                    report.add(play.fault)
                if u == 0:
                    again = _play_unit(entry, table, _make(info, filled), opponents, seed, 0)
                    report.determinism_checked += 1
                    plays += 1
                    differs = _compare(play, again, table)
                    if differs is not None:
                        report.add(differs)
        elapsed = time.perf_counter() - t0
        report.units += played
        report.tables.append({
            "preset": preset, "players": n, "units": played,
            "declared_units_per_s": round(info.speed(filled, rules, n), 3),
            "measured_units_per_s": round(plays / elapsed, 3) if elapsed > 0 else None,
        })
        if progress is not None:
            progress(f"{preset}, {n} players: {played} {entry.unit_names[1]} played")
    return report
