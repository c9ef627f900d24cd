"""Dice Poker scoring: the DP-10 check figures and the worked examples of DP-4 and DP-5."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from games.core.dice import all_multisets, multiset_probability
from games.dice_poker import scoring
from games.dice_poker.rules import CATEGORIES, Rules

THROWS = list(product(range(1, 7), repeat=5))
FULL = Rules(preset="full")


def test_dp_10_1_one_throw_categories() -> None:
    counts = Counter(scoring.category_name(t) for t in THROWS)
    assert counts == {"poker": 6, "four": 150, "full_house": 300, "straight": 240, "three": 1200,
                      "two_pairs": 1800, "pair": 3600, "none": 480}
    assert set(counts) == set(CATEGORIES)


def test_dp_10_2_lines_that_qualify() -> None:
    want = {"pair": 7056, "two_pairs": 2100, "three": 1656, "four": 156, "poker": 6, "full_house": 300,
            "small_straight": 120, "large_straight": 120, "chance": 7776}
    for line, n in want.items():
        assert sum(scoring.base_score(line, t) > 0 for t in THROWS) == n, line
    assert Fraction(sum(sum(t) for t in THROWS), len(THROWS)) == Fraction(35, 2)


@pytest.mark.parametrize("kickers, classes, p", [(True, 252, 0.006353), (False, 75, 0.044804)])
def test_dp_10_3_ties(kickers: bool, classes: int, p: float) -> None:
    by_key: dict[tuple[int, ...], Fraction] = {}
    for ms in all_multisets(5):
        k = scoring.hand_key(ms, kickers)
        by_key[k] = by_key.get(k, Fraction(0)) + multiset_probability(ms)
    assert len(by_key) == classes
    assert round(float(sum(q * q for q in by_key.values())), 6) == p


@pytest.mark.parametrize("better, worse", [
    ((5, 5, 5, 5, 2), (4, 4, 4, 4, 6)), ((3, 3, 3, 3, 6), (3, 3, 3, 3, 2)), ((3, 3, 3, 1, 1), (2, 2, 2, 6, 6)),
    ((6, 6, 1, 1, 2), (5, 5, 4, 4, 6)), ((4, 4, 6, 5, 1), (4, 4, 6, 3, 2)), ((6, 5, 4, 3, 1), (6, 5, 4, 2, 1)),
    ((2, 3, 4, 5, 6), (1, 2, 3, 4, 5)), ((6, 6, 6, 4, 4), (6, 5, 4, 3, 2)),  # DP-3.1: full house > straight
    ((1, 1, 2, 3, 4), (1, 2, 3, 4, 6)),  # DP-3.2: none is lowest
])
def test_dp_4_2_ranking_examples(better: tuple[int, ...], worse: tuple[int, ...]) -> None:
    assert scoring.hand_key(better) > scoring.hand_key(worse)


def test_dp_4_3_without_kickers() -> None:
    assert scoring.hand_key((3, 3, 3, 3, 6), False) == scoring.hand_key((3, 3, 3, 3, 2), False)
    assert scoring.hand_key((4, 4, 6, 5, 1), False) == scoring.hand_key((4, 4, 6, 3, 2), False)
    assert scoring.hand_key((6, 5, 4, 3, 1), False) > scoring.hand_key((6, 5, 4, 2, 1), False)  # none: all dice
    assert scoring.hand_key((2, 3, 4, 5, 6), False) > scoring.hand_key((1, 2, 3, 4, 5), False)
    assert scoring.hand_key((3, 3, 3, 1, 1), False) > scoring.hand_key((3, 3, 3, 6, 2), False)  # categories first


def test_dp_3_3_no_wraparound() -> None:
    assert scoring.category_name((1, 3, 4, 5, 6)) == "none"
    assert scoring.category_name((5, 1, 3, 2, 4)) == "straight"


@pytest.mark.parametrize("dice, t, line, score", [
    ((1, 1, 1, 4, 6), 2, "ones", 0), ((2, 2, 2, 2, 5), 3, "twos", 2), ((3, 5, 5, 6, 6), 1, "threes", -6),
    ((5, 5, 1, 3, 4), 2, "pair", 10), ((5, 5, 1, 3, 4), 1, "pair", 20), ((2, 3, 4, 5, 6), 3, "large_straight", 20),
    ((2, 3, 4, 5, 6), 1, "large_straight", 40), ((6, 6, 5, 4, 2), 3, "chance", 23), ((6, 6, 5, 4, 2), 3, "pair", 12),
    ((6, 6, 5, 4, 2), 3, "poker", 0), ((6, 6, 6, 5, 5), 2, "two_pairs", 22), ((6, 6, 6, 5, 5), 2, "full_house", 28),
    ((6, 6, 6, 5, 5), 2, "three", 18), ((6, 6, 6, 6, 2), 2, "two_pairs", 0), ((6, 6, 6, 6, 2), 2, "four", 24),
    ((4, 4, 4, 4, 4), 2, "full_house", 0), ((4, 4, 4, 4, 4), 2, "four", 16), ((3, 3, 3, 3, 3), 3, "poker", 15),
    ((6, 6, 6, 6, 6), 1, "poker", 60), ((1, 2, 3, 4, 6), 1, "chance", 32), ((6, 6, 6, 6, 2), 2, "pair", 12),
    ((6, 6, 6, 6, 2), 2, "three", 18), ((6, 6, 5, 5, 2), 3, "pair", 12), ((6, 6, 5, 4, 2), 3, "chance", 23),
])
def test_dp_5_worked_scores(dice: tuple[int, ...], t: int, line: str, score: int) -> None:
    assert scoring.line_score(FULL, line, dice, t) == score


def test_dp_5_4_poker_bonus_only_on_the_poker_line() -> None:
    assert scoring.poker_bonus(FULL, "poker", (3, 3, 3, 3, 3)) == 50
    assert scoring.poker_bonus(FULL, "four", (3, 3, 3, 3, 3)) == 0
    assert scoring.poker_bonus(FULL, "poker", (3, 3, 3, 3, 2)) == 0
    assert scoring.poker_bonus(Rules(preset="full", poker_bonus=0), "poker", (3, 3, 3, 3, 3)) == 0


def test_dp_5_3_first_throw_double_options() -> None:
    ex = Rules(preset="full", first_throw_double="except_chance")
    assert scoring.line_score(ex, "chance", (1, 2, 3, 4, 6), 1) == 16
    assert scoring.line_score(ex, "pair", (5, 5, 1, 3, 4), 1) == 20
    none = Rules(preset="mixed", first_throw_double="none")
    assert scoring.line_score(none, "pair", (5, 5, 1, 3, 4), 1) == 10


@pytest.mark.parametrize("opt, plus5, minus5, zero", [
    ("plus", 50, 0, 0), ("minus", 0, -50, 0), ("both", 50, -50, 0), ("none", 0, 0, 0)])
def test_dp_5_5_school_bonus(opt: str, plus5: int, minus5: int, zero: int) -> None:
    rules = Rules(preset="full", school_bonus=opt)
    # DP-5's school examples: S = -5 and S = +5
    minus = [((1, 1, 1, 2, 3), 1), ((2, 2, 2, 2, 1), 2), ((3, 1, 1, 1, 1), 3), ((4, 4, 4, 1, 1), 4),
             ((5, 5, 5, 5, 1), 5), ((6, 6, 1, 1, 1), 6)]
    s = sum(scoring.class_score(f, d) for d, f in minus)
    assert [scoring.class_score(f, d) for d, f in minus] == [0, 2, -6, 0, 5, -6] and s == -5
    assert scoring.school_bonus(rules, s) == minus5
    assert scoring.school_bonus(rules, 5) == plus5
    assert scoring.school_bonus(rules, 0) == zero
