"""The small two-player game of liar's poker as arrays, for CFR and exact best responses.

Two players, one round, rebid off (LP-4): the public history is the increasing sequence of bids made
(each strictly higher, LP-3.2), so it is a subset of the chain of K = D·n·L bids, i.e. a bitmask:
mask bit r set = bid r was made. The player to act is popcount(mask) mod 2 (seat 0 opens, LP-4.1; the
turn alternates, LP-4.2), the standing bid the highest set bit. The actions at a mask are the bids
above the standing one, in chain order, then the challenge (never at the empty mask); with two players
a challenge ends the round (LP-4.4) and the holder wins 1 if the count reaches his quantity, else
loses 1 (LP-5.2, stake 1).

A note matters only through its digit counts (LP-2.1): the hands are the count vectors of L digits over
D values, with multinomial probabilities (LP-1.3). An information set is (hand, mask) (perfect recall:
the mask is the whole public history). Strategies and regrets are stored per action row: row
``offset[mask] + a`` holds the H values of action a at that mask, one per hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import factorial

import numpy as np
import numpy.typing as npt

#: The largest chain the exact tree is built for (2**K public nodes).
MAX_CHAIN = 22


def hands(digits: int, values: int) -> tuple[list[tuple[int, ...]], npt.NDArray[np.float64]]:
    """The count vectors of ``digits`` digits over ``values`` values and their probabilities (LP-1.3)."""
    out = [c for c in product(range(digits + 1), repeat=values) if sum(c) == digits]
    out.sort(reverse=True)
    probs = np.array([factorial(digits) / np.prod([factorial(x) for x in c]) for c in out]) / values ** digits
    return out, probs


@dataclass
class SmallGame:
    """The tree of the two-player game with notes of ``digits`` digits over ``values`` values."""

    digits: int
    values: int
    players: int = 2

    def __post_init__(self) -> None:
        if self.players != 2:
            raise ValueError("the exact tree is built for 2 players")
        self.chain = self.values * self.players * self.digits  # K, LP-3.4
        if self.chain > MAX_CHAIN:
            raise ValueError(f"the bid chain has {self.chain} bids; the exact tree is built up to {MAX_CHAIN}")
        self.hands, self.probs = hands(self.digits, self.values)
        self.counts = np.array(self.hands, dtype=np.int64)  # [H, D]
        self.H = len(self.hands)
        K = self.chain
        masks = np.arange(1 << K, dtype=np.int64)
        last = np.full(1 << K, -1, dtype=np.int64)
        for b in range(K):
            last[masks >= (1 << b)] = b
        self.last = last  # the standing bid's rank at each mask (-1: none)
        self.nactions = (K - 1 - last) + (masks != 0)
        self.offset = np.zeros((1 << K) + 1, dtype=np.int64)
        np.cumsum(self.nactions, out=self.offset[1:])
        self.rows = int(self.offset[-1])
        # win[r, h0, h1]: +1 if the bid of rank r is true for hands h0, h1 (LP-5.2), else -1
        q = np.arange(K) // self.values + 1
        p = np.arange(K) % self.values
        tot = self.counts[:, None, :] + self.counts[None, :, :]  # [H, H, D]
        self.win = np.stack([np.where(tot[:, :, p[r]] >= q[r], 1.0, -1.0) for r in range(K)])

    def bid(self, rank: int) -> tuple[int, int]:
        """The (q, d) of chain rank ``rank`` (digits 1..D when D < 10, LP-3.3)."""
        q, p = divmod(rank, self.values)
        return q + 1, (p + 1 if self.values < 10 else p)

    def hand_index(self, counts: tuple[int, ...]) -> int:
        """The index of a hand given as counts per digit position (lowest digit first)."""
        return self.hands.index(tuple(counts))
