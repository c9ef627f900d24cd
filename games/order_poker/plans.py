"""Exact reachability tables for Order Poker bots, each one batched call of the Cython evaluator.

Swapping with a face-up hand only moves cards between two hands, so after any number of
swaps between my hand and the robot, my hand is some 5-subset of the 10 cards and the robot
holds the other five. ``swap_plans`` evaluates all 252 splits at once: for each, my
combination, the robot's, and how many swaps it takes (the number of robot cards I end with).
``pool_plans`` does the same over my hand plus any face-up cards (the orderer with an open
``for`` hand: 15 cards, 3003 subsets).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ext.handeval import tables
from games.order_poker.fast._plans import one_swap_reach, subset_categories
from games.order_poker.rules import HAND

#: The kernel tables of 5-card order-poker hands (values are rank << 20).
KERNEL = tables("order-poker", HAND)
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]


@cache
def _subsets(n: int) -> tuple[U8, U8, npt.NDArray[np.int8]]:
    """Index arrays of every 5-subset of ``range(n)``, its complement (n == 10 only), and its cost
    (how many indices are >= 5, i.e. cards not from the first hand)."""
    subs = np.asarray(list(combinations(range(n), HAND)), dtype=np.uint8)
    comp = np.asarray([[i for i in range(n) if i not in s] for s in subs.tolist()], dtype=np.uint8) \
        if n == 2 * HAND else np.zeros((0, HAND), dtype=np.uint8)
    cost = (subs >= HAND).sum(axis=1).astype(np.int8)
    return subs, comp, cost


class SwapPlans(NamedTuple):
    """Every split of my hand + the robot: ``mine``/``robot`` are OP-2 ranks, ``cost`` the swaps."""

    pool: U8
    subsets: U8
    mine: npt.NDArray[np.int32]
    robot: npt.NDArray[np.int32]
    cost: npt.NDArray[np.int8]


def _ranks(pool: U8, subsets: U8) -> I32:
    """OP-2 rank of every 5-card subset ``pool[subsets[r]]``: one C loop, no (m, 5) card array."""
    out = np.empty(subsets.shape[0], dtype=np.int32)
    subset_categories(pool, subsets, out)
    return out


@cache
def _splits() -> U8:
    """The 252 subsets of a 10-card pool followed by their complements: (504, 5) indices."""
    subs, comp, _ = _subsets(2 * HAND)
    return np.ascontiguousarray(np.concatenate((subs, comp)))


def swap_plans(hand: list[int], robot: list[int]) -> SwapPlans:
    """The 252 (my hand, robot) splits reachable by swaps with the robot; one evaluator call."""
    subs, _, cost = _subsets(2 * HAND)
    pool = np.asarray(hand + robot, dtype=np.uint8)
    cats = _ranks(pool, _splits())
    return SwapPlans(pool, subs, cats[: len(subs)], cats[len(subs):], cost)


def pool_plans(hand: list[int], other: list[int]) -> tuple[U8, U8, I32, npt.NDArray[np.int8]]:
    """Every 5-subset of ``hand + other`` (``other`` 5 or 10 face-up cards): pool, subsets, rank, cost."""
    n = len(hand) + len(other)
    subs, _, cost = _subsets(n)
    pool = np.asarray(hand + other, dtype=np.uint8)
    return pool, subs, _ranks(pool, subs), cost


def sampled_one_swap_reach(unknown: list[int], robot: list[int], samples: int,
                           rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """For each OP-2 rank c: the sampled chance that a random hand of ``unknown`` cards holds c
    or reaches it with one swap with the robot (what an opponent could make of an order).

    ``samples`` hands drawn without replacement from ``unknown`` by ``rng``; one evaluator call.
    """
    unk = np.asarray(unknown, dtype=np.uint8)
    # The hands are the five smallest of ``samples`` rows of uniform keys (a uniform 5-subset
    # per row); the kernel picks them, ranks the hand and its 25 one-swaps, and averages.
    keys = rng.random((samples, len(unk)))
    out = np.empty(9, dtype=np.float64)
    one_swap_reach(unk, robot, keys, out)
    return out
