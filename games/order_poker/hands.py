"""OP-2 ranks of 5-card hands, by the evaluator's kernel tables (shared by the engine, legality, bots, tables)."""

from __future__ import annotations

from collections.abc import Sequence

from ext.handeval import tables
from games.order_poker.rules import HAND

_SHIFT = 20  # ext.handeval values are category << 20 (no tie-breaks in order-poker)
_T = tables("order-poker", HAND)


def combination(cards: Sequence[int]) -> int:
    """OP-2 rank of a 5-card hand (one kernel lookup, no array)."""
    return int(_T.value_of(cards)) >> _SHIFT
