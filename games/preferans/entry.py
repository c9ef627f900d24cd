"""Preferans's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/preferans.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.entry import GameEntry, SolveOption, Solver
from games.preferans import questions, record, solver, tables
from games.preferans.hidden import resample_hidden
from games.preferans.playthrough import PLAYTHROUGH
from games.preferans.rules import MAX_PLAYERS, MIN_PLAYERS, NAME, PRESETS, VERSION, Rules
from games.preferans.state import State


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return MIN_PLAYERS, MAX_PLAYERS  # PF-2.1


def _dealer_of(deal: int, players: int) -> int:
    return 0  # PF-2.2 ruling: the first dealer of every match is seat 0


def cards_in_play(state: State) -> Counter[Any]:
    """The deal in progress's 32 cards wherever they are (after the end: the last deal's)."""
    return Counter(state.current.cards_now())


def score_total(state: State) -> int:
    """PF-11.6.3: the balances sum to 0."""
    return 0


def describe(state: State, action: Any) -> str:
    """One line for ``rasklad replay --steps``."""
    d = state.current
    return f"deal {d.index} ({d.phase}), seat {state.to_act()}: {action}"


def _bots() -> Sequence[Any]:
    from games.preferans.catalog import BOTS

    return BOTS


def _fast_paths() -> Sequence[Any]:
    from games.preferans.fast.playout import FAST

    return (FAST,)


SOLVER = Solver(
    doc="Double-dummy solver (compiled alpha-beta, transposition table, equivalent cards): the declarer's tricks "
        "under optimal play by all from a position file {hands, contract, declarer, leader}, and an optimal line.",
    options=(),
    run=solver.run,
    text=solver.text,
    argument=SolveOption("position", str, None, "POSITION.json: {\"hands\": [[...], [...], [...]], \"contract\": "
                         "misere|notrump|s|c|d|h, \"declarer\": seat, \"leader\": seat}"),
)

ENTRY = GameEntry(
    name=NAME,
    title="Preferans",
    description="Преферанс: 3 or 4 players (the dealer sits out), auction with talon, whist, raspasy, "
                "the pulka played to its end and settled in exact whists (Sochi and classic).",
    rule_prefix="PF",
    rules_doc="docs/rules/preferans.md",
    version=VERSION,
    record_rule="PF-15.3",
    changes={2: "a record's outcome scores are the final balances in whists, exact (PF-15.4, PF-15.6), not "
                "in units of 1/n whist"},
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=record.encode_action,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    unit="match",
    unit_noun=("pulka", "pulkas"),
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    dealer_of=_dealer_of,
    cards_in_play=cards_in_play,
    resample_hidden=resample_hidden,
    score_total=score_total,
    score_unit=lambda state: state.score_unit,  # scores() in 1/n whist; the outcome in whists (PF-15.6)
    chance_prefix=True,
    solver=SOLVER,
    conformance_units=1,
    questions=questions.QUESTIONS,
    fast_paths=_fast_paths(),  # random matches in C (fast/_match.pyx), every option but ten_check: solve
)
