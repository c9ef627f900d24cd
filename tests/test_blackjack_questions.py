"""Blackjack's deal-stats questions: the exact rows are BJ-10.1, BJ-10.4, BJ-10.5; sampled rows agree
within 4 standard errors; and a question runs through ``rasklad run``."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from games.blackjack.questions import QUESTIONS
from games.core import registry

Q = {q.name: q for q in QUESTIONS}


def run(name: str, method: str, count: int = 1, **params: Any) -> dict[Any, tuple[int, int]]:
    q = Q[name]
    p = {**{k: v.get("default") for k, v in q.schema["properties"].items()}, **params}
    assert q.check(p, method) == []
    rows = q.run(p, method, 0, count, np.random.SeedSequence(18))
    table = next(iter(q.tables(p, method)))
    return {r[:-2] if len(r) > 3 else r[0]: (r[-2], r[-1]) for r in rows[table]}


def test_the_game_declares_its_questions() -> None:
    assert set(registry.game("blackjack").questions) == {"dealer-totals", "doubling", "ochko-naturals"}


def test_bj_10_4_doubling_exact_and_sampled() -> None:
    """BJ-10.4: 16/52 = 30.77% doubles; given one, 60/816 = 7.35% redoubles."""
    ex = run("doubling", "exact")
    assert Fraction(*ex["double"]) == Fraction(16, 52)
    assert Fraction(*ex["redouble_given_double"]) == Fraction(60, 816)
    n = 60_000
    got = run("doubling", "sample", count=n)
    for k in ("double", "redouble", "redouble_given_double"):
        p = ex[k][0] / ex[k][1]
        c, m = got[k]
        assert abs(c / m - p) < 4 * (p * (1 - p) / m) ** 0.5, k


def test_bj_10_5_ochko_naturals() -> None:
    """BJ-10.5: golden ochko 6/630, ace + ten 16/630."""
    ex = run("ochko-naturals", "exact")
    assert ex["golden"] == (6, 630) and ex["ace_ten"] == (16, 630)
    got = run("ochko-naturals", "sample", count=60_000)
    for k in ("golden", "ace_ten"):
        p = ex[k][0] / 630
        assert abs(got[k][0] / got[k][1] - p) < 4 * (p * (1 - p) / got[k][1]) ** 0.5


def test_dealer_totals_exact_is_bj_10_1_and_sampled_agrees() -> None:
    """BJ-10.1: the one-deck table; 40,000 sampled shoes agree within 4 standard errors per cell."""
    ex = run("dealer-totals", "exact", decks=1)
    assert round(ex["6", "bust"][0] / ex["6", "bust"][1], 6) == 0.420823
    assert round(ex["A", "BJ"][0] / ex["A", "BJ"][1], 6) == 0.313725
    got = run("dealer-totals", "sample", count=40_000, decks=1)
    for key, (c, m) in got.items():
        p = ex[key][0] / ex[key][1]
        assert abs(c / m - p) <= 4 * (p * (1 - p) / m) ** 0.5 + 1e-12, key


def test_a_question_runs_through_rasklad_run(tmp_path: Path) -> None:
    spec = tmp_path / "q.yaml"
    spec.write_text("kind: deal-stats\nname: bj doubling\ngame: blackjack\nquestion: {type: doubling}\n"
                    "method: exact\n")
    out = subprocess.run([sys.executable, "-m", "rasklad", "run", str(spec), "--data", str(tmp_path / "data")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "redouble_given_double" in out.stdout
