"""The Quintet deal (Q-1): the dealer's seven removed cards, two layouts, five comparisons.

Both players lay out simultaneously (Q-1.3). The engine takes the layouts one after the other
(seat 0, then seat 1: ``to_act()``), and the simultaneity lives in ``view``: no view shows the
other seat's layout before both are in, so seat 1 decides knowing nothing seat 0 did except
that it has laid out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.core.records import envelope
from games.quintet.layout import Layout, LayoutSpace, category_name, check_layout, compare, layout_strs, packet_values
from games.quintet.rules import DECK, NAME, PLAYERS, REMOVED, VERSION, Rules

_DECK_SET = frozenset(DECK)


def _check_seat(name: str, v: Any, rule: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= int(v) < PLAYERS:
        raise IllegalAction(f"{name} must be a seat 0..{PLAYERS - 1}, not {v!r}", rule)
    return int(v)


class State:
    """One Quintet deal in progress (the State protocol of games.core.protocol)."""

    def __init__(self, rules: Rules, dealer: int, removed: tuple[int, ...]) -> None:
        """Use ``State.deal`` or ``State.from_removed``; this checks nothing."""
        self.rules = rules
        self.players = PLAYERS
        self.dealer = dealer
        self.removed = removed
        # ascending, as DECK (the set difference and sort run in C: a job deals this once per deal)
        self.held: tuple[int, ...] = tuple(sorted(_DECK_SET.difference(removed)))
        self._space: LayoutSpace | None = None
        self.layouts: list[Layout | None] = [None, None]
        self._values: list[list[int]] = []
        self._scores: list[int] | None = None
        self._winners: list[int | None] = []

    @property
    def space(self) -> LayoutSpace:
        """Every layout of the 25 held cards (Q-1.3), built when first asked for (a compiled play-out
        of a job's deal never asks)."""
        if self._space is None:
            self._space = LayoutSpace(self.held)
        return self._space

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_removed(cls, rules: Rules, dealer: int, removed: list[int]) -> State:
        """The deal whose dealer laid ``removed`` (7 card ids) face up (Q-1.2).

        Raises ``IllegalAction`` for a bad dealer (Q-1.5), not 7 cards, a card outside the
        32-card deck or a repeated card (Q-1.1, Q-1.2).
        """
        d = _check_seat("dealer", dealer, "Q-1.5")
        if isinstance(removed, str) or not isinstance(removed, list | tuple):
            raise IllegalAction("removed must be a list of cards", "Q-1.2")
        if len(removed) != REMOVED:
            raise IllegalAction(f"the dealer removes {REMOVED} cards, not {len(removed)}", "Q-1.2")
        seen: set[int] = set()
        for c in removed:
            if isinstance(c, bool) or not isinstance(c, int | np.integer) or int(c) not in _DECK_SET:
                name = card_str(int(c)) if isinstance(c, int | np.integer) and 0 <= int(c) < 52 else repr(c)
                raise IllegalAction(f"removed card {name} is not in the 32-card deck 7..A", "Q-1.1")
            if int(c) in seen:
                raise IllegalAction(f"removed card {card_str(int(c))} is given twice", "Q-1.2")
            seen.add(int(c))
        return cls(rules, d, tuple(int(c) for c in removed))

    @classmethod
    def deal(cls, rules: Rules, players: int = PLAYERS, dealer: int = 0,
             rng: np.random.Generator | None = None) -> State:
        """Q-1.2: the dealer shuffles his 32 cards with ``rng`` and lays the first seven face up."""
        if players != PLAYERS or isinstance(players, bool):
            raise IllegalAction(f"quintet is played by {PLAYERS} players, not {players!r}", "Q-1.1")
        if rng is None:
            raise ValueError("State.deal needs an explicit numpy Generator (rng)")
        d = _check_seat("dealer", dealer, "Q-1.5")
        removed = tuple(map(DECK.__getitem__, rng.permutation(len(DECK))[:REMOVED].tolist()))
        return cls(rules, d, removed)

    def copy(self) -> State:
        """An independent copy."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)
        st.layouts = list(self.layouts)
        st._values = [list(v) for v in self._values]
        st._winners = list(self._winners)
        return st

    # ----------------------------------------------------------------- protocol
    def to_act(self) -> int:
        """The seat whose layout is still missing (0 first), -1 once both are in."""
        for s in range(PLAYERS):
            if self.layouts[s] is None:
                return s
        return -1

    def is_over(self) -> bool:
        """True when both layouts are in and the deal is scored."""
        return self._scores is not None

    def legal_actions(self) -> LayoutSpace:
        """The action space of the seat to act: a lazy ``LayoutSpace`` of the 25 held cards.

        Both seats hold the same cards (Q-1.2), so the space is the same object for both. It is
        a ``Sequence`` (``len``, ``space[i]``, ``in``, ``sample(rng)``) that is never listed whole;
        it is empty once the deal is over.
        """
        return self.space if not self.is_over() else LayoutSpace(())

    def apply(self, action: Any) -> None:
        """Lay out the seat to act: ``action`` is 5 packets of 5 cards (ids or names).

        An invalid layout raises ``IllegalAction`` naming the packet or the card; its index is
        the seat (seat 0's layout is action 0, seat 1's action 1).
        """
        seat = self.to_act()
        if seat < 0:
            raise IllegalAction("the deal is over: both layouts are in", "Q-1.3", PLAYERS)
        self.layouts[seat] = check_layout(action, self.space.held, seat)
        if seat == PLAYERS - 1:
            self._score()

    def _score(self) -> None:
        lay0, lay1 = self.layouts
        assert lay0 is not None and lay1 is not None
        self._values = [packet_values(lay0), packet_values(lay1)]
        self._scores, self._winners = compare(self._values[0], self._values[1], self.rules.points)

    # ----------------------------------------------------------------- results
    def scores(self) -> list[int]:
        """Points of both seats (zeros until the deal is over)."""
        return list(self._scores) if self._scores is not None else [0, 0]

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: the removed cards, its 25 cards, its own layout once laid.

        ``laid`` says which seats have laid out. The other seat's layout, the packet
        categories and the scores appear only once both layouts are in (Q-1.3).
        """
        over = self.is_over()
        v: dict[str, Any] = {
            "seat": seat, "players": PLAYERS, "dealer": self.dealer, "rules": self.rules,
            "points": self.rules.points, "removed": list(self.removed), "cards": list(self.held),
            "to_act": self.to_act(), "laid": [lay is not None for lay in self.layouts],
            "layout": self.layouts[seat], "over": over,
        }
        if over:
            v["layouts"] = list(self.layouts)
            v["scores"] = self.scores()
            v["winners"] = list(self._winners)
        return v

    def outcome(self) -> dict[str, Any]:
        """The record's ``outcome``: scores, the winner of every comparison, the packets' categories."""
        if not self.is_over():
            raise ValueError("the deal is not over")
        return {
            "scores": self.scores(),
            "winners": list(self._winners),
            "categories": [[category_name(v) for v in vals] for vals in self._values],
        }

    def record(self) -> dict[str, Any]:
        """The deal record (Q-4) in the ``rasklad-record/1`` envelope; ``outcome`` once over.

        ``deal`` is the chance stub: the seven cards the dealer removed (Q-1.2); each action is
        one seat's whole layout, ``{"seat": s, "layout": [[five cards] x 5]}``.
        """
        actions = [{"seat": s, "layout": layout_strs(lay)} for s, lay in enumerate(self.layouts) if lay is not None]
        return envelope(NAME, VERSION, self.rules.to_dict(), PLAYERS, self.dealer,
                        {"removed": [card_str(c) for c in self.removed]}, actions,
                        self.outcome() if self.is_over() else None)
