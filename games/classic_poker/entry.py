"""Classic poker's ``GameEntry`` (docs/rules/classic-poker.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.classic_poker import record, tables
from games.classic_poker.choice import ChoiceState
from games.classic_poker.hands import deck_of
from games.classic_poker.hidden import resample_hidden
from games.classic_poker.luck import LUCK
from games.classic_poker.playthrough import PLAYTHROUGH
from games.classic_poker.questions import QUESTIONS
from games.classic_poker.rules import NAME, PRESETS, VERSION, Rules
from games.classic_poker.state import Action, State
from games.core.cards import first_jack_seat
from games.core.entry import GameEntry


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State | ChoiceState:
    if rules.dealers_choice:  # CP-9.2: the dealer names the deal's preset first
        return ChoiceState.deal(rules, players, dealer, rng)
    return State.deal(rules, players, dealer, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return rules.seats()  # CP-1.1


def _first_dealer(rules: Rules, players: int, rng: np.random.Generator) -> int:
    """CP-1.4: the first jack dealt face up from the match's deck deals first (``seat0``: seat 0)."""
    return first_jack_seat(deck_of(rules), players, rng) if rules.first_dealer == "jack" else 0


def describe(state: State | ChoiceState, action: Action) -> str:
    """One line for ``rasklad replay --steps``."""
    if action.choose is not None:
        return f"seat {state.to_act()}, the dealer's choice (CP-9.2): {action.choose}"
    if action.discard is not None:
        return f"seat {state.to_act()}, the draw (CP-7.4): {action}"
    return f"seat {state.to_act()}, interval {state.street + 1}: {action}"


def _fast_paths() -> Sequence[Any]:
    from games.classic_poker.fast.playout import FAST

    return (FAST,)


def _bots() -> Sequence[Any]:
    from games.classic_poker.bots import BOTS

    return BOTS


ENTRY = GameEntry(
    name=NAME,
    title="Classic Poker",
    description="Покер as the sources play it: five-card draw, five- and seven-card stud, high, low or "
                "high-low, jokers, the bug and wild cards, limit betting, and 36-card poker (2-10 players).",
    rule_prefix="CP",
    rules_doc="docs/rules/classic-poker.md",
    version=VERSION,
    changes={2: "the first dealer by the jack search in jobs (CP-1.4); a discard in any order, written in the "
                "order held (CP-7.4); a low pot with no qualifying low goes to the high hand (CP-5.4); the "
                "opener keeps aside only his opening cards (CP-7.3, CP-7.5)"},
    record_rule="CP-11.2",
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    first_dealer=_first_dealer,
    from_record=record.from_record,
    encode_action=record.encode_action,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    ranking="classic",
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    score_total=lambda state: 0,
    questions=QUESTIONS,
    cards_in_play=lambda state: state.cards_in_play(),
    resample_hidden=resample_hidden,
    fast_paths=_fast_paths(),  # classic-poker/random in C (games/classic_poker/fast/playout.py)
    luck=LUCK,  # the luck of the cards dealt during play, all-in equities (games.classic_poker.luck)
)
