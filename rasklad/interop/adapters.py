"""What the ML adapters need beyond a ``GameEntry``: one ``Adapter`` per game that can be shown honestly.

OpenSpiel and PettingZoo number actions ``0 .. num_actions - 1`` with one meaning per number in every
state of a game, draw chance as explicit events, and feed learners a fixed-size tensor. rasklad's
``State`` has none of these (actions are the engine's objects, the chance stub is drawn whole by
``deal``, a view is a mapping), so each adapted game states them here:

* ``num_actions(rules, players)``, ``action_id(state, action)`` and ``action(state, id)``: a fixed
  numbering of the game's every possible action under ``rules`` (not the index in ``legal_actions``);
* ``chance(rules, players, drawn)``: the next chance event's outcomes ``[(outcome, probability)]``
  given the outcomes ``drawn`` so far ([] once the stub is complete), and ``start(rules, players,
  dealer, drawn)``: the fresh ``State`` whose stub is exactly those outcomes -- the distribution
  ``deal`` draws from, event by event;
* ``tensor_size`` / ``tensor(view)``: a vector in [0, 1] of what a view shows;
* ``seat_state(view, rng)``: a state the seat of ``view`` cannot tell from the real one (for search
  bots, which get only the view);
* ``max_length``, ``utility``: bounds OpenSpiel's ``GameInfo`` declares.

Games without an adapter are listed in docs/interop.md with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.core.protocol import State

__all__ = ["ADAPTERS", "Adapter", "adapter"]

Outcomes = list[tuple[int, float]]


@dataclass(frozen=True)
class Adapter:
    """How one game is numbered, dealt event by event and encoded (module docstring)."""

    game: str
    num_actions: Callable[[Any, int], int]
    action_id: Callable[[Any, Any], int]
    action: Callable[[Any, int], Any]
    chance: Callable[[Any, int, Sequence[int]], Outcomes]
    chance_max: Callable[[Any, int], int]
    """The most outcomes one chance event has under the rules."""
    start: Callable[[Any, int, int, Sequence[int]], State]
    tensor_size: Callable[[Any, int], int]
    tensor: Callable[[Mapping[str, Any], Any, int], np.ndarray]
    seat_state: Callable[[Mapping[str, Any], np.random.Generator], State]
    max_length: Callable[[Any, int], int]
    """Most decisions plus chance events of one unit under the rules."""
    utility: Callable[[Any, int], tuple[float, float]]
    """(lowest, highest) score a seat can get in one unit."""
    zero_sum: bool = True
    public_actions: bool = False
    """Every decision is seen by every seat (the information-state string then carries the whole
    decision history, so it has perfect recall across a match's deals)."""
    chance_name: Callable[[Any, int, Sequence[int], int], str] | None = None
    """How a chance outcome reads (``action_to_string`` of a chance node)."""


# ---------------------------------------------------------------------------------------- liar's poker
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


LIARS_POKER = Adapter(
    game="liars-poker", num_actions=_lp_num_actions, action_id=_lp_action_id, action=_lp_action,
    chance=_lp_chance, chance_max=lambda rules, players: int(rules.digit_values), start=_lp_start,
    tensor_size=_lp_tensor_size, tensor=_lp_tensor,
    seat_state=_lp_seat_state, max_length=_lp_max_length, utility=_lp_utility, zero_sum=True,
    public_actions=True, chance_name=_lp_chance_name)

#: Every adapted game by its registry name.
ADAPTERS: dict[str, Adapter] = {a.game: a for a in (LIARS_POKER,)}


def adapter(game: str) -> Adapter:
    """The adapter of ``game``; ``KeyError`` naming the adapted games otherwise (docs/interop.md says why
    the others are not)."""
    try:
        return ADAPTERS[game]
    except KeyError:
        raise KeyError(f"{game} has no ML adapter (adapted: {', '.join(ADAPTERS)}; docs/interop.md)") from None
