"""LP-9's check figures, exactly: binomial tails of a digit's count and the largest group on a note."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest

from games.liars_poker.odds import bid_probability, max_group_counts, max_group_probabilities, table_tails, tail

LP_9_1 = {
    2: [0.8147, 0.4853, 0.2108, 0.0684, 0.0170, 0.0033, 0.0005, 0.0001],
    3: [0.9202, 0.7075, 0.4357, 0.2143, 0.0851, 0.0277, 0.0075, 0.0017],
    4: [0.9657, 0.8436, 0.6333, 0.3997, 0.2115, 0.0944, 0.0358, 0.0117],
    5: [0.9852, 0.9195, 0.7772, 0.5769, 0.3710, 0.2063, 0.0995, 0.0419],
    6: [0.9936, 0.9597, 0.8711, 0.7201, 0.5314, 0.3469, 0.2000, 0.1021],
}


def half_up(x: Fraction, places: int) -> Decimal:
    return (Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)


@pytest.mark.parametrize("n", sorted(LP_9_1))
def test_lp_9_1_table(n: int) -> None:
    got = table_tails(n)
    assert [float(half_up(x, 4)) for x in got] == LP_9_1[n]


def test_lp_9_1_conditioned_on_the_own_note() -> None:
    exact = 1 - Fraction(9, 10) ** 8 - 8 * Fraction(1, 10) * Fraction(9, 10) ** 7
    assert tail(8, 10, 2) == exact and half_up(exact, 8) == Decimal("0.18689527")
    assert bid_probability(5, 3, 2, 8, 10) == pytest.approx(float(exact), abs=1e-15)
    assert half_up(exact, 5) == Decimal("0.18690")


def test_lp_9_2_exact_counts() -> None:
    counts = max_group_counts(8, 10)
    assert counts == {1: 1_814_400, 2: 61_916_400, 3: 31_248_000, 4: 4_589_550, 5: 408_240, 6: 22_680,
                      7: 720, 8: 10}
    assert sum(counts.values()) == 10**8
    probs = max_group_probabilities(8, 10)
    six = {1: "0.018144", 2: "0.619164", 3: "0.312480", 4: "0.045896", 5: "0.004082", 6: "0.000227",
           7: "0.000007", 8: "0.000000"}
    assert {k: str(half_up(p, 6)) for k, p in probs.items()} == six
    assert half_up(1 - Fraction(9, 10) ** 8, 6) == Decimal("0.569533") and tail(8, 10, 1) == 1 - Fraction(9, 10) ** 8


def test_tails_edge_cases() -> None:
    assert tail(5, 10, 0) == 1 and tail(5, 10, -3) == 1 and tail(5, 10, 6) == 0
    assert sum(max_group_counts(3, 4).values()) == 4**3
