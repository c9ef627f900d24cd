"""Liar's poker for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

Actions: every bid of the chain in chain order (LP-3.4), then challenge, then accept. Chance: every digit
of every note of every round, uniform and independent (LP-1.3). Every decision is public.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]


def _lp_chain_count(rules: Any, players: int) -> int:
    return int(rules.chain_length(players))  # LP-3.4: D·n·L bids


def _lp_num_actions(rules: Any, players: int) -> int:
    return _lp_chain_count(rules, players) + 2  # every bid in chain order, then challenge, accept


def _lp_action_id(state: Any, action: Any) -> int:
    from games.liars_poker.bids import ACCEPT, CHALLENGE

    count = int(state.chain.count)
    if action == CHALLENGE:
        return count
    if action == ACCEPT:
        return count + 1
    rank = int(state.chain.rank_of(tuple(action)))
    if rank < 0:
        raise ValueError(f"not an action of this table: {action!r}")
    return rank


def _lp_action(state: Any, action_id: int) -> Any:
    from games.liars_poker.bids import ACCEPT, CHALLENGE

    count = int(state.chain.count)
    if action_id == count:
        return CHALLENGE
    if action_id == count + 1:
        return ACCEPT
    if not 0 <= action_id < count:
        raise ValueError(f"action {action_id} is out of range 0..{count + 1}")
    return state.chain.bid(action_id)


def _lp_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """LP-1.3: every digit of every note of every round is uniform over the D digits, independent."""
    if len(drawn) >= rules.rounds * players * rules.digits_per_note:
        return []
    p = 1.0 / rules.digit_values
    return [(i, p) for i in range(rules.digit_values)]


def _lp_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.liars_poker.state import State as LPState

    digits, L = rules.digits, rules.digits_per_note
    notes = [["".join(str(digits[drawn[(r * players + s) * L + j]]) for j in range(L)) for s in range(players)]
             for r in range(rules.rounds)]
    return LPState(rules, players, dealer, notes, first_round=dealer)  # as LPState.deal with these notes


def _lp_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    k = len(drawn)
    L = rules.digits_per_note
    rnd, rest = divmod(k, players * L)
    seat, j = divmod(rest, L)
    return f"round {rnd} seat {seat} digit {j}: {rules.digits[outcome]}"


def _lp_tensor_size(rules: Any, players: int) -> int:
    n, D, L = players, rules.digit_values, rules.digits_per_note
    return int(n + D * (L + 1) + n + _lp_chain_count(rules, players) * (2 * n + 1) + 2)


def _lp_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """The round in progress (LP-2): own seat, own digit counts, opener, and per bid of the chain who
    made it, who challenged it and whether it was a rebid; the rebid turn and the end of the round."""
    from games.liars_poker.bids import Chain

    n, D, L = players, rules.digit_values, rules.digits_per_note
    chain = Chain(rules.ranking, n * L)
    out = np.zeros(_lp_tensor_size(rules, players), np.float32)
    out[view["seat"]] = 1
    base = n
    for i, d in enumerate(rules.digits):
        out[base + i * (L + 1) + min(view["counts"][d], L)] = 1
    base += D * (L + 1)
    out[base + view["opener"]] = 1
    base += n
    rank, holder = -1, -1
    for seat, kind, bid in view["actions"]:
        if bid is not None:
            rank = chain.rank(bid)
            out[base + rank * (2 * n + 1) + seat] = 1
            if seat == holder:  # LP-4.6: only a rebid turn lets the holder raise his own bid
                out[base + rank * (2 * n + 1) + 2 * n] = 1
            holder = seat
        elif kind == "challenge" and rank >= 0:
            out[base + rank * (2 * n + 1) + n + seat] = 1
    base += chain.count * (2 * n + 1)
    out[base] = 1.0 if view["rebid_turn"] else 0.0
    out[base + 1] = 1.0 if view["to_act"] < 0 else 0.0
    return out


def _lp_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """The round in progress as a one-round match (LP-5.4: rounds score independently): the seat's own
    note, the others drawn again (LP-1.3), the round's actions so far replayed."""
    from games.liars_poker.state import State as LPState
    from games.liars_poker.state import draw_notes

    rules = dataclasses.replace(view["rules"], rounds=1)
    players, seat = int(view["players"]), int(view["seat"])
    notes = draw_notes(rules, 1, players, rng)[0]
    notes[seat] = view["note"]
    st = LPState(rules, players, int(view["opener"]), [notes], first_round=int(view["opener"]))
    for _, kind, bid in view["actions"]:
        st.apply(bid if bid is not None else kind)
    return st


def _lp_max_length(rules: Any, players: int) -> int:
    # LP-4: each bid raises the chain; between two bids at most n - 1 challenges and a rebid turn.
    per_round = _lp_chain_count(rules, players) * (players + 1) + 2
    return int(rules.rounds * (per_round + players * rules.digits_per_note))


def _lp_utility(rules: Any, players: int) -> tuple[float, float]:
    most = rules.rounds * rules.stake * rules.rebid_stake * (players - 1)  # LP-5.3, LP-4.6
    return -float(most), float(most)


ADAPTER = Adapter(
    game="liars-poker", num_actions=_lp_num_actions, action_id=_lp_action_id, action=_lp_action,
    chance=_lp_chance, chance_max=lambda rules, players: int(rules.digit_values), start=_lp_start,
    tensor_size=_lp_tensor_size, tensor=_lp_tensor,
    seat_state=_lp_seat_state, max_length=_lp_max_length, utility=_lp_utility, zero_sum=True,
    public_actions=True, chance_name=_lp_chance_name,
    cases=({}, {"players": 2, "digits_per_note": 1, "digit_values": 2},
           {"players": 3, "rounds": 2, "preset": "trading-floor", "digits_per_note": 2},
           {"players": 3, "rounds": 3, "preset": "trading-floor"}, {"players": 4, "preset": "openspiel"}))
