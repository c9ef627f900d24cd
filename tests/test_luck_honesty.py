"""Honesty checks of the luck-adjusted scores in every game (issue 31 item 3; docs/statistics.md,
"Luck-adjusted scores", "Measured"): the small version; ``make bench`` runs the same check over 400 jobs
(benchmarks/bench_variance_reduction.py).

The games come from the registry, so a game registered later is checked as it is: its default rules (or
the first preset its estimator covers), its fewest seats (at least 2) and its random bot
(``sims.luck_check.identical_case``). A game without an estimator has ``adjusted_score = score``, and is
checked too: its raw intervals must cover 0 as well, and its adjusted column must equal the raw one; so is a
game whose estimator does not cover the case's bots (Quintet's action terms and its random bot, which notes
no policy: tests/test_quintet_luck.py checks Quintet with bots that note one).
"""

from __future__ import annotations

import pytest

from games.core import registry
from sims.luck_check import coverage_bounds, identical_case, run_identical

#: Jobs and units per job: 150 jobs of 10 units, a few seconds per game on the loaded machine.
JOBS, PER_JOB = 150, 10
#: Accepted covering jobs out of JOBS (126..150): the exact binomial band of "95 +- 2%" at a 1e-4
#: false-alarm rate (``coverage_bounds``; 150 jobs cannot tell 97% from 100%, so the top is JOBS).
LOW, HIGH = coverage_bounds(JOBS)


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_identical_bots_cover_zero_and_adjusted_mean_matches_raw(game: str) -> None:
    """Identical bots under labels A and B (C, D, ... for more seats), ``seating: random`` so the labels
    meet different chance and the true mean of A - B is 0 by symmetry; 150 jobs of 10 units (one shard
    cut into per-job slices: every unit's chance comes from its own stream, so the slices are independent
    jobs). Checked:

    * the 95% t interval of A - B covers 0 in LOW..HIGH of the 150 jobs, adjusted AND raw. When the true
      coverage lies anywhere in 93..97% the count falls outside with probability at most 1e-4 (5e-5 each
      side; ``coverage_bounds``) -- per interval kind and game, so below 1.6e-3 for the whole test. The
      runs are seeded, so the same code always gives the same counts: the rate is that of a new seed or a
      changed engine tripping the check while the intervals are honest. (Liar's poker's true coverage is
      97.85%, over the band: A - B is +-2 a match and the t interval over ten signs misses 0 only for 9 or
      10 alike; a coverage over 97% only makes the lower side safer, and the upper side is 150 here.);
    * over all 1,500 units, |mean raw - mean adjusted| of A - B < 4 combined SE (sqrt(SE_raw^2 +
      SE_adj^2), the issue's check) and < 4 SE of the paired correction (raw - adjusted: the sharper test
      of E[correction] = 0); the correction of A - B is symmetric about 0 by the labels' symmetry, so by
      the normal tail either check fails by chance with probability about 6e-5.
    """
    case = identical_case(game)
    c = run_identical(case, JOBS, PER_JOB, seed=31)
    assert LOW <= c.covered_adjusted <= HIGH, (case, c)
    assert LOW <= c.covered_raw <= HIGH, (case, c)
    assert c.gap_in_se < 4, (case, c)
    assert c.correction_in_se < 4, (case, c)
    entry = registry.game(game)
    # An estimator of action terms only (Quintet's, ``LuckEstimator.chance`` False) corrects only units whose
    # bots note their known policy; the random bot notes none (docs/statistics.md says why), so its units
    # must be uncorrected (tests/test_quintet_luck.py checks Quintet's estimator with bots that note one).
    if entry.luck is None or not entry.luck.corrects(entry.rules(case.rules), [registry.make(case.bot, {}, game)]):
        assert not c.corrected, "a game without an estimator (for these bots) must write adjusted_score = score"
    else:
        assert c.corrected, f"{game}'s estimator covers {case.rules or 'the default rules'} but corrected nothing"


def test_coverage_bounds_are_the_exact_binomial_quantiles() -> None:
    """The band of 100 jobs: 81 is the smallest count whose lower tail at 93% holds more than 5e-5 (the
    existing dice poker test's 88..100 is inside it); at 1,000 jobs the upper side binds too (989 < 1000)."""
    from scipy.stats import binom

    lo, hi = coverage_bounds(100)
    assert (lo, hi) == (81, 100)
    assert binom.cdf(lo - 1, 100, 0.93) <= 5e-5 < binom.cdf(lo, 100, 0.93)
    lo, hi = coverage_bounds(1000)
    assert binom.sf(hi, 1000, 0.97) <= 5e-5 < binom.sf(hi - 1, 1000, 0.97)
    assert binom.cdf(lo - 1, 1000, 0.93) <= 5e-5 < binom.cdf(lo, 1000, 0.93)
