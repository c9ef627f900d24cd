"""Layouts (Q-1.3): five ordered packets of five cards, their validation, values and comparison.

A layout is ``[[c, c, c, c, c], ...]`` with five packets, packet 1 (index 0) first; cards are
ids of games.core.cards (card names are accepted where a layout comes from outside). The order
of the cards inside a packet does not matter; the order of the packets does (Q-1.3).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from ext.handeval import evaluate, tables
from games.core.cards import card_id, card_str
from games.core.protocol import IllegalAction
from games.quintet.rules import DECK, PACKET, PACKETS, QUINTET_CATEGORIES, RANKING

Layout = tuple[tuple[int, ...], ...]
"""A validated layout: five tuples of five card ids, packet 1 first."""

_T = tables(RANKING, PACKET)
_DECK_SET = frozenset(DECK)
_SHIFT = 20  # ext.handeval values are category << 20 | tie-break


def _card(c: Any, packet: int, index: int | None) -> int:
    """One card of packet ``packet`` (1-based) as an id; names and numpy integers are accepted."""
    if isinstance(c, str):
        try:
            return card_id(c)
        except ValueError as e:
            raise IllegalAction(f"packet {packet}: {e}", "Q-1.1", index) from None
    if isinstance(c, bool) or not isinstance(c, int | np.integer):
        raise IllegalAction(f"packet {packet}: {c!r} is not a card", "Q-1.1", index)
    if not 0 <= int(c) < 52:
        raise IllegalAction(f"packet {packet}: unknown card id {int(c)} (ids are 0..51)", "Q-1.1", index)
    return int(c)


def check_layout(layout: Any, held: Sequence[int] | frozenset[int], index: int | None = None) -> Layout:
    """Validate ``layout`` against the 25 ``held`` cards and return it as a ``Layout``.

    Rejects, with ``IllegalAction`` naming the packet or the card (``index`` is the action's
    index in the deal): not five packets, a packet not of five cards (Q-1.3), an unknown card
    or one outside the 32-card deck (Q-1.1), a removed card (Q-1.2), a card given twice (Q-1.3;
    the message also names the held card(s) that are then missing).
    """
    held_set = held if isinstance(held, frozenset) else frozenset(int(c) for c in held)
    if type(layout) is tuple and len(layout) == PACKETS and all(
            type(p) is tuple and len(p) == PACKET and all(type(c) is int for c in p) for p in layout):
        # A bot's layout as bots build it (tuples of int ids): valid iff it is the 25 held cards. Anything
        # else, and every error message, takes the checks below.
        cards = {c for p in layout for c in p}
        if len(cards) == PACKET * PACKETS and cards <= held_set:
            return layout
    if isinstance(layout, np.ndarray):
        layout = layout.tolist()
    if isinstance(layout, str) or not isinstance(layout, Sequence):
        raise IllegalAction(f"a layout is a list of {PACKETS} packets, not {type(layout).__name__}",
                            "Q-1.3", index)
    if len(layout) != PACKETS:
        raise IllegalAction(f"a layout has {PACKETS} packets, not {len(layout)}", "Q-1.3", index)
    packets: list[tuple[int, ...]] = []
    for p, packet in enumerate(layout, start=1):
        if isinstance(packet, str) or not isinstance(packet, Sequence):
            raise IllegalAction(f"packet {p} is not a list of cards", "Q-1.3", index)
        if len(packet) != PACKET:
            raise IllegalAction(f"packet {p} has {len(packet)} cards, not {PACKET}", "Q-1.3", index)
        packets.append(tuple(_card(c, p, index) for c in packet))
    where: dict[int, int] = {}
    for p, packet in enumerate(packets, start=1):
        for c in packet:
            if c not in held_set:
                if c not in _DECK_SET:
                    raise IllegalAction(f"card {card_str(c)} in packet {p} is not in the 32-card deck 7..A",
                                        "Q-1.1", index)
                raise IllegalAction(f"card {card_str(c)} in packet {p} was removed in the deal "
                                    "and is held by no player", "Q-1.2", index)
            if c in where:
                missing = sorted(held_set.difference(x for pk in packets for x in pk))
                raise IllegalAction(
                    f"card {card_str(c)} is in packet {where[c]} and again in packet {p}; "
                    f"missing: {' '.join(card_str(m) for m in missing)}", "Q-1.3", index)
            where[c] = p
    return tuple(packets)


def packet_values(layout: Layout) -> list[int]:
    """``ext.handeval`` values (Q-2; equal values are ties) of the five packets."""
    return [int(_T.value_of(p)) for p in layout]


def category_name(value: int) -> str:
    """The Q-2 category id of a packet value (``"two_pair"``)."""
    return QUINTET_CATEGORIES[value >> _SHIFT]


def compare(values_a: Sequence[int], values_b: Sequence[int],
            points: Sequence[int]) -> tuple[list[int], list[int | None]]:
    """Q-1.4: scores of seats 0 and 1 and the winner (or ``None`` for a tie) of each comparison."""
    scores = [0, 0]
    winners: list[int | None] = []
    for va, vb, pts in zip(values_a, values_b, points, strict=True):
        if va == vb:
            winners.append(None)  # Q-1.4 [ruling]: a tie scores nothing
            continue
        w = 0 if va > vb else 1
        scores[w] += pts
        winners.append(w)
    return scores, winners


def layouts_values(layouts: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int32]:
    """Packet values of a batch of layouts: ``(n, 5, 5)`` card ids -> ``(n, 5)``, one kernel call."""
    arr = np.ascontiguousarray(layouts, dtype=np.uint8).reshape(-1, PACKET)
    return evaluate(arr, RANKING).reshape(-1, PACKETS)


def margin_matrix(values_a: npt.NDArray[np.int32], values_b: npt.NDArray[np.int32],
                  points: Sequence[int]) -> npt.NDArray[np.int64]:
    """``M[i, j]`` = score of layout i minus score of layout j when they meet (Q-1.4).

    ``values_a`` is ``(m, 5)``, ``values_b`` ``(n, 5)``; the result is ``(m, n)``. The margin is
    zero-sum, and the match is won on totals (Q-1.5), so it is the payoff the solver uses.
    """
    sign: npt.NDArray[np.int64] = np.sign(values_a[:, None, :].astype(np.int64) - values_b[None, :, :])
    margins: npt.NDArray[np.int64] = sign @ np.asarray(points, dtype=np.int64)
    return margins


def _unrank_comb(n: int, k: int, r: int) -> list[int]:
    """The r-th k-subset of range(n) in lexicographic order."""
    out = []
    x = 0
    for i in range(k):
        while True:
            c = comb(n - x - 1, k - i - 1)
            if r < c:
                break
            r -= c
            x += 1
        out.append(x)
        x += 1
    return out


def _rank_comb(n: int, k: int, chosen: Sequence[int]) -> int:
    """Inverse of ``_unrank_comb`` (``chosen`` ascending)."""
    r = 0
    x = 0
    for i, c in enumerate(chosen):
        while x < c:
            r += comb(n - x - 1, k - i - 1)
            x += 1
        x += 1
    return r


class LayoutSpace(Sequence[Layout]):
    """What ``State.legal_actions()`` returns: every layout of the 25 held cards (Q-1.3).

    The space is far too large to list (25! / (5!)^5 = 623,360,743,125,120 layouts), so this is
    a lazy ``Sequence``: ``len`` counts the layouts, ``space[i]`` builds layout i (packets in
    order, cards of a packet ascending), ``layout in space`` checks any layout (card order
    inside a packet is free), ``space.index(layout)`` inverts ``space[i]``, ``space.sample(rng)``
    draws a uniform layout. ``cards`` are the 25 held ids, ascending. Never ``list()`` it.
    """

    def __init__(self, cards: Sequence[int]) -> None:
        self.cards: tuple[int, ...] = tuple(sorted(int(c) for c in cards))
        self.held = frozenset(self.cards)
        n = len(self.cards)
        if n not in (0, PACKET * PACKETS) or len(self.held) != n:
            raise ValueError(f"a layout space is made of {PACKET * PACKETS} distinct cards (or none, once "
                             f"the deal is over), not {n}")
        # No cards: the empty space of a finished deal (every radix 0, so len() is 0).
        self._radix = [comb(n - PACKET * i, PACKET) if n else 0 for i in range(PACKETS)]

    def __len__(self) -> int:
        n = 1
        for r in self._radix:
            n *= r
        return n

    @overload
    def __getitem__(self, i: int) -> Layout: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Layout]: ...

    def __getitem__(self, i: int | slice) -> Layout | Sequence[Layout]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"layout index {i} out of range 0..{n - 1}")
        digits = []
        for r in reversed(self._radix):
            i, d = divmod(i, r)
            digits.append(d)
        digits.reverse()  # packet 1 is the most significant digit
        left = list(self.cards)
        packets = []
        for d in digits:
            pos = _unrank_comb(len(left), PACKET, d)
            packets.append(tuple(left[p] for p in pos))
            left = [c for j, c in enumerate(left) if j not in pos]
        return tuple(packets)

    def __contains__(self, layout: object) -> bool:
        try:
            check_layout(layout, self.held)
        except IllegalAction:
            return False
        return True

    def __iter__(self) -> Iterator[Layout]:
        for i in range(len(self)):
            yield self[i]

    def index(self, layout: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``layout`` (validated; ``ValueError`` if it is not in the space)."""
        lay = check_layout(layout, self.held)
        left = list(self.cards)
        i = 0
        for packet, r in zip(lay, self._radix, strict=True):
            pos = sorted(left.index(c) for c in packet)
            i = i * r + _rank_comb(len(left), PACKET, pos)
            left = [c for j, c in enumerate(left) if j not in pos]
        if i < start or (stop is not None and i >= stop):
            raise ValueError("layout is not in the given range")
        return i

    def sample(self, rng: np.random.Generator) -> Layout:
        """A uniform random layout: a shuffle of the cards cut into five packets."""
        if not self.cards:
            raise IndexError("the deal is over: there is no layout to sample")
        perm = rng.permutation(len(self.cards))
        return tuple(tuple(sorted(self.cards[j] for j in perm[PACKET * p: PACKET * p + PACKET].tolist()))
                     for p in range(PACKETS))

    def __repr__(self) -> str:
        return f"LayoutSpace({len(self)} layouts of {' '.join(card_str(c) for c in self.cards)})"


def layout_strs(layout: Layout) -> list[list[str]]:
    """The JSON form of a layout (card names)."""
    return [[card_str(c) for c in p] for p in layout]
