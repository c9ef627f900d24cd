"""Honesty checks of the luck-adjusted scores (issue 31 item 3; docs/statistics.md, "Luck-adjusted scores").

Identical bots under different labels, ``seating: random`` (the pool of ``players`` bots is shuffled
over the seats for every unit, so the labels meet different chance and, by symmetry, the true mean of
A - B is exactly 0). Over many small jobs, the 95% t interval of A - B (adjusted and raw) must cover 0
in about 95% of them, and over the whole run the adjusted and raw means of A - B must differ by less
than 4 combined SE. ``tests/test_luck_honesty.py`` runs it small for every registered game (``make
test``); ``benchmarks/bench_variance_reduction.py`` runs it at >= 400 jobs (``make bench``).

One shard of ``jobs * per_job`` units is played and cut into consecutive slices of ``per_job`` units:
each unit's chance is drawn from its own stream (``sims.plan``), so the slices are independent jobs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import binom

from games.core import registry
from games.core.entry import GameEntry
from sims import stats
from sims.run import run_shard
from sims.spec import TournamentSpec, parse_spec

__all__ = ["Coverage", "IdenticalCase", "coverage", "coverage_bounds", "identical_case", "run_identical"]


@dataclass(frozen=True)
class IdenticalCase:
    """One game's identical-bots run: its rules, seats and the bot every seat plays."""

    game: str
    rules: dict[str, Any] = field(default_factory=dict)
    players: int = 2
    bot: str = ""

    def spec(self, units: int, seed: int) -> TournamentSpec:
        """``units`` units in one shard; the pool is the bot under labels A, B (and C, D, ... for more seats)."""
        bots = [{"name": self.bot, "label": chr(ord("A") + i)} for i in range(self.players)]
        spec = parse_spec({"kind": "tournament", "game": self.game, "rules": self.rules, "players": self.players,
                           "bots": bots, "deals": units, "shard_deals": units, "seating": "random", "seed": seed})
        assert isinstance(spec, TournamentSpec)
        return spec


def _cheap_bot(entry: GameEntry) -> str:
    names = [b.name for b in entry.bots()]
    random_bot = f"{entry.name}/random"
    return random_bot if random_bot in names else names[0]


def identical_case(game: str, bot: str | None = None) -> IdenticalCase:
    """The case of ``game`` with nothing chosen by hand, so a new game is covered as it is registered:
    the default rules, or, when the game's estimator does not cover them, the first preset it covers
    (blackjack's ``casino``: the home and ochko games have no estimator); the fewest seats (at least 2);
    ``bot`` or else the game's random bot (``<game>/random``, compiled in most games), else its first bot."""
    entry = registry.game(game)
    options: dict[str, Any] = {}
    rules = entry.rules(options)
    if entry.luck is not None and not entry.luck.supports(rules):
        for preset in entry.presets:
            if entry.luck.supports(entry.rules({"preset": preset})):
                options = {"preset": preset}
                rules = entry.rules(options)
                break
    return IdenticalCase(game, options, max(2, entry.seats(rules)[0]), bot or _cheap_bot(entry))


@dataclass(frozen=True)
class Coverage:
    """What ``coverage`` measured: covering jobs out of ``jobs`` (adjusted and raw), and over the whole run
    the mean of A - B (raw, adjusted), their combined SE ``sqrt(se_raw^2 + se_adj^2)`` and the SE of the
    mean correction of A - B (raw - adjusted, paired: the sharper test of E[correction] = 0)."""

    jobs: int
    per_job: int
    covered_adjusted: int
    covered_raw: int
    mean_raw: float
    mean_adjusted: float
    combined_se: float
    correction_se: float
    corrected: bool
    """Whether any row's adjusted score differs from its score (False: the game has no estimator here)."""

    @property
    def gap_in_se(self) -> float:
        """|mean raw - mean adjusted| over the combined SE (the issue's check: < 4)."""
        gap = abs(self.mean_raw - self.mean_adjusted)
        return gap / self.combined_se if self.combined_se > 0 else (0.0 if gap == 0 else math.inf)

    @property
    def correction_in_se(self) -> float:
        """|mean correction of A - B| over its own paired SE."""
        gap = abs(self.mean_raw - self.mean_adjusted)
        return gap / self.correction_se if self.correction_se > 0 else (0.0 if gap == 0 else math.inf)


def _covers(d: np.ndarray) -> bool:
    st = stats.mean_interval(d)
    return st["ci_low"] is not None and st["ci_low"] <= 0.0 <= st["ci_high"]


def coverage(seats: Any, jobs: int, per_job: int) -> Coverage:
    """Per job (consecutive slices of ``per_job`` units) whether the t interval of A - B covers 0, raw and
    adjusted; the whole run's means and SEs. A job whose differences are all equal has SE 0 and an
    interval of one point, which covers 0 only if the differences are 0."""
    raw, adj = stats.per_deal(seats), stats.per_deal(seats, "adjusted_score")
    a, b = raw.bots.index("A"), raw.bots.index("B")
    d_raw = raw.value[:, a] - raw.value[:, b]
    d_adj = adj.value[:, a] - adj.value[:, b]
    if d_raw.size != jobs * per_job:
        raise ValueError(f"{d_raw.size} units in the seats table, not jobs * per_job = {jobs * per_job}")
    cov_raw = sum(_covers(d_raw[j * per_job:(j + 1) * per_job]) for j in range(jobs))
    cov_adj = sum(_covers(d_adj[j * per_job:(j + 1) * per_job]) for j in range(jobs))
    n = d_raw.size
    combined = math.sqrt(float(d_raw.var(ddof=1)) / n + float(d_adj.var(ddof=1)) / n)
    corr = d_raw - d_adj
    return Coverage(jobs, per_job, int(cov_adj), int(cov_raw), float(d_raw.mean()), float(d_adj.mean()), combined,
                    float(corr.std(ddof=1)) / math.sqrt(n), bool(np.any(corr != 0.0)))


def run_identical(case: IdenticalCase, jobs: int, per_job: int, seed: int) -> Coverage:
    """Play ``jobs * per_job`` units of ``case`` in one shard (in this process) and measure ``coverage``."""
    seats = run_shard(case.spec(jobs * per_job, seed), 0)["seats"]
    return coverage(seats, jobs, per_job)


def coverage_bounds(jobs: int, low: float = 0.93, high: float = 0.97, alpha: float = 1e-4) -> tuple[int, int]:
    """The covering jobs out of ``jobs`` accepted as "95 +- 2%": at most ``alpha / 2`` probability below the
    lower bound when the true coverage is ``low`` (or more), and at most ``alpha / 2`` above the upper
    bound when it is ``high`` (or less); so any true coverage within [low, high] fails with probability
    at most ``alpha``. (Below about 490 jobs the upper bound is ``jobs``: too few jobs to tell 97% from 100%.)"""
    lo = int(binom.ppf(alpha / 2, jobs, low))  # P(X < lo) <= alpha / 2 at coverage `low`
    if binom.cdf(lo - 1, jobs, low) > alpha / 2:
        lo -= 1
    hi = int(binom.isf(alpha / 2, jobs, high))  # P(X > hi) <= alpha / 2 at coverage `high`
    while binom.sf(hi, jobs, high) > alpha / 2:
        hi += 1
    return max(lo, 0), min(hi, jobs)
