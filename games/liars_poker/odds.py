"""Exact odds of LP-9: binomial tails of a digit's count and the largest group of equal digits on a note.

Every digit of every note is independent and uniform over D values (LP-1.3), so the count of a named
digit on m digits is Binomial(m, 1/D). ``tail`` is exact (``Fraction``); ``tail_float`` is the same
sum in floating point, cached, for the bots. With k of the digit in one's own hand, the chance that
the table holds at least q is the tail of the others' m = (n - 1)·L digits at q - k (LP-9.1).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial


def tail(m: int, values: int, t: int) -> Fraction:
    """P(Binomial(m, 1/values) >= t), exactly (1 for t <= 0, 0 for t > m)."""
    if t <= 0:
        return Fraction(1)
    if t > m:
        return Fraction(0)
    num = sum(comb(m, j) * (values - 1) ** (m - j) for j in range(t, m + 1))
    return Fraction(num, values ** m)


@lru_cache(maxsize=65536)
def tail_float(m: int, values: int, t: int) -> float:
    """``tail`` as a float (cached: the bots ask the same few questions again and again)."""
    return float(tail(m, values, t))


def bid_probability(q: int, own: int, players: int, digits: int, values: int) -> float:
    """LP-9.1: P(at least q of a digit on all notes | ``own`` of it in one's own note)."""
    return tail_float((players - 1) * digits, values, q - own)


def table_tails(players: int, digits: int = 8, values: int = 10, top: int = 8) -> list[Fraction]:
    """LP-9.1's row for n players: P(count >= q) for q = 1..top over n notes of ``digits`` digits."""
    return [tail(players * digits, values, q) for q in range(1, top + 1)]


def _at_most(length: int, values: int, k: int) -> int:
    """Strings of ``length`` over ``values`` symbols in which no symbol appears more than ``k`` times."""
    # length! · [x^length] (sum_{j<=k} x^j / j!)^values, with exact fractions
    poly = [Fraction(1)]
    term = [Fraction(1, factorial(j)) for j in range(min(k, length) + 1)]
    for _ in range(values):
        out = [Fraction(0)] * min(len(poly) + len(term) - 1, length + 1)
        for i, a in enumerate(poly):
            if a:
                for j, b in enumerate(term):
                    if i + j <= length:
                        out[i + j] += a * b
        poly = out
    coeff = poly[length] if length < len(poly) else Fraction(0)
    return int(coeff * factorial(length))


def max_group_counts(digits: int = 8, values: int = 10) -> dict[int, int]:
    """LP-9.2: how many of the values**digits notes have k as their largest number of equal digits."""
    out: dict[int, int] = {}
    prev = 0
    for k in range(1, digits + 1):
        cur = _at_most(digits, values, k)
        if cur - prev:
            out[k] = cur - prev
        prev = cur
    return out


def max_group_probabilities(digits: int = 8, values: int = 10) -> dict[int, Fraction]:
    """LP-9.2 as exact probabilities."""
    total = values ** digits
    return {k: Fraction(c, total) for k, c in max_group_counts(digits, values).items()}
