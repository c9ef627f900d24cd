"""Order Poker deal records (OP-9): the envelope's ``deal`` and actions, and the older record shape.

A record is the ``rasklad-record/1`` envelope with ``deal: {"hands": [...], "robot": [...]}`` (the
cards as dealt, OP-1.4) and the actions of ``games.order_poker.actions``. ``from_record`` validates
the cards and returns the fresh ``State`` (the entry checks the envelope and reads the rules first); the generic replay
(``games.core.replay``) applies the actions. Records written before the envelope (top-level
``hands`` and ``robot``, no ``format``) are converted by ``legacy_record``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_id
from games.core.protocol import IllegalAction
from games.core.records import FORMAT
from games.order_poker.actions import from_dict
from games.order_poker.rules import NAME, VERSION, Rules
from games.order_poker.state import State

__all__ = ["from_record", "legacy_record", "replay", "replay_state", "state_from_record"]


def _cards(v: Any, who: str) -> list[int]:
    if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
        raise IllegalAction(f"{who} must be a list of card names", "OP-9")
    try:
        return [card_id(c) for c in v]
    except ValueError as e:
        raise IllegalAction(f"{who}: {e}", "OP-1.1") from None


def legacy_record(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """A record of the shape written before the envelope (``hands``/``robot`` at the top), converted."""
    if "format" in record or "hands" not in record:
        return None
    out: dict[str, Any] = {"format": FORMAT, "game": record.get("game"), "version": VERSION,
                           "rules": record.get("rules") or {}, "players": record.get("players"),
                           "dealer": record.get("dealer"),
                           "deal": {"hands": record.get("hands"), "robot": record.get("robot")},
                           "actions": record.get("actions")}
    if "outcome" in record:
        out["outcome"] = record["outcome"]
    return out


def from_record(record: Mapping[str, Any], rules: Rules) -> State:
    """The deal of an envelope ``record`` as dealt, before any action (validates the cards); the entry
    has checked the envelope and read ``rules`` (``GameEntry.state_from_record``)."""
    deal = record["deal"]
    if not isinstance(deal, Mapping) or "hands" not in deal or "robot" not in deal:
        raise IllegalAction("deal must be an object with 'hands' and 'robot'", "OP-9")
    hands = deal["hands"]
    if not isinstance(hands, list):
        raise IllegalAction("deal.hands must be a list of hands", "OP-9")
    parsed = [_cards(h, f"hand {i}") for i, h in enumerate(hands)]
    robot = _cards(deal["robot"], "robot")
    return State.from_hands(rules, record["players"], record["dealer"], parsed, robot)


def decode_action(state: State, obj: Any, index: int) -> Any:
    """A record action as the engine's ``Action`` (malformed: ``IllegalAction`` with the index)."""
    return from_dict(obj, index)


def state_from_record(record: Mapping[str, Any]) -> State:
    """``from_record`` for a record of either shape (the envelope, or the older one)."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "OP-9")
    from games.core import registry  # the entry, found at run time (it imports this module)

    st = registry.game(NAME).state_from_record(legacy_record(record) or record)
    assert isinstance(st, State)
    return st


def _check_game(record: Any) -> None:
    if not isinstance(record, Mapping) or record.get("game") != NAME:
        game = record.get("game") if isinstance(record, Mapping) else None
        raise IllegalAction(f"not an {NAME} record (game is {game!r})", "OP-9")


def replay_state(record: Mapping[str, Any]) -> State:
    """Replay every action of ``record`` (either shape); the finished ``State``."""
    from games.core.replay import replay_state as generic

    _check_game(record)
    return generic(record)  # type: ignore[return-value]


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; its outcome (a stored ``outcome`` is checked field by field, OP-9)."""
    from games.core.replay import replay as generic

    _check_game(record)
    return generic(record)
