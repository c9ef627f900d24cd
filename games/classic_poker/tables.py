"""Classic-poker rows: one per deal (form, pot, winners, showdown) and one per seat (CP-11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.classic_poker.state import State
from games.core.entry import Column, TableSpec

DEALS = (
    Column("form", "string", "category", "draw, stud5 or stud7 (CP-7, CP-8)", nullable=False),
    Column("pot", "int32", "measure", "chips in the pot at the end (CP-6)", nullable=False),
    Column("showdown", "bool", "category", "the deal ended in a showdown (CP-6.8 b)", nullable=False),
    Column("passed_out", "bool", "category", "nobody opened (CP-7.3)", nullable=False),
    Column("winners_high", "list<int8>", "label", "seats that won the high pot (or the whole pot)"),
    Column("winners_low", "list<int8>", "label", "seats that won the low half or the low pot (CP-5)"),
)
SEATS = (
    Column("score", "int32", "measure", "chips won minus chips put in (CP-6.1)", nullable=False),
    Column("folded_street", "int8", "category", "betting interval in which the seat folded (0 = first)",
           null="(not folded)"),
    Column("category", "string", "category", "the seat's best high category at the showdown (or its low)",
           null="(no showdown)"),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row for the deal."""
    out = st.outcome()
    w = out.get("winners", {})
    return [(st.dealer, (st.rules.form, int(out["pot"]), bool(out.get("showdown")), bool(out.get("passed_out", False)),
                         w.get("high"), w.get("low")))]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat."""
    out = st.outcome()
    shown = out.get("showdown", {})
    rows: list[Sequence[Any]] = []
    for s in range(st.players):
        e = shown.get(str(s))
        cat = None if e is None else e.get("category", e.get("low"))
        fs = st.fold_street[s]
        rows.append((st.scores()[s], fs if fs >= 0 else None, cat))
    return rows



TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
