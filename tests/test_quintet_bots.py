"""Quintet bots and the zero-sum solver: known game values, valid layouts, the K x K payoff matrix."""

from __future__ import annotations

import numpy as np
import pytest

from games.core import registry
from games.quintet import Rules, State
from games.quintet.construct import layout_array, partition, sacrifice, strongest_last
from games.quintet.equilibrium import EquilibriumBot
from games.quintet.layout import layouts_values, margin_matrix
from games.quintet.solver import solve_zero_sum


def test_matching_pennies_has_value_zero_and_uniform_strategies() -> None:
    sol = solve_zero_sum([[1, -1], [-1, 1]])
    assert sol.value == pytest.approx(0.0, abs=1e-9)
    assert sol.row == pytest.approx([0.5, 0.5]) and sol.col == pytest.approx([0.5, 0.5])


def test_a_2x2_game_without_saddle_point() -> None:
    # [[3, -1], [-2, 1]]: by hand, v = (3*1 - (-1)(-2)) / (3 + 1 + 2 + 1) = 1/7,
    # the row player mixes (3/7, 4/7) and the column player (2/7, 5/7).
    sol = solve_zero_sum([[3, -1], [-2, 1]])
    assert sol.value == pytest.approx(1 / 7, abs=1e-9)
    assert sol.row == pytest.approx([3 / 7, 4 / 7], abs=1e-9)
    assert sol.col == pytest.approx([2 / 7, 5 / 7], abs=1e-9)
    assert sol.exploitability([[3, -1], [-2, 1]]) == pytest.approx(0.0, abs=1e-9)


def test_a_3x3_game_with_a_saddle_point_and_a_shifted_rock_paper_scissors() -> None:
    # Row 1's minimum (2) equals column 2's maximum (2): a saddle point, value 2, pure strategies.
    sol = solve_zero_sum([[4, 2, 3], [1, 0, 5], [3, 1, 2]])
    assert sol.value == pytest.approx(2.0, abs=1e-9)
    assert sol.row == pytest.approx([1, 0, 0], abs=1e-9) and sol.col == pytest.approx([0, 1, 0], abs=1e-9)
    # Rock-paper-scissors plus 5 everywhere: value 5, uniform play.
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]) + 5
    sol = solve_zero_sum(rps)
    assert sol.value == pytest.approx(5.0, abs=1e-9) and sol.row == pytest.approx([1 / 3] * 3, abs=1e-9)
    with pytest.raises(ValueError, match="2-D"):
        solve_zero_sum([1, 2, 3])


def test_bots_are_registered_with_schemas_and_check_their_parameters() -> None:
    names = sorted(n for n in registry.bots("quintet") if n.startswith("quintet/"))  # not openspiel/ismcts
    assert names == ["quintet/blotto", "quintet/equilibrium", "quintet/greedy", "quintet/random"]
    assert registry.get("quintet/equilibrium").schema["properties"]["k"]["default"] == 200
    with pytest.raises(ValueError, match="sacrifice"):
        registry.make("quintet/blotto", {"sacrifice": 6})
    with pytest.raises(ValueError, match="k must be"):
        registry.make("quintet/equilibrium", {"k": 2})
    with pytest.raises(ValueError, match="unknown parameter"):
        registry.make("quintet/greedy", {"depth": 2})


def test_every_bot_lays_a_valid_layout_from_its_view_deterministically() -> None:
    st = State.deal(Rules(), 2, 0, np.random.default_rng(31))
    for name, params in [("random", {}), ("greedy", {}), ("blotto", {"sacrifice": "random"}),
                         ("equilibrium", {"k": 25})]:
        lays = [registry.make(f"quintet/{name}", params).act(st.view(0), st.legal_actions(),
                                                             np.random.default_rng(32)) for _ in range(2)]
        assert lays[0] == lays[1], name
        assert lays[0] in st.legal_actions(), name
        assert sorted(c for p in lays[0] for c in p) == sorted(st.held)


def test_greedy_puts_the_strongest_packet_in_slot_5_and_blotto_sacrifices_the_weakest() -> None:
    st = State.deal(Rules(), 2, 0, np.random.default_rng(41))
    part = partition(st.held)
    assert list(part[1]) == sorted(part[1], reverse=True)  # strongest first
    greedy = registry.make("quintet/greedy").act(st.view(0), st.legal_actions(), np.random.default_rng(0))
    assert greedy == strongest_last(part)
    vals = layouts_values(layout_array([greedy]))[0].tolist()
    assert vals == sorted(vals)  # the weakest packet scores 3, the strongest 7
    blotto = registry.make("quintet/blotto").act(st.view(0), st.legal_actions(), np.random.default_rng(0))
    assert blotto == sacrifice(part, 5)
    assert blotto[4] == part[0][4] and blotto[:4] == greedy[1:]  # the others each move down a slot


def test_payoff_matrix_matches_the_engine_and_the_mixture_is_never_beaten_by_a_candidate() -> None:
    st = State.deal(Rules(), 2, 1, np.random.default_rng(51))
    bot = EquilibriumBot(k=40, report=True)
    cand, _parts, sol = bot.solve(st.held, Rules().points, np.random.default_rng(52))
    assert len(cand) == 40 and len({tuple(map(tuple, map(sorted, lay))) for lay in cand.layouts}) == 40
    vals = cand.values()
    m = margin_matrix(vals, vals, Rules().points)
    rng = np.random.default_rng(53)
    for i, j in rng.integers(0, 40, size=(12, 2)).tolist():  # batched margins = the engine's scores
        game = State.from_removed(Rules(), 1, list(st.removed))
        game.apply(cand.layouts[i])
        game.apply(cand.layouts[j])
        assert m[i, j] == game.scores()[0] - game.scores()[1]
    assert (m == -m.T).all()  # zero-sum and symmetric: both seats hold the same cards
    # A symmetric zero-sum game has value 0, and the optimal mixture loses to no candidate.
    assert sol.value == pytest.approx(0.0, abs=1e-7)
    assert (sol.row @ m).min() >= -1e-7
    bot.act(st.view(0), st.legal_actions(), np.random.default_rng(54))
    rep = bot.last_report
    assert rep is not None and rep["k"] == 40 and rep["value"] == pytest.approx(0.0, abs=1e-7)
    ex = rep["exploitability"]
    # Greedy's layout is candidate 0, so a candidate's best margin against it is at least 0 (itself).
    assert ex["greedy"] >= 0 and ex["blotto"] >= 0 and ex["random"] > ex["greedy"]
    assert ex["equilibrium"] >= -1e-7
