"""Liar's poker's own columns of ``deals`` (one row per round) and ``seats`` (match totals), LP-7.2.

The row functions read the finished ``State`` (not its record): a summary job never builds one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.liars_poker.state import State

DEALS = (
    Column("round", "int32", "label", "the round's number in the match (LP-1.4)", nullable=False),
    Column("holder", "int8", "label", "seat of the resolved bid (LP-4.4)", nullable=False),
    Column("bid_q", "int16", "measure", "quantity of the resolved bid (LP-3.1)", nullable=False),
    Column("bid_d", "int8", "category", "digit of the resolved bid (LP-3.1)", nullable=False),
    Column("rebid", "bool", "category", "the resolved bid was a rebid (LP-4.6)", nullable=False),
    Column("count", "int16", "measure", "C, the bid digit on all notes (LP-5.1)", nullable=False),
    Column("holder_wins", "bool", "category", "C >= q: the others paid the holder; else he paid them (LP-5.2)",
           nullable=False),
    Column("paid", "string", "category", "who paid: 'others' (the holder won) or 'holder' (LP-5.2)",
           nullable=False),
    Column("stake", "int16", "measure", "the stake actually paid (LP-5.5)", nullable=False),
    Column("bids", "int16", "measure", "bids in the round (LP-4.7)", nullable=False),
    Column("n_actions", "int16", "measure", "actions in the round", nullable=False),
)

SEATS = (
    Column("score", "int32", "measure", "the seat's match total (LP-5.4)", nullable=False),
    Column("held", "int16", "measure", "rounds whose resolved bid was this seat's (LP-4.4)", nullable=False),
    Column("held_won", "int16", "measure", "... of which the bid was true (LP-5.2)", nullable=False),
    Column("bids", "int16", "measure", "bids made in the match (LP-4.2)", nullable=False),
    Column("challenges", "int16", "measure", "challenges made in the match (LP-4.2)", nullable=False),
    Column("rounds_won", "int16", "measure", "rounds with a positive score", nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row per round: the resolved bid, its holder, the true count, who paid, the length."""
    rows: list[tuple[int, Sequence[Any]]] = []
    for k, rnd in enumerate(st.rounds()):
        r = rnd.result
        assert r is not None
        nbids = sum(kind == "bid" for _, kind, _ in rnd.history)
        rows.append((rnd.opener, (st.first_round + k, r["holder"], r["bid"][0], r["bid"][1], r["rebid"], r["count"],
                                  r["holder_wins"], "others" if r["holder_wins"] else "holder", r["stake"], nbids,
                                  len(rnd.history))))
    return rows


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: the match total and what the seat did over the rounds."""
    n = st.players
    held, held_won, bids, challenges, won = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    for rnd in st.rounds():
        r = rnd.result
        assert r is not None
        held[r["holder"]] += 1
        held_won[r["holder"]] += r["holder_wins"]
        for s, x in enumerate(r["scores"]):
            won[s] += x > 0
        for seat, kind, _ in rnd.history:
            if kind == "bid":
                bids[seat] += 1
            elif kind == "challenge":
                challenges[seat] += 1
    scores = st.scores()
    return [(scores[s], held[s], held_won[s], bids[s], challenges[s], won[s]) for s in range(n)]


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
