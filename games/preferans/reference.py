"""A pure-Python double-dummy solver: the reference the compiled one is tested and benchmarked against.

Plain minimax over every legal card (PF-7.2, PF-7.3), memoised at trick boundaries on the three
hands and the leader; no pruning, no move ordering, no equivalent cards, so it is obviously right
and slow. Seats are 0, 1, 2 in play order (clockwise); the declarer maximises his tricks, the two
others together minimise them; at misère (``misere=True``) the roles turn: he minimises.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache


def _suit(c: int) -> int:
    return c & 3


def _legal(hand: frozenset[int], led: int | None, trump: int | None) -> list[int]:
    """PF-7.2: follow suit; void, play a trump if you have one; otherwise any card."""
    if led is None:
        return sorted(hand)
    follow = [c for c in hand if _suit(c) == led]
    if follow:
        return sorted(follow)
    trumps = [c for c in hand if trump is not None and _suit(c) == trump]
    return sorted(trumps) if trumps else sorted(hand)


def _winner(cards: Sequence[int], trump: int | None) -> int:
    """PF-7.3: the index of the highest trump, else of the highest card of the led suit."""
    led = _suit(cards[0])
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i], cards[best]
        if trump is not None and _suit(c) == trump:
            if _suit(b) != trump or c > b:
                best = i
        elif _suit(c) == led and _suit(b) == led and c > b:
            best = i
    return best


def solve(hands: Sequence[Sequence[int]], trump: int | None, declarer: int, leader: int,
          misere: bool = False, trick: Sequence[int] = ()) -> int:
    """The declarer's tricks from now under optimal play by all (cards already in ``trick`` count).

    ``hands``: three lists of core card ids (equal sizes once ``trick`` is completed); ``trick``: the
    cards already played to the trick in progress, led by ``leader``.
    """
    sign = -1 if misere else 1

    @cache
    def at_boundary(h: tuple[frozenset[int], ...], lead: int) -> int:
        if not h[lead]:
            return 0
        return in_trick(h, lead, ())

    def in_trick(h: tuple[frozenset[int], ...], lead: int, played: tuple[int, ...]) -> int:
        k = len(played)
        if k == 3:
            w = (lead + _winner(played, trump)) % 3
            return (1 if w == declarer else 0) + at_boundary(h, w)
        seat = (lead + k) % 3
        led = _suit(played[0]) if played else None
        best: int | None = None
        for c in _legal(h[seat], led, trump):
            nh = tuple(x - {c} if i == seat else x for i, x in enumerate(h))
            v = in_trick(nh, lead, (*played, c))
            if best is None or (sign * v > sign * best if seat == declarer else sign * v < sign * best):
                best = v
        assert best is not None
        return best

    hs = tuple(frozenset(x) for x in hands)
    return in_trick(hs, leader, tuple(trick)) if trick else at_boundary(hs, leader)
