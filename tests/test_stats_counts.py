"""Deal-stats ``counts`` tables: exact tables pass through, sampled ones get Wilson intervals."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from sims import stats


def test_wilson_known_values() -> None:
    # Published 95% Wilson intervals: 0/10 -> [0, 0.2775], 5/10 -> [0.2366, 0.7634], 10/10 -> [0.7225, 1].
    lo, hi = stats.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert stats.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    lo, hi = stats.wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    assert stats.wilson_interval(3, 0) == (None, None)


def test_wilson_coverage_seeded() -> None:
    rng = np.random.default_rng(3)
    p, n, reps = 0.03, 2000, 2000
    ks = rng.binomial(n, p, reps)
    hits = sum(lo <= p <= hi for lo, hi in (stats.wilson_interval(int(k), n) for k in ks))  # type: ignore[operator]
    assert 0.93 <= hits / reps <= 0.97


def test_exact_table_has_no_interval() -> None:
    t = pa.table(
        {
            "category": ["none", "pair"],
            "count": [123420, 193536],
            "probability": [123420 / 376992, 193536 / 376992],
        }
    )
    r = stats.counts_report(t, "exact")
    assert not r["sampled"] and r["columns"] == ["category", "count", "probability"]
    assert r["rows"][1] == {
        "category": "pair",
        "count": 193536,
        "probability": pytest.approx(0.51337, abs=1e-5),
    }


def test_sampled_table_infers_the_denominator() -> None:
    # A conditional row (count 30 of the 60 deals with this combination) and an unconditional one.
    t = pa.table(
        {
            "combination": ["pair", "pair"],
            "order": ["pair", None],
            "count": [30, 60],
            "probability": [0.5, 0.06],
        }
    )
    r = stats.counts_report(t, "sample", samples=1000)
    assert r["sampled"] and r["columns"][-2:] == ["ci_low", "ci_high"]
    assert (r["rows"][0]["ci_low"], r["rows"][0]["ci_high"]) == pytest.approx(stats.wilson_interval(30, 60))
    assert (r["rows"][1]["ci_low"], r["rows"][1]["ci_high"]) == pytest.approx(stats.wilson_interval(60, 1000))
    zero = stats.counts_report(
        pa.table({"category": ["x"], "count": [0], "probability": [0.0]}), "sample", 500
    )
    assert zero["rows"][0]["ci_low"] == 0.0 and zero["rows"][0]["ci_high"] == pytest.approx(
        stats.wilson_interval(0, 500)[1]
    )
    explicit = stats.counts_report(pa.table({"category": ["x"], "count": [5], "n": [10]}), "sample")
    assert explicit["rows"][0]["ci_low"] == pytest.approx(0.2366, abs=1e-4)
