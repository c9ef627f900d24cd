"""Independent plain-Python reference evaluator for the hand rankings (tests only).

Written from the rule texts, not from ``ext/_handeval.pyx`` (and it never imports ``ext``):

* ``classic`` — seed 004: the standard 52-card ranking; A-2-3-4-5 is the lowest straight
  (its top card is the 5) and every kicker counts.
* ``short-deck`` — seed 003: 36 cards, flush beats full house and three of a kind beats a
  straight; A-6-7-8-9 is the lowest straight (top card 9), every kicker counts.
* ``order-poker`` — docs/rules/order-poker.md OP-2: 36 cards, ``none`` instead of high card, no
  wrap-around, and only the combination matters (hands of one combination are equal).
* ``quintet`` — docs/rules/quintet.md Q-2: 32 cards, classic category order, no wrap-around;
  four of a kind, full house and three of a kind compare only their main rank; suits
  never break ties.

A key is ``(category index in the ranking's order, tie-break tuple)``: keys compare exactly
as the ranking compares hands, equal keys are ties. For 6 or 7 cards the best five count.

Card ids are ``4 * rank + suit`` (rank 0..12 = 2..A, suit 0..3 = c d h s).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

Key = tuple[int, tuple[int, ...]]

ACE = 12
#: Lowest rank index of each named deck (2 = 0, 6 = 4, 7 = 5).
DECK_LOW = {"52": 0, "36": 4, "32": 5}


@dataclass(frozen=True)
class Spec:
    """One ranking as the rule texts give it."""

    deck: str
    order: tuple[str, ...]
    """Category names, lowest first."""
    wheel: frozenset[int] | None
    """The rank set of the one ace-low straight, or None (no wrap-around)."""
    kickers: str
    """``all`` (every card counts), ``main`` (Q-2: four/full/three by main rank only), ``none`` (OP-2)."""


SPECS: dict[str, Spec] = {
    "classic": Spec(
        "52",
        ("high", "pair", "two_pair", "three", "straight", "flush", "full_house", "four", "straight_flush"),
        frozenset({ACE, 0, 1, 2, 3}), "all",
    ),
    "short-deck": Spec(
        "36",
        ("high", "pair", "two_pair", "straight", "three", "full_house", "flush", "four", "straight_flush"),
        frozenset({ACE, 4, 5, 6, 7}), "all",
    ),
    "order-poker": Spec(
        "36",
        ("none", "pair", "two_pair", "three", "straight", "full_house", "flush", "four", "straight_flush"),
        None, "none",
    ),
    "quintet": Spec(
        "32",
        ("high", "pair", "two_pair", "three", "straight", "flush", "full_house", "four", "straight_flush"),
        None, "main",
    ),
}


def _straight_top(ranks: Sequence[int], spec: Spec) -> int | None:
    """Top rank of the straight formed by five ranks, or None."""
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct[-1] - distinct[0] == 4:
        return distinct[-1]
    if spec.wheel is not None and set(distinct) == spec.wheel:
        # The ace plays low: the straight's top card is the highest non-ace card.
        return max(r for r in distinct if r != ACE)
    return None


@cache
def _key_of_ranks(ranks: tuple[int, ...], flush: bool, ranking: str) -> Key:
    """Key of five cards given their sorted ranks and whether they share one suit.

    For five cards the ranks and the all-one-suit flag fully determine the hand's standing
    (suits matter only for flushes and never break ties), which is what makes caching valid.
    """
    spec = SPECS[ranking]
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    # Ranks by (multiplicity, rank), highest first: quads/trips/pairs before kickers.
    by_group = tuple(r for r, _ in sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True))
    top = _straight_top(ranks, spec)
    if top is not None and flush:
        name, tb = "straight_flush", (top,)
    elif shape == [4, 1]:
        name, tb = "four", by_group if spec.kickers == "all" else by_group[:1]
    elif shape == [3, 2]:
        name, tb = "full_house", by_group if spec.kickers == "all" else by_group[:1]
    elif flush:
        name, tb = "flush", by_group
    elif top is not None:
        name, tb = "straight", (top,)
    elif shape == [3, 1, 1]:
        name, tb = "three", by_group if spec.kickers == "all" else by_group[:1]
    elif shape == [2, 2, 1]:
        name, tb = "two_pair", by_group
    elif shape == [2, 1, 1, 1]:
        name, tb = "pair", by_group
    else:
        name, tb = spec.order[0], by_group
    if spec.kickers == "none":
        tb = ()
    return spec.order.index(name), tb


def _validate(cards: Sequence[int], ranking: str, deck: str | None) -> None:
    low = DECK_LOW[deck or SPECS[ranking].deck]
    if len(set(cards)) != len(cards) or any(not 0 <= c < 52 or (c >> 2) < low for c in cards):
        raise ValueError(f"invalid hand {list(cards)} for {ranking}")


def _key5(cards: Sequence[int], ranking: str) -> Key:
    flush = len({c & 3 for c in cards}) == 1
    return _key_of_ranks(tuple(sorted(c >> 2 for c in cards)), flush, ranking)


def key5(cards: Sequence[int], ranking: str, deck: str | None = None) -> Key:
    """Key of exactly five cards (validated against the ranking's deck, or ``deck``)."""
    if len(cards) != 5:
        raise ValueError(f"key5 needs five cards, got {len(cards)}")
    _validate(cards, ranking, deck)
    return _key5(cards, ranking)


def key(cards: Sequence[int], ranking: str, deck: str | None = None) -> Key:
    """Key of 5, 6 or 7 cards: the best key over every five-card subset."""
    if len(cards) not in (5, 6, 7):
        raise ValueError(f"hands have 5, 6 or 7 cards, got {len(cards)}")
    _validate(cards, ranking, deck)
    return max(_key5(sub, ranking) for sub in itertools.combinations(cards, 5))


def category_name(cards: Sequence[int], ranking: str, deck: str | None = None) -> str:
    """Name of the hand's category in the ranking."""
    return SPECS[ranking].order[key(cards, ranking, deck)[0]]


def dense_ranks(keys: Iterable[Key]) -> tuple[list[int], int]:
    """Replace keys by their position among the distinct keys (0 = lowest); also the count."""
    ks = list(keys)
    pos = {k: i for i, k in enumerate(sorted(set(ks)))}
    return [pos[k] for k in ks], len(pos)


# ---------------------------------------------------------------------------- batch helpers
# numpy is used only to enumerate and group hands quickly; the evaluation above stays plain Python.


def combinations_array(cards: Sequence[int], k: int) -> npt.NDArray[np.uint8]:
    """Every k-subset of ``cards`` as an (n, k) uint8 array, in lexicographic order."""
    m = len(cards)
    idx = np.arange(m - k + 1, dtype=np.int64)[:, None]
    for j in range(1, k):
        last = idx[:, -1]
        # Next element ranges over last+1 .. m-k+j (leave room for the k-j-1 still to come).
        n_next = (m - k + j) - last
        rep = np.repeat(np.arange(len(idx)), n_next)
        starts = np.repeat(np.cumsum(n_next) - n_next, n_next)
        nxt = np.repeat(last + 1, n_next) + (np.arange(len(rep)) - starts)
        idx = np.concatenate([idx[rep], nxt[:, None]], axis=1)
    return np.asarray(cards, dtype=np.uint8)[idx]


def grouped_reference(
    hands: npt.NDArray[np.uint8], ranking: str, deck: str | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Reference (dense key rank, category index) of every 5-card hand of ``hands``.

    A 5-card hand's key depends only on its sorted ranks and whether all five suits are
    equal (the rules never look at suits otherwise), so hands are grouped by that pair and
    ``key5`` runs once per group, on a real hand of the group. This keeps the full 52/5
    enumeration (2.6 M hands, 7462 groups) fast.
    """
    ranks = np.sort(hands >> 2, axis=1).astype(np.int64)
    suits = hands & 3
    flush = (suits == suits[:, :1]).all(axis=1)
    gid = ranks @ (13 ** np.arange(4, -1, -1, dtype=np.int64)) * 2 + flush
    _, first, inverse = np.unique(gid, return_index=True, return_inverse=True)
    keys = [key5([int(c) for c in hands[i]], ranking, deck) for i in first]
    dense, _ = dense_ranks(keys)
    cats = np.asarray([k[0] for k in keys], dtype=np.int64)
    return np.asarray(dense, dtype=np.int64)[inverse], cats[inverse]


def order_mismatch(values: npt.NDArray[np.integer], ref: npt.NDArray[np.integer]) -> tuple[int, int] | None:
    """Two hand indices where ``values`` and ``ref`` order hands differently, or None.

    The orders agree when ``values[i] < values[j]`` iff ``ref[i] < ref[j]`` and equal iff
    equal. After sorting by (value, ref) that holds exactly when, between neighbours, ref
    never decreases and the value changes exactly where ref changes.
    """
    v = np.asarray(values, dtype=np.int64)
    r = np.asarray(ref, dtype=np.int64)
    order = np.lexsort((r, v))
    dv = np.diff(v[order])
    dr = np.diff(r[order])
    bad = np.flatnonzero((dr < 0) | ((dv == 0) != (dr == 0)))
    if bad.size == 0:
        return None
    return int(order[bad[0]]), int(order[bad[0] + 1])
