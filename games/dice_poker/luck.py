"""Dice Poker's luck estimator (``GameEntry.luck``): the dice's luck by the optimal solitaire values (AIVAT).

For the score-sheet games (full, mixed) with ``payout: points`` a seat's score is its own sheet total
(DP-5.6). Let V be the value of a position under the solver's optimal solitaire strategy
(games.dice_poker.solver, DP-10.5): the expected final total from there on. Every throw is a chance
event whose distribution is known exactly (DP-2.5: each new face is a fresh fair die), so its luck

    luck = V(position after the throw) - E over the throw's faces of V(position after the throw)

has expectation zero given everything before the throw, whatever any bot did or will do. A seat's
correction is the sum of the lucks of its throws; E[correction] = 0 for any bots (docs/statistics.md,
"Luck-adjusted scores", proves it). In the solver's turn arrays (games.dice_poker.turn):

* throw 1 (five new dice, multiset ``m``): ``W1[m] - value``, the turn's value ``sum P(m) W1[m]``;
* throw 2 after keeping ``K``: ``W2 - E2[K]``, with ``W2 = max(WV23[m], max_{K' < m} E3[K'])`` under
  ``free`` and ``W2[K, N] = max(WV23[K + N], max_{S < N} E3[K + S])`` under ``locked`` (DP-2.3);
* throw 3 after keeping ``K``: ``WV23[m] - E3[K]``.

The optimal bot's adjusted score is then exactly the value of the empty sheet: all its variance was
luck. The arrays of all turns of a unit (every rotation and seat) are computed in one batch. A summary
job's compiled play-out computes the same floats in C (``fast/playout.py``'s ``play_rows_corrected``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from games.core.entry import LuckEstimator
from games.dice_poker.optimal import load_strategy, sheet_state
from games.dice_poker.rules import LINE_INDEX, LINES, Rules
from games.dice_poker.solver import SubGame
from games.dice_poker.turn import Ms, TurnValues, tables, turn_keeps

__all__ = ["LUCK", "turn_luck", "unit_corrections"]


def _subs(ms: Ms) -> set[Ms]:
    """Every sub-multiset of ``ms`` (sorted tuples), ``ms`` itself included."""
    out: set[Ms] = {()}
    for d in ms:
        out |= {tuple(sorted((*s, d))) for s in out}
    return out


@cache
def _keeps(kept: Ms, new: Ms) -> np.ndarray:
    """The kept-multiset indices of ``kept + S`` for every proper sub-multiset S of ``new``."""
    kidx = tables().kidx
    return np.array(sorted(kidx[tuple(sorted(kept + s))] for s in _subs(new) if len(s) < len(new)), dtype=np.int64)


def _best_keep(e: np.ndarray, kept: Ms, new: Ms) -> float:
    """max over proper sub-multisets S of ``new`` of ``e[kept + S]`` (a re-roll re-rolls a die, DP-2.4)."""
    return float(e[_keeps(kept, new)].max())


def _kept(dice: Sequence[int], mask: int) -> tuple[Ms, Ms]:
    """(kept faces, new faces' positions' faces) of a throw's dice split by a re-roll mask (bit = re-rolled)."""
    kept = tuple(sorted(d for i, d in enumerate(dice) if not mask >> i & 1))
    rolled = tuple(sorted(d for i, d in enumerate(dice) if mask >> i & 1))
    return kept, rolled


def turn_luck(tv: TurnValues, row: int, wv1: np.ndarray, wv23: np.ndarray, locked: bool,
              throws: Sequence[Sequence[int]], masks: Sequence[int]) -> float:
    """The summed luck of one turn's throws (module docstring) from the turn's arrays (batch row ``row``)."""
    t = tables()
    e2, e3 = tv.e2[row], tv.e3[row]
    ms1 = tuple(sorted(throws[0]))
    w1 = max(float(wv1[row, t.midx[ms1]]), _best_keep(e2, (), ms1))
    luck = w1 - float(tv.value[row])
    if len(throws) >= 2:
        k1, _ = _kept(throws[0], masks[0])
        _, new = _kept(throws[1], masks[0])
        ms2 = tuple(sorted(throws[1]))
        if locked:
            w2 = max(float(wv23[row, t.midx[ms2]]), _best_keep(e3, k1, new))
        else:
            w2 = max(float(wv23[row, t.midx[ms2]]), _best_keep(e3, (), ms2))
        luck += w2 - float(e2[t.kidx[k1]])
    if len(throws) >= 3:
        k2, _ = _kept(throws[1], masks[1])
        luck += float(wv23[row, t.midx[tuple(sorted(throws[2]))]]) - float(e3[t.kidx[k2]])
    return luck


def _turns(st: Any) -> list[tuple[int, SubGame, int, int, dict[str, Any]]]:
    """Every turn of a finished match as (seat, sub-game, sheet mask, school sum) before it, and the turn."""
    strategy = load_strategy(st.rules)
    out = []
    for game in st.done:
        sheets: list[list[int | None]] = [[None] * len(LINES) for _ in range(st.players)]
        for turn in game["turns"]:
            part = strategy.part_for(turn["round"])
            mask, s = sheet_state(part, sheets[turn["seat"]])
            out.append((turn["seat"], part, mask, s, turn))
            sheets[turn["seat"]][LINE_INDEX[turn["write"]]] = turn["score"]
    return out


def unit_corrections(states: Sequence[Any]) -> list[list[float]]:
    """Per finished state, each seat's summed luck of its throws (the ``LuckEstimator``'s corrections)."""
    turns = [_turns(st) for st in states]
    flat = [x for per in turns for x in per]
    by_part: dict[int, list[int]] = {}
    for i, entry in enumerate(flat):
        by_part.setdefault(id(entry[1]), []).append(i)
    luck = np.zeros(len(flat))
    locked = bool(states[0].rules.locked) if states else True
    for idx in by_part.values():
        part = flat[idx[0]][1]
        masks = np.array([flat[i][2] for i in idx], dtype=np.int64)
        sums = np.array([flat[i][3] for i in idx], dtype=np.int64)
        allowed = np.array([sum(1 << j for j in part.allowed(int(m))) for m in masks], dtype=np.int64)
        wv1, wv23 = part._write_rows(masks, sums, allowed)
        tv = turn_keeps(wv1, wv23, locked)
        for row, i in enumerate(idx):
            done = flat[i][4]
            luck[i] = turn_luck(tv, row, wv1, wv23, locked, done["throws"], done["masks"])
    out: list[list[float]] = []
    k = 0
    for st, per in zip(states, turns, strict=True):
        seats = [0.0] * st.players
        for seat, *_ in per:
            seats[seat] += float(luck[k])
            k += 1
        out.append(seats)
    return out


def _supports(rules: Rules) -> bool:
    """The score-sheet games scored in points: a seat's score is its own total, V's subject."""
    return not rules.simple and rules.payout == "points"


LUCK = LuckEstimator(
    method="AIVAT over the dice: per throw, the optimal solitaire value of the position after it (the "
           "solver's exact tables, DP-10.5) minus its exact expectation over the throw's faces; a seat's "
           "correction is the sum over its throws",
    unbiased_by="each throw's faces are fresh fair dice (DP-2.5) independent of everything before them, so "
                "every term has conditional expectation 0 whatever the bots do",
    corrections=unit_corrections,
    supports=_supports,
)
