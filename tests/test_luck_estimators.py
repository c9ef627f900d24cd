"""The games' luck estimators (``GameEntry.luck``; docs/statistics.md, "Luck-adjusted scores").

Exact where possible: each correction term's expectation over its chance event is 0, checked by
enumerating every outcome of the event (one throw of five dice: all 7,776 ordered outcomes; a re-roll:
all 6^k outcomes of the re-rolled dice). Then the honesty checks of the issue on real jobs: identical
bots under two labels, whose adjusted and raw means differ by less than 4 combined SE and whose
adjusted interval covers 0 about 95% of the time (``make bench`` repeats it over >= 400 jobs:
benchmarks/bench_variance_reduction.py).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.dice_poker.luck import turn_luck
from games.dice_poker.optimal import load_strategy
from games.dice_poker.rules import Rules
from games.dice_poker.turn import TurnValues, turn_keeps
from sims import stats
from sims.run import run_shard
from sims.spec import JobSpec, parse_spec

DICE_OUTCOMES = list(itertools.product(range(1, 7), repeat=5))


def _turn_arrays(rules: Rules, mask: int = 0, s: int = 0) -> tuple[TurnValues, np.ndarray, np.ndarray]:
    part = load_strategy(rules).part_for(1)
    allowed = np.array([sum(1 << i for i in part.allowed(mask))], dtype=np.int64)
    wv1, wv23 = part._write_rows(np.array([mask], dtype=np.int64), np.array([s], dtype=np.int64), allowed)
    return turn_keeps(wv1, wv23, rules.locked), wv1, wv23


@pytest.mark.parametrize("preset", ["full", "mixed"])
def test_first_throw_luck_has_mean_zero_over_all_7776_outcomes(preset: str) -> None:
    rules = Rules(preset=preset)
    tv, wv1, wv23 = _turn_arrays(rules)
    lucks = [turn_luck(tv, 0, wv1, wv23, rules.locked, [d], []) for d in DICE_OUTCOMES]
    assert math.fsum(lucks) / len(lucks) == pytest.approx(0.0, abs=1e-9)
    assert np.std(lucks) > 1.0  # not zero for a trivial reason


@pytest.mark.parametrize(("reroll_rule", "first", "mask1", "mask2"), [
    ("locked", (1, 1, 4, 5, 6), 0b00111, 0b00011),  # keep the ones, re-roll three, then two of them
    ("locked", (6, 6, 6, 2, 3), 0b11000, 0b01000),
    ("free", (2, 3, 4, 5, 5), 0b10000, 0b00011),    # free: the second re-roll may take any dice
    ("free", (1, 2, 3, 4, 6), 0b00111, 0b11000),
])
def test_rethrow_luck_has_mean_zero_over_every_outcome(reroll_rule: str, first: tuple[int, ...], mask1: int,
                                                      mask2: int) -> None:
    """Throw 2's term averages to 0 over the 6^k faces of the re-rolled dice, and so does throw 3's over its
    own re-rolled dice, from every throw-2 result."""
    rules = Rules(preset="mixed", reroll_rule=reroll_rule)
    tv, wv1, wv23 = _turn_arrays(rules)

    def luck(throws: list[tuple[int, ...]], masks: list[int]) -> float:
        return turn_luck(tv, 0, wv1, wv23, rules.locked, throws, masks)

    def rolled(dice: tuple[int, ...], mask: int, faces: tuple[int, ...]) -> tuple[int, ...]:
        it = iter(faces)
        return tuple(next(it) if mask >> i & 1 else d for i, d in enumerate(dice))

    base = luck([first], [])
    k1 = bin(mask1).count("1")
    second_terms = []
    for faces in itertools.product(range(1, 7), repeat=k1):
        second = rolled(first, mask1, faces)
        with2 = luck([first, second], [mask1])
        second_terms.append(with2 - base)
        k2 = bin(mask2).count("1")
        third_terms = [luck([first, second, rolled(second, mask2, f)], [mask1, mask2]) - with2
                       for f in itertools.product(range(1, 7), repeat=k2)]
        assert math.fsum(third_terms) / len(third_terms) == pytest.approx(0.0, abs=1e-9)
    assert math.fsum(second_terms) / len(second_terms) == pytest.approx(0.0, abs=1e-9)


def _dice_spec(bots: list[Any], deals: int, seed: int, seating: str = "duplicate", preset: str = "full",
               **kw: object) -> JobSpec:
    return parse_spec({"kind": "tournament", "game": "dice-poker", "rules": {"preset": preset}, "players": 2,
                       "bots": bots, "deals": deals, "shard_deals": deals, "seating": seating, "seed": seed, **kw})


def test_the_optimal_bots_adjusted_score_is_the_value_of_the_empty_sheet() -> None:
    """Every throw's luck summed is exactly what the optimal solitaire bot's total owes to the dice: its
    adjusted score is the exact expected total of the game, in every match."""
    seats = run_shard(_dice_spec(["dice-poker/optimal", "dice-poker/greedy"], 6, 2), 0)["seats"]
    expected = load_strategy(Rules(preset="full")).expected["expected_score"]
    for bot, score, adj in zip(seats.column("bot").to_pylist(), seats.column("score").to_pylist(),
                               seats.column("adjusted_score").to_pylist(), strict=True):
        if bot == "dice-poker/optimal":
            assert adj == pytest.approx(expected, abs=1e-6)
            assert score != pytest.approx(expected)
        else:
            assert adj != pytest.approx(float(score))


def test_pairwise_payout_and_simple_are_not_corrected() -> None:
    """The solitaire values are the values of a points total; other scores are left as they are."""
    luck = registry.game("dice-poker").luck
    assert luck is not None
    assert luck.supports(Rules(preset="full")) and luck.supports(Rules(preset="mixed"))
    assert not luck.supports(Rules(preset="full", payout="pairwise")) and not luck.supports(Rules(preset="simple"))
    seats = run_shard(_dice_spec(["dice-poker/greedy", "dice-poker/random"], 3, 1, preset="simple"), 0)["seats"]
    assert seats.column("adjusted_score").to_pylist() == [float(x) for x in seats.column("score").to_pylist()]


def test_identical_bots_adjusted_mean_and_coverage() -> None:
    """Identical greedy bots under two labels, random seating (so the two seats hold different dice): over
    100 jobs of 10 matches, the adjusted interval of A - B covers 0 in about 95% of them, and in the whole
    the adjusted and raw means of the difference differ by less than 4 combined SE."""
    jobs, per_job = 100, 10
    spec = _dice_spec([{"name": "dice-poker/greedy", "label": "A"}, {"name": "dice-poker/greedy", "label": "B"}],
                      jobs * per_job, 17, seating="random")
    seats = run_shard(spec, 0)["seats"]
    raw, adj = stats.per_deal(seats), stats.per_deal(seats, "adjusted_score")
    a, b = raw.bots.index("A"), raw.bots.index("B")
    d_raw = raw.value[:, a] - raw.value[:, b]
    d_adj = adj.value[:, a] - adj.value[:, b]
    se = math.sqrt(d_raw.var(ddof=1) / d_raw.size + d_adj.var(ddof=1) / d_adj.size)
    assert abs(d_raw.mean() - d_adj.mean()) < 4 * se
    assert d_raw.var(ddof=1) / d_adj.var(ddof=1) > 4  # the dice's luck is most of the variance
    covered = 0
    for j in range(jobs):
        st = stats.mean_interval(d_adj[j * per_job:(j + 1) * per_job])
        covered += st["ci_low"] <= 0.0 <= st["ci_high"]
    assert 88 <= covered <= 100  # 95% +- 3.3 binomial SE at 100 jobs
