"""Dice Poker's own columns of ``deals`` (one row per game) and ``seats`` (a match's totals per seat).

The three presets share one table shape; a column a preset does not fill is null (the simple game
has no sheet, the full and mixed games no categories). In ``seats`` each line's column is the seat's
score on that line summed over the match's games (the line's score for a one-game match).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.entry import Column, TableSpec
from games.dice_poker.rules import LINES
from games.dice_poker.state import State

DEALS = (
    Column("preset", "string", "category", "simple, full or mixed (DP-9)", nullable=False),
    Column("winners", "list<int8>", "label", "the seats with the best hand or the highest total (DP-4.4, DP-6.4)",
           nullable=False),
    Column("turns", "int16", "measure", "turns played, rethrow stages included (DP-2)", nullable=False),
    Column("throws", "int16", "measure", "throws made in the game (DP-2.2)", nullable=False),
    Column("rethrows", "int8", "measure", "simple: rethrow stages played (DP-4.4)"),
    Column("categories", "list<string>", "label", "simple: each seat's stage-0 category (DP-3)"),
    Column("totals", "list<int16>", "label", "full/mixed: each seat's total (DP-5.6)"),
    Column("best_total", "int16", "measure", "full/mixed: the winning total (DP-6.4)"),
)

SEATS = (
    Column("score", "int32", "measure", "points of the match: the sum of the game scores (DP-1.5)", nullable=False),
    Column("won", "int16", "measure", "games of the match in which the seat is among the winners", nullable=False),
    Column("throws_per_turn", "float64", "measure", "mean throws per turn (1..3, DP-2.2)", nullable=False),
    Column("category", "string", "category", "simple: the stage-0 category of the seat's hand in game 0 (DP-3)"),
    Column("total", "int32", "measure", "full/mixed: sheet totals summed over the games (DP-5.6)"),
    *(Column(line, "int16", "measure", f"full/mixed: the {line} line's score (DP-5)") for line in LINES),
    Column("school_sum", "int16", "measure", "full/mixed: the six class scores' sum S (DP-5.5)"),
    Column("school_bonus", "int16", "measure", "full/mixed: the school bonus (DP-5.5)"),
    Column("poker_bonus", "int16", "measure", "full/mixed: the poker bonus (DP-5.4)"),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row per game of the match: its first player, then the game's values."""
    rows: list[tuple[int, Sequence[Any]]] = []
    simple = st.rules.simple
    for g, game in enumerate(st.done):
        turns = game["turns"]
        throws = sum(len(t["throws"]) for t in turns)
        first = (st.dealer + g) % st.players
        if simple:
            values: tuple[Any, ...] = (st.rules.preset, game["winners"], len(turns), throws, len(game["rethrows"]),
                                       game["categories"], None, None)
        else:
            values = (st.rules.preset, game["winners"], len(turns), throws, None, None, game["totals"],
                      max(game["totals"]))
        rows.append((first, values))
    return rows


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: the match score, games won, and (full/mixed) the sheet's lines and bonuses."""
    scores = st.scores()
    rows: list[Sequence[Any]] = []
    for s in range(st.players):
        turns = [t for game in st.done for t in game["turns"] if t["seat"] == s]
        tpt = sum(len(t["throws"]) for t in turns) / max(1, len(turns))
        won = sum(s in game["winners"] for game in st.done)
        if st.rules.simple:
            rows.append((scores[s], won, tpt, st.done[0]["categories"][s], None, *([None] * len(LINES)),
                         None, None, None))
            continue
        sheets = [game["sheets"][s] for game in st.done]
        lines = [sum(sh[line] for sh in sheets) for line in LINES]
        rows.append((scores[s], won, tpt, None, sum(sh["total"] for sh in sheets), *lines, sum(lines[:6]),
                     sum(sh["school_bonus"] for sh in sheets), sum(sh["poker_bonus"] for sh in sheets)))
    return rows


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
