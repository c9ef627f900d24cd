"""Preferans cards (PF-1): the 32-card deck, canonical order, strains as core suit ids.

Cards are the ids of :mod:`games.core.cards` (``4 * rank + suit``, suits ``c d h s`` = 0..3, ranks
``2..A`` = 0..12); Preferans uses ranks 7..A (ids 20..51).
"""

from __future__ import annotations

from collections.abc import Iterable

from games.core.cards import card_id, card_str, rank_of, suit_of

#: PF-1.1: the 32 cards 7..A of four suits.
DECK: tuple[int, ...] = tuple(range(20, 52))
DECK_SET = frozenset(DECK)
#: strain letter -> core suit id (PF-1.2 letters s c d h).
SUIT_OF_STRAIN = {"s": 3, "c": 0, "d": 1, "h": 2}
ACE, KING, QUEEN = 12, 11, 10


def canon_key(card: int) -> tuple[int, int]:
    """PF-1.4: suits s, c, d, h, then ranks 7..A (core suits c d h s are 0 1 2 3)."""
    return ((suit_of(card) + 1) % 4, rank_of(card))


#: card id -> its position in the canonical order (PF-1.4)
CANON_INDEX: dict[int, int] = {c: i for i, c in enumerate(sorted(DECK, key=canon_key))}


def canonical(cards: Iterable[int]) -> list[int]:
    """Cards in the canonical order of PF-1.4."""
    return sorted(cards, key=canon_key)


def names(cards: Iterable[int]) -> list[str]:
    """Card names in the canonical order of PF-1.4."""
    return [card_str(c) for c in canonical(cards)]


def parse(text: str) -> int:
    """A card of the 32-card deck from its name; ``ValueError`` naming it otherwise (PF-1.1)."""
    try:
        c = card_id(text) if isinstance(text, str) else -1
    except ValueError:
        c = -1
    if c not in DECK_SET or not isinstance(text, str) or len(text.strip()) != 2:
        raise ValueError(f"{text!r} is not a card of the 32-card deck (7..A of s c d h, PF-1.1)")
    return c
