"""Bids, the bid chain (LP-3) and the lazy sequence of legal actions.

A bid is ``Bid(q, d)``: "at least q of digit d on all the notes" (LP-3.1). The bids form one chain
of D·n·L (LP-3.4), ranked ``(q - 1)·D + position of d`` in the digit order (LP-3.2, LP-3.3), so a
bid is higher than another exactly when its rank is. ``CHALLENGE`` and ``ACCEPT`` (LP-4.2, LP-4.6)
are the other two actions.

``Actions`` is what ``State.legal_actions()`` returns: every bid above the standing one, in chain
order, then the challenge or the accept when they are legal. It is a ``Sequence`` computed on
demand (like Quintet's ``LayoutSpace``): the chain has up to 2,000 bids (10 players, 20 digits,
10 values), and a random bot needs only its length and one element.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

import numpy as np

CHALLENGE = "challenge"
"""LP-4.2: the player to act does not believe the standing bid."""
ACCEPT = "accept"
"""LP-4.6: the holder, in his rebid turn, lets his bid be resolved."""


class Bid(NamedTuple):
    """LP-3.1: at least ``q`` of digit ``d`` among the digits of all n notes."""

    q: int
    d: int


class Chain:
    """LP-3.4: the bid chain of one table (D values in ``ranking`` order, n·L as the top quantity)."""

    __slots__ = ("count", "pos", "ranking", "top", "values")

    def __init__(self, ranking: Sequence[int], top: int) -> None:
        self.ranking = tuple(ranking)  # digits, lowest first (LP-3.3)
        self.values = len(self.ranking)
        self.pos = [-1] * 10  # position of each digit 0..9 in the order, -1: not in the digit set
        for i, d in enumerate(self.ranking):
            self.pos[d] = i
        self.top = top  # n·L, the highest quantity (LP-3.1)
        self.count = top * self.values

    def rank(self, bid: Bid) -> int:
        """The bid's place in the chain, 0 for (1, lowest digit) (LP-3.2)."""
        return (bid[0] - 1) * self.values + self.pos[bid[1]]

    def bid(self, rank: int) -> Bid:
        """The bid at place ``rank`` of the chain."""
        q, p = divmod(rank, self.values)
        return Bid(q + 1, self.ranking[p])

    def rank_of(self, obj: Any) -> int:
        """The rank of ``obj`` if it is a bid of this chain (a pair of integers in range), else -1."""
        if not isinstance(obj, tuple) or len(obj) != 2:
            return -1
        q, d = obj
        if isinstance(q, bool) or isinstance(d, bool) or not isinstance(q, int | np.integer) \
                or not isinstance(d, int | np.integer):
            return -1
        if not 1 <= q <= self.top or not 0 <= d <= 9 or self.pos[d] < 0:
            return -1
        return (int(q) - 1) * self.values + self.pos[d]


class Actions(Sequence[Any]):
    """The legal actions of the seat to act: bids of rank ``start`` .. top, then ``extra``.

    ``extra`` is ``(CHALLENGE,)`` when a challenge is legal, ``(ACCEPT,)`` in a rebid turn (LP-4.6),
    ``()`` before the opening bid (LP-4.1) or after the end. ``start`` is one above the standing bid.
    """

    __slots__ = ("chain", "extra", "nbids", "start")

    def __init__(self, chain: Chain, start: int, extra: tuple[str, ...]) -> None:
        self.chain = chain
        self.start = start
        self.nbids = max(0, chain.count - start)
        self.extra = extra

    def __len__(self) -> int:
        return self.nbids + len(self.extra)

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Any]: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"action {i} of {n}")
        if i < self.nbids:
            return self.chain.bid(self.start + i)
        return self.extra[i - self.nbids]

    def __contains__(self, action: object) -> bool:
        if isinstance(action, str):
            return action in self.extra
        r = self.chain.rank_of(action)
        return r >= self.start and self.nbids > 0

    def __iter__(self) -> Iterator[Any]:
        for r in range(self.start, self.chain.count):
            yield self.chain.bid(r)
        yield from self.extra

    def index(self, action: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``action`` (``ValueError`` when it is not legal)."""
        if action not in self:
            raise ValueError(f"{action!r} is not a legal action")
        i = self.nbids + self.extra.index(action) if isinstance(action, str) else \
            self.chain.rank_of(action) - self.start
        if i < start or (stop is not None and i >= stop):
            raise ValueError(f"{action!r} is not in the slice")
        return i

    def sample(self, rng: np.random.Generator) -> Any:
        """One legal action, uniformly (one draw from ``rng``)."""
        return self[int(rng.integers(len(self)))]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Actions):
            return (self.chain.ranking, self.chain.top, self.start, self.extra) == \
                (other.chain.ranking, other.chain.top, other.start, other.extra)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and list(other) == list(self)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.chain.ranking, self.chain.top, self.start, self.extra))

    def __repr__(self) -> str:
        lo = f"{tuple(self.chain.bid(self.start))}" if self.nbids else "none"
        return f"Actions(bids from {lo}, {self.nbids} bids, then {list(self.extra)})"
