"""Order Poker's own columns of the ``deals`` and ``seats`` tables (OP-9: what a deal shows).

The row functions read the finished ``State`` directly (not its record): a summary job never
builds a record, so a row costs a few attribute reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.order_poker.hands import combination
from games.order_poker.rules import COMBINATIONS
from games.order_poker.state import State

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
    return [deal_row(st.dealer, st.orderer, st.order, len(st.bids), st.is_open, st.robot_cat, st.round,
                     len(st.actions))]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: role, final combination, whether it fulfils the order, score."""
    return seat_rows_of([combination(h) for h in st.hands], st.orderer, st.order, st.roles, st.scores())


def deal_row(dealer: int, orderer: int, order: int, stake: int, is_open: bool, robot_cat: int, rounds: int,
             n_actions: int) -> tuple[int, Sequence[Any]]:
    """The ``deals`` row of a finished deal from its values (for compiled paths that keep no ``State``)."""
    return (dealer, (orderer if orderer >= 0 else None, COMBINATIONS[order] if order >= 0 else None, stake,
                     is_open, COMBINATIONS[robot_cat], rounds, n_actions))


def seat_rows_of(cats: Sequence[int], orderer: int, order: int, roles: Sequence[str | None],
                 scores: Sequence[int]) -> list[Sequence[Any]]:
    """The ``seats`` rows of a finished deal from the final OP-2 ranks, roles and scores."""
    return [("orderer" if seat == orderer else roles[seat], COMBINATIONS[cat], order >= 0 and cat == order,
             scores[seat]) for seat, cat in enumerate(cats)]


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
