"""Quintet deal records (Q-4): validate and replay.

``replay(record)`` rebuilds the deal from the removed cards, lays both layouts through the
engine (so a record obeys exactly the rules the engine plays by) and returns the outcome.
A bad record raises ``IllegalAction`` naming the rule; a bad layout also names its seat as
the action index and the packet or card at fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_id
from games.core.protocol import IllegalAction
from games.core.records import check_outcome
from games.quintet.rules import PLAYERS, Rules
from games.quintet.state import State

GAME = "quintet"


def state_from_record(record: Mapping[str, Any]) -> State:
    """The deal of ``record`` before anyone lays out (validates game, rules, dealer, removed)."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "Q-4")
    if record.get("game") != GAME:
        raise IllegalAction(f"not a {GAME} record (game is {record.get('game')!r})", "Q-4")
    for key in ("dealer", "removed", "layouts"):
        if key not in record:
            raise IllegalAction(f"the record has no {key!r}", "Q-4")
    try:
        rules = Rules.from_dict(record.get("rules"))
    except (TypeError, ValueError) as e:
        raise IllegalAction(f"rules: {e}", "Q-1.4") from None
    removed = record["removed"]
    if not isinstance(removed, list) or not all(isinstance(c, str) for c in removed):
        raise IllegalAction("removed must be a list of card names", "Q-4")
    try:
        ids = [card_id(c) for c in removed]
    except ValueError as e:
        raise IllegalAction(f"removed: {e}", "Q-1.1") from None
    return State.from_removed(rules, record["dealer"], ids)


def replay_state(record: Mapping[str, Any]) -> State:
    """Lay both layouts of ``record``; the finished ``State``."""
    st = state_from_record(record)
    layouts = record["layouts"]
    if not isinstance(layouts, list):
        raise IllegalAction("layouts must be a list of the two seats' layouts", "Q-4")
    if len(layouts) != PLAYERS:
        raise IllegalAction(f"the record has {len(layouts)} layouts, a deal has {PLAYERS}", "Q-4",
                            min(len(layouts), PLAYERS))
    for lay in layouts:
        st.apply(lay)  # IllegalAction with index = the seat, naming the packet or the card
    return st


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; return its outcome (``scores``, ``winners``, ``categories``).

    An ``outcome`` already in the record is compared field by field with the replayed one;
    a difference raises ``IllegalAction`` (Q-4) naming the field.
    """
    st = replay_state(record)
    out = st.outcome()
    check_outcome(record.get("outcome"), out, "Q-4")
    return out
