"""``solve_lp``: a two-player zero-sum matrix game as one linear program (scipy's HiGHS).

The fallback of ``games.quintet.solver.solve_zero_sum`` and its tests' reference; a module of its own so
the compiled double oracle (``games.quintet.fast._equilibrium``) can fall back to it without an import cycle.

For a payoff matrix ``M`` (row player's gain, column player's loss) the row player's optimal
mixed strategy ``x`` maximises ``v`` subject to ``M^T x >= v`` componentwise, ``sum x = 1``,
``x >= 0``; ``v`` is then the value of the game. The column player's optimal strategy is the
dual solution of the same program (the multipliers of the ``M^T x >= v`` constraints), so one
LP gives both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["GameSolution", "checked_matrix", "solve_lp"]


@dataclass(frozen=True)
class GameSolution:
    """The value of a zero-sum matrix game and an optimal mixed strategy of each player."""

    value: float
    row: npt.NDArray[np.float64]
    col: npt.NDArray[np.float64]

    def exploitability(self, matrix: npt.NDArray[np.floating] | npt.NDArray[np.integer]) -> float:
        """How far the pair is from an equilibrium: best row reply to ``col`` minus best column
        reply to ``row`` (0 at an exact equilibrium; LP tolerances leave ~1e-9)."""
        m = np.asarray(matrix, dtype=np.float64)
        return float((m @ self.col).max() - (self.row @ m).min())


def checked_matrix(matrix: npt.ArrayLike) -> npt.NDArray[np.float64]:
    m = np.ascontiguousarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"a payoff matrix must be 2-D and non-empty, got shape {m.shape}")
    if not np.isfinite(m).all():
        raise ValueError("a payoff matrix must be finite")
    return m


def solve_lp(matrix: npt.ArrayLike) -> GameSolution:
    """``solve_zero_sum`` by one linear program (scipy's HiGHS; the fallback, and the test's reference)."""
    m = checked_matrix(matrix)
    rows, cols = m.shape
    # Variables (x_1..x_m, v); minimise -v.
    c = np.zeros(rows + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((cols, 1))])  # v - (M^T x)_j <= 0
    b_ub = np.zeros(cols)
    a_eq = np.ones((1, rows + 1))
    a_eq[0, -1] = 0.0
    bounds = [(0.0, None)] * rows + [(None, None)]
    from scipy.optimize import linprog  # here: scipy costs a second to import, listing bots none

    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"the matrix game LP failed: {res.message}")
    x = np.clip(res.x[:rows], 0.0, None)
    x /= x.sum()
    # HiGHS reports the duals of <= constraints as non-positive for a minimisation.
    y = np.clip(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0, None)
    y = y / y.sum() if y.sum() > 0 else np.full(cols, 1.0 / cols)
    return GameSolution(float(res.x[-1]), x, y)
