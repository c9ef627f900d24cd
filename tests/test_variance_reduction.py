"""Luck-adjusted comparisons (docs/statistics.md, "Luck-adjusted scores"): the framework.

``adjusted_score`` beside ``score`` in every game's seats table, the spec field ``variance_reduction``
(``auto``/``none``) and the report's pinned keys: ``leaderboard.adjustment``, ``rows[i].adjusted``,
``pairs[i].adjusted`` and ``pairs[i].adjusted_variance_ratio``. The games' estimators and their
zero-mean and coverage checks are in ``tests/test_luck_estimators.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from games.core import registry
from sims import stats
from sims.embedded import run_job
from sims.report import format_leaderboard, render_html
from sims.run import run_shard
from sims.spec import parse_spec
from sims.tables import ADJUSTED, seats_schema

ROW_KEYS = {"mean", "se", "ci_low", "ci_high"}
PAIR_KEYS = {"mean", "se", "ci_low", "ci_high", "separable", "deals_needed_80"}


def test_every_game_has_adjusted_score_right_after_score() -> None:
    for name, entry in registry.games().items():
        names = seats_schema(entry).names
        at = names.index("score")
        assert names[at + 1] == ADJUSTED, name
        assert seats_schema(entry).field(ADJUSTED).type == pa.float64()


def _spec(**kw: object) -> dict[str, object]:
    return {"kind": "tournament", "game": "order-poker", "players": 4, "seed": 3, "deals": 40, "shard_deals": 20,
            "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random", "order-poker/heuristic"],
            **kw}


def test_spec_field_defaults_to_auto_and_keeps_job_ids() -> None:
    auto = parse_spec(_spec())
    assert auto.variance_reduction == "auto"  # type: ignore[union-attr]
    assert "variance_reduction" not in auto.canonical()  # specs written before the field keep their ids
    none = parse_spec(_spec(variance_reduction="none"))
    assert none.canonical()["variance_reduction"] == "none"
    with pytest.raises(Exception, match="variance_reduction"):
        parse_spec(_spec(variance_reduction="always"))


def test_a_game_without_estimator_reports_method_none(tmp_path: Path) -> None:
    res = run_job(parse_spec(_spec()), data=tmp_path, workers=1)
    board = res.report["leaderboard"]  # type: ignore[index]
    assert board["adjustment"]["method"] == "none"
    for r in board["rows"]:
        assert set(r["adjusted"]) == ROW_KEYS and r["adjusted"]["mean"] == pytest.approx(r["mean"])
    for p in board["pairs"]:
        assert set(p["adjusted"]) == PAIR_KEYS and p["adjusted"]["mean"] == pytest.approx(p["paired"]["mean"])
        assert p["adjusted_variance_ratio"] == pytest.approx(1.0)
    assert any("luck adjustment: none" in line for line in format_leaderboard(board))
    assert "Luck adjustment: none" in render_html(res.report)  # type: ignore[arg-type]


def test_variance_reduction_none_leaves_the_keys_out(tmp_path: Path) -> None:
    res = run_job(parse_spec(_spec(variance_reduction="none")), data=tmp_path, workers=1)
    board = res.report["leaderboard"]  # type: ignore[index]
    assert "adjustment" not in board
    assert all("adjusted" not in r for r in board["rows"])
    assert all("adjusted" not in p and "adjusted_variance_ratio" not in p for p in board["pairs"])
    seats = run_shard(parse_spec(_spec(variance_reduction="none")), 0)["seats"]
    assert seats.column(ADJUSTED).to_pylist() == [float(x) for x in seats.column("score").to_pylist()]


def _seats(raw: np.ndarray, adj: np.ndarray) -> pa.Table:
    """Two bots a and b over deals 0..n-1, one row each per deal."""
    n = raw.shape[0]
    return pa.table({"deal": np.repeat(np.arange(n), 2), "bot": ["a", "b"] * n, "bot_index": [0, 1] * n,
                     "score": raw.reshape(-1), ADJUSTED: adj.reshape(-1)})


def test_adjusted_figures_rank_verdict_and_ratio() -> None:
    """Scores = skill + luck: the adjusted score (luck removed) separates the bots the raw one cannot, ranks
    them by it, and the variance ratio is the raw paired variance over the adjusted one."""
    rng = np.random.default_rng(5)
    n = 400
    luck = rng.normal(0, 10, size=(n, 2))
    skill = np.array([0.3, 0.0]) + rng.normal(0, 1, size=(n, 2))
    raw, adj = skill + luck, skill
    board = stats.leaderboard(_seats(raw, adj), adjustment={"method": "m", "unbiased_by": "u"}, with_rating=False)
    assert board["adjustment"] == {"method": "m", "unbiased_by": "u"}
    assert [r["bot"] for r in board["rows"]] == ["a", "b"]
    (p,) = board["pairs"]
    d_raw, d_adj = raw[:, 0] - raw[:, 1], adj[:, 0] - adj[:, 1]
    assert p["adjusted"]["mean"] == pytest.approx(d_adj.mean())
    assert p["adjusted"]["se"] == pytest.approx(d_adj.std(ddof=1) / np.sqrt(n))
    assert p["adjusted_variance_ratio"] == pytest.approx(d_raw.var(ddof=1) / d_adj.var(ddof=1))
    assert p["adjusted"]["separable"] and not p["separable"]
    assert board["rows"][0]["vs_next"] == "a ahead of b"  # the adjusted verdict
    text = "\n".join(format_leaderboard(board))
    assert "luck-adjusted scores: m" in text and "a - b (adj)" in text and "raw" in text
    html = render_html({"kind": "tournament", "spec": {}, "leaderboard": board})
    assert "Luck-adjusted leaderboard" in html and "Luck-adjusted paired differences" in html


def test_rows_ranked_by_the_adjusted_mean() -> None:
    """Where luck alone put b ahead in the raw means, the adjusted ranking puts a first."""
    n = 50
    raw = np.column_stack([np.zeros(n), np.ones(n)])
    adj = np.column_stack([np.ones(n), np.zeros(n)])
    board = stats.leaderboard(_seats(raw, adj), adjustment={"method": "m", "unbiased_by": "u"}, with_rating=False)
    assert [r["bot"] for r in board["rows"]] == ["a", "b"]
    assert board["pairs"][0]["a"] == "a" and board["pairs"][0]["paired"]["mean"] == pytest.approx(-1.0)
