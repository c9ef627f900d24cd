"""Raspisnoy's deal-stats questions: exact answers against the check figures (R-9.4) and the sampled
answers of the same dealing code within fixed tolerances."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from games.raspisnoy.questions import QUESTIONS, trump_length_exact
from games.raspisnoy.rules import CLASSIC, ODESSA


def test_joker_holder_exact_is_k_over_36() -> None:
    """R-9.4: a given player holds the joker in a k-card deal with probability k/36."""
    rows = QUESTIONS["joker-holder"].run({"players": 4, "jokers": 1}, "exact", 0, 1, np.random.SeedSequence(0))
    assert [(k, Fraction(c, n)) for k, c, n in rows["holds"]] == [(k, Fraction(k, 36)) for k in range(1, 10)]


def test_joker_holder_sampled_agrees() -> None:
    rows = QUESTIONS["joker-holder"].run({"players": 3, "jokers": 1}, "sample", 0, 40_000, np.random.SeedSequence(5))
    for k, c, n in rows["holds"]:
        p = k / 36
        assert abs(c / n - p) < 5 * (p * (1 - p) / n) ** 0.5 + 1e-9


def test_trump_length_sums_to_one_and_joker_chance_is_r93() -> None:
    """The distribution sums to 1; odessa's no-trump share is 1/36 (R-9.3); classic never lacks trump."""
    for n in (2, 3, 4, 5):
        for k in (1, 36 // n):
            dist = trump_length_exact(ODESSA, n, k)
            assert sum(dist.values()) == 1 and dist[-1] == Fraction(1, 36)
            assert sum(trump_length_exact(CLASSIC, n, k).values()) == 1 and -1 not in trump_length_exact(CLASSIC, n, k)
    assert trump_length_exact(CLASSIC, 4, 1)[1] == Fraction(1, 4)  # a 1-card hand is a trump w.p. 1/4


def test_trump_length_sampled_agrees_with_exact() -> None:
    for preset, n in (("classic", 4), ("odessa", 4), ("odessa", 5)):
        params = {"preset": preset, "players": n}
        ex = QUESTIONS["trump-length"].run(params, "exact", 0, 1, np.random.SeedSequence(1))["lengths"]
        sm = QUESTIONS["trump-length"].run(params, "sample", 0, 6000, np.random.SeedSequence(2))["lengths"]
        got = {(k, x): c / m for k, x, c, m in sm}
        for k, x, c, m in ex:
            p = c / m
            assert abs(got.get((k, x), 0.0) - p) < 5 * (p * (1 - p) / 6000) ** 0.5 + 2e-3


def test_bids_sum_never_equals_tricks_under_the_dealer_restriction() -> None:
    """R-3.3: in odessa the dealer may never make the bids sum to the tricks (except R-3.8's duty case)."""
    rows = QUESTIONS["bids-sum"].run({"preset": "odessa", "players": 4, "bidder": "random"}, "sample", 0, 3,
                                     np.random.SeedSequence(3))["sums"]
    assert rows and all(eq == 0 or (kind == "normal" and k == 1) for kind, k, eq, _n in rows)
    rows = QUESTIONS["bids-sum"].run({"preset": "classic", "players": 4, "bidder": "heuristic"}, "sample", 0, 3,
                                     np.random.SeedSequence(3))["sums"]
    assert sum(eq for *_x, eq, _n in rows) > 0  # without the restriction the sum does hit the tricks
