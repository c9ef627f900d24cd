"""The exact casino solver (BJ-10): dealer final totals and the player's expectation under best play.

Cards are values 1..10 (1 the ace, 10 every ten-valued card). A shoe is ``None`` (the infinite deck:
every draw 1/13, a ten 4/13, BJ-10.2) or a tuple of 10 counts (finite decks). Everything is exact
recursion over the cards drawn, memoized on (composition, hand):

* ``dealer_dist``: the dealer's final total (17..21, natural, bust) from his up card and a shoe,
  before the peek (BJ-10.1 / BJ-10.2), or after it (the hole card conditioned on giving no
  natural: what the player faces once the peek passed, BJ-7.2).
* ``Solver``: for every first decision (two player cards, up card) the exact expectations of stand,
  hit, double and split, and the expectation per initial unit before the peek, naturals counted
  (BJ-10.3). Finite decks are composition-dependent: every hit/stand decision after the first sees
  the exact composition left by the player's own cards and the up card (the other players' cards
  are ignored: one hand against the dealer, as BJ-10.3 defines it). Two approximations, both exact
  on the infinite deck: a split is valued as two hands each played from the shoe less both pair
  cards and the up card (the cards the first hand draws are not removed for the second), and the
  player's draws come from the shoe without the peek's knowledge about the hole card (the dealer's
  own distribution is conditioned exactly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.blackjack.fast._dealer import dealer_dist

Shoe = tuple[int, ...] | None

#: Infinite deck: the chance of each value 1..10 (BJ-10.2).
INF = tuple((v, (4 if v == 10 else 1) / 13) for v in range(1, 11))
#: Dealer outcome slots: totals 17..21, then natural, then bust.
SLOTS = ("17", "18", "19", "20", "21", "BJ", "bust")
NAT, BUST = 5, 6


def shoe_of(decks: int | None) -> Shoe:
    """The full shoe of ``decks`` decks (None: infinite)."""
    return None if decks is None else tuple([4 * decks] * 9 + [16 * decks])


def draws(shoe: Shoe, exclude: int = 0) -> Sequence[tuple[int, float]]:
    """(value, chance) of the next card; ``exclude`` a value known not to come (renormalized)."""
    if shoe is None:
        if not exclude:
            return INF
        rest = 1 - INF[exclude - 1][1]
        return tuple((v, p / rest) for v, p in INF if v != exclude)
    n = sum(shoe) - (shoe[exclude - 1] if exclude else 0)
    return tuple((v, c / n) for v, c in enumerate(shoe, 1) if c and v != exclude)


def take(shoe: Shoe, v: int) -> Shoe:
    """The shoe less one card of value ``v``."""
    if shoe is None:
        return None
    s = list(shoe)
    s[v - 1] -= 1
    return tuple(s)


def best_total(hard: int, ace: bool) -> int:
    """BJ-3.2: an ace counts 11 when that stays <= 21."""
    return hard + 10 if ace and hard + 10 <= 21 else hard


class Dealer:
    """The dealer's final-total distributions (memoized), for one soft-17 rule."""

    def __init__(self, hit_soft17: bool) -> None:
        self.h17 = hit_soft17
        self.memo: dict[Any, tuple[float, ...]] = {}

    def dist(self, shoe: Shoe, up: int, peeked: bool) -> tuple[float, ...]:
        """Final totals (``SLOTS``) of a dealer showing ``up`` with ``shoe`` left (the up card removed).

        ``peeked``: the hole card is conditioned on not making a natural (BJ-7.2), so ``NAT`` is 0.
        """
        if shoe is None:
            return self.readable(shoe, up, peeked)
        key = (shoe, up, peeked)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = dealer_dist(shoe, up, peeked, self.h17)
        return got

    def readable(self, shoe: Shoe, up: int, peeked: bool) -> tuple[float, ...]:
        """``dist`` by the readable recursion (the spec of the compiled ``dealer_dist``)."""
        excl = (10 if up == 1 else 1 if up == 10 else 0) if peeked else 0
        return self._go(shoe, up, up == 1, 1, excl)

    def finish(self, shoe: Shoe, hard: int, ace: bool) -> tuple[float, ...]:
        """Final totals (``SLOTS``) of a dealer hand of two or more cards, known to be no natural, of ``hard``
        points (aces 1; ``ace``: one among them), with ``shoe`` left (the readable recursion)."""
        return self._go(shoe, hard, ace, 3, 0)

    def _go(self, shoe: Shoe, hard: int, ace: bool, n: int, excl: int) -> tuple[float, ...]:
        key = (shoe, hard, ace, n, excl)
        got = self.memo.get(key)
        if got is not None:
            return got
        t = best_total(hard, ace)
        out = [0.0] * 7
        if n == 2 and t == 21:
            out[NAT] = 1.0
        elif t > 21:
            out[BUST] = 1.0
        elif n >= 2 and (t > 17 or (t == 17 and not (self.h17 and ace and hard + 10 == 17))):
            out[t - 17] = 1.0
        else:
            for v, p in draws(shoe, excl if n == 1 else 0):
                sub = self._go(take(shoe, v), hard + v, ace or v == 1, min(n + 1, 3), 0)
                for i in range(7):
                    out[i] += p * sub[i]
        res = tuple(out)
        self.memo[key] = res
        return res


@dataclass(frozen=True)
class CasinoRules:
    """The rule set of BJ-10.3."""

    decks: int | None = None
    hit_soft17: bool = False
    das: bool = True
    natural_pays: float = 1.5


ACTIONS = ("stand", "hit", "double", "split")


class Solver:
    """Exact expectations of casino blackjack under best play (module docstring)."""

    def __init__(self, rules: CasinoRules) -> None:
        self.rules = rules
        self.full = shoe_of(rules.decks)
        self.dealer = Dealer(rules.hit_soft17)
        self._stand: dict[Any, float] = {}
        self._hs: dict[Any, float] = {}

    # ------------------------------------------------------------------ one hand
    def stand_ev(self, shoe: Shoe, up: int, total: int) -> float:
        """Standing on ``total`` against ``up`` after the peek (BJ-7.7)."""
        if total > 21:
            return -1.0
        key = (shoe, up, total)
        got = self._stand.get(key)
        if got is not None:
            return got
        d = self.dealer.dist(shoe, up, True)
        ev = d[BUST]
        for i in range(5):
            t = 17 + i
            ev += d[i] if total > t else -d[i] if total < t else 0.0
        self._stand[key] = ev
        return ev

    def hit_stand(self, shoe: Shoe, up: int, hard: int, ace: bool) -> float:
        """Best of hit and stand (no double) for a hand of ``hard`` points with ``shoe`` left."""
        t = best_total(hard, ace)
        if t > 21:
            return -1.0
        key = (shoe, up, hard, ace)
        got = self._hs.get(key)
        if got is not None:
            return got
        ev = self.stand_ev(shoe, up, t)
        if t < 21:  # a hand at 21 stands (BJ-7.4 ruling)
            ev = max(ev, self.hit_ev(shoe, up, hard, ace))
        self._hs[key] = ev
        return ev

    def hit_ev(self, shoe: Shoe, up: int, hard: int, ace: bool) -> float:
        """Take one card, then play on by ``hit_stand``."""
        return sum(p * self.hit_stand(take(shoe, v), up, hard + v, ace or v == 1) for v, p in draws(shoe))

    def double_ev(self, shoe: Shoe, up: int, hard: int, ace: bool) -> float:
        """BJ-7.4: one card only, the bet doubled."""
        return 2 * sum(p * self.stand_ev(take(shoe, v), up, best_total(hard + v, ace or v == 1))
                       for v, p in draws(shoe))

    def split_ev(self, shoe: Shoe, up: int, pair: int) -> float:
        """BJ-7.4: two hands of one bet each; split aces one card; no resplit; double after with ``das``.

        ``shoe`` has both pair cards and the up card removed; each hand is valued from it (docstring)."""
        one = 0.0
        for v, p in draws(shoe):
            s = take(shoe, v)
            hard, ace = pair + v, pair == 1 or v == 1
            t = best_total(hard, ace)
            if pair == 1 or t == 21:
                ev = self.stand_ev(s, up, t)
            else:
                ev = self.hit_stand(s, up, hard, ace)
                if self.rules.das:
                    ev = max(ev, self.double_ev(s, up, hard, ace))
            one += p * ev
        return 2 * one

    # ------------------------------------------------------------------ first decisions
    def first(self, c1: int, c2: int, up: int, shoe: Shoe | None = None) -> dict[str, float]:
        """The expectations (after the peek) of each legal first action with cards ``c1``, ``c2`` v ``up``.

        ``shoe``: what is left (default: the full shoe less the three cards)."""
        if shoe is None and self.full is not None:
            shoe = take(take(take(self.full, c1), c2), up)
        hard, ace = c1 + c2, c1 == 1 or c2 == 1
        out = {"stand": self.stand_ev(shoe, up, best_total(hard, ace)), "hit": self.hit_ev(shoe, up, hard, ace),
               "double": self.double_ev(shoe, up, hard, ace)}
        if c1 == c2:
            out["split"] = self.split_ev(shoe, up, c1)
        return out

    def expected_value(self) -> float:
        """BJ-10.3: the expectation per initial unit before the peek, naturals counted."""
        ev = 0.0
        for c1, p1 in draws(self.full):
            s1 = take(self.full, c1)
            for c2, p2 in draws(s1):
                s2 = take(s1, c2)
                for up, pu in draws(s2):
                    s3 = take(s2, up)
                    need = 10 if up == 1 else 1 if up == 10 else 0
                    p_nat = next((p for v, p in draws(s3) if v == need), 0.0) if need else 0.0
                    natural = {c1, c2} == {1, 10}
                    if natural:
                        val = (1 - p_nat) * self.rules.natural_pays
                    else:
                        val = -p_nat + (1 - p_nat) * max(self.first(c1, c2, up, s3).values())
                    ev += p1 * p2 * pu * val
        return ev
