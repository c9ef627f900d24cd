"""Every 5-card hand of every ranking: exact category counts and the induced total order.

Exact values: classic 52/5 and 52/7 are the published counts; order-poker 36/5 is the table
of docs/rules/order-poker.md OP-2; quintet 32/5 (Q-2) and short-deck 36/5 (seed 003) are checked
against the independent reference evaluator run over every hand of the deck.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt
import pytest
from reference_eval import DECK_LOW, SPECS, combinations_array, grouped_reference, order_mismatch

from ext.handeval import CATEGORIES, category_counts, evaluate
from games.core.cards import format_cards

CLASSIC_5 = {"high": 1302540, "pair": 1098240, "two_pair": 123552, "three": 54912, "straight": 10200,
             "flush": 5108, "full_house": 3744, "four": 624, "straight_flush": 40}
CLASSIC_7 = {"high": 23294460, "pair": 58627800, "two_pair": 31433400, "three": 6461620, "straight": 6180020,
             "flush": 4047644, "full_house": 3473184, "four": 224848, "straight_flush": 41584}
# OP-2's table of 5-card counts on the 36-card deck (total 376992).
ORDER_POKER_5 = {"none": 123420, "pair": 193536, "two_pair": 36288, "three": 16128, "straight": 5100,
                 "full_house": 1728, "flush": 484, "four": 288, "straight_flush": 20}

# (ranking, deck) pairs checked over every hand; a ranking on a smaller deck than its own is supported too.
CASES = [("classic", None), ("short-deck", None), ("order-poker", None), ("quintet", None), ("classic", "36"),
         ("classic", "32"), ("short-deck", "32")]


@cache
def _every_hand(
    ranking: str, deck: str | None
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(hands, ext values, reference dense key ranks, reference categories) of every 5-card hand."""
    d = deck or SPECS[ranking].deck
    hands = combinations_array(list(range(4 * DECK_LOW[d], 52)), 5)
    ref_rank, ref_cat = grouped_reference(hands, ranking, deck)
    return hands, evaluate(hands, ranking, deck), ref_rank, ref_cat


def _reference_counts(ranking: str, deck: str | None) -> dict[str, int]:
    _, _, _, ref_cat = _every_hand(ranking, deck)
    counts = np.bincount(ref_cat, minlength=9)
    return {name: int(counts[i]) for i, name in enumerate(SPECS[ranking].order)}


def test_category_names_match_the_rule_texts() -> None:
    for ranking, spec in SPECS.items():
        assert CATEGORIES[ranking] == spec.order, ranking


def test_reference_reproduces_published_counts() -> None:
    # Validates the reference itself before it is used as the oracle for the other rankings.
    assert _reference_counts("classic", None) == CLASSIC_5
    assert _reference_counts("order-poker", None) == ORDER_POKER_5


def test_classic_5_counts_published() -> None:
    assert category_counts("classic", 5) == CLASSIC_5
    assert list(category_counts("classic", 5)) == list(CATEGORIES["classic"])  # ranking order, lowest first


def test_classic_7_counts_published() -> None:
    assert category_counts("classic", 7, workers=2) == CLASSIC_7


def test_order_poker_5_counts_op2_table() -> None:
    got = category_counts("order-poker", 5)
    assert got == ORDER_POKER_5
    assert got == _reference_counts("order-poker", None)
    assert sum(got.values()) == 376992


@pytest.mark.parametrize("ranking", ["quintet", "short-deck"])
def test_counts_match_reference(ranking: str) -> None:
    assert category_counts(ranking, 5) == _reference_counts(ranking, None)


def test_classic_on_36_cards_counts_match_reference() -> None:
    assert category_counts("classic", 5, deck="36") == _reference_counts("classic", "36")


@pytest.mark.parametrize(("ranking", "deck"), CASES)
def test_evaluate_categories_match_category_counts(ranking: str, deck: str | None) -> None:
    # Two kernels (batch evaluate, incremental count_all) must agree hand for hand in aggregate.
    _, values, _, ref_cat = _every_hand(ranking, deck)
    assert ((values >> 20) == ref_cat).all()
    counts = np.bincount(values >> 20, minlength=9)
    assert category_counts(ranking, 5, deck=deck) == {
        name: int(counts[i]) for i, name in enumerate(CATEGORIES[ranking])
    }


@pytest.mark.parametrize(("ranking", "deck"), CASES)
def test_total_order_equals_reference(ranking: str, deck: str | None) -> None:
    hands, values, ref_rank, _ = _every_hand(ranking, deck)
    bad = order_mismatch(values, ref_rank)
    if bad is not None:
        i, j = bad
        pytest.fail(
            f"{ranking}: ext orders {format_cards(hands[i])} ({values[i]}) and {format_cards(hands[j])} "
            f"({values[j]}) differently from the reference (ranks {ref_rank[i]}, {ref_rank[j]})"
        )
    # The number of distinct values is the number of equivalence classes of the ranking.
    assert len(np.unique(values)) == int(ref_rank.max()) + 1


def test_distinct_value_counts() -> None:
    # Known class counts: 7462 distinct 5-card classic hands; order-poker has one class per combination.
    assert len(np.unique(_every_hand("classic", None)[1])) == 7462
    assert len(np.unique(_every_hand("order-poker", None)[1])) == 9
