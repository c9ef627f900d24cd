"""Liar's poker's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/liars-poker.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.entry import GameEntry, SolveOption, SolveProgress, Solver
from games.liars_poker import questions, record, tables
from games.liars_poker.bids import ACCEPT, CHALLENGE
from games.liars_poker.luck import LUCK
from games.liars_poker.playthrough import PLAYTHROUGH
from games.liars_poker.rules import MAX_PLAYERS, MIN_PLAYERS, NAME, PRESETS, VERSION, Rules
from games.liars_poker.state import Round, State, action_json, draw_notes


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _deal_series(rules: Rules, players: int, dealer: int, rng: np.random.Generator, rounds: int) -> State:
    """A match of ``rounds`` rounds (LP-5.4: as many as the job asks for; LP-7: a record holds them all)."""
    return State.deal(dataclasses.replace(rules, rounds=rounds), players, dealer, rng)


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
    the round in progress and every note of later rounds; resolved rounds are shown to all (LP-2.3).
    The bidding never depends on the notes, so the copy keeps its history and only its notes change."""
    rules, n, k = state.rules, state.players, state.deal_no
    fresh = draw_notes(rules, len(state.notes) - k, n, rng)
    notes = [list(r) for r in state.notes[:k]] + fresh
    if state.over:
        notes[k] = list(state.notes[k])
    else:
        notes[k][seat] = state.notes[k][seat]
    st = state.copy()
    st.notes = tuple(tuple(r) for r in notes)
    st.current = Round.renoted(st.current, st.notes[k])
    return st


def score_total(state: State) -> int:
    """LP-5.3: scores sum to zero."""
    return 0


def _solve(options: Any, progress: SolveProgress | None = None) -> Any:
    from games.liars_poker.cfr.train import solve

    return solve(dict(options), progress)


def _solve_text(result: Any) -> str:
    from games.liars_poker.cfr.train import text

    return text(dict(result))


SOLVER = Solver(
    doc="CFR+ (compiled, exact over chance) on a small two-player game; prints the exact exploitability of "
        "the average policy (a full best response over the game tree) as it trains.",
    options=(SolveOption("players", int, 2, "players (the exact tree is built for 2)"),
             SolveOption("digits", int, 3, "L, digits per note (LP-1.2)"),
             SolveOption("values", int, 3, "D, digit values 1..D (LP-1.3)"),
             SolveOption("iterations", int, 200, "CFR+ iterations"),
             SolveOption("checkpoints", int, 8, "exploitability measurements, log-spaced"),
             SolveOption("out", str, "", "write the average policy to this .npz file (the cfr bot's policy)")),
    run=_solve,
    text=_solve_text,
    progress=True,  # iterations and the exploitability at each checkpoint, as it trains
)


def _bots() -> Sequence[Any]:
    from games.liars_poker.bots import BOTS

    return BOTS


def _fast_paths() -> Sequence[Any]:
    from games.liars_poker.fast.playout import FAST

    return (FAST,)


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
    record_rules=record.record_rules,
    record_fields=("round",),
    tables=tables.TABLES,
    bots=_bots,
    unit="match",
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    dealer_of=_dealer_of,
    resample_hidden=resample_hidden,
    score_total=score_total,
    solver=SOLVER,
    questions=questions.QUESTIONS,
    action_index="match",  # LP-7.4: actions are counted over the record's rounds joined
    rule_due=record.rule_due,  # LP-7.4: LP-4.1, LP-4.6 or LP-4.4 at the index of the next action
    deal_series=_deal_series,
    fast_paths=_fast_paths(),  # random and truthful matches in C (fast/_play.pyx)
    luck=LUCK,  # action terms over the cfr bot's known policy (games/liars_poker/luck.py)
)
