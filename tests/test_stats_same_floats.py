"""The report's shortcuts in ``sims.stats`` give the floats and groups of the plain computations they replace
(issue 30: report.json byte-identical): moments summed once, categories coded without hashing, counted
histograms and the 0/1 fractions of deals of one row."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from games.core.entry import Column
from sims import stats


def _plain_interval(x: np.ndarray) -> dict[str, object]:
    """``mean_interval`` as written before: ``x.mean()`` and ``x.std(ddof=1)``."""
    n = int(x.size)
    mean = stats._f(x.mean()) if n else None
    out: dict[str, object] = {"n": n, "mean": mean, "sd": None, "se": None, "ci_low": None, "ci_high": None}
    t = stats.t_quantile(n)
    if t is None or mean is None:
        return out
    sd = float(x.std(ddof=1))
    se = sd / np.sqrt(n)
    out.update(sd=stats._f(sd), se=stats._f(float(se)), ci_low=stats._f(mean - t * se), ci_high=stats._f(mean + t * se))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_mean_interval_and_variance_are_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([2, 3, 9, 127, 128, 129, 1000, 8191, 8193, 70_001]))
    x = rng.normal(size=n) * 10.0 ** int(rng.integers(-3, 6)) + rng.normal() * 1e3
    if seed % 4 == 0:
        x = rng.integers(-5, 6, n).astype(np.float64)
    assert json.dumps(stats.mean_interval(x)) == json.dumps(_plain_interval(x))
    moments = stats._moments(x)
    assert moments is not None
    assert stats._variance(moments) == float(x.var(ddof=1))
    assert moments[1] == x.mean()


def test_ones_interval_is_the_interval_of_the_zero_one_array() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 1000, 20_000):
        codes = rng.integers(0, 4, n)
        table, out = np.empty(4), np.empty(n)
        for c in range(4):
            ones = (codes == c).astype(np.float64)
            got = stats._ones_interval(codes, c, int(ones.sum()), table, out)
            assert json.dumps(got) == json.dumps(_plain_interval(ones))


def _groups(codes: np.ndarray, labels: list[str]) -> list[tuple[str, tuple[int, ...]]]:
    """Every label with the rows that have it (order free)."""
    return sorted((labels[c], tuple(np.flatnonzero(codes == c).tolist())) for c in range(len(labels)))


def _hashed(values: pa.Array, null: str) -> tuple[np.ndarray, list[str]]:
    """The cast, fill and ``dictionary_encode`` of ``_category_codes``' last resort."""
    enc = pc.fill_null(pc.cast(values, pa.string()), null).dictionary_encode()
    return np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64), enc.dictionary.to_pylist()


@pytest.mark.parametrize("null", ["(none)", "b", "0", "-3"])
def test_codes_with_nulls_group_the_rows_as_hashing_does(null: str) -> None:
    rng = np.random.default_rng(7)
    mask = rng.random(500) < 0.2
    strings = pa.array(rng.choice(["a", "b", "c"], 500), mask=mask).dictionary_encode()
    ints = pa.array(rng.integers(-3, 4, 500).astype(np.int8), mask=mask)
    wide = pa.array(rng.integers(0, 3, 500) * 1_000_000, mask=mask)  # a span too wide: hashed as before
    for values, kind in ((strings, "string"), (ints, "int8"), (wide, "int64")):
        column = Column("c", kind, "category", "", null=null)
        codes, labels = stats._category_codes(values, column)
        assert len(set(labels)) == len(labels)
        assert _groups(codes, labels) == _groups(*_hashed(values, null))
    assert stats._integer_codes(wide, null) is None


def test_integer_histogram_is_uniques() -> None:
    rng = np.random.default_rng(11)
    for scores in (rng.integers(-20, 20, 3000).astype(np.float64), np.array([-0.0, 0.0, 2.0, -0.0]),
                   rng.integers(-300, 300, 3000).astype(np.float64)):
        got = stats._integer_histogram(scores)
        values, counts = np.unique(scores, return_counts=True)
        if values.size <= stats.HIST_MAX_VALUES:
            assert got == {"kind": "values", "x": [int(v) for v in values], "counts": [int(c) for c in counts]}
        else:
            hist, edges = np.histogram(scores, bins=stats.HIST_BINS)
            assert got == {"kind": "bins", "x": [float(e) for e in edges], "counts": [int(c) for c in hist]}
    assert stats._integer_histogram(np.array([0.5, 1.0])) is None
    assert stats._integer_histogram(np.array([np.nan, 1.0])) is None
