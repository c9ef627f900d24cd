"""The generic deal-stats question ``categories`` (docs/jobs.md): category frequencies of any ranking.

Game-independent: any ``ext.handeval`` ranking answers it, on its deck (or a larger one) minus
``dead`` cards. Exact: the C enumeration, split between shards by the first card's position
(shard k of n counts the hands whose first live card's position is k modulo n). Sampled:
``handeval.sample_counts`` seeded from the shard's seed sequence. Table ``counts(category, rank)``.

Everything here takes plain values (ranking, cards, dead, deck), so the spec layer, the planner
and the shard runner all use it without importing one another.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ext import handeval
from games.core.cards import DECK_LOW_RANK, card_str, deck_cards, parse_cards

__all__ = ["EXACT_HANDS_PER_SHARD", "KEYS", "SAMPLES_PER_SHARD", "check", "exact_shards", "live_deck", "rows",
           "total_hands"]

#: Hands per shard of an exact enumeration (~0.2 s of the C kernel).
EXACT_HANDS_PER_SHARD = 20_000_000
#: Samples per shard by default (~4M hands: about a second of the C sampler with Python around it).
SAMPLES_PER_SHARD = 1 << 22
#: Key columns of the ``counts`` table (types of ``games.core.entry.COLUMN_TYPES``).
KEYS = (("category", "string"), ("rank", "int8"))


def live_deck(ranking: str, cards: int, dead: Sequence[str], deck: str | None) -> npt.NDArray[np.uint8]:
    """The deck (default: the ranking's) minus the dead cards, in deck order; ``ValueError`` saying why not."""
    deck = deck or handeval.RANKINGS[ranking].deck
    if deck not in DECK_LOW_RANK:
        raise ValueError(f"unknown deck {deck!r}: known decks are {', '.join(DECK_LOW_RANK)}")
    if DECK_LOW_RANK[deck] < DECK_LOW_RANK[handeval.RANKINGS[ranking].deck]:
        raise ValueError(f"ranking {ranking} is defined on the {handeval.RANKINGS[ranking].deck}-card deck, "
                         f"not on {deck} cards")
    all_cards = deck_cards(deck)
    dead_ids = parse_cards(list(dead)) if dead else []
    for c in dead_ids:
        if c not in all_cards:
            raise ValueError(f"dead card {card_str(c)} is not in the {deck}-card deck")
    if len(set(dead_ids)) != len(dead_ids):
        raise ValueError("a dead card is given twice")
    live = np.asarray([c for c in all_cards if c not in set(dead_ids)], dtype=np.uint8)
    if live.size < cards:
        raise ValueError(f"only {live.size} live cards are left, fewer than the {cards} a hand needs")
    return live


def check(ranking: str, cards: int, dead: Sequence[str], deck: str | None) -> list[tuple[str, str]]:
    """Card-level errors of the question: dead cards that are not cards or not in the deck, a bad deck."""
    errors = []
    for i, c in enumerate(dead):
        try:
            parse_cards([c])
        except (ValueError, IndexError, KeyError):
            errors.append((f"question.dead[{i}]", f"{c!r} is not a card (rank 2-9 T J Q K A, then suit c d h s)"))
    if errors:
        return errors
    try:
        live_deck(ranking, cards, dead, deck)
    except ValueError as e:
        return [("question.deck" if "deck" in str(e) and "dead" not in str(e) else "question.dead", str(e))]
    return []


def total_hands(ranking: str, cards: int, dead: Sequence[str], deck: str | None) -> int:
    """Number of hands an exact enumeration counts."""
    return math.comb(int(live_deck(ranking, cards, dead, deck).size), cards)


def exact_shards(ranking: str, cards: int, dead: Sequence[str], deck: str | None) -> int:
    """Shards of an exact enumeration: about ``EXACT_HANDS_PER_SHARD`` hands each, at most one per
    possible first-card position."""
    live = int(live_deck(ranking, cards, dead, deck).size)
    hands = math.comb(live, cards)
    return max(1, min(live - cards + 1, math.ceil(hands / EXACT_HANDS_PER_SHARD)))


def rows(ranking: str, cards: int, dead: Sequence[str], deck: str | None, *, exact: tuple[int, int] | None = None,
         samples: int = 0, seed: int = 0) -> list[tuple[Any, ...]]:
    """Rows ``(category, rank, count, n)`` of one shard.

    ``exact=(k, n)``: shard k of an n-shard enumeration; else ``samples`` hands drawn by the C
    sampler from the 63-bit ``seed``.
    """
    cats = handeval.CATEGORIES[ranking]
    if exact is not None:
        k, n_sh = exact
        live = live_deck(ranking, cards, dead, deck)
        raw = handeval.tables(ranking, cards, deck).count_all(live, n_sh, k)
        counts = {c: int(raw[i]) for i, c in enumerate(cats)}
    else:
        counts = handeval.sample_counts(ranking, cards, samples, seed, dead=list(dead), deck=deck)
    total = sum(counts.values())
    return [(c, i, counts[c], total) for i, c in enumerate(cats)]
