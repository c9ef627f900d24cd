"""Quintet deal records (Q-4): the envelope's ``deal`` and actions, and the older record shape.

A record is the ``rasklad-record/1`` envelope with ``deal: {"removed": [seven cards]}`` (Q-1.2) and
two actions, one per seat in seat order: ``{"seat": s, "layout": [[five cards] x 5]}`` (Q-1.3).
Records written before the envelope (top-level ``removed`` and ``layouts``) are converted by
``legacy_record``. A bad layout is rejected naming its seat as the action index and the packet or
card at fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_id
from games.core.protocol import IllegalAction, RulesError
from games.core.records import FORMAT
from games.quintet.rules import NAME, PLAYERS, VERSION, Rules
from games.quintet.state import State

__all__ = ["decode_action", "from_record", "legacy_record", "record_rules", "replay", "replay_state",
           "state_from_record"]


def legacy_record(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """A record of the shape written before the envelope (``removed``/``layouts`` at the top), converted."""
    if "format" in record or "removed" not in record:
        return None
    layouts = record.get("layouts")
    actions: Any = ([{"seat": s, "layout": lay} for s, lay in enumerate(layouts)]
                    if isinstance(layouts, list) else layouts)
    out: dict[str, Any] = {"format": FORMAT, "game": record.get("game"), "version": VERSION,
                           "rules": record.get("rules") or {}, "players": PLAYERS, "dealer": record.get("dealer"),
                           "deal": {"removed": record.get("removed")}, "actions": actions}
    if "outcome" in record:
        out["outcome"] = record["outcome"]
    return out


def record_rules(record: Mapping[str, Any]) -> Rules:
    """A record's rules (``GameEntry.record_rules``): the seats first (Q-1.1), then the options (Q-1.4)."""
    if record["players"] != PLAYERS:
        raise IllegalAction(f"quintet is played by {PLAYERS} players, not {record['players']!r}", "Q-1.1")
    try:
        return Rules.from_dict(record.get("rules"))
    except RulesError as e:
        raise RulesError(e.message, e.field, e.rule or "Q-1.4") from None


def from_record(record: Mapping[str, Any], rules: Rules) -> State:
    """The deal of an envelope ``record`` before anyone lays out (validates dealer, removed); the entry
    has checked the envelope and read ``rules`` (``record_rules``)."""
    deal = record["deal"]
    removed = deal.get("removed") if isinstance(deal, Mapping) else None
    if not isinstance(removed, list) or not all(isinstance(c, str) for c in removed):
        raise IllegalAction("deal.removed must be a list of card names", "Q-4")
    try:
        ids = [card_id(c) for c in removed]
    except ValueError as e:
        raise IllegalAction(f"removed: {e}", "Q-1.1") from None
    if len(record["actions"]) > PLAYERS:
        raise IllegalAction(f"the record has {len(record['actions'])} layouts, a deal has {PLAYERS}", "Q-4",
                            PLAYERS)
    return State.from_removed(rules, record["dealer"], ids)


def decode_action(state: State, obj: Any, index: int) -> Any:
    """A record action's layout (checked by ``State.apply``); the seat must be the one to lay out."""
    if not isinstance(obj, Mapping) or "layout" not in obj:
        raise IllegalAction("an action is {\"seat\": s, \"layout\": five packets}", "Q-4", index)
    if obj.get("seat") != state.to_act():
        raise IllegalAction(f"action {index} is seat {state.to_act()}'s layout, not seat {obj.get('seat')!r}'s",
                            "Q-1.3", index)
    return obj["layout"]


def state_from_record(record: Mapping[str, Any]) -> State:
    """``from_record`` for a record of either shape (the envelope, or the older one)."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "Q-4")
    from games.core import registry  # the entry, found at run time (it imports this module)

    st = registry.game(NAME).state_from_record(legacy_record(record) or record)
    assert isinstance(st, State)
    return st


def _check_game(record: Any) -> None:
    if not isinstance(record, Mapping) or record.get("game") != NAME:
        game = record.get("game") if isinstance(record, Mapping) else None
        raise IllegalAction(f"not a {NAME} record (game is {game!r})", "Q-4")


def replay_state(record: Mapping[str, Any]) -> State:
    """Lay both layouts of ``record`` (either shape); the finished ``State``."""
    from games.core.replay import replay_state as generic

    _check_game(record)
    return generic(record)  # type: ignore[return-value]


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; its outcome (``scores``, ``winners``, ``categories``; checked, Q-4)."""
    from games.core.replay import replay as generic

    _check_game(record)
    return generic(record)
