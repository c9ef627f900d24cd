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


def t_quantile(n: int, level: float = LEVEL) -> float | None:
    """Two-sided Student-t critical value for a mean of ``n`` values (df = n - 1); None when n < 2."""
    if n < 2:
        return None
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.5 + level / 2))


def mean_interval(x: NDArray[np.float64], level: float = LEVEL) -> dict[str, Any]:
    """Mean, sd (ddof 1), SE = sd/sqrt(n) and the t interval of independent values ``x``.

    With fewer than two values the spread is unknown and sd, se and the interval are None.
    """
    n = int(x.size)
    mean = _f(x.mean()) if n else None
    out: dict[str, Any] = {"n": n, "mean": mean, "sd": None, "se": None, "ci_low": None, "ci_high": None}
    t = t_quantile(n, level)
    if t is None or mean is None:
        return out
    sd = float(x.std(ddof=1))
    se = sd / math.sqrt(n)
    out.update(sd=_f(sd), se=_f(se), ci_low=_f(mean - t * se), ci_high=_f(mean + t * se))
    return out


def welch_interval(x: NDArray[np.float64], y: NDArray[np.float64], level: float = LEVEL) -> dict[str, Any]:
    """Interval of mean(x) - mean(y) treating the samples as independent (Welch-Satterthwaite df)."""
    nx, ny = int(x.size), int(y.size)
    out: dict[str, Any] = {"mean": None, "se": None, "ci_low": None, "ci_high": None}
    if nx < 2 or ny < 2:
        if nx and ny:
            out["mean"] = _f(x.mean() - y.mean())
        return out
    vx, vy = float(x.var(ddof=1)) / nx, float(y.var(ddof=1)) / ny
    mean = float(x.mean() - y.mean())
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


def _bot_codes(seats: pa.Table) -> tuple[NDArray[np.int64], list[str], list[int | None]]:
    """Dense codes of the bot labels, ordered by their position in the spec (``bot_index``) then label."""
    col = seats.column("bot")
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
    if a.size and not np.any(a[1:] < a[:-1]):
        starts = np.empty(a.size, dtype=np.bool_)
        starts[0] = True
        np.not_equal(a[1:], a[:-1], out=starts[1:])
        inv = np.cumsum(starts, dtype=np.intp)
        inv -= 1
        return a[starts], inv
    return np.unique(a, return_inverse=True)


def per_deal(seats: pa.Table, column: str = "score") -> PerDeal:
    """Aggregate seat rows into the (deal x bot) matrix of per-deal mean scores (vectorised bincount);
    ``column`` is the score read (``adjusted_score`` for the luck-adjusted figures)."""
    codes, bots, bot_index = _bot_codes(seats)
    deal = seats.column("deal").to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    score = seats.column(column).to_numpy(zero_copy_only=False).astype(np.float64)
    deals, inv = unique_inverse(deal)
    nd, nb = int(deals.size), len(bots)
    key = inv.astype(np.int64) * nb + codes
    rows = np.bincount(key, minlength=nd * nb).reshape(nd, nb)
    total = np.bincount(key, weights=score, minlength=nd * nb).reshape(nd, nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(rows > 0, total / np.maximum(rows, 1), np.nan)
    return PerDeal(bots, bot_index, deals, value, rows.astype(np.int64), codes, inv.astype(np.int64))


def _histogram(scores: NDArray[np.float64]) -> dict[str, Any]:
    """Counts of each score value, or of equal-width bins when there are too many distinct values."""
    values, counts = np.unique(scores, return_counts=True)
    if values.size <= HIST_MAX_VALUES:
        xs = [int(v) if float(v).is_integer() else float(v) for v in values]
        return {"kind": "values", "x": xs, "counts": [int(c) for c in counts]}
    hist, edges = np.histogram(scores, bins=HIST_BINS)
    return {"kind": "bins", "x": [float(e) for e in edges], "counts": [int(c) for c in hist]}


def _distributions(seats: pa.Table, pd_: PerDeal) -> dict[str, dict[str, Any]]:
    codes, bots = pd_.row_codes, pd_.bots
    score = seats.column("score").to_numpy(zero_copy_only=False).astype(np.float64)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(bots) + 1))
    return {b: _histogram(score[order[bounds[j] : bounds[j + 1]]]) for j, b in enumerate(bots)}


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
        return np.where(true, 0, 1).astype(np.int64), ["true"]
    enc = pc.fill_null(pc.cast(values, pa.string()), column.null).dictionary_encode()
    codes = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, [str(v) for v in enc.dictionary.to_pylist()]


def _measure(values: pa.Array | pa.ChunkedArray) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """A measure's values as floats, and which rows have one (nulls are left out of means)."""
    valid = pc.is_valid(values).to_numpy(zero_copy_only=False).astype(bool)
    x = pc.fill_null(pc.cast(values, pa.float64()), 0.0).to_numpy(zero_copy_only=False).astype(np.float64)
    return x, valid


def _share_row(value: str, rows: int, st: dict[str, Any]) -> dict[str, Any]:
    return {"value": value, "rows": rows, "share": st["mean"], "se": st["se"], "ci_low": st["ci_low"],
            "ci_high": st["ci_high"]}


def _seat_shares(seats: pa.Table, pd_: PerDeal, column: Column) -> dict[str, list[dict[str, Any]]]:
    """Per bot: the share of its rows with each value of ``column``, clustered by deal.

    The bot's fraction of its rows of a deal with the value is one observation per deal it played;
    the share is their mean and its interval the t interval over those deals. Values are listed in
    the order of their overall frequency (then by name), the same for every bot.
    """
    codes, labels = _category_codes(seats.column(column.name), column)
    nd, nb, nc = int(pd_.deals.size), len(pd_.bots), max(len(labels), int(codes.max(initial=0)) + 1)
    key = (pd_.row_deals * nb + pd_.row_codes) * nc + codes
    # counts per (deal, bot, value); a fraction is count / the bot's rows of the deal, divided per bot and
    # value (the same doubles as a float copy of the whole array divided at once, without the copies)
    per = np.bincount(key, minlength=nd * nb * nc).reshape(nd, nb, nc)
    total = np.bincount(codes, minlength=nc)
    order = sorted(range(len(labels)), key=lambda c: (-int(total[c]), labels[c]))
    out: dict[str, list[dict[str, Any]]] = {}
    for j, b in enumerate(pd_.bots):
        present = pd_.rows[:, j] > 0
        rows_j = per[:, j, :].sum(axis=0)
        per_j, den_j = per[present, j, :], np.maximum(pd_.rows[present, j], 1)
        out[b] = [_share_row(labels[c], int(rows_j[c]), mean_interval(per_j[:, c] / den_j)) for c in order]
    return out


def _seat_means(seats: pa.Table, pd_: PerDeal, column: Column) -> dict[str, dict[str, Any]]:
    """Per bot: the mean of ``column`` per deal (the bot's mean over its rows of the deal), with its interval."""
    x, valid = _measure(seats.column(column.name))
    nd, nb = int(pd_.deals.size), len(pd_.bots)
    key = pd_.row_deals * nb + pd_.row_codes
    n = np.bincount(key, weights=valid.astype(np.float64), minlength=nd * nb).reshape(nd, nb)
    total = np.bincount(key, weights=np.where(valid, x, 0.0), minlength=nd * nb).reshape(nd, nb)
    out = {}
    for j, b in enumerate(pd_.bots):
        has = n[:, j] > 0
        out[b] = mean_interval(total[has, j] / n[has, j])
    return out


def seat_columns(seats: pa.Table, pd_: PerDeal, columns: Sequence[Column]) -> dict[str, dict[str, Any]]:
    """Per bot: ``shares`` of every category column and ``means`` of every measure but ``score``."""
    shares = {c.name: _seat_shares(seats, pd_, c) for c in _reported(seats, columns, "category")}
    means = {c.name: _seat_means(seats, pd_, c) for c in _reported(seats, columns, "measure")}
    return {b: {"shares": {col: per_bot[b] for col, per_bot in shares.items()},
                "means": {col: per_bot[b] for col, per_bot in means.items()}} for b in pd_.bots}


def _bot_rows(pd_: PerDeal, seats: pa.Table, columns: Sequence[Column] = ()) -> list[dict[str, Any]]:
    """Leaderboard rows, best mean first, with the bot's interval and a naive row-level SE for contrast,
    then the bot's shares and means of the game's other seat columns."""
    score_rows = np.nansum(pd_.value * pd_.rows, axis=0)
    sq = seats.column("score").to_numpy(zero_copy_only=False).astype(np.float64)
    sumsq = np.bincount(pd_.row_codes, weights=sq * sq, minlength=len(pd_.bots))
    per_bot = seat_columns(seats, pd_, columns)
    out = []
    for j, b in enumerate(pd_.bots):
        present = pd_.rows[:, j] > 0
        stats = mean_interval(pd_.value[present, j])
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


def compare(pd_: PerDeal, i: int, j: int) -> dict[str, Any]:
    """Bot i against bot j on the deals both played: paired and unpaired intervals, verdict, deals needed."""
    a, b = pd_.bots[i], pd_.bots[j]
    both = (pd_.rows[:, i] > 0) & (pd_.rows[:, j] > 0)
    xa, xb = pd_.value[both, i], pd_.value[both, j]
    paired = mean_interval(xa - xb)
    unpaired = welch_interval(xa, xb)
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


def _adjusted_pair(raw: PerDeal, adj: PerDeal, i: int, j: int) -> tuple[dict[str, Any], float | None]:
    """The paired difference of bots i and j by the adjusted scores, and the paired variance of the raw
    difference over that of the adjusted one (the factor of deals the adjustment saves)."""
    both = (adj.rows[:, i] > 0) & (adj.rows[:, j] > 0)
    d_adj = adj.value[both, i] - adj.value[both, j]
    d_raw = raw.value[both, i] - raw.value[both, j]
    st = mean_interval(d_adj)
    n = st["n"]
    out = {**_interval(st),
           "separable": bool(st["ci_low"] is not None and (st["ci_low"] > 0 or st["ci_high"] < 0)),
           "deals_needed_80": deals_needed(st["mean"], st["sd"], Z95 + Z_POWER80)}
    ratio = None
    if n >= 2:
        v_adj, v_raw = float(d_adj.var(ddof=1)), float(d_raw.var(ddof=1))
        ratio = _f(v_raw / v_adj) if v_adj > 0 else None
    return out, ratio


def rank_adjusted(seats: pa.Table, rows: list[dict[str, Any]]) -> PerDeal:
    """Give every leaderboard row its luck-adjusted interval (``adjusted``) and rank the rows by the adjusted
    mean (docs/statistics.md, "Luck-adjusted scores"); the per-deal adjusted values, for the pairs."""
    adj = per_deal(seats, ADJUSTED)
    pos = {b: j for j, b in enumerate(adj.bots)}
    for r in rows:
        j = pos[r["bot"]]
        r["adjusted"] = _interval(mean_interval(adj.value[adj.rows[:, j] > 0, j]))
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
    pd_ = per_deal(seats)
    rows = _bot_rows(pd_, seats, columns)
    adjusted = adjustment is not None and has_adjusted(seats)
    adj = rank_adjusted(seats, rows) if adjusted else None  # ranked by the adjusted mean
    ranked = [r["bot"] for r in rows]
    pos = {b: j for j, b in enumerate(pd_.bots)}
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    by_bot = {r["bot"]: r for r in rows}
    for x, a in enumerate(ranked):
        for b in ranked[x + 1 :]:
            p = compare(pd_, pos[a], pos[b])
            p["intervals_overlap"] = _overlap(by_bot[a], by_bot[b])
            if adj is not None:
                p["adjusted"], p["adjusted_variance_ratio"] = _adjusted_pair(pd_, adj, pos[a], pos[b])
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
        "distributions": _distributions(seats, pd_),
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
    col = column if isinstance(column, Column) else Column("value", "string", "category", "", null=column)
    codes, labels = _category_codes(values, col)
    deals, inv = unique_inverse(deal)
    nd, nc = int(deals.size), max(len(labels), int(codes.max(initial=0)) + 1)
    # counts per (deal, value); a deal's fractions are count / its rows (the same doubles as dividing a
    # float copy of the whole matrix, without the copy: sums of counts are exact in float64)
    per = np.bincount(inv * nc + codes, minlength=nd * nc).reshape(nd, nc)
    rows = np.maximum(per.sum(axis=1), 1).astype(np.float64)
    total = np.bincount(codes, minlength=nc)
    out = [_share_row(labels[c], int(total[c]), mean_interval(per[:, c] / rows)) for c in range(len(labels))]
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
    _, inv = unique_inverse(deal)
    out: dict[str, Any] = {"rows": deals.num_rows, "deals": int(inv.max()) + 1, "shares": {}, "means": {}}
    for c in _reported(deals, columns, "category"):
        out["shares"][c.name] = category_shares(deal, deals.column(c.name), c)
    for c in _reported(deals, columns, "measure"):
        x, valid = _measure(deals.column(c.name))
        n = np.bincount(inv, weights=valid.astype(np.float64))
        total = np.bincount(inv, weights=np.where(valid, x, 0.0))
        out["means"][c.name] = mean_interval(total[n > 0] / n[n > 0])
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
