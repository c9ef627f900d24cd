"""Best five of six and of seven: seeded random hands compared with the reference evaluator.

Two samples per (ranking, k): uniform hands from the whole deck, and hands from two suits
only, which are rich in flushes together with pairs/trips (where flush vs full house and
straight vs three of a kind decide the best five, seed 003, OP-2).
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest
from reference_eval import DECK_LOW, SPECS, combinations_array, dense_ranks, key, order_mismatch

from ext.handeval import category, evaluate
from games.core.cards import format_cards

N = 20_000


def _sample(rng: np.random.Generator, cards: list[int], n: int, k: int) -> npt.NDArray[np.uint8]:
    """n hands of k distinct cards drawn uniformly from ``cards`` (random keys, argsort)."""
    pick = np.argsort(rng.random((n, len(cards))), axis=1)[:, :k]
    return np.asarray(cards, dtype=np.uint8)[pick]


def _check(hands: npt.NDArray[np.uint8], ranking: str) -> None:
    values = evaluate(hands, ranking)
    keys = [key([int(c) for c in h], ranking) for h in hands]
    ranks, _ = dense_ranks(keys)
    assert (category(hands, ranking) == np.asarray([k[0] for k in keys])).all()
    bad = order_mismatch(values, np.asarray(ranks))
    if bad is not None:
        i, j = bad
        pytest.fail(
            f"{ranking}: ext orders {format_cards(hands[i])} ({values[i]}) and {format_cards(hands[j])} "
            f"({values[j]}) differently from the reference ({keys[i]}, {keys[j]})"
        )


@pytest.mark.parametrize("k", [6, 7])
@pytest.mark.parametrize("ranking", list(SPECS))
def test_best_five_uniform(ranking: str, k: int) -> None:
    rng = np.random.default_rng(1000 + 10 * k + list(SPECS).index(ranking))
    deck = list(range(4 * DECK_LOW[SPECS[ranking].deck], 52))
    _check(_sample(rng, deck, N, k), ranking)


@pytest.mark.parametrize("k", [6, 7])
@pytest.mark.parametrize("ranking", list(SPECS))
def test_best_five_two_suits(ranking: str, k: int) -> None:
    rng = np.random.default_rng(2000 + 10 * k + list(SPECS).index(ranking))
    deck = [c for c in range(4 * DECK_LOW[SPECS[ranking].deck], 52) if c & 3 in (0, 2)]
    _check(_sample(rng, deck, N // 4, k), ranking)


@pytest.mark.parametrize("ranking", list(SPECS))
def test_five_cards_sample_direct(ranking: str) -> None:
    # The exhaustive test groups hands by (ranks, flush); this one evaluates real hands one by one.
    rng = np.random.default_rng(3000 + list(SPECS).index(ranking))
    deck = list(range(4 * DECK_LOW[SPECS[ranking].deck], 52))
    _check(_sample(rng, deck, N // 4, 5), ranking)


@pytest.mark.parametrize("ranking", list(SPECS))
def test_seven_card_value_is_the_best_five_card_value(ranking: str) -> None:
    # Values of the 6- and 7-card tables are on the same scale as the 5-card one: max over the subsets.
    rng = np.random.default_rng(4000 + list(SPECS).index(ranking))
    deck = list(range(4 * DECK_LOW[SPECS[ranking].deck], 52))
    for k in (6, 7):
        hands = _sample(rng, deck, 2000, k)
        subsets = np.asarray(list(itertools.combinations(range(k), 5)))
        five = evaluate(hands[:, subsets].reshape(-1, 5), ranking).reshape(len(hands), len(subsets))
        assert (evaluate(hands, ranking) == five.max(axis=1)).all(), (ranking, k)


@pytest.mark.parametrize("k", [5, 6, 7])
@pytest.mark.parametrize("ranking", list(SPECS))
def test_every_single_suit_hand(ranking: str, k: int) -> None:
    # All cards of one suit: every hand is a flush or a straight flush (the flush table at full width).
    suit = [c for c in range(4 * DECK_LOW[SPECS[ranking].deck], 52) if c & 3 == 3]
    _check(combinations_array(suit, k), ranking)
