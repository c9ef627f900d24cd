"""Liar's poker's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/liars-poker.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.entry import GameEntry
from games.liars_poker import record, tables
from games.liars_poker.bids import ACCEPT, CHALLENGE
from games.liars_poker.rules import MAX_PLAYERS, MIN_PLAYERS, NAME, PRESETS, VERSION, Rules
from games.liars_poker.state import State, action_json


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return MIN_PLAYERS, MAX_PLAYERS  # LP-1.1


def _encode(state: State, action: Any) -> dict[str, Any]:
    return action_json(state.to_act(), action)


def _dealer_of(deal: int, players: int) -> int:
    return 0  # LP-1.5: every match a job deals starts at round 0, opened by seat 0


def describe(state: State, action: Any) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before ``action``."""
    rnd = state.current
    seat = rnd.to_act
    if action == ACCEPT:
        q, d = rnd.standing  # type: ignore[misc]
        return f"seat {seat} accepts his bid ({q}, {d}) (LP-4.6): it is resolved"
    if action == CHALLENGE:
        q, d = rnd.standing  # type: ignore[misc]
        left = state.players - 1 - rnd.challenges - 1
        if left > 0:
            return f"seat {seat} challenges ({q}, {d}) (LP-4.2); {left} more to challenge"
        if state.rules.rebid == "once" and not rnd.is_rebid:
            return f"seat {seat} challenges ({q}, {d}): all others have; seat {rnd.holder} may accept or rebid (LP-4.6)"
        count = rnd.totals[d]
        verdict = f"{count} >= {q}: seat {rnd.holder} wins" if count >= q else \
            f"{count} < {q}: seat {rnd.holder} loses"
        return (f"seat {seat} challenges ({q}, {d}): all others have, resolved (LP-4.4): {d}s on the table "
                f"{verdict} (LP-5.2)")
    q, d = int(action[0]), int(action[1])
    what = "opens with" if rnd.standing is None else "rebids" if rnd.rebid_turn else "raises to"
    return f"seat {seat} {what} ({q}, {d}): at least {q} {d}s on all notes (LP-3.1)"


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """The same match with every note ``seat`` may not see dealt again (LP-2): the other seats' notes of
    the round in progress and every note of later rounds; resolved rounds are shown to all (LP-2.3)."""
    rules, n, k = state.rules, state.players, state.deal_no
    fresh = State.deal(rules, n, state.dealer, rng)
    notes = [list(r) for r in state.notes[:k]] + [list(r) for r in fresh.notes[k:]]
    if not state.over:
        notes[k][seat] = state.notes[k][seat]
    else:
        notes[k] = list(state.notes[k])
    st = State(rules, n, state.dealer, notes, first_round=state.first_round)
    for rnd in state.rounds():
        for _, kind, bid in rnd.history:
            st.apply(bid if bid is not None else kind)
    return st


def score_total(state: State) -> int:
    """LP-5.3: scores sum to zero."""
    return 0


def _bots() -> Sequence[Any]:
    from games.liars_poker.bots import BOTS

    return BOTS


ENTRY = GameEntry(
    name=NAME,
    title="Liar's poker",
    description="Покер лжецов: 2-10 players bid on the digits of all banknote serial numbers on the table; "
                "raise or challenge, the holder of the last bid is paid by or pays every other player.",
    rule_prefix="LP",
    rules_doc="docs/rules/liars-poker.md",
    version=VERSION,
    record_rule="LP-7",
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=_encode,
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    unit="match",
    describe_action=describe,
    dealer_of=_dealer_of,
)
