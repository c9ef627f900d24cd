"""games.core.dice: exact counts (DP-10.1, DP-10.4), masks, and the pre-drawn face stream."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from games.core.dice import (
    DiceStream,
    DiceStreamExhausted,
    all_multisets,
    apply_faces,
    arrangements,
    canonical_mask,
    count_pattern,
    face_counts,
    full_mask,
    is_submask,
    iter_kept_masks,
    keep_choice_count,
    keep_choices,
    mask_of,
    mask_positions,
    multiset,
    multiset_probability,
    reroll,
    reroll_distribution,
    reroll_masks,
    throw,
    throw_distribution,
)

ALL_THROWS = list(product(range(1, 7), repeat=5))


def test_outcome_and_multiset_counts() -> None:
    assert len(ALL_THROWS) == 6**5 == 7776
    assert len(all_multisets(5)) == 252  # DP-10.1
    assert len({multiset(t) for t in ALL_THROWS}) == 252
    assert sum(arrangements(m) for m in all_multisets(5)) == 7776
    assert [len(all_multisets(k)) for k in range(6)] == [1, 6, 21, 56, 126, 252]


def test_five_of_a_kind_in_one_throw_is_6_in_7776() -> None:
    p = sum(multiset_probability(m) for m in all_multisets(5) if len(set(m)) == 1)
    assert p == Fraction(6, 7776) == Fraction(1, 1296)


def test_count_patterns_match_dp_10_1() -> None:
    # DP-10.1: poker 6, four 150, full house 300, three 1200, two pairs 1800, pair 3600,
    # and five different faces 720 = 240 straights + 480 none.
    counts = Counter(count_pattern(t) for t in ALL_THROWS)
    assert counts == {(5,): 6, (4, 1): 150, (3, 2): 300, (3, 1, 1): 1200, (2, 2, 1): 1800,
                      (2, 1, 1, 1): 3600, (1, 1, 1, 1, 1): 720}
    straights = sum(1 for t in ALL_THROWS if multiset(t) in ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)))
    assert straights == 240


@pytest.mark.parametrize("k", range(6))
def test_throw_distribution_sums_to_one_and_matches_brute_force(k: int) -> None:
    dist = dict(throw_distribution(k))
    assert sum(dist.values()) == 1
    brute = Counter(tuple(sorted(t)) for t in product(range(1, 7), repeat=k))
    assert dist == {m: Fraction(c, 6**k) for m, c in brute.items()}


def test_face_counts_and_multiset() -> None:
    assert face_counts((6, 6, 3, 2, 1)) == (1, 1, 1, 0, 0, 2)
    assert multiset((6, 6, 3, 2, 1)) == (1, 2, 3, 6, 6)
    assert count_pattern((6, 6, 6, 4, 4)) == (3, 2)
    with pytest.raises(ValueError, match=r"DP-1\.1"):
        face_counts((0, 1, 2))


def test_masks() -> None:
    assert full_mask(5) == 31
    assert mask_positions(28, 5) == (2, 3, 4)
    assert mask_of([2, 3, 4]) == 28
    assert all(mask_of(mask_positions(m, 5)) == m for m in range(32))
    assert is_submask(24, 28) and not is_submask(25, 28) and is_submask(0, 1)
    assert reroll_masks(5) == list(range(1, 32))  # DP-7: 31 masks after throw 1
    assert reroll_masks(5, within=28) == [4, 8, 12, 16, 20, 24, 28]  # locked (DP-2.3)
    assert reroll_masks(5, within=0) == []
    with pytest.raises(ValueError, match="DP-7"):
        mask_positions(32, 5)


def test_dp_4_6_example_replays_from_its_stub() -> None:
    # DP-4.6 / DP-8: seat 0 throws 6-6-3-2-1, re-rolls 28 -> 6-6-6-4-1, re-rolls 24 -> 6-6-6-4-4;
    # seat 1 throws 5-5-5-5-3. The stub is every face in the order drawn.
    stream = DiceStream((6, 6, 3, 2, 1, 6, 4, 1, 4, 4, 5, 5, 5, 5, 3))
    r = throw(stream)
    assert r == (6, 6, 3, 2, 1)
    r = reroll(r, 28, stream)
    assert r == (6, 6, 6, 4, 1)
    r = reroll(r, 24, stream)
    assert r == (6, 6, 6, 4, 4)
    assert throw(stream) == (5, 5, 5, 5, 3)
    assert stream.remaining == 0
    assert stream.used() == (6, 6, 3, 2, 1, 6, 4, 1, 4, 4, 5, 5, 5, 5, 3)
    with pytest.raises(DiceStreamExhausted, match="DP-8"):
        stream.take(1)


def test_reroll_assigns_new_faces_in_ascending_position_order() -> None:
    assert apply_faces((1, 2, 3, 4, 5), 0b10010, (6, 5)) == (1, 6, 3, 4, 5)
    with pytest.raises(ValueError, match=r"DP-2\.4"):
        reroll((1, 2, 3, 4, 5), 0, DiceStream((1,)))
    with pytest.raises(ValueError):
        apply_faces((1, 2, 3, 4, 5), 0b11, (6,))


def test_stream_determinism_and_copy() -> None:
    a = DiceStream.draw(np.random.default_rng(42), 40)
    b = DiceStream.draw(np.random.default_rng(42), 40)
    assert a.faces == b.faces and all(1 <= f <= 6 for f in a.faces)
    c = a.copy()
    first = throw(a)
    assert c.cursor == 0 and throw(c) == first  # a copy replays the same faces
    r1 = reroll(first, 0b101, a)
    # Replaying from the consumed prefix alone gives the same dice (what a record relies on).
    replay = DiceStream(a.used())
    assert reroll(throw(replay), 0b101, replay) == r1 and replay.remaining == 0
    # Faces are uniform enough: 60,000 draws, each face within 2% of 1/6.
    big = DiceStream.draw(np.random.default_rng(7), 60_000)
    freq = Counter(big.faces)
    assert all(abs(freq[f] / 60_000 - 1 / 6) < 0.02 for f in range(1, 7))


def test_keep_choices() -> None:
    assert keep_choice_count((3, 3, 3, 3, 3)) == 6
    assert keep_choice_count((1, 2, 3, 4, 6)) == 32
    assert keep_choice_count((6, 6, 3, 2, 1)) == 3 * 2 * 2 * 2
    for t in [(6, 6, 3, 2, 1), (4, 4, 4, 1, 1), (2, 5, 2, 5, 2)]:
        keeps = keep_choices(t)
        assert len(keeps) == len(set(keeps)) == keep_choice_count(t)
        # the distinct kept multisets are exactly what the 32 masks keep
        by_mask = {multiset(f for i, f in enumerate(t) if not m >> i & 1) for m in range(32)}
        assert set(keeps) == by_mask
        for keep, mask in iter_kept_masks(t):
            kept = multiset(f for i, f in enumerate(t) if not mask >> i & 1)
            assert kept == keep
    assert canonical_mask((6, 6, 3, 2, 1), (6, 6)) == 0b11100
    assert canonical_mask((2, 5, 2, 5, 2), (2,)) == 0b11110  # lowest position of the kept face
    with pytest.raises(ValueError):
        canonical_mask((1, 2, 3, 4, 5), (6,))


def test_reroll_distribution_is_exact() -> None:
    d = reroll_distribution((6, 6, 3, 2, 1), 0b11100)
    assert sum(d.values()) == 1
    assert d[(6, 6, 6, 6, 6)] == Fraction(1, 216)
    # the same kept faces from other positions: the same distribution
    assert reroll_distribution((3, 6, 2, 6, 1), 0b10101) == d
    assert reroll_distribution((1, 2, 3, 4, 5), 0) == {(1, 2, 3, 4, 5): Fraction(1)}


def _expectations(value: dict[tuple[int, ...], Fraction]) -> dict[tuple[int, ...], Fraction]:
    """For every kept multiset (0..5 dice): the expected ``value`` after throwing the rest once."""
    out = {}
    for j in range(6):
        for kept in all_multisets(j):
            out[kept] = sum((p * value[tuple(sorted(kept + o))] for o, p in throw_distribution(5 - j)),
                            Fraction(0))
    return out


def _best_poker_chance(locked: bool) -> Fraction:
    """Best chance of five equal faces in one turn of three throws (DP-10.4), by exact induction."""
    last = {m: Fraction(int(len(set(m)) == 1)) for m in all_multisets(5)}
    e_last = _expectations(last)  # keeping k (standing = keeping all five) before the final throw
    if not locked:
        v2 = {m: max(e_last[k] for k in keep_choices(m)) for m in all_multisets(5)}
        e2 = _expectations(v2)
        v1 = {m: max(e2[k] for k in keep_choices(m)) for m in all_multisets(5)}
        return sum((p * v1[m] for m, p in throw_distribution(5)), Fraction(0))

    # locked (DP-2.3): the dice kept at the first re-roll stay kept; at the second re-roll only the
    # dice thrown at throw 2 may be kept or thrown again.
    e_locked = {}  # kept at the first re-roll -> expected value with that lock
    for j in range(5):
        for k in all_multisets(j):
            e_locked[k] = sum((p * max(e_last[tuple(sorted(k + k2))] for k2 in keep_choices(new))
                               for new, p in throw_distribution(5 - j)), Fraction(0))
    v1 = {m: max([last[m]] + [e_locked[k] for k in keep_choices(m) if len(k) < 5]) for m in all_multisets(5)}
    return sum((p * v1[m] for m, p in throw_distribution(5)), Fraction(0))


def test_dp_10_4_best_poker_chance_free_is_exact() -> None:
    assert _best_poker_chance(locked=False) == Fraction(2_783_176, 60_466_176)


def test_dp_10_4_best_poker_chance_locked() -> None:
    assert round(float(_best_poker_chance(locked=True)), 6) == 0.045657
