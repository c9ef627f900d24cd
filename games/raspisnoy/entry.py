"""Raspisnoy's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/raspisnoy.md)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.entry import GameEntry
from games.raspisnoy import questions, record, tables
from games.raspisnoy.playthrough import PLAYTHROUGH
from games.raspisnoy.rules import NAME, PRESETS, VERSION, Rules
from games.raspisnoy.state import State


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    """A fresh match; ``dealer`` is the first dealer (R-1.1's option ``first_dealer``)."""
    if dealer != rules.first_dealer:
        rules = dataclasses.replace(rules, first_dealer=dealer)
    return State.deal(rules, players, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return rules.seats()


def _dealer_of(deal: int, players: int) -> int:
    return 0  # every match starts with seat 0 dealing; the seating rotates the bots


def describe(state: State, action: Any) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before ``action``."""
    d = state.current
    seat = state.to_act()
    head = f"deal {d.index + 1} ({d.kind}, {d.k} cards): seat {seat}"
    if action == "look":
        return f"{head} looks at his cards (R-3.7)"
    if action.startswith("dark:"):
        return f"{head} bids {action[5:]} dark, without looking (R-3.2)"
    if action.startswith("bid:"):
        return f"{head} bids {action[4:]}" + (" (pass)" if action == "bid:0" else "") + " (R-3.1)"
    return f"{head} plays {action[5:]}" + (" (lead)" if not d.trick else "")


def _cards_in_play(state: State) -> Counter[Any]:
    return state.cards_in_play()


def _resample(state: State, seat: int, rng: np.random.Generator) -> State:
    return state.with_hidden_redealt(seat, rng)


def _bots() -> Sequence[Any]:
    from games.raspisnoy.bots import bots

    return bots()


def _fast_paths() -> Sequence[Any]:
    from games.raspisnoy.fast.playout import FAST

    return (FAST,)


def _replay_deal(rec: Mapping[str, Any], number: int | None) -> dict[str, Any]:
    """Deal ``number`` of a match record (R-8.5), or a deal written alone (R-8.2, R-8.4)."""
    return record.replay_deal_record(rec) if number is None else record.replay_deal(rec, number)


ENTRY = GameEntry(
    name=NAME,
    title="Raspisnoy",
    description="Расписной покер: 2-6 players bid the tricks they will take in every deal of a whole schedule "
                "(1 card up to 36/players and back, dark, golden, no-trump and misère deals), with the 7 of "
                "spades as a joker; presets classic (seed 002) and odessa (seed 003).",
    rule_prefix="R",
    rules_doc="docs/rules/raspisnoy.md",
    version=VERSION,
    record_rule=record.RECORD_RULE,
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=record.encode_action,
    record_rules=record.record_rules,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    unit="match",
    # A match is dozens of deals: 8 random matches per (seats, preset) case, nine cases.
    conformance_units=8,
    replay_deal=_replay_deal,
    questions=questions.QUESTIONS,
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    dealer_of=_dealer_of,
    cards_in_play=_cards_in_play,
    resample_hidden=_resample,
    rule_due=record.rule_due,  # a deal that stops before its last trick is
    fast_paths=_fast_paths(),  # random and heuristic matches in C (fast/_match.pyx)
)
