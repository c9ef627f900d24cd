"""Blackjack's luck estimator for ``casino`` (``GameEntry.luck``): AIVAT over every card (BJ-7, BJ-10).

A seat's score is what its hands win from the dealer (BJ-7.7). Let V_s be the value, in chips, of seat
s's hands under a reference policy π from the current state on: π is the exact solver's best play on the
infinite deck (BJ-10.3, ``rasklad solve blackjack``: basic strategy), and V_s knows every card dealt so
far, the dealer's hole card included, and draws every card still to come from the infinite deck. Every
card leaving the shoe is a chance event; its term for seat s is

    V_s(state after the card) - sum_v P(v | cards dealt so far) V_s(state with a card of value v instead)

with P the **true** law of the next card: the values left in the shoe (``decks`` x 52 less every card
dealt, the hole card included), each card equally likely to be next (BJ-8.1: the order is a uniform
permutation drawn up front). V is only a function; the law is the shoe's, so every term has conditional
mean 0 whatever the bots do, for any number of decks (docs/statistics.md proves it). A seat's correction
is the sum of its terms; V_s does not change with another seat's cards, so those terms are 0.

The events and V_s after each (per unit of the bet; a doubled hand counts 2):

* the deal (BJ-7.1): after the seat's first card, the up card, its second card and the hole card, V_s is
  π's value averaged over the cards not yet dealt among those four (infinite deck); after the hole card
  it is exact: a dealer's natural (the peek, BJ-7.2) 0 or -1, the seat's natural the payout (BJ-7.3),
  else π's first decision (``Solver.first``) valued against the dealer's known two cards;
* a hit, a double's card, a split hand's second card (BJ-7.4): π's value of the hand after it;
* a dealer's draw (BJ-7.6): each standing hand's stand value against the dealer's hand after it.

After the stock of a one-deck shoe runs out (BJ-3.4) the next card is no longer the next of one uniform
order; those terms are left out (a coefficient fixed by what happened before, which keeps the mean 0).
All values are cached per rule set: the infinite deck makes them independent of the composition, and
only the expectations read the shoe.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import mul
from typing import Any

from games.blackjack.casino import CasinoState
from games.blackjack.rules import ACE, POINTS, Rules
from games.blackjack.solver import BUST, INF, best_total
from games.blackjack.state import Hand
from games.blackjack.strategy import casino_rules, solver_for
from games.core.entry import LuckEstimator

__all__ = ["LUCK", "SeatValues", "card_value", "seat_values", "state_corrections", "state_terms",
           "unit_corrections"]

VALUES = tuple(range(1, 11))
#: The infinite deck's chance of each value 1..10 (BJ-10.2).
P_INF = tuple(p for _, p in INF)


def card_value(card: int) -> int:
    """BJ-3.2: the value 1..10 of a card id (an ace 1)."""
    return 1 if card >> 2 == ACE else POINTS[card >> 2]


def _hv(hard: int, ace: bool, v: int) -> tuple[int, bool]:
    return hard + v, ace or v == 1


class SeatValues:
    """V (module docstring) for one rule set, per unit of the bet: every table memoized."""

    def __init__(self, rules: Rules) -> None:
        self.solver = solver_for(casino_rules(rules, "infinite"))
        num, den = rules.natural_pays
        self.natural = (rules.bet * num // den) / rules.bet  # the engine's whole chips (BJ-7.1, BJ-7.3)
        self.das = rules.das == "on"
        self._memo: dict[tuple[object, ...], float] = {}
        self._dealer: dict[tuple[int, bool], tuple[float, ...]] = {}
        self._vectors: dict[tuple[object, ...], tuple[float, ...]] = {}
        self._kinds: dict[str, Callable[..., float]] = {
            "c1": self.before_up, "up": self.before_second, "c2": self._second, "hole": self.dealt,
            "split": self.split_hand, "double": self.doubled, "hit": self.hit, "dealer": self.dealer_draw}

    def vec(self, kind: str, *args: Any) -> tuple[float, ...]:
        """V after a card of each value 1..10 for the event ``kind`` (a key of ``_kinds``) in the situation ``args``."""
        key = (kind, *args)
        got = self._vectors.get(key)
        if got is None:
            f = self._kinds[kind]
            got = self._vectors[key] = tuple(f(*args, x) for x in VALUES)
        return got

    def _cached(self, key: tuple[object, ...], f: Callable[[], float]) -> float:
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = f()
        return got

    # ------------------------------------------------------------------ the dealer and standing
    def dealer(self, hard: int, ace: bool) -> tuple[float, ...]:
        """The dealer's final totals from a known hand of two or more cards (no natural), infinite deck."""
        key = (hard, ace)
        got = self._dealer.get(key)
        if got is None:
            got = self._dealer[key] = self.solver.dealer.finish(None, hard, ace)
        return got

    @staticmethod
    def stand(total: int, d: Sequence[float]) -> float:
        """BJ-7.7: a hand standing on ``total`` against the dealer's final totals ``d``."""
        if total > 21:
            return -1.0
        ev = d[BUST]
        for i in range(5):
            t = 17 + i
            ev += d[i] if total > t else -d[i] if total < t else 0.0
        return ev

    # ------------------------------------------------------------------ π's choices (on the up card only)
    def _hits(self, up: int, hard: int, ace: bool) -> bool:
        t = best_total(hard, ace)
        s = self.solver
        return t < 21 and s.hit_ev(None, up, hard, ace) > s.stand_ev(None, up, t)

    def _two_card_choice(self, up: int, c1: int, c2: int, split_hand: bool) -> str:
        """π's action on two cards: the solver's best of stand, hit, double (after a split only with
        ``das``) and split (a pair, not after a split; never ten-valued cards: J-Q is no pair, BJ-7.4, and
        splitting tens is never best)."""
        s = self.solver
        if split_hand:
            hard, ace = c1 + c2, c1 == 1 or c2 == 1
            evs = {"stand": s.stand_ev(None, up, best_total(hard, ace)), "hit": s.hit_ev(None, up, hard, ace)}
            if self.das:
                evs["double"] = s.double_ev(None, up, hard, ace)
        else:
            evs = dict(s.first(c1, c2, up))
            if c1 == 10:
                evs.pop("split", None)
        return max(evs, key=lambda a: evs[a])

    # ------------------------------------------------------------------ π's values, the dealer's two cards known
    def more(self, up: int, hole: int, hard: int, ace: bool) -> float:
        """A hand of ``hard`` points that may only hit or stand, played by π."""
        def f() -> float:
            t = best_total(hard, ace)
            if t > 21:
                return -1.0
            if not self._hits(up, hard, ace):  # at 21 a hand stands (BJ-7.4)
                return self.stand(t, self.dealer(up + hole, up == 1 or hole == 1))
            return sum(p * self.more(up, hole, *_hv(hard, ace, v)) for v, p in zip(VALUES, P_INF, strict=True))
        return self._cached(("more", up, hole, hard, ace), f)

    def hit(self, up: int, hole: int, hard: int, ace: bool, v: int) -> float:
        """A hand of ``hard`` points after a hit gave it ``v``, played on by π."""
        return self.more(up, hole, *_hv(hard, ace, v))

    def doubled(self, up: int, hole: int, hard: int, ace: bool, v: int) -> float:
        """A doubled hand after its one card ``v`` (two units)."""
        d = self.dealer(up + hole, up == 1 or hole == 1)
        return 2 * self.stand(best_total(*_hv(hard, ace, v)), d)

    def _played(self, action: str, up: int, hole: int, hard: int, ace: bool) -> float:
        d = self.dealer(up + hole, up == 1 or hole == 1)
        if action == "stand":
            return self.stand(best_total(hard, ace), d)
        if action == "hit":
            return sum(p * self.more(up, hole, *_hv(hard, ace, v)) for v, p in zip(VALUES, P_INF, strict=True))
        return sum(p * self.doubled(up, hole, hard, ace, v) for v, p in zip(VALUES, P_INF, strict=True))

    def split_hand(self, up: int, hole: int, pair: int, v: int) -> float:
        """One hand of a split pair after its second card ``v``: split aces stand (BJ-7.4), 21 stands."""
        def f() -> float:
            hard, ace = _hv(pair, pair == 1, v)
            if pair == 1 or best_total(hard, ace) == 21:
                return self.stand(best_total(hard, ace), self.dealer(up + hole, up == 1 or hole == 1))
            return self._played(self._two_card_choice(up, pair, v, True), up, hole, hard, ace)
        return self._cached(("split", up, hole, pair, v), f)

    def dealt(self, c1: int, c2: int, up: int, hole: int) -> float:
        """V after the hole card: the peek (BJ-7.2), the seat's natural (BJ-7.3), else π's first decision."""
        def f() -> float:
            if {up, hole} == {1, 10}:
                return 0.0 if {c1, c2} == {1, 10} else -1.0
            if {c1, c2} == {1, 10}:
                return self.natural
            action = self._two_card_choice(up, c1, c2, False)
            if action == "split":
                return 2 * sum(p * self.split_hand(up, hole, c1, v) for v, p in zip(VALUES, P_INF, strict=True))
            return self._played(action, up, hole, c1 + c2, c1 == 1 or c2 == 1)
        return self._cached(("dealt", c1, c2, up, hole), f)

    def before_hole(self, c1: int, c2: int, up: int) -> float:
        """V after the seat's second card: the hole card still to come."""
        return self._cached(("c2", c1, c2, up), lambda: sum(
            p * self.dealt(c1, c2, up, h) for h, p in zip(VALUES, P_INF, strict=True)))

    def _second(self, c1: int, up: int, c2: int) -> float:
        return self.before_hole(c1, c2, up)

    def dealer_draw(self, standing: Sequence[tuple[int, float]], hard: int, ace: bool, v: int) -> float:
        """The hands standing on ``standing`` ((total, units) each) after the dealer's hand drew ``v``."""
        d = self.dealer(*_hv(hard, ace, v))
        return sum(units * self.stand(t, d) for t, units in standing)

    def before_second(self, c1: int, up: int) -> float:
        """V after the up card: the seat's second card and the hole card still to come."""
        return self._cached(("up", c1, up), lambda: sum(
            p * self.before_hole(c1, c2, up) for c2, p in zip(VALUES, P_INF, strict=True)))

    def before_up(self, c1: int) -> float:
        """V after the seat's first card."""
        return self._cached(("c1", c1), lambda: sum(
            p * self.before_second(c1, u) for u, p in zip(VALUES, P_INF, strict=True)))


    def warm(self) -> SeatValues:
        """Every vector of the deal's events and of the players' draws, computed once (about half a second
        a rule set): the units then only look them up."""
        self.vec("c1")
        for c1 in VALUES:
            self.vec("up", c1)
            for up in VALUES:
                self.vec("c2", c1, up)
                for c2 in VALUES:
                    self.vec("hole", c1, c2, up)
                for hole in VALUES:
                    for pair in VALUES:
                        self.vec("split", up, hole, pair)
                    for hard in range(2, 21):
                        for ace in (False, True):
                            self.vec("hit", up, hole, hard, ace)
                            self.vec("double", up, hole, hard, ace)
        return self


@lru_cache(maxsize=16)
def seat_values(rules: Rules) -> SeatValues:
    """The memoized, warmed ``SeatValues`` of a rule set (shared by every unit of a process)."""
    return SeatValues(rules).warm()


class _Shoe:
    """The values left in the shoe as the round's cards leave it, in the order they are drawn (BJ-8.1),
    and each seat's summed terms."""

    def __init__(self, st: CasinoState) -> None:
        d = st.rules.decks
        self.counts = [4 * d] * 9 + [16 * d]
        self.left = 52 * d
        self.order = st.order
        self.pos = 0
        self.terms = [0.0] * st.players
        self.trace: list[tuple[int, int, float]] = []  # (position in the shoe, seat, term)

    def draw(self, card: int, alts: Sequence[tuple[int, Sequence[float]]] = ()) -> None:
        """Card ``card`` leaves the shoe; for each ``(seat, vals)`` (V of the seat after a card of each value
        1..10) the seat gains the term ``vals[value] - E[vals[next value]]``, over the values left."""
        if self.pos >= len(self.order):  # BJ-3.4: a new stock; the term is left out (module docstring)
            self.pos += 1
            return
        if self.order[self.pos] != card:
            raise RuntimeError(f"card {self.pos} of the round is not the stub's: the reconstruction is wrong")
        v = card_value(card)
        counts, left = self.counts, self.left
        for seat, vals in alts:
            term = vals[v - 1] - sum(map(mul, counts, vals)) / left
            self.terms[seat] += term
            self.trace.append((self.pos, seat, term))
        self.counts[v - 1] -= 1
        self.left -= 1
        self.pos += 1


def _hand_draws(sv: SeatValues, shoe: _Shoe, seat: int, up: int, hole: int, hands: Sequence[Hand]) -> None:
    """The seat's own draws in the order they came (BJ-7.4): a hand's hits (its double's one card); after a
    split each hand's second card, then its own draws, the first hand before the second."""
    split = len(hands) == 2
    for h in hands:
        vals = [card_value(c) for c in h.cards]
        if split:
            shoe.draw(h.cards[1], [(seat, sv.vec("split", up, hole, vals[0]))])
        hard, ace = sum(vals[:2]), 1 in vals[:2]
        for c in h.cards[2:]:
            if h.doubled:
                shoe.draw(c, [(seat, sv.vec("double", up, hole, hard, ace))])
            else:
                shoe.draw(c, [(seat, sv.vec("hit", up, hole, hard, ace))])
            hard, ace = _hv(hard, ace, card_value(c))


def state_corrections(st: CasinoState) -> list[float]:
    """Each seat's summed terms (chips) of one finished casino round."""
    return [t * st.rules.bet for t in _walk(st).terms]


def state_terms(st: CasinoState) -> list[tuple[int, int, float]]:
    """Every term of one finished round as (the card's position in the shoe, seat, term in chips)."""
    return [(pos, seat, t * st.rules.bet) for pos, seat, t in _walk(st).trace]


def _walk(st: CasinoState) -> _Shoe:
    """The round's cards in the order they left the shoe, rebuilt from its hands (the deal, BJ-7.1; the
    players' draws in seat order; the dealer's draws, BJ-7.6), each with its terms."""
    sv = seat_values(st.rules)
    shoe = _Shoe(st)
    n = st.players
    first = [h[0].cards[0] for h in st.hands]
    second = [h[0].cards[1] if len(h) == 1 else h[1].cards[0] for h in st.hands]
    c1 = [card_value(c) for c in first]
    c2 = [card_value(c) for c in second]
    up_card, hole_card = st.dealer.cards[0], st.dealer.cards[1]
    up, hole = card_value(up_card), card_value(hole_card)
    for s in range(n):
        shoe.draw(first[s], [(s, sv.vec("c1"))])
    shoe.draw(up_card, [(s, sv.vec("up", c1[s])) for s in range(n)])
    for s in range(n):
        shoe.draw(second[s], [(s, sv.vec("c2", c1[s], up))])
    shoe.draw(hole_card, [(s, sv.vec("hole", c1[s], c2[s], up)) for s in range(n)])
    if st.dealer.natural:
        return shoe
    for s in range(n):
        _hand_draws(sv, shoe, s, up, hole, st.hands[s])
    standing = [tuple((best_total(sum(v), 1 in v), h.bet / st.rules.bet)
                      for h in hs if not h.bust and not h.natural for v in [[card_value(c) for c in h.cards]])
                for hs in st.hands]
    hard, ace = up + hole, up == 1 or hole == 1
    for c in st.dealer.cards[2:]:
        shoe.draw(c, [(s, sv.vec("dealer", standing[s], hard, ace)) for s in range(n) if standing[s]])
        hard, ace = _hv(hard, ace, card_value(c))
    return shoe


def unit_corrections(states: Sequence[CasinoState]) -> list[list[float]]:
    """Per finished round (one per rotation), each seat's correction (the ``LuckEstimator``'s)."""
    return [state_corrections(st) for st in states]


def _supports(rules: Rules) -> bool:
    """``casino`` only: home and ochko have a seat as dealer drawing at will (BJ-4.8, BJ-6.5)."""
    return rules.preset == "casino"


LUCK = LuckEstimator(
    method="AIVAT over the cards: per card dealt or drawn (the players', the up and hole cards, the dealer's "
           "draws), the seat's value under the solver's infinite-deck best play (BJ-10.3) after the card minus "
           "its exact expectation over the shoe's remaining cards; a seat's correction is the sum",
    unbiased_by="the next card is uniform over the cards left in the shoe (a uniform order drawn up front, "
                "BJ-8.1), whatever the bots did, so every term has conditional expectation 0",
    corrections=unit_corrections,
    supports=_supports,
)
