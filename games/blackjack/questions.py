"""Blackjack's deal-stats questions, exact and sampled from dealt cards.

``dealer-totals``
    BJ-10.1 / BJ-10.2: the dealer's final total by up card, before the peek (a natural counted as
    ``BJ``), from a fresh shoe of ``decks`` decks (0: the infinite deck, exact only) with only the
    up card removed; ``dealer_soft17`` stand or hit (BJ-7.6). Table ``totals(up, final)``. Exact: the
    solver's recursion; sampled: a unit is one shuffled shoe, its first card the up card, the dealer
    drawing from the next cards.
``doubling``
    BJ-10.4: the seed's house rule (BJ-2.2) on one deck: the dealer doubles on a first J, Q, K or A;
    a player redoubles on a first ace after a double. Table ``events(event)``: ``double``,
    ``redouble`` (one player's, unconditional) and ``redouble_given_double`` (its ``n`` counts the
    doubles, so shards merge by summing). Exact over the ordered first cards of dealer and player.
``ochko-naturals``
    BJ-10.5: two-card "золотое очко" (two aces) and ace + ten among the C(36, 2) two-card hands. Table
    ``naturals(kind)``.

Exact rows are integers ``(count, n)``; the dealer's totals from the float recursion are written with
n = 10**15 and count = the probability rounded to 15 decimals.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np

from games.blackjack.solve_cli import dealer_tables
from games.blackjack.solver import SLOTS, best_total
from games.blackjack.strategy import UP_NAMES
from games.core.entry import Question, QuestionParams, QuestionRows, no_params
from games.core.streams import Streams

SCALE = 10**15
SAMPLES = 100_000


def _value(card: int) -> int:
    r = card >> 2
    return 1 if r == 12 else min(10, r + 2)


def _dealer_run(params: QuestionParams, method: str, start: int, count: int,
                seed_seq: np.random.SeedSequence) -> QuestionRows:
    decks, h17 = params["decks"], params["dealer_soft17"] == "hit"
    if method == "exact":
        tab = dealer_tables(decks or None, h17)
        return {"totals": [(up, s, round(tab[up][s] * SCALE), SCALE) for up in UP_NAMES for s in SLOTS]}
    if decks == 0:
        raise ValueError("the infinite deck is answered exactly only")
    streams = Streams(seed_seq)
    shoe = np.array([c for c in range(52) for _ in range(decks)])
    values = np.array([_value(c) for c in shoe])
    hits = {(u, s): 0 for u in UP_NAMES for s in SLOTS}
    ups = dict.fromkeys(UP_NAMES, 0)
    for i in range(count):
        order = values[streams.at(i, 0).permutation(len(values))][:12].tolist()
        up = order[0]
        hard, ace, n = up, up == 1, 1
        for v in order[1:]:
            t = best_total(hard, ace)
            if n >= 2 and (t > 17 or (t == 17 and not (h17 and ace and hard + 10 == 17))):
                break
            hard, ace, n = hard + v, ace or v == 1, n + 1
        t = best_total(hard, ace)
        slot = "BJ" if n == 2 and t == 21 else "bust" if t > 21 else str(t)
        name = "A" if up == 1 else str(up)
        hits[name, slot] += 1
        ups[name] += 1
    return {"totals": [(u, s, hits[u, s], ups[u]) for u in UP_NAMES for s in SLOTS if ups[u]]}


DEALER_TOTALS = Question(
    name="dealer-totals",
    doc="BJ-10.1/10.2: the dealer's final total by up card, before the peek (only the up card removed).",
    schema={"type": "object", "additionalProperties": False, "properties": {
        "decks": {"type": "integer", "enum": [0, 1, 2, 4, 6, 8], "default": 1,
                  "description": "decks in the shoe (0: the infinite deck, exact only)"},
        "dealer_soft17": {"type": "string", "enum": ["stand", "hit"], "default": "stand",
                          "description": "BJ-7.6"}}},
    tables=lambda params, method: {"totals": (("up", "string"), ("final", "string"))},
    run=_dealer_run,
    per_shard=lambda params, method: SAMPLES if method == "sample" else 1,
    check=lambda params, method: [("question.decks", "the infinite deck (0) is answered exactly only")]
    if method == "sample" and params["decks"] == 0 else [],
)


def _doubling_run(params: QuestionParams, method: str, start: int, count: int,
                  seed_seq: np.random.SeedSequence) -> QuestionRows:
    faces = {9, 10, 11, 12}  # BJ-2.2: J, Q, K, A (rank indexes)
    if method == "exact":
        pairs = [(d, p) for d in range(52) for p in range(52) if d != p]
        dbl = sum(1 for d, _ in pairs if d >> 2 in faces)
        red = sum(1 for d, p in pairs if d >> 2 in faces and p >> 2 == 12)
        f_d, f_r = Fraction(dbl, len(pairs)), Fraction(red, len(pairs))
        f_rd = Fraction(red, dbl)
        return {"events": [("double", f_d.numerator, f_d.denominator), ("redouble", f_r.numerator, f_r.denominator),
                           ("redouble_given_double", f_rd.numerator, f_rd.denominator)]}
    streams = Streams(seed_seq)
    dbl = red = 0
    for i in range(count):
        p, d = streams.at(i, 0).permutation(52)[:2].tolist()  # BJ-4.3: the player's card first, the dealer's last
        if d >> 2 in faces:
            dbl += 1
            red += p >> 2 == 12
    return {"events": [("double", dbl, count), ("redouble", red, count), ("redouble_given_double", red, dbl)]}


DOUBLING = Question(
    name="doubling",
    doc="BJ-10.4: the chance of each doubling event of the seed's house rule (BJ-2.2), one deck.",
    schema=no_params(),
    tables=lambda params, method: {"events": (("event", "string"),)},
    run=_doubling_run,
    per_shard=lambda params, method: SAMPLES if method == "sample" else 1,
)


def _naturals_run(params: QuestionParams, method: str, start: int, count: int,
                  seed_seq: np.random.SeedSequence) -> QuestionRows:
    def kind(a: int, b: int) -> str:
        ra, rb = a >> 2, b >> 2
        if ra == rb == 12:
            return "golden"
        return "ace_ten" if {ra, rb} == {12, 8} else "other"
    deck = list(range(16, 52))  # BJ-6.1: 6..A
    counts = {"golden": 0, "ace_ten": 0, "other": 0}
    if method == "exact":
        hands = list(combinations(deck, 2))
        for a, b in hands:
            counts[kind(a, b)] += 1
        return {"naturals": [(k, c, len(hands)) for k, c in counts.items()]}
    streams = Streams(seed_seq)
    for i in range(count):
        a, b = streams.at(i, 0).permutation(36)[:2].tolist()
        counts[kind(deck[a], deck[b])] += 1
    return {"naturals": [(k, c, count) for k, c in counts.items()]}


OCHKO_NATURALS = Question(
    name="ochko-naturals",
    doc="BJ-10.5: two-card golden ochko (two aces) and ace + ten in очко's 36-card deck.",
    schema=no_params(),
    tables=lambda params, method: {"naturals": (("kind", "string"),)},
    run=_naturals_run,
    per_shard=lambda params, method: SAMPLES if method == "sample" else 1,
)

QUESTIONS: tuple[Question, ...] = (DEALER_TOTALS, DOUBLING, OCHKO_NATURALS)
