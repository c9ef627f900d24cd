"""The equilibrium bot's compiled candidates and game solver (games/quintet/fast/_equilibrium.pyx) against the
readable steps (games/quintet/equilibrium.py, construct.py) and scipy's LP (games/quintet/solver.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from games.quintet.bots import BlottoBot, GreedyBot
from games.quintet.construct import partition, sacrifice, strongest_last
from games.quintet.equilibrium import ORACLE_ROUNDS, EquilibriumBot, build_candidates
from games.quintet.fast._equilibrium import candidates, greedy_partition, solve_game
from games.quintet.layout import check_layout, margin_matrix
from games.quintet.rules import Rules
from games.quintet.solver import solve_lp, solve_zero_sum
from games.quintet.state import State


def _held(seed: int) -> tuple[int, ...]:
    return State.deal(Rules(), 2, 0, np.random.default_rng(seed)).held


@pytest.mark.parametrize("k, partitions, rounds, points", [
    (200, None, ORACLE_ROUNDS, (3, 4, 5, 6, 7)),
    (50, None, ORACLE_ROUNDS, (3, 4, 5, 6, 7)),
    (30, 3, 1, (1, 0, 2, 0, 9)),
    (5, 1, 0, (3, 4, 5, 6, 7)),
])
def test_compiled_candidates_are_the_readable_ones(k: int, partitions: int | None, rounds: int,
                                                   points: tuple[int, ...]) -> None:
    """Same candidates in the same order, values, strategies of the K x K game, partitions and generator
    state afterwards, deal after deal."""
    deals = 12 if k >= 200 else 20
    for d in range(deals):
        held = _held(d)
        count = partitions or max(8, k // 5)
        r1, r2 = np.random.default_rng([5, d]), np.random.default_rng([5, d])
        cand, parts = build_candidates(held, points, k, r1, count, rounds)
        vals = cand.values()
        sol = solve_zero_sum(margin_matrix(vals, vals, points))
        lay, values, row, col, nparts = candidates(r2, held, points, k, count, rounds)
        assert lay.tolist() == [[list(p) for p in layout] for layout in cand.layouts]
        assert np.array_equal(values, vals)
        assert np.array_equal(row, sol.row) and np.array_equal(col, sol.col)
        assert nparts == len(parts)
        assert r1.bit_generator.state == r2.bit_generator.state


def test_the_bot_plays_the_readable_steps_layout() -> None:
    """``act`` (compiled) lays out what the readable path (``report: true``) lays out from the same draws."""
    fast, readable = EquilibriumBot(k=60), EquilibriumBot(k=60, report=True)
    for d in range(15):
        st = State.deal(Rules(), 2, d % 2, np.random.default_rng(d))
        a = fast.act(st.view(0), st.legal_actions(), np.random.default_rng([9, d]))
        b = readable.act(st.view(0), st.legal_actions(), np.random.default_rng([9, d]))
        assert a == b
        assert check_layout(a, st.held) == a


def test_greedy_partition_is_construct_partition() -> None:
    """The rule-based bots' compiled partition is ``construct.partition``'s, and so are their layouts."""
    for d in range(150):
        held = _held(1000 + d)
        assert greedy_partition(held) == partition(held)
    st = State.deal(Rules(), 2, 0, np.random.default_rng(3))
    part = partition(st.held)
    assert GreedyBot().act(st.view(0), st.legal_actions(), np.random.default_rng(0)) == strongest_last(part)
    assert BlottoBot(3).act(st.view(0), st.legal_actions(), np.random.default_rng(0)) == sacrifice(part, 3)


def _check_optimal(m: np.ndarray) -> None:
    ok, value, x, y = solve_game(m)
    assert ok
    lp = solve_lp(m)
    assert value == pytest.approx(lp.value, abs=1e-7)
    for p in (x, y):
        assert p.min() >= 0.0 and p.sum() == pytest.approx(1.0, abs=1e-12)
    # optimal pair: no row beats the value against y, no column concedes more than it against x
    assert (m @ y).max() <= value + 1e-7 and (x @ m).min() >= value - 1e-7
    sol = solve_zero_sum(m)
    assert sol.value == value and np.array_equal(sol.row, x) and np.array_equal(sol.col, y)


def test_solver_is_exact_on_random_games() -> None:
    """Rectangular and symmetric (skew-symmetric) integer games: the LP's value, an optimal pair."""
    rng = np.random.default_rng(2026)
    for t in range(150):
        if t % 2:
            n = int(rng.integers(1, 40))
            m = np.triu(rng.integers(-25, 26, (n, n)), 1).astype(np.float64)
            m = m - m.T
        else:
            rows, cols = rng.integers(1, 30, 2)
            m = rng.integers(-5, 6, (rows, cols)).astype(np.float64)
        _check_optimal(m)


def test_solver_on_known_and_degenerate_games() -> None:
    """Matching pennies (value 0, 1/2 each), rock-paper-scissors (1/3 each), a 1 x 1 game, a constant game,
    duplicated rows and columns, a dominated row."""
    ok, v, x, y = solve_game(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert ok and v == pytest.approx(0.0, abs=1e-12)
    assert x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    ok, v, x, y = solve_game(np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]))
    assert ok and v == pytest.approx(0.0, abs=1e-12) and x == pytest.approx([1 / 3] * 3)
    ok, v, x, y = solve_game(np.array([[4.0]]))
    assert ok and v == 4.0 and x.tolist() == [1.0] and y.tolist() == [1.0]
    for m in (np.full((4, 3), 2.0), np.array([[3.0, 1.0], [3.0, 1.0], [1.0, 2.0], [0.0, 0.0]]),
              np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])):
        _check_optimal(m)


def test_solver_on_the_bots_games() -> None:
    """The K x K games of real deals (many equal rows: layouts with the same values)."""
    for d in range(6):
        held = _held(d)
        cand, _ = build_candidates(held, (3, 4, 5, 6, 7), 120, np.random.default_rng(d))
        vals = cand.values()
        _check_optimal(margin_matrix(vals, vals, (3, 4, 5, 6, 7)).astype(np.float64))


def test_solver_on_games_that_once_needed_the_lp() -> None:
    """Two K x K games of an equilibrium-vs-greedy job (100 x 100 and 200 x 200, margins as int8) where a
    simplex pivot on a rounding residue (an entry under 1e-9) left the subgame's strategies off by up to
    1e-3 and the oracle gave up: solved by the oracle now, optimal."""
    with np.load(Path(__file__).parent / "quintet_oracle_games.npz") as f:
        games = [f[name].astype(np.float64) for name in sorted(f.files)]
    assert [g.shape for g in games] == [(100, 100), (200, 200)]
    for m in games:
        _check_optimal(m)


def test_check_layout_accepts_and_rejects_as_before() -> None:
    """The fast acceptance of a bot's tuple layout and the full checks agree."""
    from games.core.protocol import IllegalAction

    held = _held(11)
    lay = strongest_last(partition(held))
    assert check_layout(lay, held) == lay
    assert check_layout([list(p) for p in lay], held) == lay
    bad = ((*lay[0][:4], lay[1][0]), *lay[1:])  # a card twice, one missing
    with pytest.raises(IllegalAction, match="again in packet"):
        check_layout(bad, held)
    with pytest.raises(IllegalAction, match="is not a card"):
        check_layout(((True, *lay[0][1:]), *lay[1:]), held)
