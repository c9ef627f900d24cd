"""Helpers of the Order Poker tests (no tests here): deals from card strings, actions from short text."""

from __future__ import annotations

from typing import Any

from games.core.cards import parse_cards
from games.order_poker import Rules, State
from games.order_poker.actions import Action, from_dict


def deal(hands: list[str], robot: str, dealer: int = 0, **rules: Any) -> State:
    """A deal of the given hands (``"6c 7d 8h 9s Jc"``)."""
    return State.from_hands(Rules(**rules), len(hands), dealer, [parse_cards(h) for h in hands],
                            parse_cards(robot))


def action(seat: int, text: str) -> Action:
    """An action from text: ``"pass"``, ``"order two_pair"``, ``"for"``, ``"keep"``, ``"stop"``,
    ``"swap 6c As"`` (with the robot), ``"swap 6c As 2"`` (with seat 2)."""
    w = text.split()
    if w[0] == "order":
        return from_dict({"seat": seat, "type": "order", "combination": w[1]})
    if w[0] in ("for", "against"):
        return from_dict({"seat": seat, "type": "role", "role": w[0]})
    if w[0] == "swap":
        src: Any = int(w[3]) if len(w) > 3 else "robot"
        return from_dict({"seat": seat, "type": "swap", "give": w[1], "take": w[2], "from": src})
    return from_dict({"seat": seat, "type": w[0]})


def play(st: State, *texts: str) -> State:
    """Apply actions, each by the seat to act."""
    for t in texts:
        st.apply(action(st.to_act(), t))
    return st
