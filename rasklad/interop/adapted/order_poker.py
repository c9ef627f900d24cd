"""Order Poker for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

Actions (1,309): 0 pass, 1..8 the order of that OP-2 rank, 9 ``for``, 10 ``against``, 11 keep (не меняю),
12 stop, then ``13 + 36 * (give - 16) + (take - 16)`` a swap giving card ``give`` for card ``take`` (card
ids of the 36-card deck, 16..51). A swap's source (the robot or a ``for`` player's open hand) is not in
its number: ``take`` lies in exactly one hand of a state, so the number has one meaning everywhere.
The acting seat is the state's ``to_act`` (never in the number).

Chance: ``State.deal`` shuffles the 36 cards and deals seat 0's five, seat 1's five, ..., then the
robot's five (OP-1.4); the adapter deals them one by one in that order, each card uniform over the cards
not dealt yet, so an outcome is a card id. Every action is public (bids and roles are spoken, a swap
moves cards to or from face-up hands), so the information state carries every decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

_LOW, _CARDS = 16, 36  # the 36-card deck is card ids 16..51 (OP-1.1)
_SIMPLE = 13  # pass, 8 orders, for, against, keep, stop (games.order_poker.actions.SIMPLE's block)
_PHASES = ("bidding", "roles", "exchange", "over")


def _op_num_actions(rules: Any, players: int) -> int:
    return _SIMPLE + _CARDS * _CARDS


def _op_action_id(state: Any, action: Any) -> int:
    from games.order_poker.actions import AGAINST, FOR, KEEP, STOP

    kind = action.type
    if kind == "pass":
        return 0
    if kind == "order":
        return int(action.combination)  # OP-2 ranks 1..8
    if kind == "role":
        return FOR if action.role == "for" else AGAINST
    if kind == "keep":
        return KEEP
    if kind == "stop":
        return STOP
    if kind == "swap":
        return _SIMPLE + _CARDS * (int(action.give) - _LOW) + int(action.take) - _LOW
    raise ValueError(f"not an Order Poker action: {action!r}")


def _op_action(state: Any, action_id: int) -> Any:
    from games.order_poker.actions import SIMPLE, SIMPLE_PER_SEAT, swap
    from games.order_poker.rules import ROBOT

    seat = int(state.to_act())
    if seat < 0:
        raise ValueError("the deal is over: no action")
    if not 0 <= action_id < _op_num_actions(state.rules, state.players):
        raise ValueError(f"action {action_id} is out of range 0..{_op_num_actions(state.rules, state.players) - 1}")
    if action_id < _SIMPLE:
        return SIMPLE[SIMPLE_PER_SEAT * seat + action_id]
    give, take = divmod(action_id - _SIMPLE, _CARDS)
    give, take = give + _LOW, take + _LOW
    source = ROBOT
    if take not in state.robot:  # OP-6.3: the orderer may take from a `for` player's open hand
        source = next((i for i, h in enumerate(state.hands) if take in h and i != seat), ROBOT)
    return swap(seat, give, take, source)


def _op_dealt(players: int) -> int:
    return 5 * (players + 1)  # OP-1.4: five cards to every player and to the robot


def _op_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """OP-1.4: the next card of the shuffled deck, uniform over the 36 cards not dealt yet."""
    if len(drawn) >= _op_dealt(players):
        return []
    left = [c for c in range(_LOW, _LOW + _CARDS) if c not in drawn]
    p = 1.0 / len(left)
    return [(c, p) for c in left]


def _op_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.order_poker.state import State as OPState

    cards = [int(c) for c in drawn]
    hands = [cards[5 * i: 5 * i + 5] for i in range(players)]
    return OPState(rules, players, dealer, hands, cards[5 * players:])  # as OPState.deal with this deck order


def _op_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    holder, j = divmod(len(drawn), 5)
    who = "robot" if holder == players else f"seat {holder}"
    return f"{who} card {j}: {card_str(outcome)}"


def _op_tensor_size(rules: Any, players: int) -> int:
    n, R = players, rules.max_exchange_rounds
    return int(2 * n + 4 + (n + 1) + 2 * _CARDS + 2 * 9 + 8 * n + 9 + n + (n + 1) + 2 * 9 + 3 * n + 1
               + n * _CARDS + (R + 1) + (n + 1) + 2 * n * _CARDS + 2 * n + n * _CARDS)


def _cards_into(out: np.ndarray, base: int, cards: Sequence[int]) -> None:
    for c in cards:
        out[base + int(c) - _LOW] = 1


def _op_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """What the view shows: seat, dealer, phase, seat to act, own hand, robot and its combination, the banned
    combination, who announced each combination, the standing bid, who is still bidding, orderer, order,
    stake, roles, open game, open hands, exchange round, partner, per seat the cards it gave and took by
    swaps, who kept or swapped in the round in progress, and every hand once the deal is over (OP-7)."""
    n, R = players, rules.max_exchange_rounds
    out = np.zeros(_op_tensor_size(rules, players), np.float32)
    out[view["seat"]] = 1
    out[n + view["dealer"]] = 1
    b = 2 * n
    out[b + _PHASES.index(view["phase"])] = 1
    b += 4
    out[b + (view["to_act"] if view["to_act"] >= 0 else n)] = 1
    b += n + 1
    _cards_into(out, b, view["hand"])
    _cards_into(out, b + _CARDS, view["robot"])
    b += 2 * _CARDS
    out[b + view["robot_combination"]] = 1
    out[b + 9 + view["banned"]] = 1
    b += 18
    for c, s in zip(view["bids"], view["bidders"], strict=True):
        out[b + (c - 1) * n + s] = 1
    b += 8 * n
    out[b + (view["bids"][-1] if view["bids"] else 0)] = 1
    b += 9
    for s, still in enumerate(view["in_bidding"]):
        out[b + s] = 1 if still else 0
    b += n
    out[b + (view["orderer"] if view["orderer"] >= 0 else n)] = 1
    b += n + 1
    out[b + max(view["order"], 0)] = 1
    out[b + 9 + view["stake"]] = 1
    b += 18
    for s, role in enumerate(view["roles"]):
        out[b + 3 * s + (0 if role is None else 1 if role == "for" else 2)] = 1
    b += 3 * n
    out[b] = 1 if view["open"] else 0
    b += 1
    for s, hand in view["open_hands"].items():
        _cards_into(out, b + int(s) * _CARDS, hand)
    b += n * _CARDS
    out[b + min(view["round"], R)] = 1
    b += R + 1
    out[b + (view["partner"] if view["partner"] >= 0 else n)] = 1
    b += n + 1
    acted: dict[int, str] = {}
    for a in view["actions"]:
        if a.type == "swap":
            out[b + a.seat * 2 * _CARDS + a.give - _LOW] = 1
            out[b + a.seat * 2 * _CARDS + _CARDS + a.take - _LOW] = 1
        if a.type in ("swap", "keep", "stop"):
            if a.seat == view["orderer"]:
                acted = {}  # OP-6.2: a round starts with the orderer
            acted[a.seat] = a.type
    b += 2 * n * _CARDS
    if view["phase"] == "exchange":
        for s, kind in acted.items():
            out[b + 2 * s + (0 if kind == "keep" else 1)] = 1
    b += 2 * n
    for s, hand in enumerate(view.get("hands", ())):
        _cards_into(out, b + s * _CARDS, hand)
    return out


def _op_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A deal the seat of ``view`` cannot tell from the real one: the hands it sees (its own, the robot, the
    open ``for`` hands, every hand once over) traced back through the public swaps to how they were dealt;
    each hidden hand dealt the cards it has shown by giving them to the robot before taking them (as
    ``games.order_poker.hidden``) and the rest drawn again from the cards nobody is known to hold; then
    every action replayed."""
    from games.order_poker.rules import DECK, ROBOT
    from games.order_poker.state import State as OPState

    players, seat = int(view["players"]), int(view["seat"])
    known: dict[int, list[int]] = {seat: list(view["hand"])}
    known.update({int(s): list(h) for s, h in view["open_hands"].items()})
    if "hands" in view:
        known.update({s: list(h) for s, h in enumerate(view["hands"])})
    robot = list(view["robot"])
    swaps = [a for a in view["actions"] if a.type == "swap"]
    for a in reversed(swaps):  # a swap put `take` where `give` was, in both hands (State._exchange)
        src = robot if a.source == ROBOT else known.get(a.source)
        if src is not None:
            src[src.index(a.give)] = a.take
        if a.seat in known:
            hand = known[a.seat]
            hand[hand.index(a.take)] = a.give
    hidden = [s for s in range(players) if s not in known]
    shown: dict[int, list[int]] = {}
    for s in hidden:
        taken: set[int] = set()
        shown[s] = []
        for a in swaps:
            if a.seat == s:
                if a.give in taken:
                    taken.discard(a.give)
                else:
                    shown[s].append(a.give)
                taken.add(a.take)
    fixed = set(robot).union(*known.values(), *shown.values())
    pool = [int(c) for c in rng.permutation([c for c in DECK if c not in fixed])]
    hands = [known.get(s, []) for s in range(players)]
    for s in hidden:
        need = 5 - len(shown[s])
        hands[s], pool = shown[s] + pool[:need], pool[need:]
    st = OPState.from_hands(view["rules"], players, int(view["dealer"]), hands, robot)
    for a in view["actions"]:
        st.apply(a)
    return st


def _op_max_length(rules: Any, players: int) -> int:
    # OP-3.2: every combination is announced at most once (8 orders), and each player passes at most once;
    # OP-5.1: every player but the orderer takes a role; OP-6.2/6.8: a round is one turn of every player.
    return int(_op_dealt(players) + (8 + players) + (players - 1) + rules.max_exchange_rounds * players)


def _op_utility(rules: Any, players: int) -> tuple[float, float]:
    return -1.0, 8.0  # OP-4, OP-7: -1 at worst; at best the stake S, at most the 8 combinations (OP-3.5)


ADAPTER = Adapter(
    game="order-poker", num_actions=_op_num_actions, action_id=_op_action_id, action=_op_action,
    chance=_op_chance, chance_max=lambda rules, players: _LOW + _CARDS, start=_op_start,
    tensor_size=_op_tensor_size, tensor=_op_tensor, seat_state=_op_seat_state,
    max_length=_op_max_length, utility=_op_utility, zero_sum=False, public_actions=True,
    chance_name=_op_chance_name,
    cases=({}, {"players": 4, "max_exchange_rounds": 2},
           {"players": 6, "against_half_min": "two_pair", "max_exchange_rounds": 3}))
