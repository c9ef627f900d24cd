"""Order Poker's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/order-poker.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import GameEntry
from games.order_poker import hidden, questions, record, tables
from games.order_poker.actions import Action
from games.order_poker.playthrough import PLAYTHROUGH
from games.order_poker.rules import COMBINATIONS, MAX_PLAYERS, MIN_PLAYERS, NAME, PRESETS, ROBOT, VERSION, Rules
from games.order_poker.state import State


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return MIN_PLAYERS, MAX_PLAYERS  # OP-1.2


def _encode(state: State, action: Action) -> dict[str, Any]:
    return action.to_dict()


def describe(state: State, a: Action) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before ``a``."""
    who = f"seat {a.seat}"
    if a.type == "pass":
        return f"{who} passes (OP-3)"
    if a.type == "order":
        return f"{who} orders {COMBINATIONS[a.combination]} (stake {len(state.bids) + 1}, OP-3.5)"
    if a.type == "role":
        return f"{who} plays {a.role} the orderer (OP-5)"
    if a.type == "keep":
        return f"{who} keeps his cards (не меняю) in round {state.round}"
    if a.type == "stop":
        return f"{who} stops the exchange (OP-6.3)"
    src = "the robot" if a.source == ROBOT else f"seat {a.source}'s open hand"
    return f"{who} gives {card_str(a.give)} and takes {card_str(a.take)} from {src} (round {state.round})"


def _bots() -> Sequence[Any]:
    from games.order_poker.bots import BOTS

    return BOTS


def _fast_paths() -> Sequence[Any]:
    from games.order_poker.fast.playout import FAST

    return (FAST,)


ENTRY = GameEntry(
    name=NAME,
    title="Order Poker",
    description="Заказной покер: 3-6 players and a face-up robot hand; bidding for combinations, "
                "roles for/against, card exchanges (36 cards).",
    rule_prefix="OP",
    rules_doc="docs/rules/order-poker.md",
    version=VERSION,
    record_rule="OP-9",
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=_encode,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    unit="deal",
    ranking="order-poker",
    questions=questions.QUESTIONS,
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    legacy_record=record.legacy_record,
    fast_paths=_fast_paths(),
    cards_in_play=hidden.cards_in_play,
    resample_hidden=hidden.resample_hidden,
)
