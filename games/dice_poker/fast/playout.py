"""The compiled play-out of Dice Poker games of ``dice-poker/random`` and ``dice-poker/greedy`` seats.

A random or greedy bot decides in a microsecond; the readable engine spends tens on the view, the
legal list and ``apply`` of every decision. ``Playout`` hands a fresh one-game match to
``_play`` (every preset and option: games/dice_poker/fast/_play.pyx), which plays the same game from
the same pre-drawn faces with the same draws from the same generator. ``play_out`` applies the
kernel's actions to the ``State`` (so the record is the engine's); ``play_rows`` writes the rows of
every rotation straight from the kernel's result, no ``State`` played. ``tests/test_fast_paths.py``
checks records, generator states and legal lists against the readable engine for every preset;
``tests/test_dice_poker_fast.py`` every option and the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.dice import reroll_masks
from games.core.entry import FastPath, RotationRows, TableSpec
from games.dice_poker.bots import GreedyBot, RandomBot
from games.dice_poker.fast import _play
from games.dice_poker.rules import CATEGORIES, DICE, LINES, Rules
from games.dice_poker.state import Action, State
from games.dice_poker.tables import TABLES

__all__ = ["FAST", "Playout", "options"]

assert tuple(_play.CATEGORY_NAMES) == CATEGORIES
_STAND, _WRITE = 32, 64  # the kernel's action codes: 1..31 a re-roll mask, 32 stand, 64 + i write line i
_PRESETS = {"simple": 0, "full": 1, "mixed": 2}
_FTD = {"all": 0, "except_chance": 1, "none": 2}
_SCHOOL = {"plus": 0, "minus": 1, "both": 2, "none": 3}
_OPTIONS: dict[Rules, tuple[Any, ...]] = {}


def options(rules: Rules) -> tuple[Any, ...]:
    """The kernel's options tuple for ``rules`` (DP-9; an option the preset lacks is given as 0)."""
    out = _OPTIONS.get(rules)
    if out is None:
        out = _OPTIONS[rules] = (
            _PRESETS[rules.preset], rules.locked, bool(rules.kickers), rules.tie_rule == "rethrow",
            int(rules.max_rethrows or 0), rules.payout == "pairwise", _FTD.get(str(rules.first_throw_double), 2),
            int(rules.poker_bonus or 0), _SCHOOL.get(str(rules.school_bonus), 3), rules.school_order == "fixed")
    return out


def _codes(bots: Sequence[Any]) -> list[int] | None:
    """0 per random seat, 1 per greedy seat; None when a seat has another bot (a subclass included)."""
    out = []
    for b in bots:
        t = type(b)
        if t is RandomBot:
            out.append(0)
        elif t is GreedyBot:
            out.append(1)
        else:
            return None
    return out


def _action(seat: int, code: int) -> Action:
    if code < _STAND:
        return Action(seat, "reroll", code)
    if code == _STAND:
        return Action(seat, "stand")
    return Action(seat, "write", line=LINES[code - _WRITE])


def _legal(seat: int, allowed: int, lines: int) -> list[Action]:
    """The kernel's legal set of one decision as ``State.legal_actions`` lists it (DP-7)."""
    out = [Action(seat, "reroll", m) for m in (reroll_masks(DICE, allowed) if allowed else ())]
    if lines < 0:
        out.append(Action(seat, "stand"))
    else:
        out.extend(Action(seat, "write", line=LINES[i]) for i in range(len(LINES)) if lines >> i & 1)
    return out


def _fresh(state: State) -> bool:
    return state.games == 1 and state.deal_no == 0 and not state.actions[0] and not state.over


class Playout(FastPath):
    """Matches of one game where every seat is ``dice-poker/random`` or ``dice-poker/greedy``."""

    name = "dice-poker/c-play"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``RandomBot`` or ``GreedyBot`` itself (a subclass may choose differently)."""
        return _codes(bots) is not None

    def _run(self, state: State, bots: Sequence[Any], rng: np.random.Generator,
             trace: bool) -> list[list[Action]] | None:
        codes = _codes(bots)
        if codes is None:
            raise ValueError("this play-out plays only dice-poker/random and dice-poker/greedy seats")
        if not _fresh(state):  # a match of several games, or one under way: the readable loop
            lists: list[list[Action]] = []
            while not state.is_over():
                seat = state.to_act()
                legal = state.legal_actions()
                lists.append(list(legal))
                state.apply(bots[seat].act(state.view(seat), legal, rng))
            return lists if trace else None
        acts, seats, kernel_legal = _play.play(rng, state.streams[0].faces, state.players, state.dealer % state.players,
                                        options(state.rules), codes, trace)
        for seat, code in zip(seats, acts, strict=True):
            state.apply(_action(seat, code))
        if not state.is_over():
            raise RuntimeError("the kernel's game ended before the engine's")
        if kernel_legal is None:
            return None
        return [_legal(seat, a, ln) for seat, (a, ln) in zip(seats, kernel_legal, strict=True)]

    def play_out(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh match in C (its actions applied to ``state``): the engine's actions and draws."""
        self._run(state, bots, rng, False)

    def legal_trace(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]] | None:
        """``play_out``, returning the kernel's legal list of every decision."""
        return self._run(state, bots, rng, True)

    def play_rows(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh one-game match in C, rows straight from the kernel (tables.py's)."""
        codes = [_codes(bots) for bots in rotations]
        if tables is not TABLES or not _fresh(state):
            return super().play_rows(state, tables, rotations, rng_at)
        known = [c for c in codes if c is not None]
        if len(known) != len(codes):
            return super().play_rows(state, tables, rotations, rng_at)
        return _play.rows(rng_at, state.streams[0].faces, state.players, state.dealer % state.players,
                          options(state.rules), known, state.rules.preset)

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random seats, greedy seats, and the two alternating."""
        return [[("dice-poker/random", {})] * players, [("dice-poker/greedy", {})] * players,
                [("dice-poker/random" if s % 2 else "dice-poker/greedy", {}) for s in range(players)]]


FAST = Playout()
