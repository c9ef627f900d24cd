"""Two-player zero-sum matrix games, solved exactly: a double oracle in C, checked by linear programming.

``solve_zero_sum`` runs ``games.quintet.fast._equilibrium.solve_game``: the subgame on a few rows and
columns is solved by a dense simplex, the whole game's best row and column replies to its strategies
are added while they beat its value by more than 1e-9 (relative to the largest payoff), so the pair
it returns is an optimal pair of the whole game. Should it give up (an iteration or pivot bound),
``solve_lp`` solves the game as one LP. Either answer is an exact optimal pair to solver tolerance;
when the game has several optimal strategies the two may return different ones.

``solve_lp`` (``games.quintet.lp``, re-exported here) solves the game as one linear program.
"""

from __future__ import annotations

import numpy.typing as npt

from games.quintet.lp import GameSolution, checked_matrix, solve_lp

__all__ = ["GameSolution", "solve_lp", "solve_zero_sum"]


def solve_zero_sum(matrix: npt.ArrayLike) -> GameSolution:
    """Solve the zero-sum game with payoff ``matrix`` (m rows, n columns) to the row player.

    Raises ``ValueError`` for an empty or non-finite matrix, ``RuntimeError`` if the LP fails.
    """
    from games.quintet.fast._equilibrium import solve_game

    m = checked_matrix(matrix)
    ok, value, x, y = solve_game(m)
    return GameSolution(float(value), x, y) if ok else solve_lp(m)


