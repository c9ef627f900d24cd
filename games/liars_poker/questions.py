"""Liar's poker's deal-stats questions (LP-9): the check figures, exact and sampled from dealt notes.

``digit-count``
    LP-9.1: how many of a named digit lie on the table. With ``own`` null, the count on all n notes
    of L digits (Binomial(n·L, 1/D)); with ``own`` = k, the count given k of the digit in one's own
    note (k plus the count on the other n - 1 notes). Table ``tails(q)``: P(count >= q) for
    q = 1..n·L. Exact: the binomial tail in rational arithmetic. Sampled: a unit is one table of
    notes dealt as the engine deals them (uniform digits, LP-1.3; with ``own``, the other n - 1 notes).
``max-group``
    LP-9.2: the largest number of equal digits on one note of L digits. Table ``groups(largest)``.
    Exact: counts of the D**L notes (a multinomial sum). Sampled: a unit is one dealt note.

Exact rows are integers ``(count, n)`` as the platform merges them; where D**m does not fit in 64 bits
(the count on 48 digits has denominator 10**48), the exact rational is written with n = 10**18 and
count = the probability rounded to 18 decimals (finer than a float64 holds).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from games.core.entry import Question, QuestionParams, QuestionRows
from games.core.streams import Streams
from games.liars_poker.odds import max_group_counts, tail

__all__ = ["DIGIT_COUNT", "MAX_GROUP", "QUESTIONS"]

#: Denominator of exact rows whose true denominator does not fit in an int64.
SCALE = 10**18
#: Work units (dealt tables or notes) per shard of a sampled question, and per draw.
SAMPLES_PER_SHARD = 1 << 20
CHUNK = 1 << 15


def _exact_row(p: Fraction) -> tuple[int, int]:
    if p.denominator < 2**62:
        return p.numerator, p.denominator
    return round(p * SCALE), SCALE


def _no_such_units(start: int, count: int, total: int) -> None:
    if start < 0 or count < 1 or start + count > total:
        raise ValueError(f"units {start}..{start + count - 1} do not exist: the question has units 0..{total - 1}")


_NOTES = {
    "players": {"type": "integer", "minimum": 2, "maximum": 10, "default": 2, "description": "n (LP-1.1)"},
    "digits": {"type": "integer", "minimum": 1, "maximum": 20, "default": 8,
               "description": "L, digits per note (LP-1.2)"},
    "values": {"type": "integer", "minimum": 2, "maximum": 10, "default": 10,
               "description": "D, digit values (LP-1.3)"},
}


# ----------------------------------------------------------------------------- digit-count

def _count_check(params: QuestionParams, method: str) -> list[tuple[str, str]]:
    own = params.get("own")
    if own is not None and own > params["digits"]:
        return [("question.own", f"a note of {params['digits']} digits holds at most {params['digits']} of a digit")]
    return []


def _count_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    n, length, values, own = params["players"], params["digits"], params["values"], params.get("own")
    m = (n - 1) * length if own is not None else n * length
    k = own or 0
    top = n * length
    if method == "exact":
        _no_such_units(start, count, 1)
        return {"tails": [(q, *_exact_row(tail(m, values, q - k))) for q in range(1, top + 1)]}
    streams = Streams(seed_seq)
    hits = np.zeros(top + 2, dtype=np.int64)
    for c, lo in enumerate(range(0, count, CHUNK)):
        size = min(CHUNK, count - lo)
        digits = streams.at(c, 0).integers(0, values, size=(size, m), dtype=np.int8)
        found = (digits == 0).sum(axis=1) + k  # the named digit: any one, by symmetry (LP-1.3)
        hits += np.bincount(found, minlength=top + 2)[:top + 2]
    at_least = np.cumsum(hits[::-1])[::-1]  # at_least[q] = tables with count >= q
    return {"tails": [(q, int(at_least[q]), count) for q in range(1, top + 1)]}


DIGIT_COUNT = Question(
    name="digit-count",
    doc="LP-9.1: P(count of a named digit on all notes >= q), optionally given `own` of it in one's own note.",
    schema={"type": "object", "additionalProperties": False, "properties": {
        **_NOTES,
        "own": {"type": ["integer", "null"], "minimum": 0, "maximum": 20, "default": None,
                "description": "k of the digit in one's own note (null: no note known)"}}},
    tables=lambda params, method: {"tails": (("q", "int16"),)},
    run=_count_run,
    per_shard=lambda params, method: SAMPLES_PER_SHARD if method == "sample" else 1,
    check=_count_check,
)


# ----------------------------------------------------------------------------- max-group

def _group_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    length, values = params["digits"], params["values"]
    if method == "exact":
        _no_such_units(start, count, 1)
        total = values ** length
        return {"groups": [(k, *_exact_row(Fraction(c, total))) for k, c in sorted(max_group_counts(length, values)
                                                                                     .items())]}
    streams = Streams(seed_seq)
    found = np.zeros(length + 1, dtype=np.int64)
    for c, lo in enumerate(range(0, count, CHUNK)):
        size = min(CHUNK, count - lo)
        notes = streams.at(c, 0).integers(0, values, size=(size, length))
        per_value = np.zeros((size, values), dtype=np.int64)
        np.add.at(per_value, (np.repeat(np.arange(size), length), notes.ravel()), 1)
        found += np.bincount(per_value.max(axis=1), minlength=length + 1)
    return {"groups": [(k, int(found[k]), count) for k in range(1, length + 1) if found[k]]}


MAX_GROUP = Question(
    name="max-group",
    doc="LP-9.2: the largest number of equal digits on one note.",
    schema={"type": "object", "additionalProperties": False, "properties": {
        "digits": _NOTES["digits"], "values": _NOTES["values"]}},
    tables=lambda params, method: {"groups": (("largest", "int8"),)},
    run=_group_run,
    per_shard=lambda params, method: SAMPLES_PER_SHARD if method == "sample" else 1,
)

QUESTIONS: dict[str, Question] = {q.name: q for q in (DIGIT_COUNT, MAX_GROUP)}


def rows_as_probabilities(rows: QuestionRows, table: str) -> dict[Any, float]:
    """``{key: count / n}`` of one table's rows (keys of one column), for tests and the docs."""
    return {r[0]: r[-2] / r[-1] for r in rows[table]}
