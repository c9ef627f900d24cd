"""LP-9 as deal-stats questions of the game: exact rows give the check figures, sampled rows agree."""

from __future__ import annotations

import numpy as np
import pytest

from games.core import registry
from games.liars_poker.questions import QUESTIONS, rows_as_probabilities

LP_9_1_N3 = [0.9202, 0.7075, 0.4357, 0.2143, 0.0851, 0.0277, 0.0075, 0.0017]


def run(name: str, method: str, count: int = 1, **params: object) -> dict[int, float]:
    q = QUESTIONS[name]
    defaults = {k: v.get("default") for k, v in q.schema["properties"].items()}
    p = {**defaults, **params}
    assert q.check(p, method) == []
    rows = q.run(p, method, 0, count, np.random.SeedSequence(7))
    table = next(iter(q.tables(p, method)))
    return rows_as_probabilities(rows, table)


def test_the_game_declares_its_questions() -> None:
    assert set(registry.game("liars-poker").questions) == {"digit-count", "max-group"}


def test_digit_count_exact_is_lp_9_1() -> None:
    got = run("digit-count", "exact", players=3)
    assert [round(got[q], 4) for q in range(1, 9)] == LP_9_1_N3
    own = run("digit-count", "exact", players=2, own=3)
    assert own[5] == pytest.approx(0.18689527, abs=5e-9) and own[3] == 1.0


def test_digit_count_sampled_agrees() -> None:
    n = 200_000
    got = run("digit-count", "sample", count=n, players=3)
    exact = run("digit-count", "exact", players=3)
    for q in range(1, 9):
        se = (exact[q] * (1 - exact[q]) / n) ** 0.5
        assert abs(got[q] - exact[q]) < 5 * se + 1e-6


def test_max_group_exact_and_sampled() -> None:
    exact = run("max-group", "exact")
    assert exact[2] == 0.619164 and exact[8] == 1e-7 and sum(exact.values()) == pytest.approx(1.0)
    got = run("max-group", "sample", count=100_000)
    for k in (1, 2, 3, 4):
        assert got[k] == pytest.approx(exact[k], abs=5 * (exact[k] / 100_000) ** 0.5 + 1e-4)


def test_own_larger_than_a_note_is_refused() -> None:
    q = QUESTIONS["digit-count"]
    assert q.check({"players": 2, "digits": 3, "values": 10, "own": 4}, "exact")
