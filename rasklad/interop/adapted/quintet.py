"""Quintet for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

A seat's one decision is a whole layout (Q-1.3), one of 25! / (5!)^5 = 6.2 x 10^14: no learner or tabular
algorithm can use an action head that size, so the adapter numbers a layout as 25 placements (``Adapter.wrap``):
the seat to act puts its held cards, lowest card id first, one by one into packet 1..5 (actions 0..4;
a full packet is not legal). Each layout is reached by exactly one sequence of placements and no seat
sees another's placements (Q-1.3: the layouts are secret until both are in), so the placements are the
same game as the one layout decision: the same pure strategies and the same outcomes. The engine gets
the whole layout with the seat's 25th placement; records hold whole layouts as ever.

Chance: ``State.deal`` shuffles the 32 cards and removes the first seven (Q-1.2); the adapter draws them
one by one in that order, each card uniform over the cards not drawn yet, so an outcome is a card id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.core.protocol import State as StateProtocol
from games.quintet.rules import DECK, PACKET, PACKETS, PLAYERS, REMOVED
from games.quintet.state import State as QState
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER", "Placing"]

_LOW, _CARDS = DECK[0], len(DECK)  # the 32-card deck is card ids 20..51
_HELD = PACKET * PACKETS


class Placing:
    """A Quintet deal whose layouts are laid card by card: the ``State`` the adapter's numbering plays on.

    ``inner`` is the engine's ``State``; ``placed[k]`` is the packet (0..4) the seat to act has put its
    k-th held card (ascending ids) into. Placements are the acting seat's own: its view shows them
    (``placed``), the other seat's view is the engine's, unchanged until the layout is in (Q-1.3).
    """

    def __init__(self, inner: QState, placed: Sequence[int] = ()) -> None:
        self.inner = inner
        self.rules, self.players, self.dealer = inner.rules, inner.players, inner.dealer
        self.placed: list[int] = list(placed)

    def copy(self) -> Placing:
        """An independent copy."""
        return Placing(self.inner.copy(), self.placed)

    def to_act(self) -> int:
        """The seat laying out (0, then 1), -1 once both layouts are in."""
        return self.inner.to_act()

    def is_over(self) -> bool:
        """True when both layouts are in and scored."""
        return self.inner.is_over()

    def legal_actions(self) -> list[int]:
        """The packets (0..4) that still have room for the next held card (Q-1.3: five cards each)."""
        if self.inner.is_over():
            return []
        counts = [0] * PACKETS
        for p in self.placed:
            counts[p] += 1
        return [p for p in range(PACKETS) if counts[p] < PACKET]

    def next_card(self) -> int:
        """The held card the next placement puts (the lowest not placed yet)."""
        return self.inner.held[len(self.placed)]

    def apply(self, packet: int) -> None:
        """Put the next held card into ``packet`` (0..4); the 25th placement lays the layout out."""
        if packet not in self.legal_actions():
            raise IllegalAction(f"packet {packet + 1 if isinstance(packet, int) else packet!r} cannot take "
                                f"another card: a packet holds {PACKET} (packets are 1..{PACKETS})", "Q-1.3")
        self.placed.append(int(packet))
        if len(self.placed) == _HELD:
            self.inner.apply(self.layout())
            self.placed = []

    def layout(self) -> tuple[tuple[int, ...], ...]:
        """The packets of the placements so far, packet 1 first (each a tuple of ascending card ids)."""
        held = self.inner.held
        return tuple(tuple(held[k] for k, p in enumerate(self.placed) if p == q) for q in range(PACKETS))

    def scores(self) -> list[int]:
        """The engine's scores (Q-1.4)."""
        return self.inner.scores()

    def view(self, seat: int) -> dict[str, Any]:
        """The engine's view; the seat laying out also sees its placements so far (``placed``)."""
        v = self.inner.view(seat)
        if seat == self.inner.to_act():
            v["placed"] = list(self.placed)
        return v

    def record(self) -> dict[str, Any]:
        """The engine's record (whole layouts, Q-4)."""
        return self.inner.record()

    def outcome(self) -> dict[str, Any]:
        """The engine's outcome (only once over)."""
        return self.inner.outcome()


def _q_wrap(state: StateProtocol) -> StateProtocol:
    return Placing(state)  # type: ignore[arg-type]


def _q_action_id(state: Any, action: Any) -> int:
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or not 0 <= int(action) < PACKETS:
        raise ValueError(f"a quintet placement is a packet 0..{PACKETS - 1}, not {action!r}")
    return int(action)


def _q_action(state: Any, action_id: int) -> int:
    return _q_action_id(state, action_id)


def _q_encode(state: Any, action: Any) -> dict[str, Any]:
    return {"seat": state.to_act(), "card": card_str(state.next_card()), "packet": int(action) + 1}


def _q_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """Q-1.2: the next of the seven removed cards, uniform over the 32 cards not drawn yet."""
    if len(drawn) >= REMOVED:
        return []
    left = [c for c in DECK if c not in drawn]
    p = 1.0 / len(left)
    return [(c, p) for c in left]


def _q_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> StateProtocol:
    return Placing(QState(rules, dealer, tuple(int(c) for c in drawn)))  # as QState.deal with this deck order


def _q_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    return f"removed card {len(drawn) + 1}: {card_str(outcome)}"


def _q_tensor_size(rules: Any, players: int) -> int:
    return 2 + 2 + _CARDS + (PLAYERS + 1) + PLAYERS + 2 * _CARDS * PACKETS + PACKETS * 3


def _layout_into(out: np.ndarray, base: int, packets: Sequence[Sequence[int]]) -> None:
    for q, packet in enumerate(packets):
        for c in packet:
            out[base + (int(c) - _LOW) * PACKETS + q] = 1


def _q_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """What the view shows: seat, dealer, the removed cards, the seat to act, who has laid out, the seat's
    own layout (its placements so far while it lays out: card x packet), the other's once both are in, and
    the winner of every comparison (seat 0, seat 1 or a tie)."""
    out = np.zeros(_q_tensor_size(rules, players), np.float32)
    seat = int(view["seat"])
    out[seat] = 1
    out[2 + view["dealer"]] = 1
    b = 4
    for c in view["removed"]:
        out[b + c - _LOW] = 1
    b += _CARDS
    out[b + (view["to_act"] if view["to_act"] >= 0 else PLAYERS)] = 1
    b += PLAYERS + 1
    for s, laid in enumerate(view["laid"]):
        out[b + s] = 1 if laid else 0
    b += PLAYERS
    if view["layout"] is not None:
        _layout_into(out, b, view["layout"])
    elif view.get("placed"):
        held = view["cards"]
        _layout_into(out, b, [[held[k] for k, p in enumerate(view["placed"]) if p == q] for q in range(PACKETS)])
    b += _CARDS * PACKETS
    if view["over"]:
        _layout_into(out, b, view["layouts"][1 - seat])
    b += _CARDS * PACKETS
    for i, w in enumerate(view.get("winners", ())):
        out[b + 3 * i + (2 if w is None else w)] = 1
    return out


def _q_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> StateProtocol:
    """The deal of ``view``: the removed cards, the seat's own layout (or placements so far), the other's
    layout once shown; a layout the seat may not see yet (seat 0's, while seat 1 lays out) drawn at random."""
    seat = int(view["seat"])
    inner = QState.from_removed(view["rules"], int(view["dealer"]), list(view["removed"]))
    if view["over"]:
        for lay in view["layouts"]:
            inner.apply(lay)
    elif view["laid"][0]:
        inner.apply(view["layout"] if seat == 0 else inner.space.sample(rng))
    return Placing(inner, view.get("placed", ()))


def _q_resample(state: Any, seat: int, rng: np.random.Generator) -> StateProtocol:
    """``GameEntry.resample_hidden`` on the placements: seat 0's layout, while seat 1 may not see it, drawn
    again; seat 1's own placements kept."""
    inner = state.inner
    if inner.is_over() or seat == 0 or inner.layouts[0] is None:
        return state.copy()  # type: ignore[no-any-return]
    fresh = QState.from_removed(inner.rules, inner.dealer, list(inner.removed))
    fresh.apply(fresh.space.sample(rng))
    return Placing(fresh, state.placed)


def _q_decision(state: Any, seat: int) -> Any:
    return state.inner.layouts[seat]


ADAPTER = Adapter(
    game="quintet", num_actions=lambda rules, players: PACKETS, action_id=_q_action_id, action=_q_action,
    chance=_q_chance, chance_max=lambda rules, players: _LOW + _CARDS, start=_q_start,
    tensor_size=_q_tensor_size, tensor=_q_tensor, seat_state=_q_seat_state,
    max_length=lambda rules, players: REMOVED + PLAYERS * _HELD,
    utility=lambda rules, players: (0.0, float(rules.total)), zero_sum=False, public_actions=False,
    chance_name=_q_chance_name, cases=({}, {"dealer": 1}),
    wrap=_q_wrap, encode=_q_encode, resample=_q_resample, decision=_q_decision)
