"""Order Poker's own columns of the ``deals`` and ``seats`` tables (OP-9: what a deal shows).

The row functions read the finished ``State`` directly (not its record): a summary job never
builds a record, so a row costs a few attribute reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.order_poker.rules import COMBINATIONS
from games.order_poker.state import State, combination

DEALS = (
    Column("orderer", "int8", "label", "seat of the orderer; null when all passed (OP-3.3, OP-4)"),
    Column("order", "string", "category", "the final order (OP-2 combination); null when all passed",
           null="(all passed)"),
    Column("stake", "int8", "measure", "orders announced in the bidding (OP-3.5)", nullable=False),
    Column("open", "bool", "category", "a `for` player's hand was laid open (OP-5.2)", nullable=False),
    Column("robot_combination", "string", "category", "the robot's combination at the end (OP-2)",
           nullable=False),
    Column("rounds", "int16", "measure", "exchange rounds played (OP-6)", nullable=False),
    Column("n_actions", "int16", "measure", "actions in the deal", nullable=False),
)

SEATS = (
    Column("role", "string", "category", "orderer, for or against (OP-5); null when all passed"),
    Column("combination", "string", "category", "the seat's final combination (OP-2)", nullable=False),
    Column("fulfilled", "bool", "category", "the seat holds exactly the ordered combination (OP-2 ruling)",
           nullable=False),
    Column("score", "int32", "measure", "points of the deal (OP-4, OP-7)", nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """The deal's row: who ordered what, the stake, whether open, the robot, rounds and actions."""
    ordered = st.orderer >= 0
    return [(st.dealer, (st.orderer if ordered else None, COMBINATIONS[st.order] if st.order >= 0 else None,
                         len(st.bids), st.is_open, COMBINATIONS[st.robot_cat], st.round, len(st.actions)))]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: role, final combination, whether it fulfils the order, score."""
    scores = st.scores()
    rows: list[Sequence[Any]] = []
    for seat, hand in enumerate(st.hands):
        cat = combination(hand)
        role = "orderer" if seat == st.orderer else st.roles[seat]
        rows.append((role, COMBINATIONS[cat], st.order >= 0 and cat == st.order, scores[seat]))
    return rows


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
