"""Blackjack's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/blackjack.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from games.blackjack import record, tables
from games.blackjack.dealing import deal
from games.blackjack.home import natural_next_dealer
from games.blackjack.luck import LUCK
from games.blackjack.playthrough import PLAYTHROUGH
from games.blackjack.questions import QUESTIONS
from games.blackjack.rules import NAME, PRESETS, SEATS, VERSION, Rules
from games.blackjack.solve_cli import SOLVER
from games.blackjack.state import Event, Table
from games.core.cards import card_str, deck_cards, first_jack_seat
from games.core.entry import GameEntry


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> Table:
    return deal(rules, players, dealer, rng)


def _first_dealer(rules: Rules, players: int, rng: np.random.Generator) -> int:
    """BJ-4.1 (and BJ-6.3 for the first banker): with ``first_dealer=jack`` the first jack turned from
    the game's deck (52 cards at home, 36 in ochko) deals first; ``seat0`` and casino (whose dealer is
    no seat): seat 0. The deal then passes to the left, or by the naturals (``_dealer_chain``)."""
    if rules.preset == "casino" or rules.first_dealer != "jack":
        return 0
    return first_jack_seat(deck_cards("36" if rules.preset == "ochko" else "52"), players, rng)


def _dealer_chain(rules: Rules) -> Callable[[Any], int] | None:
    """BJ-4.1 ``deal_passes=natural`` at home: the next deal's dealer follows from this deal's cards."""
    if rules.preset != "home" or rules.deal_passes != "natural":
        return None
    return lambda state: natural_next_dealer(state.players, state.dealer_seat, state.order)


def _seats(rules: Rules) -> tuple[int, int]:
    return SEATS[rules.preset]  # BJ-3.1, BJ-6.3


def describe(state: Table, action: Any) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before ``action``."""
    if isinstance(action, Event):
        who = "the dealer" if action.seat is None else f"seat {action.seat}"
        rule = {"double": "BJ-4.4", "redouble": "BJ-4.4", "natural": "BJ-4.6" if state.rules.preset == "home"
                else "BJ-7.2", "bust": "BJ-3.3", "sits_out": "BJ-6.4"}[action.kind]
        return f"{who}: {action.kind.replace('_', ' ')} ({rule})"
    seat = state.to_act()
    if isinstance(action, tuple):
        return f"seat {seat} {action[0]}s {action[1]} ({'BJ-4.2' if action[0] == 'bet' else 'BJ-6.4'})"
    nxt = state.stock[state.pos] if state.pos < len(state.stock) else None
    drawn = f", draws {card_str(nxt)}" if action in ("hit", "more", "double") and nxt is not None else ""
    return f"seat {seat}: {action}{drawn}"


def _cards_in_play(state: Table) -> Counter[str]:
    return state.cards_in_play()


def _resample_hidden(state: Table, seat: int, rng: np.random.Generator) -> Table:
    from games.blackjack.hidden import resample_hidden

    return resample_hidden(state, seat, rng)


def _score_total(state: Table) -> int:
    """BJ-4.11, BJ-6.6: home and ochko are zero-sum; casino players play the house."""
    return 0 if state.rules.preset != "casino" else sum(state.scores())


def _fast_paths() -> Sequence[Any]:
    from games.blackjack.fast.playout import FAST

    return (FAST,)


def _bots() -> Sequence[Any]:
    from games.blackjack.bots import BOTS

    return BOTS


ENTRY = GameEntry(
    name=NAME,
    title="Blackjack",
    description="Двадцать одно: the seed's home game (rotating dealer, forced doubling), the Russian bank game "
                "очко, and casino blackjack (1-8 decks, double, split, exact optimal play).",
    rule_prefix="BJ",
    rules_doc="docs/rules/blackjack.md",
    version=VERSION,
    record_rule="BJ-8",
    changes={2: "in jobs the first dealer is found by the jack search and the deal passes by naturals where "
                "deal_passes=natural (BJ-4.1): other dealers, so other rows"},
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    first_dealer=_first_dealer,
    dealer_chain=_dealer_chain,
    from_record=record.from_record,
    encode_action=record.encode_action,
    record_rules=record.record_rules,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    cards_in_play=_cards_in_play,
    score_total=_score_total,
    resample_hidden=_resample_hidden,
    solver=SOLVER,
    fast_paths=_fast_paths(),
    questions={q.name: q for q in QUESTIONS},
    luck=LUCK,
)
