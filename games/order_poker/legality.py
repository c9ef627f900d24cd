"""Why an action is illegal: the rule it breaks (the slow path of ``State.apply``).

``State.legal_actions`` decides legality; this module only explains a rejected action, so
records fail with the action's index and an ``OP-x.y`` number (OP-9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.order_poker.actions import Action
from games.order_poker.hands import combination
from games.order_poker.phases import OVER
from games.order_poker.rules import COMBINATIONS, NONE, ROBOT

if TYPE_CHECKING:
    from games.order_poker.state import State

_PHASE_RULE = {"bidding": "OP-3.1", "roles": "OP-5.1", "exchange": "OP-6.2"}
_PHASE_TYPES = {"bidding": ("pass", "order"), "roles": ("role",), "exchange": ("swap", "keep", "stop")}


def _cards(cs: Any) -> str:
    return " ".join(card_str(c) for c in cs)


def diagnose(st: State, a: Any, index: int) -> IllegalAction:
    """The ``IllegalAction`` for ``a``, which is not in ``st.legal_actions()``."""
    def bad(msg: str, rule: str) -> IllegalAction:
        return IllegalAction(msg, rule, index)

    if not isinstance(a, Action):
        return bad(f"not an Order Poker action: {a!r}", "OP-9")
    if st.phase == OVER:
        return bad(f"the deal is already over (it ended by {st.end_rule})", st.end_rule)
    if a.seat != st.turn:
        return bad(f"seat {a.seat} acted, but it is seat {st.turn}'s turn", _PHASE_RULE[st.phase])
    if a.type not in _PHASE_TYPES[st.phase]:
        return bad(f"{a.type!r} is not an action of the {st.phase} phase "
                   f"(allowed: {', '.join(_PHASE_TYPES[st.phase])})", _PHASE_RULE[st.phase])
    if a.type == "order":
        if not 1 <= a.combination < len(COMBINATIONS):
            return bad(f"combination {a.combination} cannot be ordered", "OP-3.2")
        name = COMBINATIONS[a.combination]
        if a.combination == st.banned_cat:
            return bad(f"{name} is the robot's combination and cannot be ordered", "OP-3.2")
        if a.combination in st.bids:
            return bad(f"{name} was already announced in this deal", "OP-3.2")
    if a.type == "stop":
        if a.seat != st.orderer:
            return bad(f"only the orderer (seat {st.orderer}) may say stop", "OP-6.3")
        return bad("stop is allowed from round 2 on, this is round 1", "OP-6.3")
    if a.type == "swap":
        hand = st.hands[a.seat]
        if a.give == a.take:
            return bad(f"a swap must exchange two different cards ({card_str(a.give)})", "OP-6.6")
        own_rule = "OP-6.3" if a.seat == st.orderer else "OP-6.5"
        if a.source != ROBOT:
            if a.seat != st.orderer:
                return bad(f"seat {a.seat} is not the orderer and may swap only with the robot", "OP-6.5")
            if not 0 <= a.source < st.players or st.roles[a.source] != "for":
                return bad(f"seat {a.source} is not an open `for` player", "OP-6.3")
            if st.partner >= 0 and a.source != st.partner:
                return bad(f"the orderer already used `for` player {st.partner}; only one may be used",
                           "OP-6.4")
        src = st.robot if a.source == ROBOT else st.hands[a.source]
        who = "the robot" if a.source == ROBOT else f"seat {a.source}"
        if a.give not in hand:
            return bad(f"seat {a.seat} does not hold {card_str(a.give)} (holds {_cards(hand)})", own_rule)
        if a.take not in src:
            return bad(f"{who} does not hold {card_str(a.take)} (holds {_cards(src)})", own_rule)
        if a.seat != st.orderer:
            after = list(st.robot)
            after[after.index(a.take)] = a.give
            new = combination(after)
            if st.robot_cat != NONE and new < st.robot_cat:
                return bad(f"the swap lowers the robot's combination from {COMBINATIONS[st.robot_cat]} "
                           f"to {COMBINATIONS[new]}", "OP-6.5")
    return bad(f"illegal action {a}", _PHASE_RULE[st.phase])
