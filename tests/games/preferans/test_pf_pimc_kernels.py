"""The compiled and integer pieces of ``preferans/pimc`` against the plain computations they replace.

``_dd.best_card`` (pimc's card over its samples, from bounds narrowed by null-window searches) gives the
card and the total of solving every card of every sample exactly; ``_seat_balance`` is the float of the
engine's PF-13 balance (``Delta.balances``), computed in integers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.preferans import reference, scoring
from games.preferans.cards import DECK
from games.preferans.fast import _dd
from games.preferans.pimc import _seat_balance


def _exact_choice(samples: list[list[list[int]]], cards: list[int], table: list[int], trump: int, decl: int,
                  misere: bool, want_max: bool) -> tuple[int, int]:
    """The first card with the best total of the declarer's tricks after it, every sample solved exactly."""
    mover = len(table)
    totals = []
    for c in cards:
        total = 0
        for hands in samples:
            hs = [list(h) for h in hands]
            hs[mover].remove(c)
            trick = [*table, c]
            if len(trick) == 3:
                w = reference._winner(trick, None if trump < 0 else trump)
                total += int(w == decl) + _dd.solve(hs, trump, decl, w, misere)
            else:
                total += _dd.solve(hs, trump, decl, 0, misere, trick)
        totals.append(total)
    best = totals.index(max(totals) if want_max else min(totals))
    return best, totals[best]


@pytest.mark.parametrize("on_table", [0, 1, 2])
def test_best_card_is_the_exact_choice(on_table: int) -> None:
    rng = np.random.default_rng(40 + on_table)
    checked = 0
    for _ in range(60):
        k = int(rng.integers(2, 6))  # cards of each hand before the trick
        misere = bool(rng.integers(3) == 0)
        trump = -1 if misere else int(rng.integers(-1, 4))
        decl = int(rng.integers(3))
        cards = [int(c) for c in rng.permutation(np.asarray(DECK))[:3 * k]]
        hands = [cards[0:k], cards[k:2 * k], cards[2 * k:3 * k]]
        table: list[int] = []
        for s in range(on_table):  # legal cards of the first seats, as play goes
            options = reference._legal(frozenset(hands[s]), table[0] & 3 if table else None,
                                       None if trump < 0 else trump)
            c = options[int(rng.integers(len(options)))]
            hands[s].remove(c)
            table.append(c)
        mover = on_table
        legal = reference._legal(frozenset(hands[mover]), table[0] & 3 if table else None,
                                 None if trump < 0 else trump)
        if len(legal) < 2:
            continue
        # samples: the mover's hand fixed, the other two dealt anew from their cards
        rest = [c for s in range(3) if s != mover for c in hands[s]]
        samples = []
        for _ in range(int(rng.integers(1, 6))):
            perm = [rest[int(i)] for i in rng.permutation(len(rest))]
            others = [s for s in range(3) if s != mover]
            dealt = {others[0]: perm[:len(hands[others[0]])], others[1]: perm[len(hands[others[0]]):]}
            samples.append([hands[s] if s == mover else dealt[s] for s in range(3)])
        want_max = bool(rng.integers(2))
        if int(rng.integers(2)):
            _dd.clear()
        got = _dd.best_card(samples, sorted(legal), mover, table, trump, decl, misere, want_max)
        assert got == _exact_choice(samples, sorted(legal), table, trump, decl, misere, want_max)
        checked += 1
    assert checked >= 30


def test_best_card_refuses_a_mover_out_of_turn() -> None:
    hands = [[DECK[0], DECK[1]], [DECK[2], DECK[3]], [DECK[4], DECK[5]]]
    with pytest.raises(ValueError):
        _dd.best_card([hands], [DECK[2]], 1, [], -1, 0, False, True)


def test_seat_balance_is_the_float_of_the_engine_balance() -> None:
    rng = np.random.default_rng(7)

    def amount() -> Fraction:
        k = rng.random()
        if k < 0.4:
            return Fraction(0)
        if k < 0.75:
            return Fraction(int(rng.integers(-60, 61)))
        return Fraction(int(rng.integers(-600, 601)), int(rng.choice([2, 3, 4, 5, 6, 7, 10, 12])))

    for _ in range(3000):
        n = int(rng.choice([3, 4]))
        d = scoring.Delta(n)
        d.pulka = [amount() for _ in range(n)]
        d.mountain = [amount() for _ in range(n)]
        d.whists = [[amount() for _ in range(n)] for _ in range(n)]
        for seat in range(n):
            assert _seat_balance(d, seat) == float(d.balances()[seat])
