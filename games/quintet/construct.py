"""Building packets and ordering them into slots: the pieces every Quintet bot is made of.

A *partition* is five packets of the 25 cards (no order yet); a *layout* puts them into the
five slots (Q-1.3). Packets are built greedily: among every 5-card hand of the cards left
(C(25,5) = 53,130 hands at the first step, all evaluated in one ``ext.handeval`` call) take
the strongest, or, for diversity, one of the few strongest distinct values. Between hands of
equal value the one with the lowest cards is taken, so that kickers which Q-2 ignores (the
fifth card of a four, the pair of a full house) do not waste cards the next packets need.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from ext.handeval import evaluate
from games.quintet.layout import Layout
from games.quintet.rules import PACKET, PACKETS, RANKING


@cache
def _combs(n: int) -> npt.NDArray[np.intp]:
    """For n cards left, the (C(n,5), 5) positions of every 5-card hand: built when first asked (53,130
    rows for 25 cards cost tens of milliseconds, which listing the games should not pay: issue 30 item 4)."""
    return np.asarray(list(combinations(range(n), PACKET)), dtype=np.intp)


#: ``best_slots`` rounds gains to multiples of 2**-30.
_GRID = float(2**30)

Partition = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]
"""Five packets (card ids ascending) and their values, strongest packet first."""


def _nth_distinct(vals: npt.NDArray[np.int32], n: int) -> int:
    """The n-th largest distinct value (0 = the maximum; the smallest if there are fewer)."""
    target = int(vals.max())
    for _ in range(n):
        below = vals[vals < target]
        if below.size == 0:
            break
        target = int(below.max())  # a masked max is far cheaper than np.unique's sort
    return target


StepCache = dict[bytes, tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]]
"""Hands and values of a set of cards left (partitions of one deal share their first steps)."""


def partition(cards: Sequence[int], rng: np.random.Generator | None = None, top: int = 1,
              cache: StepCache | None = None) -> Partition:
    """Split ``cards`` (25 ids) into five packets, strongest first, greedily.

    With ``top`` = 1 every step takes the strongest hand left. With ``top`` > 1 and an
    ``rng``, every step takes the hand of one of the ``top`` strongest distinct values left,
    uniformly: a cheap way to get different partitions that are still sensible. ``cache``
    (a dict kept by the caller for one deal) saves re-evaluating the same cards left.
    """
    left = np.asarray(sorted(int(c) for c in cards), dtype=np.uint8)
    if len(left) != PACKET * PACKETS:
        raise ValueError(f"a partition needs {PACKET * PACKETS} cards, not {len(left)}")
    packets: list[tuple[int, ...]] = []
    values: list[int] = []
    for _ in range(PACKETS - 1):
        key = left.tobytes()
        hit = cache.get(key) if cache is not None else None
        if hit is None:
            hands = left[_combs(len(left))]
            hit = (hands, evaluate(hands, RANKING))
            if cache is not None:
                cache[key] = hit
        hands, vals = hit
        n = int(rng.integers(top)) if top > 1 and rng is not None else 0
        target = _nth_distinct(vals, n)
        # Cheapest hand of the target value: Q-2 ignores some kickers, spend the lowest cards.
        idx = np.flatnonzero(vals == target)
        i = int(idx[np.argmin(hands[idx].sum(axis=1, dtype=np.int64))])
        packets.append(tuple(int(c) for c in hands[i]))
        values.append(target)
        left = np.delete(left, _combs(len(left))[i])
    packets.append(tuple(int(c) for c in left))
    values.append(int(evaluate(left.reshape(1, PACKET), RANKING)[0]))
    order = sorted(range(PACKETS), key=lambda p: -values[p])
    return tuple(packets[p] for p in order), tuple(values[p] for p in order)


def in_slots(part: Partition, slots: Sequence[int]) -> Layout:
    """The layout that puts packet k of ``part`` (strongest first) into slot ``slots[k]`` (0-based)."""
    out: list[tuple[int, ...]] = [()] * PACKETS
    for k, s in enumerate(slots):
        out[s] = part[0][k]
    return tuple(out)


def strongest_last(part: Partition) -> Layout:
    """Q-1.4's natural order: the strongest packet into slot 5 (7 points), the weakest into slot 1."""
    return in_slots(part, [4, 3, 2, 1, 0])


def sacrifice(part: Partition, slot: int) -> Layout:
    """Colonel Blotto's trade: the weakest packet into ``slot`` (1..5), the others strongest-last.

    Against an opponent who plays strongest-last with similar packets, sacrificing slot 5 shifts
    every other packet one slot down, where it meets a weaker packet: it gives up 7 points to win
    up to 3 + 4 + 5 + 6 = 18.
    """
    if not 1 <= slot <= PACKETS:
        raise ValueError(f"the sacrificed slot must be 1..{PACKETS}, not {slot}")
    free = [s for s in range(PACKETS - 1, -1, -1) if s != slot - 1]
    return in_slots(part, [*free, slot - 1])


def best_slots(values: Sequence[int], opp_values: npt.NDArray[np.int32], weights: npt.NDArray[np.float64],
               points: Sequence[int]) -> tuple[list[int], float]:
    """The slot order of five packets that scores most against a mixed opponent.

    ``opp_values`` (n, 5) are the packet values of the opponent's layouts, played with
    probabilities ``weights``. The expected margin is a sum over (packet, slot) pairs, so the
    best order is an assignment problem (Hungarian method). The gains are rounded to a 2**-30
    grid first, so that sums of them are exact and equal orders are equal whatever the order of
    the additions (the compiled bot, games/quintet/fast/_equilibrium.pyx, sums in another order
    and keeps the same orders). Returns ``slots`` as for ``in_slots`` and the expected margin.
    """
    v = np.asarray(values, dtype=np.int64)
    sign = np.sign(v[:, None, None] - opp_values[None, :, :].astype(np.int64))  # (packet, layout, slot)
    gain = np.einsum("pjs,j,s->ps", sign, weights, np.asarray(points, dtype=np.float64))
    gain = np.floor(gain * _GRID + 0.5)
    from scipy.optimize import linear_sum_assignment  # here: scipy costs a second to import, listing bots none

    rows, cols = linear_sum_assignment(gain, maximize=True)
    slots = [0] * PACKETS
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        slots[r] = c
    return slots, float(gain[rows, cols].sum()) / _GRID


def layout_array(layouts: Sequence[Layout]) -> npt.NDArray[np.uint8]:
    """``(n, 5, 5)`` uint8 array of layouts (for ``layout.layouts_values``)."""
    return np.asarray(layouts, dtype=np.uint8).reshape(-1, PACKETS, PACKET)


def canonical(layout: Layout) -> tuple[Any, ...]:
    """A hashable form that is equal for layouts that differ only in card order inside packets."""
    return tuple(tuple(sorted(p)) for p in layout)
