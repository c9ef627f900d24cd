"""Raspisnoy's own columns of ``deals`` (one row per deal of the match) and ``seats`` (match totals), R-8.2.

The row functions read the finished ``State`` (not its record).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.raspisnoy.scoring import as_json
from games.raspisnoy.state import SUIT_NAMES, State

DEALS = (
    Column("deal_number", "int16", "label", "the deal's number in the schedule, from 1 (R-1.3, R-1.4)",
           nullable=False),
    Column("kind", "string", "category", "normal, dark, golden, no_trump or misere (R-1.5)", nullable=False),
    Column("cards", "int8", "measure", "cards per player (R-1.3, R-1.4)", nullable=False),
    Column("trump", "string", "category", "the trump suit c/d/h/s, or 'none' (no trump, rotating, a joker "
                                          "turned or drawn), R-2", nullable=False),
    Column("trump_source", "string", "category", "fixed, turned, drawn, none or rotating (R-8.2)", nullable=False),
    Column("bids", "list<int8>", "label", "each seat's bid, null in deals without bids (R-3)"),
    Column("dark", "list<int8>", "label", "1 where the seat's bid was dark (R-3.2)", nullable=False),
    Column("taken", "list<int8>", "label", "tricks taken per seat (R-4.7)", nullable=False),
    Column("points", "list<int32>", "label", "points per seat (R-5); null when a half point occurs (R-5.5)"),
    Column("bid_sum", "int16", "measure", "sum of the bids (null without bids)"),
    Column("bids_equal_tricks", "bool", "category", "the bids sum to the number of tricks (R-3.3)"),
    Column("made", "int8", "measure", "seats that took exactly their bid (null without bids)"),
)

SEATS = (
    Column("score", "float64", "measure", "the seat's match total (R-5.6)", nullable=False),
    Column("won", "bool", "category", "among the seats with the highest total (R-5.6)", nullable=False),
    Column("deals_made", "int16", "measure", "deals with bids in which the seat took exactly its bid (R-5.1)",
           nullable=False),
    Column("dark_bids", "int16", "measure", "dark bids the seat made (R-3.2)", nullable=False),
    Column("passes", "int16", "measure", "bids of 0 the seat made (R-3.1)", nullable=False),
    Column("tricks", "int16", "measure", "tricks taken over the match (R-4.7)", nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row per deal of the match."""
    rows: list[tuple[int, Sequence[Any]]] = []
    for d in st.done:
        assert d.points is not None
        has_bids = d.bidding
        pts = [as_json(p) for p in d.points]
        bid_sum = sum(b or 0 for b in d.bids) if has_bids else None
        made = sum(1 for b, t in zip(d.bids, d.taken, strict=True) if b == t) if has_bids else None
        rows.append((d.dealer, (
            d.index + 1, d.kind, d.k, "none" if d.trump is None else SUIT_NAMES[d.trump], d.trump_source,
            list(d.bids) if has_bids else None, [int(x) for x in d.dark], list(d.taken),
            pts if all(isinstance(p, int) for p in pts) else None,
            bid_sum, None if bid_sum is None else bid_sum == d.k, made)))
    return rows


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: the match total and what the seat did over the deals."""
    n = st.players
    made, dark, passes, tricks = [0] * n, [0] * n, [0] * n, [0] * n
    for d in st.done:
        for s in range(n):
            tricks[s] += d.taken[s]
            if d.bidding:
                made[s] += d.bids[s] == d.taken[s]
                dark[s] += d.dark[s]
                passes[s] += d.bids[s] == 0
    scores, winners = st.scores(), set(st.winners())
    return [(scores[s], s in winners, made[s], dark[s], passes[s], tricks[s]) for s in range(n)]


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
