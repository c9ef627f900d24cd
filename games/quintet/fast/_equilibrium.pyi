"""Type stub of the equilibrium bot's compiled candidates and game solver (games/quintet/fast/_equilibrium.pyx)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

def solve_game(matrix: npt.ArrayLike) -> tuple[bool, float, npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def candidates(rng: np.random.Generator, held: tuple[int, ...], points: Sequence[int], k: int, count: int,
               oracle_rounds: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float64],
                                            npt.NDArray[np.float64], int]: ...
def greedy_partition(held: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]: ...
