"""One replay for every game: a ``rasklad-record/1`` record through its game's readable engine.

``replay_state(record)`` finds the game in the registry, converts an older record shape through the
game's ``legacy_record`` when it has one, rebuilds the fresh state with ``entry.from_record``
(which validates the envelope, the rules and the chance stub), then decodes and applies every
action in order. So a record obeys exactly the rules the engine plays by, and every error is an
``IllegalAction`` carrying the action's index (and deal, in a match) and the rule it breaks, or a
``RulesError`` naming the option.

A match-unit game's ``actions`` is one list per deal; its state says which deal is in progress
(``deal_no``), so an action listed under the wrong deal is reported there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from games.core import registry
from games.core.entry import GameEntry
from games.core.protocol import IllegalAction, RulesError, State
from games.core.records import check_outcome

__all__ = ["entry_of", "is_single_deal", "normalize", "replay", "replay_deal", "replay_state", "steps"]


def entry_of(record: Any) -> GameEntry:
    """The game entry a record names; ``ValueError`` naming the installed games when it names none."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "record")
    name = record.get("game")
    if not isinstance(name, str):
        raise IllegalAction(f"the record's 'game' must be a game name, not {name!r}", "record")
    try:
        return registry.game(name)
    except KeyError as e:
        raise ValueError(str(e.args[0])) from None


def normalize(record: Mapping[str, Any], entry: GameEntry | None = None) -> Mapping[str, Any]:
    """``record`` in the envelope: an older shape of the game (no ``format``) converted."""
    entry = entry or entry_of(record)
    if "format" not in record and entry.legacy_record is not None:
        converted = entry.legacy_record(record)
        if converted is not None:
            return converted
    return record


def _flat_actions(entry: GameEntry, actions: Any) -> Iterator[tuple[int | None, int, Any]]:
    """(deal, index, action) in play order; deal is None for a deal-unit game."""
    if not isinstance(actions, list):
        raise IllegalAction("actions must be a list", entry.record_rule_id)
    if entry.unit == "deal":
        for i, a in enumerate(actions):
            yield None, i, a
        return
    for k, deal_actions in enumerate(actions):
        if not isinstance(deal_actions, list):
            raise IllegalAction("a match record's actions are one list per deal", entry.record_rule_id, deal=k)
        for i, a in enumerate(deal_actions):
            yield k, i, a


def _deal_no(state: Any) -> int:
    """The deal in progress of a match-unit game's state (its declared ``deal_no``)."""
    return int(state.deal_no)


def _play(entry: GameEntry, record: Mapping[str, Any]) -> Iterator[tuple[State, int | None, int, Any, Any]]:
    """Apply the record's actions one by one, yielding (state before, deal, index, raw, decoded)."""
    st = entry.from_record(record)
    for k, i, raw in _flat_actions(entry, record.get("actions")):
        # An action after the end is the game's to reject (its apply names the rule that ended it).
        if k is not None and _deal_no(st) != k:
            raise IllegalAction(f"deal {_deal_no(st)} is in progress, but this action is listed under deal {k}",
                                entry.record_rule_id, i, k)
        try:
            action = entry.decode_action(st, raw, i)
            yield st, k, i, raw, action
            st.apply(action)
        except IllegalAction as e:
            raise e.at(i, k) from None
    if not st.is_over():
        actions = record.get("actions") or []
        raise IllegalAction(f"the record ends before the {entry.unit} does: seat {st.to_act()} is to act",
                            entry.record_rule_id, len(actions) if entry.unit == "deal" else None)
    yield st, None, -1, None, None


def replay_state(record: Mapping[str, Any]) -> State:
    """Validate and replay ``record``; the finished state."""
    entry = entry_of(record)
    rec = normalize(record, entry)
    last: State | None = None
    for st, *_ in _play(entry, rec):
        last = st
    assert last is not None
    return last


def is_single_deal(record: Mapping[str, Any], entry: GameEntry | None = None) -> bool:
    """Whether ``record`` is one deal of a match game written alone (``GameEntry.replay_deal``)."""
    entry = entry or entry_of(record)
    return (entry.replay_deal is not None and "format" not in record
            and isinstance(record.get("deal"), int) and not isinstance(record.get("deal"), bool))


def replay_deal(record: Mapping[str, Any], number: int) -> dict[str, Any]:
    """Validate and replay deal ``number`` (1-based) of a match record alone; that deal's outcome entry."""
    entry = entry_of(record)
    if entry.replay_deal is None:
        kind = "single deals" if entry.unit == "deal" else "matches that replay only whole"
        raise IllegalAction(f"--deal needs a match game that replays single deals; {entry.name} records are "
                            f"{kind}", entry.record_rule_id)
    return entry.replay_deal(normalize(record, entry), number)


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; its outcome. A stored ``outcome`` is checked field by field.

    A single deal of a match game written alone (``is_single_deal``) replays through the game's
    ``replay_deal`` hook, to that deal's outcome."""
    entry = entry_of(record)
    if is_single_deal(record, entry):
        assert entry.replay_deal is not None
        return entry.replay_deal(record, None)
    rec = normalize(record, entry)
    st = replay_state(rec)
    out = st.outcome()
    check_outcome(rec.get("outcome"), out, entry.record_rule_id)
    return out


def steps(record: Mapping[str, Any]) -> Iterator[str]:
    """A readable playthrough: one line per action (who did what, in the rules' words), then the scores."""
    entry = entry_of(record)
    rec = normalize(record, entry)
    players = rec.get("players")
    yield f"{entry.title} — {players} players, dealer seat {rec.get('dealer')}, rules {rec.get('rules')}"
    for st, k, i, raw, action in _play(entry, rec):
        if i < 0:
            out = st.outcome()
            check_outcome(rec.get("outcome"), out, entry.record_rule_id)
            yield f"scores: {out['scores']}"
            return
        where = f"{k}.{i}" if k is not None else f"{i}"
        try:  # describing comes before applying: an illegal action's error must still say where it is
            text = entry.describe_action(st, action) if entry.describe_action is not None else str(raw)
        except IllegalAction as e:
            raise e.at(i, k) from None
        yield f"{where:>5}  {text}"


def rules_error_line(e: RulesError) -> str:
    """One line for a ``RulesError`` (``rules.max_exchange_rounds: must be ... (OP-6.8)``)."""
    where = f"rules.{e.field}: " if e.field else "rules: "
    return where + str(e)
