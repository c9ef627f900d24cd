"""The exact solver (DP-10.4, DP-10.5): the one-turn figures, brute force on one- and two-line
sub-games, the cache, ``rasklad solve`` and the optimal bot's Monte Carlo against its exact figure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games.dice_poker import scoring
from games.dice_poker.optimal import OptimalBot
from games.dice_poker.rules import Rules
from games.dice_poker.solver import Strategy, SubGame, solve, strategy
from games.dice_poker.state import State
from games.dice_poker.turn import solve_turn, tables

sys.path.insert(0, str(Path(__file__).resolve().parent))
from brute import brute

#: DP-10.4: best chance to make a line in one turn playing only for it, (free, locked)
DP_10_4 = {"poker": (0.046029, 0.045657), "four": (0.290794, 0.287072), "full_house": (0.362883, 0.362883),
           "small_straight": (0.196829, 0.196829), "large_straight": (0.196829, 0.196829),
           "three": (0.743195, 0.743195), "two_pairs": (0.742419, 0.742419), "pair": (0.999206, 0.999206)}


@pytest.mark.parametrize("line", sorted(DP_10_4))
def test_dp_10_4_one_turn_chances(line: str) -> None:
    t = tables()
    w = np.array([[float(scoring.base_score(line, ms) > 0) for ms in t.ms5]])
    free, locked = (round(float(solve_turn(w, w, lk).value[0]), 6) for lk in (False, True))
    assert (free, locked) == DP_10_4[line]


def test_dp_10_4_poker_exact_and_chance() -> None:
    t = tables()
    w = np.array([[float(scoring.base_score("poker", ms) > 0) for ms in t.ms5]])
    assert abs(float(solve_turn(w, w, False).value[0]) - 2_783_176 / 60_466_176) < 1e-12
    c = np.array([[float(sum(ms)) for ms in t.ms5]])
    for locked in (False, True):
        assert round(float(solve_turn(c, c, locked).value[0]), 4) == 23.3333


@pytest.mark.parametrize("preset, options, lines, fixed", [
    ("full", {}, ("poker",), False),
    ("full", {}, ("chance",), False),
    ("full", {"first_throw_double": "except_chance"}, ("chance",), False),
    ("full", {}, ("sixes",), False),
    ("mixed", {"reroll_rule": "free"}, ("large_straight",), False),
    ("full", {}, ("pair", "chance"), False),
    ("full", {"poker_bonus": 0}, ("poker", "four"), False),
    ("full", {"school_bonus": "both"}, ("ones", "twos"), True),
    ("mixed", {"reroll_rule": "free"}, ("fives", "sixes"), False),
    ("mixed", {}, ("fours", "small_straight"), False),
    ("mixed", {"school_bonus": "minus"}, ("threes", "full_house"), False),
])
def test_solver_matches_brute_force(preset: str, options: dict[str, object], lines: tuple[str, ...],
                                    fixed: bool) -> None:
    rules = Rules(preset=preset, **options)  # type: ignore[arg-type]
    assert SubGame(rules, lines, fixed_order=fixed).solve() == pytest.approx(brute(rules, lines, fixed), abs=1e-9)


def test_full_is_school_plus_main_and_the_cache_round_trips(tmp_path: Path) -> None:
    rules = Rules(preset="full")
    st = strategy(rules, str(tmp_path))
    exp = st.expected
    assert exp["expected_score"] == pytest.approx(exp["expected_school"] + exp["expected_main"])
    assert round(exp["expected_score"], 4) == 173.1764
    (path,) = tmp_path.glob("dice-poker-full-*.npz")
    again = Strategy.load(rules, path)
    assert again.expected == exp
    with pytest.raises(ValueError):
        Strategy.load(Rules(preset="full", poker_bonus=0), path)


def test_optimal_monte_carlo_within_its_interval(tmp_path: Path) -> None:
    """DP-10.5: the optimal bot reproduces its exact figure (seeded; the full run is in benchmarks/)."""
    rules = Rules(preset="full")
    exact = strategy(rules, str(tmp_path)).expected["expected_score"]
    bot = OptimalBot(cache_dir=str(tmp_path))
    rng = np.random.default_rng(2024)
    scores = []
    for _ in range(300):
        st = State.deal(rules, 1, 0, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(0), st.legal_actions(), rng))
        scores.append(st.scores()[0])
    mean, se = float(np.mean(scores)), float(np.std(scores, ddof=1) / np.sqrt(len(scores)))
    assert abs(mean - exact) < 1.96 * se


@pytest.mark.parametrize("options", [{"preset": "full", "school_order": "fixed", "reroll_rule": "free"},
                                     {"preset": "full", "school_bonus": "both"}])
def test_optimal_plays_legal_games_and_beats_greedy(tmp_path: Path, options: dict[str, object]) -> None:
    from games.dice_poker.bots import GreedyBot

    rules = Rules(**options)  # type: ignore[arg-type]
    bots = [OptimalBot(cache_dir=str(tmp_path)), GreedyBot()]
    rng = np.random.default_rng(9)
    diff = []
    for _ in range(30):
        st = State.deal(rules, 2, 0, rng)
        while not st.is_over():
            st.apply(bots[st.to_act()].act(st.view(st.to_act()), st.legal_actions(), rng))
        diff.append(st.scores()[0] - st.scores()[1])
    assert np.mean(diff) > 0


def test_small_mixed_subgame_and_simple_is_refused() -> None:
    with pytest.raises(ValueError):
        solve(Rules(preset="simple"))


def test_rasklad_solve_json(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "rasklad", "solve", "dice-poker", "--preset", "full", "--option",
                        "school_bonus=both", "--option", "reroll_rule=free", "--json", "--cache-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, env={**os.environ})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["rules"]["school_bonus"] == "both" and out["rules"]["reroll_rule"] == "free"
    assert out["expected_score"] == pytest.approx(out["expected_school"] + out["expected_main"])
    bad = subprocess.run([sys.executable, "-m", "rasklad", "solve", "dice-poker", "--preset", "full", "--option",
                          "kickers=false"], capture_output=True, text=True, timeout=300, env={**os.environ})
    assert bad.returncode == 2 and "DP-8" in bad.stderr
    # One NAME=VALUE per --option (a repeated option collects, SolveOption.multiple): no comma lists.
    comma = subprocess.run([sys.executable, "-m", "rasklad", "solve", "dice-poker", "--preset", "full", "--option",
                            "school_bonus=both,reroll_rule=free"], capture_output=True, text=True, timeout=300,
                           env={**os.environ})
    assert comma.returncode == 2 and "school_bonus" in comma.stderr, comma.stderr


@pytest.mark.parametrize("locked", [False, True])
def test_compiled_turn_kernel_matches_numpy(locked: bool) -> None:
    from games.dice_poker.fast._turn import turn_values as kernel  # noqa: F401  (built by setup.py)
    from games.dice_poker.turn import turn_values

    rng = np.random.default_rng(1)
    w1, w23 = rng.normal(size=(50, 252)) * 20, rng.normal(size=(50, 252)) * 20
    assert np.allclose(turn_values(w1, w23, locked), solve_turn(w1, w23, locked).value, atol=1e-9)


def test_compiled_write_values_match_numpy() -> None:
    rules = Rules(preset="mixed", school_bonus="both")
    g = SubGame(rules, ("ones", "twos", "pair", "poker"))
    g.solve()
    for mask in (0, 1, 2, 5, 12):
        lo, vals = g.value(mask)
        s = np.arange(lo, lo + len(vals))
        allowed = np.full(len(s), sum(1 << i for i in g.allowed(mask)), dtype=np.int64)
        c1, c23 = g._write_rows(np.full(len(s), mask, dtype=np.int64), s.astype(np.int64), allowed)
        n1, n23 = g.write_values(mask, s)
        assert np.allclose(c1, n1) and np.allclose(c23, n23)


def test_questions_reproduce_dp_10() -> None:
    from games.core import registry
    from games.dice_poker.questions import REACH_N

    qs = registry.game("dice-poker").questions
    seed = np.random.SeedSequence(1)
    q = qs["dice-poker-categories"]
    a = q.run({}, "exact", 0, 4000, seed)
    b = q.run({}, "exact", 4000, 3776, seed)
    cats = {k: c1 + c2 for (k, c1, _), (_, c2, _) in zip(a["categories"], b["categories"], strict=True)}
    assert cats["straight"] == 240 and cats["none"] == 480 and sum(cats.values()) == 7776
    lines = {k: c1 + c2 for (k, c1, _), (_, c2, _) in zip(a["lines"], b["lines"], strict=True)}
    assert lines["pair"] == 7056 and lines["two_pairs"] == 2100
    rows = qs["dice-poker-reach"].run({"reroll_rule": "free"}, "exact", 0, 8, seed)["reach"]
    reach = {line: c for line, c, _ in rows}
    assert reach["poker"] == 2_783_176 * 6 ** 5 and round(reach["four"] / REACH_N, 6) == 0.290794
    assert qs["dice-poker-reach"].check({}, "sample")
    scores = qs["dice-poker-optimal-score"].run({"preset": "full"}, "sample", 0, 5, seed)["scores"]
    assert sum(c for _, c, _ in scores) == 5


def test_optimal_race_reproduces_its_exact_value_and_beats_greedy() -> None:
    from games.dice_poker.bots import GreedyBot
    from games.dice_poker.race import RaceBot, game_value

    rules = Rules(preset="simple")
    exact = game_value(rules)
    assert -0.08 < exact < -0.06  # the later player, who knows the hand to beat, is ahead
    rng = np.random.default_rng(5)
    race = RaceBot()
    for pair, games in (((race, race), 2500), ((race, GreedyBot()), 800), ((GreedyBot(), race), 800)):
        scores = []
        for _ in range(games):
            st = State.deal(rules, 2, 0, rng)
            while not st.is_over():
                s = st.to_act()
                st.apply(pair[s].act(st.view(s), st.legal_actions(), rng))
            scores.append(st.scores()[0])
        mean, se = float(np.mean(scores)), float(np.std(scores, ddof=1) / np.sqrt(games))
        if pair[1] is race and pair[0] is race:
            assert abs(mean - exact) < 1.96 * se
        elif pair[0] is race:
            assert mean > exact  # greedy second does worse than the optimal second player
        else:
            assert mean < exact


def test_optimal_race_with_rethrows_and_more_players() -> None:
    from games.dice_poker.race import RaceBot, game_value

    assert game_value(Rules(preset="simple", tie_rule="rethrow")) != game_value(Rules(preset="simple"))
    rng = np.random.default_rng(6)
    rules = Rules(preset="simple", tie_rule="rethrow", kickers=False)
    bot = RaceBot()
    for _ in range(30):
        st = State.deal(rules, 4, 1, rng)
        while not st.is_over():
            s = st.to_act()
            st.apply(bot.act(st.view(s), st.legal_actions(), rng))
        assert sum(st.scores()) == 0
