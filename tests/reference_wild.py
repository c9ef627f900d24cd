"""Plain-Python reference for wild cards, the bug, the four-flush and low hands (tests only).

Written from docs/rules/classic-poker.md, never importing ``ext``. A hand with wild cards is valued
by trying *every substitution*: each wild card stands for a card of the deck that is not one of the
hand's natural cards, two wild cards never for the same card (CP-3.2 b), except that five of a kind
is always allowed (CP-3.2, CP-3.4, CP-3.7). The bug (CP-3.5) may stand only for an ace, or for a
card of a hand that ends up a straight or straight flush, or (``bug_flush=fill``) a flush. In a
low hand every wild card, the bug too, is fully wild (CP-5.5). The best (high) or lowest (low)
key over all substitutions is the hand's.

Keys are ``(category index, tie-break ranks)`` with ranks 0..12 for 2..A and -1 for an ace playing
low; they compare exactly as the rules compare hands.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

ACE = 12
JOKERS = (52, 53)
DECK_LOW = {"52": 0, "36": 4}
Key = tuple[int, tuple[int, ...]]


@dataclass(frozen=True)
class RefMode:
    """The options the reference understands (CP-2..CP-5, CP-10)."""

    short: bool = False          # CP-10 order on 36 cards
    wild: str = "none"           # none, jokers, bug, deuces, deuces+jokers
    bug_flush: str = "fill"
    four_flush: bool = False
    low: str | None = None       # ace_high, ace_either, ace_to_five
    ace_low_straight: bool = True

    def order(self) -> tuple[str, ...]:
        """Category names, lowest first."""
        if self.short:
            base = ["high", "pair", "two_pair", "straight", "three", "full_house", "flush", "four", "straight_flush"]
        else:
            base = ["high", "pair", "two_pair", "three", "straight", "flush", "full_house", "four", "straight_flush"]
        if self.four_flush and self.low is None:
            base.insert(2, "four_flush")
        return (*base, "five")

    def is_wild(self, c: int) -> bool:
        if c in JOKERS:
            return self.wild in ("jokers", "bug", "deuces+jokers")
        return (c >> 2) == 0 and self.wild in ("deuces", "deuces+jokers")


def _straight_top(ranks: Sequence[int], low_rank: int, wheel: bool, ace_low: bool) -> int | None:
    """Top of the straight made by five ranks (ace = 12 high), or None.

    ``ace_low``: the ace plays only low (rank -1), as under ``ace_either``'s ace-low reading and
    ``ace_to_five``; ``wheel``: the ace-low straight A + the deck's four lowest ranks counts.
    """
    d = sorted(set(ranks))
    if len(d) != 5:
        return None
    if ace_low and ACE in d:
        rest = [r for r in d if r != ACE]
        if wheel and rest == list(range(low_rank, low_rank + 4)):
            return low_rank + 3
        return None
    if d[-1] - d[0] == 4:
        return d[-1]
    if wheel and d == [*range(low_rank, low_rank + 4), ACE]:
        return low_rank + 3
    return None


@cache
def _key5(ranks: tuple[int, ...], suits: tuple[int, ...], mode: RefMode, low_rank: int, ace_low: bool,
          straights: bool) -> Key:
    """Key of five concrete cards (ranks may repeat only as five of a kind)."""
    order = mode.order()
    counts = Counter(ranks)
    if len(counts) == 1:
        return order.index("five"), (ranks[0] if not ace_low or ranks[0] != ACE else -1,)
    rk = [(-1 if (ace_low and r == ACE) else r) for r in ranks]
    rc = Counter(rk)
    shape = sorted(rc.values(), reverse=True)
    by_group = tuple(r for r, _ in sorted(rc.items(), key=lambda x: (x[1], x[0]), reverse=True))
    flush = straights and len(set(suits)) == 1
    top = _straight_top(ranks, low_rank, mode.ace_low_straight, ace_low) if straights else None
    if top is not None and flush:
        return order.index("straight_flush"), (top,)
    if shape == [4, 1]:
        return order.index("four"), by_group
    if shape == [3, 2]:
        return order.index("full_house"), by_group
    if flush:
        return order.index("flush"), by_group
    if top is not None:
        return order.index("straight"), (top,)
    if shape == [3, 1, 1]:
        return order.index("three"), by_group
    if shape == [2, 2, 1]:
        return order.index("two_pair"), by_group
    if "four_flush" in order:
        # CP-4.1/4.3: four of one suit; the four suited ranks from the highest, then the fifth card.
        sc = Counter(suits)
        s, n = sc.most_common(1)[0]
        if n == 4:
            four = sorted((r for r, t in zip(ranks, suits, strict=True) if t == s), reverse=True)
            fifth = [r for r, t in zip(ranks, suits, strict=True) if t != s]
            return order.index("four_flush"), (*four, *fifth)
    if shape == [2, 1, 1, 1]:
        return order.index("pair"), by_group
    return 0, by_group


def concrete_key(cards: Sequence[int], mode: RefMode, low_rank: int, low_side: bool = False) -> Key:
    """Key of five concrete natural cards, high (or the raw low key when ``low_side``)."""
    # Canonical form (a speed-up only): cards sorted, suits renamed by first appearance, since
    # suits matter only through which cards share one.
    pairs = sorted((c >> 2, c & 3) for c in cards)
    names: dict[int, int] = {}
    ranks = tuple(r for r, _ in pairs)
    suits = tuple(names.setdefault(s, len(names)) for _, s in pairs)
    if not low_side:
        return _key5(ranks, suits, mode, low_rank, False, True)
    if mode.low == "ace_high":
        return _key5(ranks, suits, mode, low_rank, False, True)
    if mode.low == "ace_to_five":
        return _key5(ranks, suits, mode, low_rank, True, False)
    return min(_key5(ranks, suits, mode, low_rank, False, True), _key5(ranks, suits, mode, low_rank, True, True))


def _bug_ok(card: int, five: Sequence[int], mode: RefMode, low_rank: int) -> bool:
    """CP-3.5: may the bug stand for ``card`` in the final five cards ``five``?"""
    if card >> 2 == ACE:
        return True
    ranks = [c >> 2 for c in five]
    if _straight_top(ranks, low_rank, mode.ace_low_straight, False) is not None:
        return True
    return mode.bug_flush == "fill" and len({c & 3 for c in five}) == 1


def reference_key(cards: Sequence[int], mode: RefMode, deck: str = "52") -> Key:
    """Best (high) or lowest raw (low) key of a five-card hand over every substitution."""
    low_rank = DECK_LOW[deck]
    naturals = [c for c in cards if not mode.is_wild(c)]
    w = len(cards) - len(naturals)
    low_side = mode.low is not None
    if w == 0:
        return concrete_key(naturals, mode, low_rank, low_side)
    pool = [c for c in range(4 * low_rank, 52) if c not in naturals]
    bug = mode.wild == "bug" and not low_side
    best: Key | None = None
    for sub in itertools.combinations(pool, w):
        five = [*naturals, *sub]
        if bug and not all(_bug_ok(c, five, mode, low_rank) for c in sub):
            continue
        k = concrete_key(five, mode, low_rank, low_side)
        if best is None or (k < best if low_side else k > best):
            best = k
    # Five of a kind (CP-3.2 exception; CP-3.7: only wild cards = five aces).
    nat_ranks = {c >> 2 for c in naturals}
    if len(nat_ranks) <= 1:
        r = nat_ranks.pop() if nat_ranks else ACE
        if not bug or r == ACE:
            five_key = concrete_key([4 * r] * 5, mode, low_rank, low_side)
            if best is None or (five_key < best if low_side else five_key > best):
                best = five_key
    assert best is not None
    return best


def category(key: Key, mode: RefMode) -> str:
    """Name of a key's category; low no-pair hands as ``<top>-high`` (CP-13)."""
    name = mode.order()[key[0]]
    if mode.low is not None and name == "high":
        top = key[1][0]
        return f"{'A' if top in (-1, ACE) else '23456789TJQKA'[top]}-high"
    return name


def grouped(hands: npt.NDArray[np.uint8], mode: RefMode, deck: str) -> tuple[npt.NDArray[np.int64], list[str]]:
    """Reference dense key ranks (0 = lowest key) and category names of every 5-card hand.

    A hand's key depends only on its natural ranks, whether its naturals share one suit and how
    many wild cards it holds (wild cards are interchangeable and suits never break ties), so the
    substitutions are tried once per group, on a real hand of the group. A four-flush also
    depends on which natural ranks share the suit, so then the grouping uses the suit pattern.
    """
    is_wild = np.zeros(64, dtype=bool)
    for c in range(54):
        is_wild[c] = mode.is_wild(c)
    wmask = is_wild[hands]
    ranks = np.where(wmask, 13, hands >> 2).astype(np.int64)
    suits = np.where(wmask, 4, hands & 3).astype(np.int64)
    order = np.argsort(ranks * 8 + suits, axis=1, kind="stable")
    ranks_s = np.take_along_axis(ranks, order, axis=1)
    suits_s = np.take_along_axis(suits, order, axis=1)
    nat_suits = np.where(suits_s == 4, -1, suits_s)
    first = nat_suits.max(axis=1, keepdims=True)
    flush = ((nat_suits == first) | (nat_suits == -1)).all(axis=1)
    gid = ranks_s @ (14 ** np.arange(4, -1, -1, dtype=np.int64)) * 2 + flush
    if mode.four_flush:
        # Canonical suit pattern: relabel suits by first appearance.
        pat = np.zeros(len(hands), dtype=np.int64)
        for i in range(5):
            col = suits_s[:, i]
            same = np.zeros(len(hands), dtype=np.int64) + i
            for j in range(i - 1, -1, -1):
                same = np.where(suits_s[:, j] == col, j, same)
            pat = pat * 6 + np.where(col == 4, 5, same)
        gid = gid * 7776 + pat
    _, first_idx, inverse = np.unique(gid, return_index=True, return_inverse=True)
    deck_name = deck
    keys = [reference_key([int(c) for c in hands[i]], mode, deck_name) for i in first_idx]
    pos = {k: i for i, k in enumerate(sorted(set(keys)))}
    dense = np.asarray([pos[k] for k in keys], dtype=np.int64)[inverse.ravel()]
    names = [category(k, mode) for k in keys]
    return dense, [names[j] for j in inverse.ravel()]
