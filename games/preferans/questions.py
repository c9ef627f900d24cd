"""Preferans deal-stats questions (docs/preferans.md, "Deal statistics").

``talon``
    PF-8.9: what the two talon cards hold: two aces, exactly one ace, a marriage (K and Q of one suit),
    nothing (table ``contents(kind)``), and the dealer's bonus in tricks (table ``bonus(tricks)``).
    Exact: the 496 pairs. Sampled: a unit is one dealt talon (d[30], d[31], PF-3.4).
``misere-shape``
    The chance that a random hand is a clean misère shape (games.preferans.bots.misere_clean: in
    every suit the k-th lowest card is at most 7, 9, J, K for k = 1, 2, 3, 4), before the talon (the
    first hand's 10 cards) and after it (some discard of the 12 leaves a clean 10). Sampled.
``dd-best``
    The double-dummy tricks of the best contract of a random hand: the first hand takes the talon,
    discards for each strain as the heuristic does, and the solver gives his tricks in s, c, d, h and
    no trump with the first hand leading (PF-7.1); table ``best(tricks)`` and ``strain(strain)``. Sampled.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from games.core.entry import Question, QuestionParams, QuestionRows, no_params
from games.core.streams import Streams
from games.preferans import scoring, solver
from games.preferans.bots import STRAIN_SUIT, misere_clean
from games.preferans.cards import DECK
from games.preferans.pimc import _heuristic_discard


def _kind(pair: tuple[int, int]) -> str:
    aces = sum(1 for c in pair if c >> 2 == 12)
    if aces == 2:
        return "two_aces"
    if aces == 1:
        return "one_ace"
    return "marriage" if scoring.talon_bonus_tricks(pair) == 1 else "none"


def _deals(seed_seq: np.random.SeedSequence, start: int, count: int) -> list[list[int]]:
    streams = Streams(seed_seq)
    deck = np.asarray(DECK)
    return [[int(c) for c in streams.at(start + i, 0).permutation(deck)] for i in range(count)]


def _talon_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    if method == "exact":
        pairs = list(combinations(DECK, 2))
    else:
        pairs = [(d[30], d[31]) for d in _deals(seed_seq, start, count)]
    kinds: dict[str, int] = {}
    bonus: dict[int, int] = {}
    for p in pairs:
        kinds[_kind(p)] = kinds.get(_kind(p), 0) + 1
        b = scoring.talon_bonus_tricks(p)
        bonus[b] = bonus.get(b, 0) + 1
    n = len(pairs)
    return {"contents": [(k, v, n) for k, v in sorted(kinds.items())],
            "bonus": [(k, v, n) for k, v in sorted(bonus.items())]}


TALON = Question(
    name="talon", doc="PF-8.9: talon contents (aces, marriages) and the dealer's bonus in tricks.",
    schema=no_params(),
    tables=lambda params, method: {"contents": (("kind", "string"),), "bonus": (("tricks", "int8"),)},
    run=_talon_run, per_shard=lambda params, method: 1 if method == "exact" else 200_000,
)


def _clean_after(hand12: list[int]) -> bool:
    return any(misere_clean([c for c in hand12 if c not in pair]) for pair in combinations(hand12, 2))


def _misere_run(params: QuestionParams, method: str, start: int, count: int,
                seed_seq: np.random.SeedSequence) -> QuestionRows:
    before = after = 0
    for d in _deals(seed_seq, start, count):
        before += misere_clean(d[:10])
        after += _clean_after(d[:10] + d[30:32])
    return {"shape": [("before_talon", before, count), ("after_talon", after, count)]}


MISERE_SHAPE = Question(
    name="misere-shape", doc="A clean misère shape before and after the talon (the first hand's cards).",
    schema=no_params(), tables=lambda params, method: {"shape": (("stage", "string"),)},
    run=_misere_run, per_shard=lambda params, method: 20_000, methods=("sample",),
)


def best_contract(deck: list[int]) -> tuple[str, int]:
    """The first hand's best strain and its double-dummy tricks after taking the talon (heuristic discard)."""
    hand12 = deck[:10] + deck[30:32]
    best = ("s", -1)
    for strain, trump in STRAIN_SUIT.items():
        throw = _heuristic_discard(hand12, trump)
        mine = [c for c in hand12 if c not in throw]
        t = solver.tricks([mine, deck[10:20], deck[20:30]], trump, 0, 0)
        if t > best[1]:
            best = (strain, t)
    return best


def _dd_run(params: QuestionParams, method: str, start: int, count: int,
            seed_seq: np.random.SeedSequence) -> QuestionRows:
    tricks: dict[int, int] = {}
    strains: dict[str, int] = {}
    for d in _deals(seed_seq, start, count):
        s, t = best_contract(d)
        tricks[t] = tricks.get(t, 0) + 1
        strains[s] = strains.get(s, 0) + 1
    return {"best": [(k, v, count) for k, v in sorted(tricks.items())],
            "strain": [(k, v, count) for k, v in sorted(strains.items())]}


DD_BEST = Question(
    name="dd-best", doc="Double-dummy tricks of the best contract of a random hand (first hand, with the talon).",
    schema=no_params(),
    tables=lambda params, method: {"best": (("tricks", "int8"),), "strain": (("strain", "string"),)},
    run=_dd_run, per_shard=lambda params, method: 200, methods=("sample",),
)

QUESTIONS = {q.name: q for q in (TALON, MISERE_SHAPE, DD_BEST)}
