"""Deal statistics of classic poker (issue 17): exact draw-improvement odds.

The CP-13 category tables and the 8-or-better low frequency are generic category counts
(``rasklad stats categories --jokers/--wild/--low``, ``ext.handeval.category_counts_mode``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.rules import Rules


def draw_outcomes(rules: Rules, hand: Sequence[str], discard: Sequence[str]) -> dict[str, int]:
    """Exact category counts of the hand after discarding ``discard`` and drawing as many cards,
    over every set of replacement cards from the rest of the deck (the other players' cards unseen).

    E.g. four to a flush drawing one: ``flush`` 9 of 47; a pair drawing three: 4,656 of 16,215 improve.
    """
    held = [hands.parse(c) for c in hand]
    thrown = [hands.parse(c) for c in discard]
    if len(held) != 5 or len(set(held)) != 5:
        raise ValueError("a draw hand is five different cards")
    if not set(thrown) <= set(held):
        raise ValueError("the discards must be cards of the hand")
    keep = [c for c in held if c not in thrown]
    rest = [c for c in hands.deck_of(rules) if c not in held]
    draws = np.asarray(list(itertools.combinations(rest, len(thrown))), dtype=np.uint8).reshape(-1, len(thrown))
    full = np.concatenate([np.tile(np.asarray(keep, dtype=np.uint8), (len(draws), 1)), draws], axis=1)
    mode = hands.low_mode(rules) if rules.pot == "low" else hands.high_mode(rules)
    values = handeval.evaluate_mode(full, mode)
    counts = Counter(handeval.describe(int(v), mode) for v in values)
    return dict(counts)
