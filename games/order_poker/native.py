"""Whole deals of random bots played by the C kernel ``ext._orderpoker`` (the engine's hot path).

A random bot spends about a microsecond choosing; the per-action Python engine (legal
actions, view, apply) costs tens, so a table of random bots is bound by Python-level game
logic. ``play_random`` hands such a deal to the kernel, which runs the same state machine as
``State`` (same legal-action order, same draws from the same generator) and fills the
``State`` in: the actions (the engine's own ``Action`` objects), final hands and robot,
bids, roles, rounds. Scoring stays in ``games.order_poker.scoring`` (``State._finish``).
The rules remain readable in ``state.py``; ``tests/test_order_poker_native.py`` checks that
both paths give identical records and leave the generator in the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ext import _orderpoker as k
from games.order_poker.actions import FOR, KEEP, SIMPLE, SIMPLE_PER_SEAT, STOP, Action, swap_table
from games.order_poker.bots import RandomBot
from games.order_poker.rules import MAX_PLAYERS
from games.order_poker.state import BIDDING, OVER, State

_ROLES: tuple[str | None, ...] = (None, "for", "against")


assert k.SIMPLE_PER_SEAT == SIMPLE_PER_SEAT and (k.A_FOR, k.A_KEEP, k.A_STOP) == (FOR, KEEP, STOP)
_SIMPLE = list(SIMPLE)
_SWAPS: list[list[Action]] = []  # swap_table(s, src) at 7 * s + src + 1, built on the first random deal


def _swaps() -> list[list[Action]]:
    if not _SWAPS:  # 42 tables of 1,296 actions: only processes that play random deals build them
        _SWAPS.extend(swap_table(s, src) for s in range(MAX_PLAYERS) for src in range(-1, MAX_PLAYERS))
    return _SWAPS


def random_params(bots: Sequence[Any]) -> tuple[list[float], list[float | None]] | None:
    """(pass_prob, keep_prob) per seat if every bot is the plain random bot, else None."""
    for b in bots:
        if type(b) is not RandomBot:  # a subclass may choose differently
            return None
    return [b.pass_prob for b in bots], [b.keep_prob for b in bots]


def play_random(state: State, pass_prob: list[float], keep_prob: list[float | None],
                rng: np.random.Generator) -> None:
    """Play a fresh ``state`` (no action yet) to the end with random bots of these parameters.

    Same actions, scores and generator state as playing ``RandomBot.act`` action by action.
    """
    if state.phase != BIDDING or state.actions:
        raise ValueError("play_random needs a fresh deal")
    (end, state.orderer, state.order, state.partner, state.round, state.all_kept, state.is_open,
     state.robot_cat, state.bids, state.bidders, state.in_bidding, roles) = k.play_random(
        rng, state.hands, state.robot, state.dealer, state.rules.max_exchange_rounds, pass_prob, keep_prob,
        _SIMPLE, _swaps(), state.actions)
    state.n_in = sum(state.in_bidding)
    state.roles = [_ROLES[r] for r in roles]
    state._legal = None
    state._finish(k.END_RULES[end])
    assert state.phase == OVER


class RandomPlayout:
    """The C play-out as a declared fast path: tables where every seat is the plain random bot."""

    name = "order-poker/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``order-poker/random`` (any parameters; a subclass may choose differently)."""
        return random_params(bots) is not None

    def play_out(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh deal in C: the same actions, draws and record as the readable engine."""
        params = random_params(bots)
        if params is None:
            raise ValueError("RandomPlayout plays only tables of order-poker/random bots")
        play_random(state, params[0], params[1], rng)


FAST = RandomPlayout()
