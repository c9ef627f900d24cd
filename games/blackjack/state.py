"""The readable blackjack engine, shared part: hands, the stock, the log of actions and events.

``Table`` is the base of the three games (``home.HomeState``, ``ochko.OchkoState``,
``casino.CasinoState``); ``games.blackjack.dealing.deal(rules, players, dealer, rng)`` picks the one
the preset names. The chance stub is drawn up front (BJ-8.1): ``deck_order``, and ``reshuffle_order``
where the stock can run out (``home``, ``casino`` with one deck, BJ-3.4). Every card dealt is the next unread card.

The log holds the record's ``actions`` as written (BJ-8): a seat's action (``{"seat": 1, "act":
"hit"}``) and the engine's events (``{"seat": 0, "event": "double"}``). Events happen by
themselves; a replay meets them in the record and hands them to ``apply`` as ``Event``s, which
must match the events the engine produced at that point (else ``IllegalAction`` citing BJ-8).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.blackjack.rules import NAME, VERSION, Rules
from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.core.records import envelope

__all__ = ["Event", "Hand", "Table", "draw_stub"]


@dataclass(frozen=True)
class Event:
    """An engine event as a replay meets it in a record (BJ-8): ``{"seat": s, "event": kind}``."""

    seat: int | None
    kind: str
    hand: int | None = None

    def entry(self) -> dict[str, Any]:
        """The record entry."""
        e: dict[str, Any] = {"seat": self.seat, "event": self.kind}
        if self.hand is not None:
            e["hand"] = self.hand
        return e


@dataclass
class Hand:
    """One hand: its cards (ids), its bet as multiplied, and how it ended."""

    cards: list[int]
    bet: int = 0
    from_split: bool = False
    doubled: bool = False
    done: bool = False
    bust: bool = False
    natural: bool = False
    settled: bool = False  # paid or lost before the end (bust, natural): its cards went to the discards
    result: int | None = None  # chips won (+) or lost (-) by the hand's owner

    def ranks(self) -> list[int]:
        """Rank indexes of the cards (0..12 for 2..A)."""
        return [c >> 2 for c in self.cards]

    def copy(self) -> Hand:
        """An independent copy."""
        return Hand(list(self.cards), self.bet, self.from_split, self.doubled, self.done, self.bust, self.natural,
                    self.settled, self.result)


def draw_stub(rules: Rules, rng: np.random.Generator) -> tuple[list[int], list[int] | None]:
    """BJ-8.1: ``deck_order`` (the whole deck or shoe) and ``reshuffle_order`` where the stock can run out.

    ``home``: one 52-card deck (BJ-3.4); ``ochko``: 36 cards 6..A (BJ-6.7); ``casino``: ``decks`` x 52.
    """
    # The deck in id order is 16..51 (ochko), 0..51 (home) or 0..51 repeated ``decks`` times (casino), so card
    # i of the order is a plain function of the permutation's entry i (no list of the deck is built).
    if rules.preset == "ochko":
        order = (rng.permutation(36) + 16).tolist()
    elif rules.preset == "casino":
        order = (rng.permutation(52 * rules.decks) % 52).tolist()
    else:
        order = rng.permutation(52).tolist()
    reshuffle = None
    if rules.preset == "home" or (rules.preset == "casino" and rules.decks == 1):
        reshuffle = rng.permutation(52).tolist()
    return order, reshuffle


class Table:
    """What the three games share: seats, the stock, hands, the log, the record (BJ-8)."""

    dealer_seat: int | None

    def __init__(self, rules: Rules, players: int, dealer: int | None, order: Sequence[int],
                 reshuffle: Sequence[int] | None) -> None:
        self.rules = rules
        self.players = players
        self.dealer_seat = dealer
        self.order = tuple(order)
        self.reshuffle = tuple(reshuffle) if reshuffle is not None else None
        self.stock: list[int] = list(self.order)
        self.pos = 0
        self.discards: list[int] = []
        self.log: list[dict[str, Any]] = []
        self._cursor = 0  # log entries a replay has met (events are checked against the log)
        self.phase = "start"
        self.actor = -1

    # ------------------------------------------------------------------ stock
    def draw(self) -> int:
        """The next unread card (BJ-8.1); a new stock from the discards when it runs out (BJ-3.4)."""
        if self.pos >= len(self.stock):
            if self.reshuffle is None or not self.discards:  # BJ-3.4: cannot happen under the rules
                raise RuntimeError("the stock ran out with no discards")
            pile = Counter(self.discards)
            new: list[int] = []
            for c in self.reshuffle:
                if pile[c] > 0:
                    new.append(c)
                    pile[c] -= 1
            self.stock, self.pos, self.discards = new, 0, []
        c = self.stock[self.pos]
        self.pos += 1
        return c

    def discard(self, hand: Hand) -> None:
        """A hand settled during the deal: its cards go to the discard pile (BJ-3.4)."""
        hand.settled = True
        self.discards.extend(hand.cards)

    def event(self, seat: int | None, kind: str, hand: int | None = None) -> None:
        """Log an engine event (BJ-8)."""
        self.log.append(Event(seat, kind, hand).entry())

    # ------------------------------------------------------------------ protocol
    def to_act(self) -> int:
        """The seat that acts next, -1 once over."""
        return self.actor if self.phase != "over" else -1

    def is_over(self) -> bool:
        """True when the deal has ended."""
        return self.phase == "over"

    def legal_actions(self) -> list[Any]:
        """Every legal action of the seat to act (empty once over)."""
        raise NotImplementedError

    def _apply(self, action: Any) -> None:
        raise NotImplementedError

    def _explain(self, action: Any) -> IllegalAction:
        """Why ``action`` is illegal now (the rule it breaks)."""
        raise NotImplementedError

    def apply(self, action: Any) -> None:
        """Apply a legal action of the seat to act, or (in a replay) meet a logged ``Event``."""
        if isinstance(action, Event):
            entry = action.entry()
            if self._cursor < len(self.log) and "event" in self.log[self._cursor] and self.log[self._cursor] == entry:
                self._cursor += 1
                return
            raise IllegalAction(f"the record lists the event {entry} where the engine has "
                                f"{self.log[self._cursor] if self._cursor < len(self.log) else 'none'}", "BJ-8")
        if self.phase == "over":
            raise IllegalAction("the deal is over", "BJ-8")
        try:
            ok = action in self.legal_actions()
        except TypeError:
            ok = False
        if not ok:
            raise self._explain(action)
        self._apply(action)

    def _entry(self, action: Any) -> dict[str, Any]:
        """The record entry of ``action`` by the seat to act."""
        if isinstance(action, tuple):
            return {"seat": self.actor, "act": action[0], "n": action[1]}
        return {"seat": self.actor, "act": action}

    def _log_action(self, action: Any) -> None:
        self.log.append(self._entry(action))
        self._cursor = len(self.log)

    # ------------------------------------------------------------------ results
    def scores(self) -> list[int]:
        """Chips won or lost by every seat (zeros until the end)."""
        raise NotImplementedError

    def outcome(self) -> dict[str, Any]:
        """The record's outcome (BJ-8)."""
        raise NotImplementedError

    def record(self) -> dict[str, Any]:
        """The deal record in the ``rasklad-record/1`` envelope (BJ-8)."""
        stub: dict[str, Any] = {"deck_order": [card_str(c) for c in self.order]}
        if self.reshuffle is not None:
            stub["reshuffle_order"] = [card_str(c) for c in self.reshuffle]
        return envelope(NAME, VERSION, self.rules.record_dict(), self.players, self.dealer_seat, stub,
                        [dict(e) for e in self.log], self.outcome() if self.is_over() else None)

    def view(self, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may know now (BJ-5)."""
        raise NotImplementedError

    def all_hands(self) -> list[Hand]:
        """Every hand of the deal (for card conservation)."""
        raise NotImplementedError

    def cards_in_play(self) -> Counter[str]:
        """Every card wherever it is: the unread stock, the discards and the hands not discarded."""
        live = [c for h in self.all_hands() if not h.settled for c in h.cards]
        return Counter(card_str(c) for c in (*self.stock[self.pos:], *self.discards, *live))

    def copy(self) -> Table:
        """An independent copy."""
        st = object.__new__(type(self))
        st.__dict__.update(self.__dict__)
        st.stock = list(self.stock)
        st.discards = list(self.discards)
        st.log = [dict(e) for e in self.log]
        self._copy_into(st)
        return st

    def _copy_into(self, st: Any) -> None:
        raise NotImplementedError


def show(cards: Sequence[int], hidden: Sequence[bool] = ()) -> list[str]:
    """Card names, ``??`` where ``hidden[i]``."""
    return ["??" if i < len(hidden) and hidden[i] else card_str(c) for i, c in enumerate(cards)]


def rank_name(c: int) -> str:
    """The rank character of a card."""
    return card_str(c)[0]

