"""Quintet's own columns of the ``deals`` and ``seats`` tables (Q-4): five comparisons, two layouts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.cards import card_str
from games.core.entry import Column, TableSpec
from games.quintet.state import State

DEALS = (
    Column("removed", "string", "label", "the dealer's seven cards, space-separated (Q-1.2)", nullable=False),
    Column("winners", "list<int8>", "label", "seat winning comparison 1..5, null: tie (Q-1.4)", nullable=False),
    Column("ties", "int8", "measure", "tied comparisons (Q-1.4)", nullable=False),
)

SEATS = (
    Column("score", "int32", "measure", "points of the deal (Q-1.4)", nullable=False),
    Column("margin", "int32", "measure", "score minus the opponent's", nullable=False),
    Column("won", "int8", "measure", "comparisons won (0..5)", nullable=False),
    Column("categories", "list<string>", "label", "Q-2 category of packets 1..5", nullable=False),
    Column("layout", "string", "label", "the layout, packets 1..5: \"9s 9c 8s 8c 7c | Ks ... | ...\"",
           nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """The deal's row: removed cards, the winner of every comparison, the ties."""
    winners = st.outcome()["winners"]
    return [(st.dealer, (" ".join(card_str(c) for c in st.removed), winners, sum(w is None for w in winners)))]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: score, margin, comparisons won, packet categories, layout."""
    scores = st.scores()
    out = st.outcome()
    rows: list[Sequence[Any]] = []
    for seat in range(2):
        lay = st.layouts[seat]
        assert lay is not None
        rows.append((scores[seat], scores[seat] - scores[1 - seat], sum(w == seat for w in out["winners"]),
                     list(out["categories"][seat]),
                     " | ".join(" ".join(card_str(c) for c in p) for p in lay)))
    return rows


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
