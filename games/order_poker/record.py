"""Order Poker deal records: validate and replay (docs/rules/order-poker.md, OP-9; the format in docs/order-poker.md).

``replay(record)`` rebuilds the deal from the dealt cards, applies every action through the
engine (so a record obeys exactly the rules the engine plays by) and returns the outcome.
Any illegal record raises ``IllegalAction`` naming the action index and the rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_id
from games.core.protocol import IllegalAction
from games.core.records import check_outcome
from games.order_poker.actions import from_dict
from games.order_poker.rules import Rules
from games.order_poker.state import State

GAME = "order-poker"


def _cards(v: Any, who: str) -> list[int]:
    if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
        raise IllegalAction(f"{who} must be a list of card names", "OP-9")
    try:
        return [card_id(c) for c in v]
    except ValueError as e:
        raise IllegalAction(f"{who}: {e}", "OP-1.1") from None


def state_from_record(record: Mapping[str, Any]) -> State:
    """The deal of ``record`` as dealt, before any action (validates game, rules and cards)."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "OP-9")
    if record.get("game") != GAME:
        raise IllegalAction(f"not an {GAME} record (game is {record.get('game')!r})", "OP-9")
    for key in ("players", "dealer", "hands", "robot", "actions"):
        if key not in record:
            raise IllegalAction(f"the record has no {key!r}", "OP-9")
    try:
        rules = Rules.from_dict(record.get("rules"))
    except (TypeError, ValueError) as e:
        raise IllegalAction(f"rules: {e}", "OP-6.8" if "max_exchange" in str(e) else "OP-7") from None
    hands = record["hands"]
    if not isinstance(hands, list):
        raise IllegalAction("hands must be a list of hands", "OP-9")
    parsed = [_cards(h, f"hand {i}") for i, h in enumerate(hands)]
    robot = _cards(record["robot"], "robot")
    return State.from_hands(rules, record["players"], record["dealer"], parsed, robot)


def replay_state(record: Mapping[str, Any]) -> State:
    """Replay every action of ``record``; the finished ``State`` (the record must end the deal)."""
    st = state_from_record(record)
    actions = record["actions"]
    if not isinstance(actions, list):
        raise IllegalAction("actions must be a list", "OP-9")
    for i, d in enumerate(actions):
        a = from_dict(d, i)
        if st.is_over():
            raise IllegalAction(f"action after the end of the deal (it ended by {st.end_rule})",
                                st.end_rule, i)
        st.apply(a)  # its IllegalAction carries index len(st.actions) == i
    if not st.is_over():
        raise IllegalAction(f"the record ends before the deal does: seat {st.to_act()} is to act in the "
                            f"{st.phase} phase", "OP-9", len(actions))
    return st


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; return its outcome.

    An ``outcome`` already in the record is compared field by field with the replayed one;
    a difference raises ``IllegalAction`` (OP-9) naming the field.
    """
    st = replay_state(record)
    out = st.outcome()
    check_outcome(record.get("outcome"), out, "OP-9")
    return out
