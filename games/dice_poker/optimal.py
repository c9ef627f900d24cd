"""The ``optimal`` bot: plays the solver's strategy (games.dice_poker.solver), maximising the expected
final score of its own sheet (solitaire-optimal; in a table of several players it ignores the others).
In the simple game, where the score is the pot, the registered bot plays ``optimal-race``.

At each decision it rebuilds the turn's arrays for its sheet state (the filled lines of the sub-game
in play and the school sum) from the solved state values, then compares every write with every keep
choice: after throw 1 keeping K is worth ``E2[K]``, after throw 2 ``E3[K]`` (under ``locked`` only the
dice kept at the first re-roll plus some of the new ones, DP-2.3). Ties go to writing, then to the
first keep choice. The arrays of a turn are computed once and reused for its later decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.dice import canonical_mask, keep_choices
from games.dice_poker import scoring, solver
from games.dice_poker.rules import DICE, LINE_INDEX, MAX_THROWS, Rules
from games.dice_poker.state import Action
from games.dice_poker.turn import TurnValues, tables, turn_keeps

_STRATEGIES: dict[tuple[str, str | None], solver.Strategy] = {}


def load_strategy(rules: Rules, cache_dir: str | None = None) -> solver.Strategy:
    """The strategy of ``rules`` for this process: from memory, the disk cache, or solved."""
    key = (rules.key, cache_dir)
    if key not in _STRATEGIES:
        _STRATEGIES[key] = solver.strategy(rules, cache_dir)
    return _STRATEGIES[key]


def sheet_state(part: solver.SubGame, sheet: Sequence[int | None]) -> tuple[int, int]:
    """(mask of the sub-game's filled lines, school sum of its filled classes) of a sheet."""
    mask = 0
    s = 0
    for i, line in enumerate(part.lines):
        v = sheet[LINE_INDEX[line]]
        if v is not None:
            mask |= 1 << i
            if part.face[i]:
                s += v
    return mask, s


class OptimalBot:
    """Maximises its expected final score (full, mixed) by the exact strategy."""

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir
        self._turn_key: Any = None
        self._turn: TurnValues | None = None

    def turn_arrays(self, rules: Rules, round_no: int, sheet: Sequence[int | None]
                    ) -> tuple[solver.SubGame, int, int, TurnValues]:
        """The sub-game in play, its state (mask, school sum) and the turn's keep values."""
        part = load_strategy(rules, self.cache_dir).part_for(round_no)
        mask, s = sheet_state(part, sheet)
        key = (rules.key, id(part), mask, s)
        if key != self._turn_key or self._turn is None:
            allowed = np.array([sum(1 << i for i in part.allowed(mask))], dtype=np.int64)
            wv1, wv23 = part._write_rows(np.array([mask], dtype=np.int64), np.array([s], dtype=np.int64), allowed)
            self._turn = turn_keeps(wv1, wv23, rules.locked)
            self._turn_key = key
        return part, mask, s, self._turn

    @staticmethod
    def write_value(part: solver.SubGame, mask: int, s: int, i: int, dice: Sequence[int], t: int) -> float:
        """The score of writing line ``i`` of the sub-game now plus the value of the sheet it leaves."""
        rules = part.rules
        line = part.lines[i]
        score = scoring.line_score(rules, line, dice, t) + scoring.poker_bonus(rules, line, dice)
        nxt = mask | 1 << i
        if part.face[i]:
            s += score
            if nxt & part.class_bits == part.class_bits:
                score += scoring.school_bonus(rules, s)
        lo, vals = part.value(nxt)
        return score + float(vals[min(max(s - lo, 0), len(vals) - 1)])

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """The optimal action (deterministic; ``rng`` is not used)."""
        rules: Rules = view["rules"]
        if rules.simple:
            raise ValueError("the solver's strategy is the score sheet's (dice-poker/optimal plays the simple "
                             "game with the race strategy, games.dice_poker.bots)")
        seat = view["seat"]
        part, mask, s, tv = self.turn_arrays(rules, view["round"], view["sheets"][seat])
        return self.choose(view, part, mask, s, tv, self.write_value)

    def choose(self, view: Mapping[str, Any], part: solver.SubGame, mask: int, s: int, tv: TurnValues,
               write_value: Callable[[solver.SubGame, int, int, int, Sequence[int], int], float]) -> Action:
        """The best of every write (valued by ``write_value``) and every keep choice (valued by ``tv``)."""
        rules: Rules = view["rules"]
        seat, dice, t = view["seat"], tuple(view["dice"]), view["throw"]
        tb = tables()
        i_best, w_best = max(((i, write_value(part, mask, s, i, dice, t)) for i in part.allowed(mask)),
                             key=lambda x: x[1])
        write = Action(seat, "write", line=part.lines[i_best])
        if t >= MAX_THROWS or not view["reroll_allowed"]:
            return write
        if t == 2 and rules.locked:
            return self._locked_second(seat, dice, view["masks"][0], tv.e3[0], w_best, write)
        e = tv.e2[0] if t == 1 else tv.e3[0]
        best_keep, best_v = None, w_best
        for k in keep_choices(dice):
            if len(k) < DICE and float(e[tb.kidx[k]]) > best_v + 1e-9:
                best_keep, best_v = k, float(e[tb.kidx[k]])
        if best_keep is None:
            return write
        return Action(seat, "reroll", canonical_mask(dice, best_keep))

    @staticmethod
    def _locked_second(seat: int, dice: tuple[int, ...], first: int, e3: np.ndarray, w_best: float,
                       write: Action) -> Action:
        """Throw 2 under ``locked``: keep the first re-roll's kept dice plus the best part of the new ones."""
        tb = tables()
        kept = tuple(sorted(d for i, d in enumerate(dice) if not first >> i & 1))
        new_pos = [i for i in range(DICE) if first >> i & 1]
        new = [dice[i] for i in new_pos]
        best_s, best_v = None, w_best
        for s in keep_choices(new):
            if len(s) < len(new):
                v = float(e3[tb.kidx[tuple(sorted(kept + s))]])
                if v > best_v + 1e-9:
                    best_s, best_v = s, v
        if best_s is None:
            return write
        sub = canonical_mask(new, best_s)  # over the new dice's own order
        return Action(seat, "reroll", sum(1 << new_pos[j] for j in range(len(new)) if sub >> j & 1))
