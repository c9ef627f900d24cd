"""The C play-out of tables of ``order-poker/random`` bots, as the fast path the game's entry declares.

A random bot spends about a microsecond choosing; the per-action Python engine (legal actions,
view, apply) costs tens, so a table of random bots is bound by Python-level game logic.
``RandomPlayout`` hands such a deal to ``_playout.play_random`` (the random policy over the rules
kernel ``kernel.pxd``), which plays the same state machine as ``State`` with the same draws from
the same generator, and gives the result to ``State.load_playout``. The rules remain readable in
``state.py``; ``tests/test_fast_paths.py`` checks both give identical records, leave the generator
in the same state, and list the same legal actions at every step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.entry import FastPath, RotationRows, TableSpec
from games.order_poker.actions import FOR, KEEP, SIMPLE, SIMPLE_PER_SEAT, STOP, Action, swap_table
from games.order_poker.bots import RandomBot
from games.order_poker.fast import _playout as k
from games.order_poker.phases import BIDDING
from games.order_poker.rules import MAX_PLAYERS
from games.order_poker.scoring import score_deal
from games.order_poker.state import Playout, State
from games.order_poker.tables import TABLES, deal_row, seat_rows_of

__all__ = ["FAST", "RandomPlayout", "play_random", "random_params"]

_ROLES: tuple[str | None, ...] = (None, "for", "against")  # the kernel's role codes 0, 1, 2
assert k.SIMPLE_PER_SEAT == SIMPLE_PER_SEAT and (FOR, KEEP, STOP) == (9, 11, 12)  # kernel.pxd's codes
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


def play_random(state: State, pass_prob: Sequence[float], keep_prob: Sequence[float | None],
                rng: np.random.Generator, trace: list[list[Action]] | None = None) -> None:
    """Play a fresh ``state`` (no action yet) to the end with random bots of these parameters.

    Same actions, scores and generator state as playing ``RandomBot.act`` action by action.
    ``trace`` (tests): the kernel's whole legal list of every step is appended to it.
    """
    actions: list[Action] = []
    (end, hands, robot, robot_cat, bids, bidders, in_bidding, orderer, order, roles, is_open, rnd, all_kept,
     partner) = k.play_random(rng, state.dealt, state.dealt_robot, state.dealer, state.rules.max_exchange_rounds,
                              pass_prob, keep_prob, _SIMPLE, _swaps(), actions, trace)
    state.load_playout(Playout(actions, k.END_RULES[end], hands, robot, robot_cat, bids, bidders, in_bidding,
                               orderer, order, [_ROLES[r] for r in roles], is_open, rnd, all_kept, partner))


class RandomPlayout(FastPath):
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

    def play_rows(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh deal in C without actions or ``State``s: the kernel returns the
        final values, scored by ``scoring.score_deal`` and written by the table's own row builders."""
        if tables is not TABLES:  # another game's columns: the generic way
            return super().play_rows(state, tables, rotations, rng_at)
        if state.phase != BIDDING or state.actions:
            raise ValueError("play_rows needs a fresh deal")
        hands, robot, dealer = state.dealt, state.dealt_robot, state.dealer
        rounds, half_min = state.rules.max_exchange_rounds, state.rules.half_min_rank
        out: list[RotationRows] = []
        for r, bots in enumerate(rotations):
            params = random_params(bots)
            if params is None:
                raise ValueError("RandomPlayout plays only tables of order-poker/random bots")
            (_, orderer, order, stake, is_open, robot_cat, rnd, partner, n_actions, cats,
             codes) = k.play_random_summary(rng_at(r), hands, robot, dealer, rounds, params[0], params[1])
            roles = [_ROLES[c] for c in codes]
            scores = score_deal(cats, robot_cat, dealer, orderer, order, roles, partner, stake, half_min)
            out.append(([deal_row(dealer, orderer, order, stake, is_open, robot_cat, rnd, n_actions)],
                        seat_rows_of(cats, orderer, order, roles, scores)))
        return out

    def legal_trace(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]]:
        """``play_out``, returning the kernel's legal list of every step (the same C loop, listing them)."""
        params = random_params(bots)
        if params is None:
            raise ValueError("RandomPlayout plays only tables of order-poker/random bots")
        trace: list[list[Action]] = []
        play_random(state, params[0], params[1], rng, trace)
        return trace

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Tables this kernel supports: default random bots, and mixed parameters (keep_prob, all-pass)."""
        mixed = [{"pass_prob": 0.3, "keep_prob": 0.5}, {"pass_prob": 0.9}, {"keep_prob": 0.1},
                 {"pass_prob": 0.0, "keep_prob": 0.0}, {}, {"keep_prob": 1.0}]
        return [[("order-poker/random", {})] * players,
                [("order-poker/random", mixed[s]) for s in range(players)],
                [("order-poker/random", {"pass_prob": 1.0})] * players]


FAST = RandomPlayout()
