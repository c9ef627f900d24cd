"""Card notation and decks (DESIGN.md, "Cards and notation").

A card is two characters, rank then suit (``As``, ``Td``, ``6h``). Internally a card is
the small integer ``4 * rank + suit`` with rank 0..12 for ``2..A`` and suit 0..3 for
``c d h s``: ``2c`` is 0 and ``As`` is 51. The ids are the same on every deck, so a
36-card deck is simply the ids whose rank is 6 or higher.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

RANKS = "23456789TJQKA"
SUITS = "cdhs"

#: The named decks: name -> lowest rank index (``2`` is 0). All use the four suits.
DECK_LOW_RANK: dict[str, int] = {"52": 0, "36": RANKS.index("6"), "32": RANKS.index("7")}


def card_id(text: str) -> int:
    """Return the id of a card written as rank then suit (``"As"`` -> 51).

    Accepts lower-case ranks and ``10`` for ten. Raises ``ValueError`` naming the text.
    """
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise ValueError(f"unknown card {text!r}: a card is a rank (2-9 T J Q K A) and a suit (c d h s)")
    r = RANKS.find(t[0].upper())
    s = SUITS.find(t[1].lower())
    if r < 0 or s < 0:
        raise ValueError(f"unknown card {text!r}: a card is a rank (2-9 T J Q K A) and a suit (c d h s)")
    return 4 * r + s


def card_str(cid: int) -> str:
    """Return the two-character name of card id ``cid`` (51 -> ``"As"``)."""
    if not 0 <= int(cid) < 52:
        raise ValueError(f"unknown card id {cid}: ids are 0..51")
    return RANKS[int(cid) >> 2] + SUITS[int(cid) & 3]


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse ``"As Kd Qh"`` (spaces or commas) or an iterable of card names into ids."""
    if isinstance(text, str):
        parts = text.replace(",", " ").split()
    else:
        parts = [str(p) for p in text]
    return [card_id(p) for p in parts]


def format_cards(cards: Iterable[int]) -> str:
    """Format card ids as a space-separated string."""
    return " ".join(card_str(c) for c in cards)


def rank_of(cid: int) -> int:
    """Rank index 0..12 (``2``..``A``) of a card id."""
    return int(cid) >> 2


def suit_of(cid: int) -> int:
    """Suit index 0..3 (``c d h s``) of a card id."""
    return int(cid) & 3


def first_jack_seat(deck: Sequence[int], players: int, rng: np.random.Generator) -> int:
    """The seat that deals first by the book's jack search (CP-1.4, BJ-4.1): one uniform permutation
    of ``deck`` (card ids; any id outside 0..51, a joker, is no jack) is drawn from ``rng``, its cards
    are turned from the top one to each seat from seat 0 clockwise, and the first jack's seat deals.
    A deck holds jacks, so the search always ends."""
    jack = RANKS.index("J")
    for i, j in enumerate(rng.permutation(len(deck))):
        c = int(deck[int(j)])
        if 0 <= c < 52 and rank_of(c) == jack:
            return i % players
    raise ValueError("the deck holds no jack")


def deck_cards(deck: str = "52") -> list[int]:
    """The card ids of a named deck (``"52"``, ``"36"``, ``"32"``), ascending."""
    try:
        low = DECK_LOW_RANK[str(deck)]
    except KeyError:
        raise ValueError(f"unknown deck {deck!r}: known decks are {', '.join(DECK_LOW_RANK)}") from None
    return list(range(4 * low, 52))


def deck_array(deck: str = "52") -> npt.NDArray[np.uint8]:
    """The card ids of a named deck as a ``uint8`` array."""
    return np.asarray(deck_cards(deck), dtype=np.uint8)


def hands_array(hands: Sequence[str] | Sequence[Sequence[str]] | str) -> npt.NDArray[np.uint8]:
    """Parse hands written as strings (``["As Kd Qh Jc Ts", ...]``) into an ``(n, k)`` array.

    A single string is one hand. Every hand must have the same number of cards.
    """
    if isinstance(hands, str):
        hands = [hands]
    rows = []
    for i, h in enumerate(hands):
        try:
            rows.append(parse_cards(h))
        except ValueError as e:
            raise ValueError(f"{e} (hand {i})") from None
    if not rows:
        return np.zeros((0, 5), dtype=np.uint8)
    k = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != k:
            raise ValueError(f"hand {i} has {len(row)} cards, hand 0 has {k}: all hands need the same size")
    return np.asarray(rows, dtype=np.uint8)
