"""Preferans's own columns of ``deals`` (one row per deal of the match) and ``seats`` (match totals), PF-15.

The row functions read the finished ``State``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.preferans.state import State

DEALS = (
    Column("phase", "string", "category", "razboinik, prelim_raspasy or main (PF-11.1)", nullable=False),
    Column("kind", "string", "category", "contract, misere, raspasy, passed, no_play, ten_checked, ten_conceded "
           "(PF-15.5)", nullable=False),
    Column("bought", "string", "category", "the call bought at the auction (PF-4.6)", null="(raspasy)"),
    Column("contract", "string", "category", "the contract played (PF-5.2)", null="(raspasy)"),
    Column("declarer", "int8", "label", "the declarer's seat (PF-4.6)"),
    Column("whisters", "int8", "measure", "how many responders said whist (PF-6.1)", nullable=False),
    Column("mode", "string", "category", "open or closed defence (PF-6.5, PF-7.6)", null="(no play)"),
    Column("declarer_tricks", "int8", "measure", "the declarer's tricks (PF-8)"),
    Column("made", "bool", "category", "the contract was made (PF-8.1)"),
    Column("points", "int16", "measure", "points written off or on mountains this deal (PF-8.1, PF-8.2)",
           nullable=False),
    Column("tricks", "list<int8>", "label", "tricks per seat (-1: sitting out or not played)", nullable=False),
)

SEATS = (
    Column("score", "int64", "measure", "the match balance in units of 1/n whist (PF-11.6.3, PF-13)",
           nullable=False),
    Column("balance", "float64", "measure", "the match balance in whists (PF-11.6.3)", nullable=False),
    Column("played", "int16", "measure", "contracts this seat declared (main game)", nullable=False),
    Column("made", "int16", "measure", "... of which made (PF-8.1)", nullable=False),
    Column("misere", "int16", "measure", "misères declared", nullable=False),
    Column("whists", "int16", "measure", "times this seat said whist (PF-6.1)", nullable=False),
    Column("raspasy_tricks", "int16", "measure", "tricks taken in raspasy (PF-8.8)", nullable=False),
    Column("deals", "int16", "measure", "deals in the match", nullable=False),
)


def _made(e: dict[str, Any]) -> bool | None:
    kind = e["kind"]
    if kind == "raspasy":
        return None
    if kind in ("passed", "no_play", "ten_conceded"):
        return True
    decl = e["declarer"]
    t = e["tricks"][decl]
    if kind == "misere" or e["contract"] == "misere":
        return bool(t == 0)
    level = int(e["contract"][:2]) if e["contract"].startswith("10") else int(e["contract"][0])
    return bool(t >= level)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row per deal of the match."""
    rows: list[tuple[int, Sequence[Any]]] = []
    for d, e, delta in zip(st.deals, st.entries, st.deltas, strict=False):
        decl = e["declarer"]
        dt = e["tricks"][decl] if decl is not None else None
        points = int(sum(abs(x) for x in delta.pulka) + sum(abs(x) for x in delta.mountain))
        rows.append((d.dealer, (d.phase, e["kind"], e["bought"], e["contract"], decl,
                                sum(1 for _, t in e["responses"] if t == "whist"), e["mode"], dt, _made(e),
                                points, [-1 if t is None else t for t in e["tricks"]])))
    return rows


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: the match balance and what the seat did."""
    n = st.players
    played, made, misere, whists, rasp = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    for d, e in zip(st.deals, st.entries, strict=False):
        if d.phase == "main" and e["declarer"] is not None:
            played[e["declarer"]] += 1
            made[e["declarer"]] += bool(_made(e))
            misere[e["declarer"]] += e["contract"] == "misere"
        for s, t in e["responses"]:
            whists[s] += t == "whist"
        if e["kind"] == "raspasy":
            for s, t in enumerate(e["tricks"]):
                rasp[s] += t or 0
    scores = st.scores()
    unit = st.score_unit
    return [(scores[s], scores[s] / unit, played[s], made[s], misere[s], whists[s], rasp[s], len(st.entries))
            for s in range(n)]


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
