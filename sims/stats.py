"""Statistics of a job's tables: leaderboard, paired differences, head-to-head, ratings, counts.

Everything here is a pure function of pyarrow tables and returns JSON-able dicts (no NaN: an
undefined number is ``None``). The formulas and the reasons behind them are in
``docs/statistics.md``; the short version:

* The independent unit is the **deal**. The rows of one deal (its rotations under duplicate
  seating, its seats) share cards and are correlated, so every variance is computed from one
  value per deal and bot — the bot's mean score over its rows in that deal — never from rows.
* A bot's mean is the mean of those per-deal values; SE = sd / sqrt(n); the 95% interval uses
  Student's t with n - 1 degrees of freedom.
* Two bots are compared on the deals both played: d = value_A - value_B per deal (paired). The
  unpaired interval on the same deals (Welch, as if the samples were independent) is reported
  beside it so the variance reduction of duplicate seating is visible.

No column of a game is named here: the game's own columns come with their declared role
(``games.core.entry.Column``). In ``seats``, ``score`` is the leaderboard's measure; every other
``category`` gets per-bot shares and every other ``measure`` per-bot means. In ``deals``, a
``category`` gets a share table and a ``measure`` a mean, all clustered by deal.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import NDArray

from games.core.entry import Column

LEVEL = 0.95
# scipy.special.ndtri(0.5 + LEVEL / 2) and ndtri(0.80), written out (tests/test_stats_leaderboard.py checks
# them against scipy) so that importing this module does not import scipy: a job's report and the
# command line pay for scipy only when a t quantile is asked for (issue 30 item 4).
Z95 = 1.959963984540054  # the two-sided 95% normal quantile
Z_POWER80 = 0.8416212335729143  # one-sided normal quantile for 80% power
NOT_SEPARABLE = "not separable at this sample size"
TOO_FEW = "too few deals to say"
#: Fewest paired deals from which ``deals_needed`` estimates anything (docs/statistics.md): below it
#: the observed mean difference and sd are too uncertain for their ratio, squared, to mean a sample
#: size (at n = 2 an interval of +-1,000 came with "about 2 deals would separate them").
MIN_DEALS_TO_ESTIMATE = 30
# Larger jobs rate their first RATING_MAX_DEALS deals (in deal order) and say so. The cap was set when
# openskill's own rate cost ~40 µs a deal; ext._rating costs ~1 µs, and the cap stays so that the
# reports of large jobs keep their numbers.
RATING_MAX_DEALS = 100_000
# Score histograms keep every distinct value up to this many values, then switch to equal bins.
HIST_MAX_VALUES = 40
HIST_BINS = 30


def _f(x: float | np.floating[Any]) -> float | None:
    """A finite float, or None (JSON has no NaN or infinity)."""
    v = float(x)
    return v if math.isfinite(v) else None


@functools.lru_cache(maxsize=256)
def t_quantile(n: int, level: float = LEVEL) -> float | None:
    """Two-sided Student-t critical value for a mean of ``n`` values (df = n - 1); None when n < 2.

    Remembered: a report asks for the same few ``n`` (a bot's deals, a pair's) many times."""
    if n < 2:
        return None
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.5 + level / 2))


def mean_interval(x: NDArray[np.float64], level: float = LEVEL) -> dict[str, Any]:
    """Mean, sd (ddof 1), SE = sd/sqrt(n) and the t interval of independent values ``x``.

    With fewer than two values the spread is unknown and sd, se and the interval are None.

    The floats of ``x.mean()`` and ``x.std(ddof=1)``, with the mean summed once: numpy's ``_var`` sums
    ``x`` (pairwise), divides by n, squares ``x - mean`` and sums that, which is what is done here
    (tests/test_stats_same_floats.py compares them)."""
    moments = _moments(x)
    if moments is None:
        n = int(x.size)
        mean = _f(x.mean()) if n else None
        out: dict[str, Any] = {"n": n, "mean": mean, "sd": None, "se": None, "ci_low": None, "ci_high": None}
        t = t_quantile(n, level)
        if t is None or mean is None:
            return out
        return _spread(out, float(x.std(ddof=1)), t)
    return _with_spread(*moments, level)


#: n, the mean and the sum of squared deviations from it of an array (``_moments``).
Moments = tuple[int, np.floating[Any], np.floating[Any]]


def _moments(x: NDArray[np.float64]) -> Moments | None:
    """n, ``x.mean()`` and the sum of ``(x - mean) ** 2`` as numpy's ``_var`` sums it (so that
    ``x.var(ddof=1)`` is that sum / (n - 1)) of an array of at least two doubles; None for another array."""
    n = int(x.size)
    if n < 2 or x.dtype != np.float64:
        return None
    m = np.add.reduce(x) / n
    dev = np.subtract(x, m)
    return n, m, np.add.reduce(np.square(dev, out=dev))


def _variance(moments: Moments) -> float:
    """``float(x.var(ddof=1))`` of the array of these moments."""
    n, _m, squares = moments
    return float(squares / (n - 1))


def _with_spread(n: int, m: np.floating[Any], squares: np.floating[Any], level: float) -> dict[str, Any]:
    """``mean_interval`` of n >= 2 values of mean ``m`` (their sum / n) and sum of squared deviations
    ``squares`` (numpy's pairwise sum of ``(x - m) ** 2``)."""
    mean = _f(m)
    out: dict[str, Any] = {"n": n, "mean": mean, "sd": None, "se": None, "ci_low": None, "ci_high": None}
    t = t_quantile(n, level)
    if t is None or mean is None:
        return out
    return _spread(out, float(np.sqrt(squares / (n - 1))), t)


def _spread(out: dict[str, Any], sd: float, t: float) -> dict[str, Any]:
    """``out`` (n and mean) with sd, se and the t interval."""
    mean, n = out["mean"], out["n"]
    se = sd / math.sqrt(n)
    out.update(sd=_f(sd), se=_f(se), ci_low=_f(mean - t * se), ci_high=_f(mean + t * se))
    return out


def welch_interval(x: NDArray[np.float64], y: NDArray[np.float64], level: float = LEVEL,
                   known_x: Moments | None = None, known_y: Moments | None = None) -> dict[str, Any]:
    """Interval of mean(x) - mean(y) treating the samples as independent (Welch-Satterthwaite df).
    ``known_x``/``known_y``: the ``_moments`` of ``x``/``y`` when the caller has them (not summed again)."""
    nx, ny = int(x.size), int(y.size)
    out: dict[str, Any] = {"mean": None, "se": None, "ci_low": None, "ci_high": None}
    if nx < 2 or ny < 2:
        if nx and ny:
            out["mean"] = _f(x.mean() - y.mean())
        return out
    mx, my = _moments(x) if known_x is None else known_x, _moments(y) if known_y is None else known_y
    vx = (_variance(mx) if mx is not None else float(x.var(ddof=1))) / nx
    vy = (_variance(my) if my is not None else float(y.var(ddof=1))) / ny
    mean = float((mx[1] if mx is not None else x.mean()) - (my[1] if my is not None else y.mean()))
    se = math.sqrt(vx + vy)
    if se == 0.0:
        return {"mean": _f(mean), "se": 0.0, "ci_low": _f(mean), "ci_high": _f(mean)}
    df = (vx + vy) ** 2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1)) if vx * vy > 0 else float(nx + ny - 2)
    from scipy.special import stdtrit

    t = float(stdtrit(df, 0.5 + level / 2))
    return {"mean": _f(mean), "se": _f(se), "ci_low": _f(mean - t * se), "ci_high": _f(mean + t * se)}


def deals_needed(diff: float | None, sd: float | None, z: float = Z95, n: int | None = None) -> int | None:
    """Deals at which a 95% interval of a mean difference ``diff`` with per-deal sd ``sd`` excludes 0.

    n = ceil((z * sd / |diff|)^2): the sample size whose half-width equals the observed
    difference, assuming the observed difference and sd are the true ones. With ``z = Z95 +
    Z_POWER80`` it is the size that separates them with 80% probability. None when no difference
    was observed (no finite sample size would separate them), and when the difference and sd come
    from ``n`` < ``MIN_DEALS_TO_ESTIMATE`` deals (too few to estimate from).
    """
    if diff is None or sd is None or diff == 0.0:
        return None
    if n is not None and n < MIN_DEALS_TO_ESTIMATE:
        return None
    return max(2, math.ceil((z * sd / abs(diff)) ** 2))


def verdict(a: str, b: str, ci_low: float | None, ci_high: float | None) -> str:
    """Plain-words reading of the interval of (a - b): who is ahead, or NOT_SEPARABLE if it holds 0."""
    if ci_low is None or ci_high is None:
        return TOO_FEW
    if ci_low > 0:
        return f"{a} ahead of {b}"
    if ci_high < 0:
        return f"{b} ahead of {a}"
    return NOT_SEPARABLE


@dataclass(frozen=True)
class PerDeal:
    """One value per (deal, bot): the bot's mean score over its rows of that deal.

    ``value[i, j]`` is NaN and ``rows[i, j]`` 0 where bot j did not play deal ``deals[i]``.
    """

    bots: list[str]
    bot_index: list[int | None]
    deals: NDArray[np.int64]
    value: NDArray[np.float64]
    rows: NDArray[np.int64]
    row_codes: NDArray[np.int64]  # bot position (in ``bots``) of every seats row, for per-row tallies
    row_deals: NDArray[np.int64]  # deal position (in ``deals``) of every seats row


def _dictionary_codes(values: pa.Array | pa.ChunkedArray,
                      null: str | None = None) -> tuple[NDArray[np.int64], list[str]] | None:
    """Dense codes and labels of a dictionary-encoded string column (as Parquet stores a string column,
    and ``sims.report`` reads it), read off its dictionary: the values present, each once, in the
    dictionary's order; a null row reads as the label ``null`` (the code of that value when the
    dictionary holds it). None for any other column, and for nulls without a ``null`` label (the values
    are then hashed by ``dictionary_encode``): the same labels and the same rows of each as casting the
    column to strings, filling its nulls with ``null`` and encoding that, in another order (every use
    sorts the labels)."""
    if not (pa.types.is_dictionary(values.type) and pa.types.is_string(values.type.value_type)):
        return None
    if len(values) == 0 or (values.null_count and null is None):
        return None
    if isinstance(values, pa.ChunkedArray):  # one dictionary for every chunk, then one array
        values = values.unify_dictionaries().combine_chunks()
    dictionary = values.dictionary
    if dictionary.null_count:
        return None
    names = [str(v) for v in dictionary.to_pylist()]
    indices = values.indices
    if values.null_count:
        assert null is not None
        if null not in names:
            names.append(null)
        indices = pc.fill_null(indices, pa.scalar(names.index(null), indices.type))
    codes = np.asarray(indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return _dense(codes, names)


def _dense(codes: NDArray[np.int64], names: list[str]) -> tuple[NDArray[np.int64], list[str]] | None:
    """``codes`` into ``names`` renumbered to the names some row holds (in ``names``' order), and those
    names; None when two of them are the same label."""
    used = np.bincount(codes, minlength=len(names)) > 0
    labels = [v for v, u in zip(names, used.tolist(), strict=True) if u]
    if len(set(labels)) != len(labels):
        return None
    if not used.all():  # a value of the dictionary that no row holds is no value of the column
        codes = (np.cumsum(used) - 1)[codes]
    return codes, labels


#: Widest span of values (max - min) of an integer category read by ``_integer_codes``.
INTEGER_SPAN = 1 << 16


def _integer_codes(values: pa.Array, null: str) -> tuple[NDArray[np.int64], list[str]] | None:
    """Dense codes and labels of an integer category, without hashing: the values present, ascending,
    each labelled as its cast to a string reads (its decimal digits), a null row as ``null`` (the code of
    the value so labelled, if any). None for another type or a span of values over ``INTEGER_SPAN``. The
    same labels and the same rows of each as ``_category_codes``' cast, fill and ``dictionary_encode``,
    in another order."""
    if not pa.types.is_integer(values.type) or len(values) == 0:
        return None
    nulls = values.null_count
    if nulls == len(values):
        return np.zeros(len(values), dtype=np.int64), [null]
    x = (pc.fill_null(values, pa.scalar(0, values.type)) if nulls else values).to_numpy(zero_copy_only=False)
    valid = pc.is_valid(values).to_numpy(zero_copy_only=False) if nulls else None
    present = x if valid is None else x[valid]
    lo, hi = int(present.min()), int(present.max())
    if hi - lo > INTEGER_SPAN or lo < -(1 << 62) or hi > 1 << 62:
        return None
    span = hi - lo + 1
    codes = x.astype(np.int64)
    codes -= lo
    if valid is not None:
        codes[~valid] = span  # past every value: the nulls'
    used = np.bincount(codes, minlength=span + (valid is not None)) > 0
    at = np.flatnonzero(used)
    labels = [str(int(v) + lo) for v in at[: at.size - (valid is not None)]]
    if valid is not None:
        if null in labels:  # a value reads as the nulls' label: one category
            codes[~valid] = at[labels.index(null)]
            used[span] = False
        else:
            labels.append(null)
    if not used.all():
        codes = (np.cumsum(used) - 1)[codes]
    return codes, labels


def _bot_codes(seats: pa.Table) -> tuple[NDArray[np.int64], list[str], list[int | None]]:
    """Dense codes of the bot labels, ordered by their position in the spec (``bot_index``) then label."""
    col = seats.column("bot")
    read = _dictionary_codes(col, "?")
    if read is not None:
        codes, labels = read
    else:
        if not pa.types.is_string(col.type):  # e.g. dictionary-encoded or large_string from another writer
            col = pc.cast(col, pa.string())
        col = pc.fill_null(col.combine_chunks(), "?")
        enc = col.dictionary_encode()
        codes = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        labels = [str(s) for s in enc.dictionary.to_pylist()]
    first: list[int | None] = [None] * len(labels)
    if "bot_index" in seats.column_names and len(labels):
        bi = seats.column("bot_index").to_numpy(zero_copy_only=False).astype(np.float64)
        lowest = np.full(len(labels), np.inf)
        if len(labels) == 1:  # one bot: the least of every row's (a NaN, a null bot_index, is no value)
            lowest[0] = np.fmin(np.inf, np.fmin.reduce(bi))
        elif len(labels) <= 16:  # a few bots: each one's rows in turn (np.fmin.at is slow)
            for j in range(len(labels)):
                lowest[j] = np.fmin.reduce(bi[codes == j], initial=np.inf)
        else:
            np.fmin.at(lowest, codes, bi)
        first = [int(v) if math.isfinite(v) else None for v in lowest]
    order = sorted(
        range(len(labels)), key=lambda j: (first[j] if first[j] is not None else 1 << 30, labels[j])
    )
    remap = np.empty(len(labels), dtype=np.int64)
    remap[order] = np.arange(len(labels))
    return remap[codes], [labels[j] for j in order], [first[j] for j in order]


def unique_inverse(a: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """``np.unique(a, return_inverse=True)`` of a 1-d array, without its sort when ``a`` is already in order
    (a job's rows come deal by deal): the same values and inverse."""
    runs = _sorted_runs(a)
    if runs is not None:
        return runs[0], runs[1]
    return np.unique(a, return_inverse=True)


def _sorted_runs(a: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.intp], NDArray[np.intp]] | None:
    """The distinct values of a non-empty ``a`` in ascending order, the inverse (as ``np.unique``'s) and each
    value's count, when ``a`` is in order already; else None."""
    if not a.size or bool(np.any(a[1:] < a[:-1])):
        return None
    starts = np.empty(a.size, dtype=np.bool_)
    starts[0] = True
    np.not_equal(a[1:], a[:-1], out=starts[1:])
    at = np.flatnonzero(starts)
    counts = np.diff(at, append=a.size)
    return a[at], np.repeat(np.arange(at.size, dtype=np.intp), counts), counts


def _floats(table: pa.Table, column: str) -> NDArray[np.float64]:
    """A numeric column of ``table`` as float64 (read once per column: the report's columns are long)."""
    x: NDArray[np.float64] = table.column(column).to_numpy(zero_copy_only=False).astype(np.float64)
    return x


def _sums(key: NDArray[np.int64], weights: NDArray[np.float64], minlength: int = 0) -> NDArray[np.float64]:
    """``np.bincount(key, weights=weights, minlength=minlength)``: the float sums of ``weights`` by ``key``."""
    return np.asarray(np.bincount(key, weights=weights, minlength=minlength), dtype=np.float64)


def _all_one(counts: NDArray[np.int64] | NDArray[np.float64]) -> bool:
    """Whether every count is 1 (one row a cell): a division by such counts gives back the numerators
    exactly (x / 1.0 == x), so it is skipped."""
    return bool(counts.size) and bool(counts.min() == 1) and bool(counts.max() == 1)


def _deal_codes(seats: pa.Table) -> tuple[list[str], list[int | None], NDArray[np.int64], NDArray[np.int64],
                                          NDArray[np.int64]]:
    """Bots, their ``bot_index``, the distinct deals, and every row's bot and deal positions (``PerDeal``)."""
    codes, bots, bot_index = _bot_codes(seats)
    deal = seats.column("deal").to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    deals, inv = unique_inverse(deal)
    return bots, bot_index, deals, codes, inv.astype(np.int64, copy=False)


def per_deal(seats: pa.Table, column: str = "score", like: PerDeal | None = None) -> PerDeal:
    """Aggregate seat rows into the (deal x bot) matrix of per-deal mean scores (vectorised bincount);
    ``column`` is the score read (``adjusted_score`` for the luck-adjusted figures). ``like``, a
    ``PerDeal`` of the same ``seats``, lends its bot and deal codes (the same arrays, not computed again)."""
    if like is None:
        return _per_deal(*_deal_codes(seats), _floats(seats, column))
    return _per_deal(list(like.bots), list(like.bot_index), like.deals, like.row_codes, like.row_deals,
                     _floats(seats, column), like.rows)


def _per_deal(bots: list[str], bot_index: list[int | None], deals: NDArray[np.int64], codes: NDArray[np.int64],
              inv: NDArray[np.int64], score: NDArray[np.float64], rows: NDArray[np.int64] | None = None) -> PerDeal:
    nd, nb = int(deals.size), len(bots)
    key = inv * nb + codes
    if rows is None:  # else the rows of another column's PerDeal of the same seats: the same counts
        rows = np.bincount(key, minlength=nd * nb).reshape(nd, nb).astype(np.int64, copy=False)
    total = _sums(key, score, nd * nb).reshape(nd, nb)
    if _all_one(rows):  # every bot one row in every deal: its mean is its total
        value = total
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(rows > 0, total / np.maximum(rows, 1), np.nan)
    return PerDeal(bots, bot_index, deals, value, rows, codes, inv)


def _column_of(values: NDArray[np.float64], j: int, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``values[mask, j]`` (a contiguous copy), without the gather when ``mask`` holds every deal."""
    return np.ascontiguousarray(values[:, j]) if bool(mask.all()) else values[mask, j]


def _histogram(scores: NDArray[np.float64]) -> dict[str, Any]:
    """Counts of each score value, or of equal-width bins when there are too many distinct values."""
    whole = _integer_histogram(scores)
    if whole is not None:
        return whole
    values, counts = np.unique(scores, return_counts=True)
    if values.size <= HIST_MAX_VALUES:
        xs = [int(v) if float(v).is_integer() else float(v) for v in values]
        return {"kind": "values", "x": xs, "counts": [int(c) for c in counts]}
    hist, edges = np.histogram(scores, bins=HIST_BINS)
    return {"kind": "bins", "x": [float(e) for e in edges], "counts": [int(c) for c in hist]}


def _integer_histogram(scores: NDArray[np.float64]) -> dict[str, Any] | None:
    """``_histogram`` of finite whole-number scores of a narrow span (``INTEGER_SPAN``), counted by
    ``np.bincount`` instead of ``np.unique``'s sort; None for other scores."""
    if scores.size == 0:
        return None
    lo, hi = float(scores.min()), float(scores.max())
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo > INTEGER_SPAN or max(-lo, hi) > 1 << 52:
        return None
    whole = scores.astype(np.int64)
    if not np.array_equal(whole, scores):
        return None
    whole -= int(lo)
    counts = np.bincount(whole)
    at = np.flatnonzero(counts)
    if at.size > HIST_MAX_VALUES:
        hist, edges = np.histogram(scores, bins=HIST_BINS)
        return {"kind": "bins", "x": [float(e) for e in edges], "counts": [int(c) for c in hist]}
    return {"kind": "values", "x": [int(v) + int(lo) for v in at], "counts": [int(counts[v]) for v in at]}


def _distributions(pd_: PerDeal, score: NDArray[np.float64]) -> dict[str, dict[str, Any]]:
    """Per bot: the histogram of its rows' ``score`` (a bot's rows in row order; one bot: all of them)."""
    if len(pd_.bots) == 1:
        return {pd_.bots[0]: _histogram(score)}
    return {b: _histogram(score[pd_.row_codes == j]) for j, b in enumerate(pd_.bots)}


SCALAR_TYPES = ("bool", "int8", "int16", "int32", "int64", "float64", "string")


def _reported(table: pa.Table, columns: Sequence[Column], role: str) -> list[Column]:
    """The columns of ``role`` that ``table`` holds, scalar ones only (a list column is not a category)."""
    return [c for c in columns if c.role == role and c.type in SCALAR_TYPES and c.name in table.column_names
            and c.name != "score"]


def _category_codes(values: pa.Array | pa.ChunkedArray, column: Column) -> tuple[NDArray[np.int64], list[str]]:
    """Dense codes of a category's values (nulls read as ``column.null``) and their labels.

    A ``bool`` category is reported as the share of true: one label, ``true``, whose code is 0;
    every other row gets code 1 (not reported).
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if column.type == "bool":
        true = pc.fill_null(values, False).to_numpy(zero_copy_only=False).astype(bool)
        return np.logical_not(true).astype(np.int64), ["true"]
    # labels in another order than dictionary_encode's: every use sorts them
    read = _dictionary_codes(values, column.null) if pa.types.is_dictionary(values.type) else \
        _integer_codes(values, column.null)
    if read is not None:
        return read
    enc = pc.fill_null(pc.cast(values, pa.string()), column.null).dictionary_encode()
    codes = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, [str(v) for v in enc.dictionary.to_pylist()]


def _measure(values: pa.Array | pa.ChunkedArray) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """A measure's values as floats (0.0 where null), and which rows have one (nulls are left out of means).

    A column of integers of up to 32 bits or of doubles is written chunk by chunk into one array (the same
    doubles as Arrow's cast: these convert exactly); another type is cast by Arrow."""
    kind = values.type
    if (pa.types.is_integer(kind) and kind.bit_width <= 32) or pa.types.is_float64(kind):
        x = np.empty(len(values), dtype=np.float64)
        at = 0
        for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
            filled = pc.fill_null(chunk, pa.scalar(0, kind)) if chunk.null_count else chunk
            x[at:at + len(chunk)] = filled.to_numpy(zero_copy_only=False)
            at += len(chunk)
        if values.null_count == 0:
            return x, np.ones(x.size, dtype=np.bool_)
        return x, pc.is_valid(values).to_numpy(zero_copy_only=False).astype(bool)
    if values.null_count == 0:
        x = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)
        return x, np.ones(x.size, dtype=np.bool_)
    valid = pc.is_valid(values).to_numpy(zero_copy_only=False).astype(bool)
    x = pc.fill_null(pc.cast(values, pa.float64()), 0.0).to_numpy(zero_copy_only=False).astype(np.float64)
    return x, valid


def _share_row(value: str, rows: int, st: dict[str, Any]) -> dict[str, Any]:
    return {"value": value, "rows": rows, "share": st["mean"], "se": st["se"], "ci_low": st["ci_low"],
            "ci_high": st["ci_high"]}


def _one_row_each(pd_: PerDeal) -> NDArray[np.int64] | slice | None:
    """When every bot has exactly one row in every deal: the row of bot j in deal position d, at
    ``j * deals + d`` (``slice(None)`` when the rows are in that order already); else None."""
    if not _all_one(pd_.rows):
        return None
    at = pd_.row_codes * int(pd_.deals.size) + pd_.row_deals
    if not np.any(at[1:] <= at[:-1]):  # increasing: 0, 1, 2, ... (every cell has one row)
        return slice(None)
    row_of = np.empty(pd_.rows.size, dtype=np.int64)
    row_of[at] = np.arange(pd_.row_codes.size)
    return row_of


def _seat_shares(seats: pa.Table, pd_: PerDeal, column: Column,
                 row_of: NDArray[np.int64] | slice | None = None) -> dict[str, list[dict[str, Any]]]:
    """Per bot: the share of its rows with each value of ``column``, clustered by deal.

    The bot's fraction of its rows of a deal with the value is one observation per deal it played;
    the share is their mean and its interval the t interval over those deals. Values are listed in
    the order of their overall frequency (then by name), the same for every bot. ``row_of`` is
    ``_one_row_each(pd_)``: with one row a deal, a fraction is 1 or 0 (count / 1), read off the row.
    """
    codes, labels = _category_codes(seats.column(column.name), column)
    nd, nb, nc = int(pd_.deals.size), len(pd_.bots), max(len(labels), int(codes.max(initial=0)) + 1)
    key = codes if nb == 1 else pd_.row_codes * nc + codes  # (bot, value) of every row
    out: dict[str, list[dict[str, Any]]] = {}
    buf = np.empty(nd)  # every value's fractions in turn (mean_interval keeps none of them)
    if row_of is not None:
        counts = np.bincount(key, minlength=nb * nc).reshape(nb, nc)  # a bot's rows per value
        order = _by_frequency(counts, labels)
        by_deal = codes[row_of].reshape(nb, nd)  # bot j's value in deal position d
        table = np.empty(nc)
        for j, b in enumerate(pd_.bots):
            out[b] = [_share_row(labels[c], int(counts[j, c]),
                                 _ones_interval(by_deal[j], c, int(counts[j, c]), table, buf)) for c in order]
        return out
    # counts per (bot, value, deal), each (bot, value) contiguous; a fraction is count / the bot's rows of
    # the deal, divided per bot and value (the same doubles as a float copy of the whole array divided at once)
    key = key * nd
    key += pd_.row_deals
    per = np.bincount(key, minlength=nb * nc * nd).reshape(nb, nc, nd)
    counts = per.sum(axis=2)  # a bot's rows per value
    order = _by_frequency(counts, labels)
    for j, b in enumerate(pd_.bots):
        present = pd_.rows[:, j] > 0
        every = bool(present.all())
        den_j = np.maximum(pd_.rows[present, j], 1)
        frac = buf[: den_j.size]
        out[b] = [_share_row(labels[c], int(counts[j, c]),
                             mean_interval(np.divide(per[j, c] if every else per[j, c][present], den_j, out=frac)))
                  for c in order]
    return out


def _by_frequency(counts: NDArray[np.int64], labels: list[str]) -> list[int]:
    """The codes of ``labels`` by their rows (``counts``: per bot and value), most first, then by label."""
    total = counts.sum(axis=0)
    return sorted(range(len(labels)), key=lambda c: (-int(total[c]), labels[c]))


def _ones_interval(codes: NDArray[np.int64], c: int, count: int, table: NDArray[np.float64],
                   out: NDArray[np.float64]) -> dict[str, Any]:
    """``mean_interval((codes == c).astype(float64))``: the fractions of deals of one row each, 1.0 where
    the row has value ``c`` (``count`` of them), else 0.0 (``table``, as long as the codes, and ``out``, as
    long as ``codes``: scratch arrays). The same floats without the array of fractions: its pairwise sum
    is ``count`` exactly (every partial sum an integer), so the mean is count / n, and each squared
    deviation from it is one of two numbers, gathered by code into ``out`` and summed as numpy's
    ``_var`` sums them."""
    n = int(codes.size)
    if n < 2:
        return mean_interval(np.equal(codes, c).astype(np.float64))
    m = np.float64(count) / n
    table.fill(np.square(np.float64(0.0) - m))
    table[c] = np.square(np.float64(1.0) - m)
    np.take(table, codes, out=out, mode="clip")  # every code is in the table: clip changes none
    return _with_spread(n, m, np.add.reduce(out), LEVEL)


def _seat_means(seats: pa.Table, pd_: PerDeal, column: Column,
                row_of: NDArray[np.int64] | slice | None = None) -> dict[str, dict[str, Any]]:
    """Per bot: the mean of ``column`` per deal (the bot's mean over its rows of the deal), with its interval.

    ``row_of`` is ``_one_row_each(pd_)``: with one row a deal, each with a value, a bot's mean of a deal is
    its row's value, as the sum below makes it (0.0 + x: -0.0 reads 0.0) divided by 1 (skipped)."""
    x, valid = _measure(seats.column(column.name))
    nd, nb = int(pd_.deals.size), len(pd_.bots)
    if row_of is not None and bool(valid.all()):
        by_deal = x[row_of].reshape(nb, nd)  # x is this function's own: added to in place
        np.add(by_deal, 0.0, out=by_deal)
        return {b: mean_interval(by_deal[j]) for j, b in enumerate(pd_.bots)}
    key = pd_.row_deals * nb + pd_.row_codes
    if bool(valid.all()):  # every row counts: the rows per (deal, bot) are the leaderboard's, as floats
        n = pd_.rows.astype(np.float64)
        total = _sums(key, x, nd * nb).reshape(nd, nb)
    else:
        # the rows with a value per cell (exact counts, as floats); x is 0.0 where null (_measure)
        n = np.bincount(key[valid], minlength=nd * nb).astype(np.float64).reshape(nd, nb)
        total = _sums(key, x, nd * nb).reshape(nd, nb)
    one = _all_one(n)  # x / 1.0 == x: no division
    out = {}
    for j, b in enumerate(pd_.bots):
        has = n[:, j] > 0
        out[b] = mean_interval(_column_of(total, j, has) if one else total[has, j] / n[has, j])
    return out


def seat_columns(seats: pa.Table, pd_: PerDeal, columns: Sequence[Column]) -> dict[str, dict[str, Any]]:
    """Per bot: ``shares`` of every category column and ``means`` of every measure but ``score``."""
    cats, measures = _reported(seats, columns, "category"), _reported(seats, columns, "measure")
    row_of = _one_row_each(pd_) if cats or measures else None
    shares = {c.name: _seat_shares(seats, pd_, c, row_of) for c in cats}
    means = {c.name: _seat_means(seats, pd_, c, row_of) for c in measures}
    return {b: {"shares": {col: per_bot[b] for col, per_bot in shares.items()},
                "means": {col: per_bot[b] for col, per_bot in means.items()}} for b in pd_.bots}


def _bot_rows(pd_: PerDeal, seats: pa.Table, columns: Sequence[Column] = (),
              score: NDArray[np.float64] | None = None,
              memo: dict[tuple[int, ...], Moments] | None = None) -> list[dict[str, Any]]:
    """Leaderboard rows, best mean first, with the bot's interval and a naive row-level SE for contrast,
    then the bot's shares and means of the game's other seat columns (``score``: the column as floats,
    when the caller has it). ``memo`` gets the ``_moments`` of each bot j's values, at ``(j,)``."""
    score_rows = np.nansum(pd_.value * pd_.rows, axis=0)
    sq = _floats(seats, "score") if score is None else score
    sumsq = np.bincount(pd_.row_codes, weights=sq * sq, minlength=len(pd_.bots))
    per_bot = seat_columns(seats, pd_, columns)
    out = []
    for j, b in enumerate(pd_.bots):
        present = pd_.rows[:, j] > 0
        values = _column_of(pd_.value, j, present)
        moments = _moments(values)
        stats = mean_interval(values) if moments is None else _with_spread(*moments, LEVEL)
        if memo is not None and moments is not None:
            memo[(j,)] = moments
        nrows = int(pd_.rows[:, j].sum())
        row_mean = score_rows[j] / nrows if nrows else math.nan
        # What the SE would be if every row were an independent observation: too small whenever the
        # rows of a deal are correlated (see docs/statistics.md); reported so the gap is visible.
        row_var = (sumsq[j] - nrows * row_mean**2) / (nrows - 1) if nrows > 1 else math.nan
        naive = math.sqrt(max(row_var, 0.0) / nrows) if nrows > 1 else math.nan
        out.append(
            {
                "bot": b,
                "bot_index": pd_.bot_index[j],
                "deals": stats["n"],
                "rows": nrows,
                "mean": stats["mean"],
                "sd": stats["sd"],
                "se": stats["se"],
                "ci_low": stats["ci_low"],
                "ci_high": stats["ci_high"],
                "mean_per_row": _f(row_mean),
                "se_if_rows_independent": _f(naive),
                **per_bot[b],
            }
        )
    out.sort(key=lambda r: (-(r["mean"] if r["mean"] is not None else -math.inf), r["bot"]))
    for rank, r in enumerate(out, 1):
        r["rank"] = rank
    return out


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool | None:
    if None in (a["ci_low"], a["ci_high"], b["ci_low"], b["ci_high"]):
        return None
    return bool(a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"])


def compare(pd_: PerDeal, i: int, j: int, memo: dict[tuple[int, ...], Moments] | None = None) -> dict[str, Any]:
    """Bot i against bot j on the deals both played: paired and unpaired intervals, verdict, deals needed.

    ``memo``: the ``_moments`` of each bot's values (``_bot_rows``), used where the pair's deals are all the
    bot's; it gets those of the pair's differences, at ``(i, j)`` (for ``_adjusted_pair``)."""
    a, b = pd_.bots[i], pd_.bots[j]
    both = (pd_.rows[:, i] > 0) & (pd_.rows[:, j] > 0)
    xa, xb = pd_.value[both, i], pd_.value[both, j]
    diff = xa - xb
    moments = _moments(diff)
    paired = mean_interval(diff) if moments is None else _with_spread(*moments, LEVEL)
    known: list[Moments | None] = [None, None]
    if memo is not None:
        shared = int(diff.size)
        known = [m if m is not None and m[0] == shared else None for m in (memo.get((i,)), memo.get((j,)))]
        if moments is not None:
            memo[(i, j)] = moments
    unpaired = welch_interval(xa, xb, LEVEL, *known)
    ratio = None
    if paired["se"] is not None and unpaired["se"] is not None and paired["se"] > 0:
        ratio = unpaired["se"] / paired["se"]
    n = paired["n"]
    need = deals_needed(paired["mean"], paired["sd"], n=n)
    need80 = deals_needed(paired["mean"], paired["sd"], Z95 + Z_POWER80, n=n)
    return {
        "a": a,
        "b": b,
        "deals": n,
        "paired": {k: paired[k] for k in ("mean", "sd", "se", "ci_low", "ci_high")},
        "unpaired": unpaired,
        "se_ratio": _f(ratio) if ratio is not None else None,
        "variance_ratio": _f(ratio * ratio) if ratio is not None else None,
        "verdict": verdict(a, b, paired["ci_low"], paired["ci_high"]),
        "separable": bool(paired["ci_low"] is not None and (paired["ci_low"] > 0 or paired["ci_high"] < 0)),
        "unpaired_separable": bool(
            unpaired["ci_low"] is not None and (unpaired["ci_low"] > 0 or unpaired["ci_high"] < 0)
        ),
        "deals_needed": need,
        "deals_needed_80": need80,
        "more_deals_needed": None if need is None else max(0, need - n),
    }


def _head_to_head(
    pd_: PerDeal, ranked: list[str], pairs: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    """Matrix in leaderboard order: cell [r][c] is mean(row bot - column bot) per shared deal."""
    cells: list[list[dict[str, Any] | None]] = []
    for ra in ranked:
        line: list[dict[str, Any] | None] = []
        for cb in ranked:
            if ra == cb:
                line.append(None)
                continue
            p = pairs.get((ra, cb))
            sign = 1.0
            if p is None:
                p, sign = pairs[(cb, ra)], -1.0
            m, lo, hi = p["paired"]["mean"], p["paired"]["ci_low"], p["paired"]["ci_high"]
            if sign < 0:
                m, lo, hi = (
                    (None if m is None else -m),
                    (None if hi is None else -hi),
                    (None if lo is None else -lo),
                )
            line.append(
                {"deals": p["deals"], "mean": m, "ci_low": lo, "ci_high": hi, "separable": p["separable"]}
            )
        cells.append(line)
    return {"bots": ranked, "cells": cells}


def rating(pd_: PerDeal, max_deals: int = RATING_MAX_DEALS) -> dict[str, Any]:
    """openskill PlackettLuce over deals in deal order; each deal ranks its bots by their per-deal value.

    Deterministic: the same rows give the same ratings (the model has no randomness and deals are
    processed in ascending deal id). Ties in the per-deal value are ties in the ranking. The deals are
    rated by ``ext._rating.plackett_luce``: openskill's ``rate`` arithmetic, bit for bit, in C (openskill's
    own per-call costs were most of a report's time).
    """
    from openskill.models import PlackettLuce  # imported here: only the rating needs it

    from ext._rating import plackett_luce

    # tau = 0: a bot is a fixed program whose skill does not drift, so no extra variance is added per
    # game. With openskill's default tau the rating forgets old deals and ends up ranking by the last
    # few hundred of them (on 20,000 synthetic deals it put the second-best bot first).
    model = PlackettLuce(tau=0.0)
    if (model.tau, model.margin, model.balance, model.limit_sigma) != (0.0, 0.0, False, False):
        raise AssertionError("plackett_luce does openskill's arithmetic for tau 0, margin 0, no balance or limit")
    nb = len(pd_.bots)
    n_rated = min(int(pd_.deals.size), max_deals)
    mu = np.full(nb, model.mu, dtype=np.float64)
    sigma = np.full(nb, model.sigma, dtype=np.float64)
    games_played = np.zeros(nb, dtype=np.int64)
    plackett_luce(np.ascontiguousarray(np.nan_to_num(pd_.value[:n_rated]), dtype=np.float64),
                  np.ascontiguousarray(pd_.rows[:n_rated] > 0, dtype=np.uint8), mu, sigma, games_played,
                  float(model.beta), float(model.kappa))
    current = {b: model.rating(mu=float(mu[j]), sigma=float(sigma[j]), name=b) for j, b in enumerate(pd_.bots)}
    games = {b: int(games_played[j]) for j, b in enumerate(pd_.bots)}
    ranked = sorted(current.items(), key=lambda kv: (-float(kv[1].ordinal()), kv[0]))
    rows = [
        {"bot": b, "mu": _f(r.mu), "sigma": _f(r.sigma), "ordinal": _f(r.ordinal()), "games": games[b]}
        for b, r in ranked
    ]
    return {
        "model": "openskill PlackettLuce (mu0=25, sigma0=25/3, tau=0); ordinal = mu - 3 sigma",
        "unit": "one game per deal, ranked by each bot's mean score over its rows of the deal",
        "deals_rated": n_rated,
        "deals_total": int(pd_.deals.size),
        "capped": n_rated < pd_.deals.size,
        "rows": rows,
    }


ADJUSTED = "adjusted_score"  # sims.tables.ADJUSTED: the score less the game's chance-only correction


def _interval(st: dict[str, Any]) -> dict[str, Any]:
    return {k: st[k] for k in ("mean", "se", "ci_low", "ci_high")}


def _adjusted_pair(raw: PerDeal, adj: PerDeal, i: int, j: int,
                   memo: dict[tuple[int, ...], Moments] | None = None) -> tuple[dict[str, Any], float | None]:
    """The paired difference of bots i and j by the adjusted scores, and the paired variance of the raw
    difference over that of the adjusted one (the factor of deals the adjustment saves). ``memo``: where
    ``compare`` left the ``_moments`` of the raw differences (the same deals: ``adj`` has ``raw``'s rows)."""
    both = (adj.rows[:, i] > 0) & (adj.rows[:, j] > 0)
    d_adj = adj.value[both, i] - adj.value[both, j]
    moments = _moments(d_adj)
    st = mean_interval(d_adj) if moments is None else _with_spread(*moments, LEVEL)
    n = st["n"]
    out = {**_interval(st),
           "separable": bool(st["ci_low"] is not None and (st["ci_low"] > 0 or st["ci_high"] < 0)),
           "deals_needed_80": deals_needed(st["mean"], st["sd"], Z95 + Z_POWER80)}
    ratio = None
    if n >= 2:
        v_adj = float(d_adj.var(ddof=1)) if moments is None else _variance(moments)
        known = memo.get((i, j)) if memo is not None and adj.rows is raw.rows else None
        if known is not None and known[0] == n:
            v_raw = _variance(known)
        else:
            v_raw = float((raw.value[both, i] - raw.value[both, j]).var(ddof=1))
        ratio = _f(v_raw / v_adj) if v_adj > 0 else None
    return out, ratio


def rank_adjusted(seats: pa.Table, rows: list[dict[str, Any]], like: PerDeal | None = None) -> PerDeal:
    """Give every leaderboard row its luck-adjusted interval (``adjusted``) and rank the rows by the adjusted
    mean (docs/statistics.md, "Luck-adjusted scores"); the per-deal adjusted values, for the pairs. ``like``:
    the raw ``PerDeal`` of ``seats``, whose bot and deal codes are reused (``per_deal``)."""
    adj = per_deal(seats, ADJUSTED, like)
    pos = {b: j for j, b in enumerate(adj.bots)}
    for r in rows:
        j = pos[r["bot"]]
        r["adjusted"] = _interval(mean_interval(_column_of(adj.value, j, adj.rows[:, j] > 0)))
    rows.sort(key=lambda r: (-(r["adjusted"]["mean"] if r["adjusted"]["mean"] is not None else -math.inf),
                             r["bot"]))
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    return adj


def adjusted_verdict(pair: dict[str, Any]) -> str:
    """The plain-words verdict of a pair by its adjusted interval (``verdict``)."""
    q = pair["adjusted"]
    return verdict(pair["a"], pair["b"], q["ci_low"], q["ci_high"])


def has_adjusted(seats: pa.Table) -> bool:
    """Whether ``seats`` holds an ``adjusted_score`` for every row (shards written before the column
    existed have none, and a job mixing them is reported without adjusted figures)."""
    return ADJUSTED in seats.column_names and seats.column(ADJUSTED).null_count == 0


def leaderboard(
    seats: pa.Table,
    deals: pa.Table | None = None,
    seating: str = "duplicate",
    players: int = 0,
    *,
    with_rating: bool = True,
    rating_max_deals: int = RATING_MAX_DEALS,
    columns: Sequence[Column] = (),
    adjustment: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Everything a tournament report says about the bots, from the ``seats`` table.

    ``seats`` needs ``deal``, ``bot`` and ``score`` (``bot_index`` is used when present).
    ``columns`` are the game's declared ``seats`` columns: each bot's row gets ``shares`` of every
    ``category`` and ``means`` of every ``measure`` other than ``score`` that the table holds.
    ``deals`` is accepted for the contract's signature; the per-deal figures come from
    ``seats`` alone. ``seating`` only changes the wording: under ``duplicate`` the paired differences
    are on identical cards; under ``random``/``fixed`` they are on the same deal but different
    seats, which is still a valid paired comparison (deals stay independent) but cancels less luck.
    ``adjustment`` (``{"method", "unbiased_by"}``, the game's ``LuckEstimator``'s) adds the figures of
    ``adjusted_score`` (``rank_adjusted``, ``_adjusted_pair``) when ``seats`` holds it; None: no adjusted figures.
    """
    score = _floats(seats, "score")  # read once: the per-deal values, the naive SE and the histograms
    pd_ = _per_deal(*_deal_codes(seats), score)
    memo: dict[tuple[int, ...], Moments] = {}  # moments of each bot's values and pair's differences
    rows = _bot_rows(pd_, seats, columns, score, memo)
    adjusted = adjustment is not None and has_adjusted(seats)
    adj = rank_adjusted(seats, rows, pd_) if adjusted else None  # ranked by the adjusted mean
    ranked = [r["bot"] for r in rows]
    pos = {b: j for j, b in enumerate(pd_.bots)}
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    by_bot = {r["bot"]: r for r in rows}
    for x, a in enumerate(ranked):
        for b in ranked[x + 1 :]:
            p = compare(pd_, pos[a], pos[b], memo)
            p["intervals_overlap"] = _overlap(by_bot[a], by_bot[b])
            if adj is not None:
                p["adjusted"], p["adjusted_variance_ratio"] = _adjusted_pair(pd_, adj, pos[a], pos[b], memo)
            pairs[(a, b)] = p
    for x, r in enumerate(rows):
        nxt = pairs.get((r["bot"], ranked[x + 1])) if x + 1 < len(ranked) else None
        r["vs_next"] = None if nxt is None else adjusted_verdict(nxt) if adj is not None else nxt["verdict"]
    rotations = 0
    if seats.num_rows and "rotation" in seats.column_names:
        rotations = int(pc.max(seats.column("rotation")).as_py()) + 1
    return {
        "seating": seating,
        "players": players,
        "deals": int(pd_.deals.size),
        "rows_total": seats.num_rows,
        "rotations": rotations,
        "paired_on_same_cards": seating == "duplicate",
        "level": LEVEL,
        "rows": rows,
        "pairs": list(pairs.values()),
        "head_to_head": _head_to_head(pd_, ranked, pairs),
        "rating": rating(pd_, rating_max_deals) if with_rating else None,
        "distributions": _distributions(pd_, score),
        **({"adjustment": {"method": str(adjustment["method"]), "unbiased_by": str(adjustment["unbiased_by"])}}
           if adjusted and adjustment is not None else {}),
    }


def category_shares(deal: NDArray[np.int64], values: pa.Array | pa.ChunkedArray,
                    column: Column | str) -> list[dict[str, Any]]:
    """Share of rows taking each value of a category, with a deal-clustered interval.

    Each deal contributes the fraction of its rows with the value (rows of a deal are correlated);
    the share is the mean of those fractions and its SE their sd / sqrt(deals). ``column`` is the
    declared column (a ``bool`` one gives the share of true only), or just the label of a null.
    """
    return _category_shares(_DealIndex.of(deal), values, column)


@dataclass(frozen=True)
class _DealIndex:
    """The deals of a table's rows, computed once for all its columns: each row's deal position
    (``inv``), the rows of each deal, and whether the rows are the deals in order (one row each)."""

    inv: NDArray[np.int64]
    rows: NDArray[np.int64]
    one_row_each: bool

    @staticmethod
    def of(deal: NDArray[np.int64]) -> _DealIndex:
        if not deal.size:
            return _DealIndex(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), True)
        runs = _sorted_runs(deal)
        if runs is not None:  # in deal order; one row a deal: row i is deal position i (an inverse 0, 1, 2, ...)
            deals, inv, rows = runs
            return _DealIndex(inv.astype(np.int64, copy=False), rows.astype(np.int64, copy=False),
                              deals.size == deal.size)
        deals, inv = np.unique(deal, return_inverse=True)
        rows = np.bincount(inv, minlength=int(deals.size)).astype(np.int64, copy=False)
        return _DealIndex(inv.astype(np.int64, copy=False), rows, False)


def _category_shares(index: _DealIndex, values: pa.Array | pa.ChunkedArray,
                     column: Column | str) -> list[dict[str, Any]]:
    col = column if isinstance(column, Column) else Column("value", "string", "category", "", null=column)
    codes, labels = _category_codes(values, col)
    nd, nc = int(index.rows.size), max(len(labels), int(codes.max(initial=0)) + 1)
    buf = np.empty(nd)  # every value's fractions in turn (mean_interval keeps none of them)
    if index.one_row_each:  # a deal's fraction is its one row's: 1 or 0 (count / 1)
        total = np.bincount(codes, minlength=nc)
        table = np.empty(nc)
        out = [_share_row(labels[c], int(total[c]), _ones_interval(codes, c, int(total[c]), table, buf))
               for c in range(len(labels))]
    else:
        # counts per (value, deal), each value's contiguous; a deal's fractions are count / its rows (the
        # same doubles as dividing a float copy of the whole matrix: sums of counts are exact in float64)
        key = codes * nd
        key += index.inv
        per = np.bincount(key, minlength=nc * nd).reshape(nc, nd)
        total = per.sum(axis=1)  # the rows of each value
        rows = np.maximum(index.rows, 1).astype(np.float64)
        out = [_share_row(labels[c], int(total[c]), mean_interval(np.divide(per[c], rows, out=buf)))
               for c in range(len(labels))]
    out.sort(key=lambda r: (-(r["share"] or 0.0), r["value"]))
    return out


def deals_summary(deals: pa.Table, columns: Sequence[Column] = ()) -> dict[str, Any]:
    """What happened in the deals, from the game's declared ``deals`` columns (clustered by deal).

    ``shares``: per ``category`` column, the share of each value (a ``bool`` one: the share of true);
    ``means``: per ``measure`` column, the mean per deal (a deal's mean over its rows) with its interval.
    """
    if deals.num_rows == 0:
        return {"rows": 0, "deals": 0}
    deal = deals.column("deal").to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    index = _DealIndex.of(deal)
    inv = index.inv
    out: dict[str, Any] = {"rows": deals.num_rows, "deals": int(inv.max()) + 1, "shares": {}, "means": {}}
    for c in _reported(deals, columns, "category"):
        out["shares"][c.name] = _category_shares(index, deals.column(c.name), c)
    for c in _reported(deals, columns, "measure"):
        x, valid = _measure(deals.column(c.name))
        if bool(valid.all()) and index.one_row_each:  # the sum below of one row: 0.0 + x (-0.0 reads 0.0)
            out["means"][c.name] = mean_interval(np.add(x, 0.0, out=x))
            continue
        if bool(valid.all()):  # every row counts: a deal's count is its rows
            n = index.rows.astype(np.float64)
            total = _sums(inv, x)
        else:
            # the rows with a value per deal (exact counts, as floats); x is 0.0 where null (_measure)
            n = np.bincount(inv[valid], minlength=index.rows.size).astype(np.float64)
            total = _sums(inv, x)
        # one row a deal, each with a value: total / 1.0 == total (the bincount's 0.0 + x: -0.0 reads 0.0)
        out["means"][c.name] = mean_interval(total if _all_one(n) else total[n > 0] / n[n > 0])
    return out


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson score interval of a binomial proportion k/n (sane near 0 and 1, unlike the Wald one)."""
    if n <= 0:
        return None, None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At k = 0 (k = n) the bound is 0 (1) exactly; the formula gives it only up to rounding.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def counts_report(counts: pa.Table, method: str, samples: int | None = None) -> dict[str, Any]:
    """A deal-stats ``counts`` table as report rows, with a 95% Wilson interval when it was sampled.

    The denominator of a row is its ``n`` column when present, else count / probability (which
    also covers conditional probabilities such as "order biddable given this combination"), else
    ``samples``. Exact tables get no interval: their probabilities are exact.
    """
    rows = counts.to_pylist()
    sampled = method == "sample"
    for r in rows:
        for k, v in list(r.items()):
            if isinstance(v, float) and not math.isfinite(v):
                r[k] = None
        if not sampled or "count" not in r or r["count"] is None:
            continue
        k = int(r["count"])
        n = r.get("n")
        if n is None and r.get("probability"):
            n = round(k / r["probability"])
        if n is None:
            n = samples
        lo, hi = wilson_interval(k, int(n)) if n else (None, None)
        r["ci_low"], r["ci_high"] = lo, hi
    return {
        "method": method,
        "samples": samples,
        "sampled": sampled,
        "columns": counts.column_names
        + (["ci_low", "ci_high"] if sampled and "count" in counts.column_names else []),
        "rows": rows,
    }
