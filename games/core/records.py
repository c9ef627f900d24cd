"""What every game's records and rules share: reading a ``rules`` object, checking a stored outcome.

Each game's ``record.replay`` rebuilds a deal through its engine; these helpers keep the parts that
do not depend on the game in one place (the rule number to cite is the caller's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TypeVar

from games.core.protocol import IllegalAction, RulesError

R = TypeVar("R")


def exact_number(x: Fraction | int) -> int | str:
    """An exact number as a record writes it (PF-15.6, ``GameEntry.score_unit``): a whole number as an
    integer, any other as ``"p/q"`` in lowest terms."""
    q = Fraction(x)
    return int(q) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def rules_from_dict(cls: type[R], d: Mapping[str, Any] | None) -> R:
    """The rules dataclass ``cls`` from a record's or a spec's ``rules`` object (missing fields: defaults).

    Raises ``RulesError`` (a ``ValueError``) naming the field for an unknown field; the dataclass
    checks the values.
    """
    if d is None:
        return cls()
    if not isinstance(d, Mapping):
        raise RulesError(f"rules must be an object, not {type(d).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in d:
        if key not in known:
            raise RulesError(f"unknown rules field {key!r}: known fields are {', '.join(sorted(known))}", field=key)
    return cls(**dict(d))


def _outcome_difference(given: Any, replayed: Any, path: str) -> str | None:
    """Where ``given`` differs from ``replayed``, checking only the keys ``given`` holds, at every depth."""
    if isinstance(given, Mapping) and isinstance(replayed, Mapping):
        for key, value in given.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in replayed:
                return f"unknown outcome field {where!r}"
            diff = _outcome_difference(value, replayed[key], where)
            if diff:
                return diff
        return None
    if isinstance(given, list) and isinstance(replayed, list) and len(given) == len(replayed) \
            and any(isinstance(v, Mapping) for v in given):
        for i, (a, b) in enumerate(zip(given, replayed, strict=True)):
            diff = _outcome_difference(a, b, f"{path}[{i}]")
            if diff:
                return diff
        return None
    if given != replayed:
        return f"outcome {path} is {given!r} in the record, the replay gives {replayed!r}"
    return None


def check_outcome(given: Any, replayed: Mapping[str, Any], rule: str) -> None:
    """Compare a record's stored ``outcome`` (None: nothing to check) with the replay's.

    Only what the record holds is checked, at every depth: a key left out of an object (of a deal's
    entry in a match's ``games`` list, say) is not compared, as the match games' record rules say
    (DP-8.2, LP-7.2); a list of objects is compared element by element. A difference raises
    ``IllegalAction`` citing ``rule`` and naming the field (``outcome games[0].scores is ...``).
    """
    if given is None:
        return
    if not isinstance(given, Mapping):
        raise IllegalAction("outcome must be an object", rule)
    diff = _outcome_difference(given, replayed, "")
    if diff:
        raise IllegalAction(diff, rule)


# ------------------------------------------------------------------ the rasklad-record/1 envelope

#: The record format every game writes (DESIGN.md, "Deal records").
FORMAT = "rasklad-record/1"
#: The envelope's fields, in the order records are written.
ENVELOPE = ("format", "game", "version", "rules", "players", "dealer", "deal", "actions", "outcome")


def envelope(game: str, version: int, rules: Mapping[str, Any], players: int, dealer: int | None,
             deal: Any, actions: list[Any], outcome: Mapping[str, Any] | None) -> dict[str, Any]:
    """A record in the ``rasklad-record/1`` envelope (``outcome`` left out while the unit is not over)."""
    rec: dict[str, Any] = {"format": FORMAT, "game": game, "version": version, "rules": dict(rules),
                           "players": players, "dealer": dealer, "deal": deal, "actions": actions}
    if outcome is not None:
        rec["outcome"] = dict(outcome)
    return rec


def check_envelope(record: Any, game: str, version: int, rule: str, extra: tuple[str, ...] = (),
                   changes: Mapping[int, str] | None = None) -> None:
    """Raise ``IllegalAction`` (citing ``rule``) unless ``record`` is an envelope of ``game``.

    Every envelope field but ``outcome`` and ``rules`` (absent: the defaults) is required; ``extra``
    lists the game's own optional top-level fields (dice poker's ``game_index``); any other field is an error.
    """
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", rule)
    if record.get("format") != FORMAT:
        raise IllegalAction(f"format must be {FORMAT!r}, not {record.get('format')!r}", rule)
    if record.get("game") != game:
        raise IllegalAction(f"not a {game} record (game is {record.get('game')!r})", rule)
    for key in ENVELOPE:
        if key not in ("outcome", "rules") and key not in record:
            raise IllegalAction(f"the record has no {key!r}", rule)
    unknown = [k for k in record if k not in ENVELOPE and k not in extra]
    if unknown:
        raise IllegalAction(f"unknown record field(s) {', '.join(map(repr, unknown))}", rule)
    v = record.get("version")
    if isinstance(v, bool) or not isinstance(v, int):
        raise IllegalAction(f"version must be an integer, not {v!r}", rule)
    if v != version:
        # Name both versions and, where the game says, what changed between them (GameEntry.changes).
        said = changes or {}
        what = [f"version {n}: {said[n]}" for n in sorted(said) if min(v, version) < n <= max(v, version)]
        raise IllegalAction(f"the record was written by version {v} of {game}; this engine is version {version} "
                            "and replays only its own records" + (f" ({'; '.join(what)})" if what else ""), rule)
    if not isinstance(record.get("actions"), list):
        raise IllegalAction("actions must be a list", rule)
