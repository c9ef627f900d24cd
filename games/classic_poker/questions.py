"""Deal statistics of classic poker (issue 17): exact draw-improvement odds.

The CP-13 category tables and the 8-or-better low frequency are generic category counts
(``rasklad stats categories --jokers/--wild/--low``, ``ext.handeval.category_counts_mode``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.rules import PRESETS, Rules
from games.core.entry import Question, QuestionParams, QuestionRows


def draw_outcomes(rules: Rules, hand: Sequence[str], discard: Sequence[str]) -> dict[str, int]:
    """Exact category counts of the hand after discarding ``discard`` and drawing as many cards,
    over every set of replacement cards from the rest of the deck (the other players' cards unseen).

    E.g. four to a flush drawing one: ``flush`` 9 of 47; a pair drawing three: 4,656 of 16,215 improve.
    """
    held = [hands.parse(c) for c in hand]
    thrown = [hands.parse(c) for c in discard]
    if len(held) != 5 or len(set(held)) != 5:
        raise ValueError("a draw hand is five different cards")
    if not set(thrown) <= set(held):
        raise ValueError("the discards must be cards of the hand")
    keep = [c for c in held if c not in thrown]
    rest = [c for c in hands.deck_of(rules) if c not in held]
    draws = np.asarray(list(itertools.combinations(rest, len(thrown))), dtype=np.uint8).reshape(-1, len(thrown))
    full = np.concatenate([np.tile(np.asarray(keep, dtype=np.uint8), (len(draws), 1)), draws], axis=1)
    mode = hands.low_mode(rules) if rules.pot == "low" else hands.high_mode(rules)
    values = handeval.evaluate_mode(full, mode)
    counts = Counter(handeval.describe(int(v), mode) for v in values)
    return dict(counts)


# ----------------------------------------------------------------------------- deal-stats questions
# ``wild-categories``: CP-13's tables (and any other mode) as a deal-stats job; ``draw-odds``: the exact
# outcomes of a draw. Exact rows are integer counts with n = the number of hands.

#: Exact enumeration is split by the first card's position modulo this many units.
EXACT_UNITS = 8
SAMPLES_PER_SHARD = 1 << 22


def _mode(params: QuestionParams) -> handeval.Mode:
    return handeval.Mode(ranking=params["ranking"], wild=params["wild"], bug_flush=params["bug_flush"],
                         four_flush=params["four_flush"], low=params["low"],
                         ace_low_straight=params["ace_low_straight"])


def _wild_check(params: QuestionParams, method: str) -> list[tuple[str, str]]:
    try:
        handeval.mode_deck(_mode(params), None, params["jokers"])
    except ValueError as e:
        return [("question.jokers" if "joker" in str(e) else "question.wild", str(e))]
    return []


def _wild_run(params: QuestionParams, method: str, start: int, count: int,
              seed_seq: np.random.SeedSequence) -> QuestionRows:
    mode = _mode(params)
    k = params["cards"]
    if method == "exact":
        live = handeval.mode_deck(mode, None, params["jokers"])
        t = handeval.wild_tables(mode, k)
        raw = [0] * 256
        for u in range(start, start + count):
            for i, c in enumerate(t.count_all(live, EXACT_UNITS, u)):
                raw[i] += c
        counts = handeval.named_raw(mode, raw, "36" if mode.ranking == "short-deck" else "52")
    else:
        seed = int(seed_seq.generate_state(1, np.uint64)[0] >> np.uint64(1))
        counts = handeval.sample_counts_mode(mode, k, count, seed, jokers=params["jokers"])
    n = sum(counts.values())
    return {"counts": [(name, c, n) for name, c in counts.items()]}


WILD_CATEGORIES = Question(
    name="wild-categories",
    doc="CP-13: category counts with jokers, the bug, wild deuces, the four-flush, the 36-card ranking or "
        "a CP-5 low ranking (k-card hands, best five).",
    schema={"type": "object", "additionalProperties": False, "properties": {
        "ranking": {"type": "string", "enum": ["classic", "short-deck"], "default": "classic",
                    "description": "CP-2 (52 cards) or CP-10 (36 cards)"},
        "cards": {"type": "integer", "minimum": 5, "maximum": 7, "default": 5, "description": "cards per hand"},
        "jokers": {"type": "integer", "minimum": 0, "maximum": 2, "default": 0, "description": "jokers added"},
        "wild": {"type": "string", "enum": list(handeval.WILD_MODES), "default": "none", "description": "CP-3"},
        "bug_flush": {"type": "string", "enum": ["fill", "ace_only"], "default": "fill", "description": "CP-3.5"},
        "four_flush": {"type": "boolean", "default": False, "description": "CP-4"},
        "low": {"type": ["string", "null"], "enum": [*handeval.LOW_RANKINGS, None], "default": None,
                "description": "count low hands (CP-5.2)"},
        "ace_low_straight": {"type": "boolean", "default": True, "description": "CP-10.2"}}},
    tables=lambda params, method: {"counts": (("category", "string"),)},
    run=_wild_run,
    units=lambda params: EXACT_UNITS,
    per_shard=lambda params, method: SAMPLES_PER_SHARD if method == "sample" else
    (EXACT_UNITS if params["cards"] < 7 else 1),
    check=_wild_check,
)


def _draw_check(params: QuestionParams, method: str) -> list[tuple[str, str]]:
    if params["preset"] not in PRESETS:
        return [("question.preset", f"unknown preset {params['preset']!r}: {', '.join(PRESETS)}")]
    try:
        draw_outcomes(PRESETS[params["preset"]], params["hand"], params["discard"])
    except ValueError as e:
        return [("question.hand", str(e))]
    return []


def _draw_run(params: QuestionParams, method: str, start: int, count: int,
              seed_seq: np.random.SeedSequence) -> QuestionRows:
    out = draw_outcomes(PRESETS[params["preset"]], params["hand"], params["discard"])
    n = sum(out.values())
    return {"outcomes": [(name, c, n) for name, c in sorted(out.items())]}


DRAW_ODDS = Question(
    name="draw-odds",
    doc="CP-7.4: exact category counts after a draw, over every set of replacement cards.",
    schema={"type": "object", "additionalProperties": False, "required": ["hand", "discard"], "properties": {
        "preset": {"type": "string", "default": "draw", "description": "a CP-12 preset (deck and wild cards)"},
        "hand": {"type": "array", "items": {"type": "string"}, "minItems": 5, "maxItems": 5,
                 "description": "the five cards held"},
        "discard": {"type": "array", "items": {"type": "string"}, "maxItems": 5,
                    "description": "the cards thrown"}}},
    tables=lambda params, method: {"outcomes": (("category", "string"),)},
    run=_draw_run,
    per_shard=lambda params, method: 1,
    check=_draw_check,
    methods=("exact",),
)

QUESTIONS: dict[str, Question] = {q.name: q for q in (WILD_CATEGORIES, DRAW_ODDS)}
