"""``category_counts`` with dead cards, threads and other decks; seeded ``sample_counts``."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from reference_eval import DECK_LOW, SPECS, combinations_array, grouped_reference, key

from ext.handeval import CATEGORIES, SAMPLE_CHUNK, category_counts, sample_counts
from games.core.cards import card_str, parse_cards

# OP-2's 5-card table; with the classic ranking on 36 cards only the order differs.
ORDER_POKER_5 = {"none": 123420, "pair": 193536, "two_pair": 36288, "three": 16128, "straight": 5100,
                 "full_house": 1728, "flush": 484, "four": 288, "straight_flush": 20}


def _live(ranking: str, dead: str, deck: str | None = None) -> list[int]:
    gone = set(parse_cards(dead))
    return [c for c in range(4 * DECK_LOW[deck or SPECS[ranking].deck], 52) if c not in gone]


def _brute_force(ranking: str, k: int, dead: str) -> dict[str, int]:
    """Reference counts over every k-subset of the live deck, each hand evaluated on its own."""
    got = Counter(key(list(h), ranking)[0] for h in itertools.combinations(_live(ranking, dead), k))
    return {name: got.get(i, 0) for i, name in enumerate(SPECS[ranking].order)}


def test_dead_cards_order_poker_5_brute_force() -> None:
    dead = "Ah Kh 6c 9d"
    assert category_counts("order-poker", 5, dead=dead) == _brute_force("order-poker", 5, dead)


def test_dead_cards_short_deck_6_brute_force() -> None:
    # 18 live cards: every 6-card hand (18,564) against best-five-of-six of the reference.
    dead = " ".join(card_str(c) for c in range(16, 52) if (c >> 2) % 2 == 1)
    assert category_counts("short-deck", 6, dead=dead) == _brute_force("short-deck", 6, dead)


def test_dead_cards_quintet_7_brute_force() -> None:
    # 16 live cards (7 T J K in every suit gone): 11,440 seven-card hands, best five of seven.
    dead = "7c 7d 7h 7s Tc Td Th Ts Jc Jd Jh Js Kc Kd Kh Ks"
    assert category_counts("quintet", 7, dead=dead) == _brute_force("quintet", 7, dead)


def test_dead_cards_classic_5_reference() -> None:
    dead = "As Ks"
    hands = combinations_array(_live("classic", dead), 5)  # C(50, 5) = 2,118,760
    _, cat = grouped_reference(hands, "classic")
    ref = Counter(cat.tolist())
    expected = {name: ref.get(i, 0) for i, name in enumerate(SPECS["classic"].order)}
    got = category_counts("classic", 5, dead=dead)
    assert got == expected
    assert sum(got.values()) == math.comb(50, 5)
    # Dead cards given as a list of names or ids mean the same.
    assert category_counts("classic", 5, dead=["As", "Ks"]) == got
    assert category_counts("classic", 5, dead=parse_cards(dead)) == got


@pytest.mark.parametrize(("ranking", "k", "dead"), [
    ("classic", 5, "As Ks"), ("classic", 6, "2c 7d Jh"), ("order-poker", 5, ""), ("short-deck", 7, "Ah 6d"),
    ("quintet", 6, ""),
])
def test_workers_give_the_same_counts(ranking: str, k: int, dead: str) -> None:
    one = category_counts(ranking, k, dead=dead, workers=1)
    assert category_counts(ranking, k, dead=dead, workers=2) == one
    assert category_counts(ranking, k, dead=dead, workers=3) == one
    live = len(_live(ranking, dead))
    assert sum(one.values()) == math.comb(live, k)


def test_classic_ranking_on_36_cards() -> None:
    got = category_counts("classic", 5, deck="36")
    assert list(got) == list(CATEGORIES["classic"])
    assert got["flush"] < got["full_house"]  # why seed 003 swaps them on the short deck
    # Same combinations as OP-2 (no wheel exists on 36 cards for the classic ranking).
    assert {("none" if n == "high" else n): v for n, v in got.items()} == ORDER_POKER_5


def test_sample_counts_seeded_and_thread_independent() -> None:
    n = 2 * SAMPLE_CHUNK + 12_345  # three chunks, the last one partial
    a = sample_counts("classic", 7, n, seed=42)
    assert sum(a.values()) == n
    assert list(a) == list(CATEGORIES["classic"])
    assert sample_counts("classic", 7, n, seed=42) == a
    assert sample_counts("classic", 7, n, seed=42, workers=2) == a
    assert sample_counts("classic", 7, n, seed=43) != a


def test_sample_counts_zero_samples() -> None:
    assert sample_counts("quintet", 5, 0, seed=1) == dict.fromkeys(CATEGORIES["quintet"], 0)


@pytest.mark.parametrize(("ranking", "k", "dead", "seed"), [
    ("classic", 7, "", 7), ("classic", 5, "As Ks", 8), ("short-deck", 5, "", 9),
    ("order-poker", 5, "6c 7c", 10), ("quintet", 5, "", 11), ("short-deck", 7, "", 12),
])
def test_sample_frequencies_near_exact(ranking: str, k: int, dead: str, seed: int) -> None:
    """Each count within 5 binomial standard errors (+1 for discreteness) of n * exact probability.

    The chance that a correct sampler breaks one of the nine bounds is below 9 * 5.7e-7.
    """
    n = 600_000
    exact = category_counts(ranking, k, dead=dead, workers=2)
    total = sum(exact.values())
    got = sample_counts(ranking, k, n, seed=seed, dead=dead, workers=2)
    assert sum(got.values()) == n
    for name, count in exact.items():
        p = count / total
        assert abs(got[name] - n * p) <= 5 * math.sqrt(n * p * (1 - p)) + 1, (name, got[name], n * p)
    # Dead cards are never dealt: a category impossible without them stays at zero.
    for name, count in exact.items():
        if count == 0:
            assert got[name] == 0


def test_sampling_respects_dead_cards() -> None:
    # Every straight of the 32-card deck (7-J .. T-A, no wrap-around) needs a 9 or a T: with those
    # eight cards dead none is possible, so a sampler that dealt a dead card would show some.
    dead = "9c 9d 9h 9s Tc Td Th Ts"
    exact = category_counts("quintet", 5, dead=dead)
    assert sum(exact.values()) == math.comb(24, 5)
    assert exact["straight"] == exact["straight_flush"] == 0
    assert exact["four"] == 6 * 20  # six ranks left, 20 kickers each
    got = sample_counts("quintet", 5, 200_000, seed=5, dead=dead)
    assert got["straight"] == got["straight_flush"] == 0
    assert got["four"] > 0
