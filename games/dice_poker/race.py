"""The ``optimal-race`` bot of the simple game (DP-4): maximises its expected score, exactly for two players.

With two players the score is +1 / -1 / 0 (a tie under ``split``, DP-4.4) or, under ``rethrow``, a tie
is worth the value of the next stage. The later player knows the hand to beat, so his best play is one
turn solved with the final value ``u(ms)`` = +1 above the hand, -1 below, the tie value on equal keys
(games.dice_poker.turn, standing = writing, never doubled). The first player's value of finishing
with hand H is minus the later player's optimal value against H: the 252 later-player turns are one
batch of the turn kernel, and the first player's turn is solved on those values. The stages are solved
backwards from the last one allowed (``max_rethrows``, capped at 40: a tie that long has a chance under
1e-80), where a tie is split.

With more than two players the bot plays the same turns against one opponent: the best hand thrown
before it in the stage when there is one (the later player's problem), else as the first of two.
In ``full`` and ``mixed`` the registered bot plays the optimal bot's solitaire strategy (a race
strategy for the score sheet, the chance of finishing ahead of a visible sheet, is not built).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from games.core.dice import canonical_mask, keep_choices
from games.dice_poker import scoring
from games.dice_poker.rules import DICE, MAX_THROWS, Rules
from games.dice_poker.state import Action
from games.dice_poker.turn import TurnValues, tables, turn_keeps, turn_values

STAGE_CAP = 40


@cache
def _keys(kickers: bool) -> list[tuple[int, ...]]:
    return [scoring.hand_key(ms, kickers) for ms in tables().ms5]


def against(rules: Rules, target: Sequence[int], tie: float) -> np.ndarray:
    """``u(ms)``: +1 above ``target``, -1 below, ``tie`` on an equal key (the later player's final value)."""
    keys = _keys(bool(rules.kickers))
    tk = scoring.hand_key(target, bool(rules.kickers))
    return np.array([1.0 if k > tk else -1.0 if k < tk else tie for k in keys])


@cache
def first_player_values(rules: Rules) -> tuple[np.ndarray, ...]:
    """Per stage s (0..), the first player's value of finishing the turn with each multiset (DP-4.4)."""
    stages = 0 if rules.tie_rule == "split" or rules.payout == "pairwise" else min(int(rules.max_rethrows or 0),
                                                                                    STAGE_CAP)
    ms5 = tables().ms5
    out: list[np.ndarray] = []
    tie_first = 0.0  # the last stage splits a tie
    for _ in range(stages + 1):
        # the later player against each first hand H, a tie worth -tie_first to him
        u = np.stack([against(rules, h, -tie_first) for h in ms5])
        later = turn_values(u, u, rules.locked)
        v1 = -later
        out.append(v1)
        tie_first = float(turn_values(v1[None, :], v1[None, :], rules.locked)[0])  # the value of a new stage
    return tuple(reversed(out))


class RaceBot:
    """Maximises the expected score of the simple game (exact for two players)."""

    def __init__(self) -> None:
        self._key: Any = None
        self._turn: tuple[np.ndarray, TurnValues] | None = None

    def final_values(self, view: Mapping[str, Any]) -> np.ndarray:
        """The value of finishing the turn with each multiset, from the hands thrown before in the stage."""
        rules: Rules = view["rules"]
        seat, stage = view["seat"], view["stage"]
        vals = first_player_values(rules)
        before = [h for s, h in view["hands"].items() if s != seat]
        if not before:
            first: np.ndarray = vals[min(stage, len(vals) - 1)]
            return first
        kick = bool(rules.kickers)
        best = max(before, key=lambda h: scoring.hand_key(h, kick))
        return against(rules, best, -stage_value(rules, stage + 1))

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """Stand or re-roll, whichever is worth more (deterministic; ``rng`` is not used)."""
        rules: Rules = view["rules"]
        if not rules.simple:
            raise ValueError("the race strategy is the simple game's (dice-poker/optimal-race plays full and "
                             "mixed with the optimal bot, games.dice_poker.bots)")
        seat, dice, t = view["seat"], tuple(view["dice"]), view["throw"]
        key = (rules, view["game"], view["stage"], tuple(sorted(view["hands"].items())), seat)
        if key != self._key or self._turn is None:
            u = self.final_values(view)
            self._turn = (u, turn_keeps(u[None, :], u[None, :], rules.locked))
            self._key = key
        u, tv = self._turn
        tb = tables()
        stand_v = float(u[tb.midx[tuple(sorted(dice))]])
        stand = Action(seat, "stand")
        if t >= MAX_THROWS or not view["reroll_allowed"]:
            return stand
        if t == 2 and rules.locked:
            first = view["masks"][0]
            kept = tuple(sorted(d for i, d in enumerate(dice) if not first >> i & 1))
            new_pos = [i for i in range(DICE) if first >> i & 1]
            new = [dice[i] for i in new_pos]
            best_s, best_v = None, stand_v
            for s in keep_choices(new):
                if len(s) < len(new) and float(tv.e3[0, tb.kidx[tuple(sorted(kept + s))]]) > best_v + 1e-12:
                    best_s, best_v = s, float(tv.e3[0, tb.kidx[tuple(sorted(kept + s))]])
            if best_s is None:
                return stand
            sub = canonical_mask(new, best_s)
            return Action(seat, "reroll", sum(1 << new_pos[j] for j in range(len(new)) if sub >> j & 1))
        e = tv.e2[0] if t == 1 else tv.e3[0]
        best_keep, best_v = None, stand_v
        for k in keep_choices(dice):
            if len(k) < DICE and float(e[tb.kidx[k]]) > best_v + 1e-12:
                best_keep, best_v = k, float(e[tb.kidx[k]])
        return stand if best_keep is None else Action(seat, "reroll", canonical_mask(dice, best_keep))


@cache
def stage_value(rules: Rules, stage: int) -> float:
    """The first player's value of rethrow stage ``stage`` (0 past the last one: a tie is then split)."""
    vals = first_player_values(rules)
    if stage >= len(vals):
        return 0.0
    return float(turn_values(vals[stage][None, :], vals[stage][None, :], rules.locked)[0])


def game_value(rules: Rules) -> float:
    """The first player's exact expected score in a two-player simple game when both play optimal-race."""
    v1 = first_player_values(rules)[0]
    return float(turn_values(v1[None, :], v1[None, :], rules.locked)[0])
