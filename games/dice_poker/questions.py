"""Dice Poker's deal-stats questions (``GameEntry.questions``): one-throw categories, reaching a line in
one turn, and the optimal bot's final score.

* ``dice-poker-categories``: every throw of five dice (exact: the 7,776 ordered throws; or sampled), its
  DP-3 category (table ``categories``) and the DP-5 lines it qualifies for (table ``lines``): DP-10.1-10.2.
* ``dice-poker-reach``: the chance to make each line in one turn by the best play for that line
  (DP-10.4), exact, as ``count / n`` with n = 6^15 (every chance in a turn of three throws of up to five
  dice is a multiple of 6^-15), under ``reroll_rule``.
* ``dice-poker-optimal-score``: the distribution of the optimal bot's solitaire total (sampled games of
  ``preset`` full or mixed, default options), DP-10.5.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.entry import Question, no_params
from games.dice_poker import scoring
from games.dice_poker.rules import CATEGORIES, MAIN, Rules

THROWS = 6 ** 5
REACH_N = 6 ** 15
REACH_LINES: tuple[str, ...] = tuple(ln for ln in MAIN if ln != "chance")


def _throw(i: int) -> tuple[int, ...]:
    return tuple(i // 6 ** p % 6 + 1 for p in range(5))


def categories_run(params: Mapping[str, Any], method: str, start: int, count: int,
                   seed_seq: np.random.SeedSequence) -> dict[str, list[tuple[Any, ...]]]:
    """Category and line counts of throws ``start .. start + count - 1`` (exact) or of ``count`` samples."""
    if method == "exact":
        throws: Sequence[tuple[int, ...]] = [_throw(i) for i in range(start, start + count)]
    else:
        rng = np.random.default_rng(seed_seq)
        throws = [tuple(int(x) for x in row) for row in rng.integers(1, 7, size=(count, 5))]
    cats = Counter(scoring.category_name(t) for t in throws)
    lines = Counter(ln for t in throws for ln in MAIN if scoring.base_score(ln, t) > 0)
    return {"categories": [(c, cats.get(c, 0), count) for c in CATEGORIES],
            "lines": [(ln, lines.get(ln, 0), count) for ln in MAIN]}


def _reach_check(params: Mapping[str, Any], method: str) -> list[tuple[str, str]]:
    errors = []
    if params.get("reroll_rule", "locked") not in ("locked", "free"):
        errors.append(("question.reroll_rule", "must be locked or free (DP-2.3)"))
    if method != "exact":
        errors.append(("method", "dice-poker-reach is computed exactly"))
    return errors


def reach_run(params: Mapping[str, Any], method: str, start: int, count: int,
              seed_seq: np.random.SeedSequence) -> dict[str, list[tuple[Any, ...]]]:
    """The exact chance of each line ``start .. start + count - 1`` of ``REACH_LINES`` (DP-10.4)."""
    from games.dice_poker.turn import solve_turn, tables

    t = tables()
    locked = params.get("reroll_rule", "locked") == "locked"
    rows = []
    for line in REACH_LINES[start:start + count]:
        w = np.array([[float(scoring.base_score(line, ms) > 0) for ms in t.ms5]])
        p = float(solve_turn(w, w, locked).value[0])
        rows.append((line, round(p * REACH_N), REACH_N))
    return {"reach": rows}


def _score_check(params: Mapping[str, Any], method: str) -> list[tuple[str, str]]:
    errors = []
    if params.get("preset", "full") not in ("full", "mixed"):
        errors.append(("question.preset", "the optimal bot plays full or mixed"))
    if method != "sample":
        errors.append(("method", "dice-poker-optimal-score is sampled"))
    return errors


def score_run(params: Mapping[str, Any], method: str, start: int, count: int,
              seed_seq: np.random.SeedSequence) -> dict[str, list[tuple[Any, ...]]]:
    """Final totals of ``count`` solitaire games of the optimal bot."""
    from games.dice_poker.optimal import OptimalBot
    from games.dice_poker.state import State

    rules = Rules(preset=params.get("preset", "full"))
    rng = np.random.default_rng(seed_seq)
    bot = OptimalBot()
    totals: Counter[int] = Counter()
    for _ in range(count):
        st = State.deal(rules, 1, 0, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(0), st.legal_actions(), rng))
        totals[st.scores()[0]] += 1
    return {"scores": [(s, c, count) for s, c in sorted(totals.items())]}


QUESTIONS: tuple[Question, ...] = (
    Question(name="dice-poker-categories",
             doc="one throw of five dice: its DP-3 category and the DP-5 lines it qualifies for (DP-10.1, DP-10.2)",
             schema=no_params(),
             tables=lambda p, m: {"categories": (("category", "string"),), "lines": (("line", "string"),)},
             run=categories_run, per_shard=lambda p, m: THROWS if m == "exact" else 200_000,
             units=lambda p: THROWS),
    Question(name="dice-poker-reach",
             doc="the chance to make each line in one turn playing only for it, count / 6^15 (DP-10.4)",
             schema={"type": "object", "additionalProperties": False,
                     "properties": {"reroll_rule": {"type": "string", "enum": ["locked", "free"],
                                                    "default": "locked"}}},
             tables=lambda p, m: {"reach": (("line", "string"),)}, run=reach_run,
             per_shard=lambda p, m: len(REACH_LINES), units=lambda p: len(REACH_LINES), check=_reach_check,
             methods=("exact",)),
    Question(name="dice-poker-optimal-score",
             doc="the distribution of the optimal bot's solitaire total (DP-10.5)",
             schema={"type": "object", "additionalProperties": False,
                     "properties": {"preset": {"type": "string", "enum": ["full", "mixed"], "default": "full"}}},
             tables=lambda p, m: {"scores": (("score", "int32"),)}, run=score_run,
             per_shard=lambda p, m: 500, check=_score_check, methods=("sample",)),
)
