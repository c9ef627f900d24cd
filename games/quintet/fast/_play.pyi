"""Type stub of the compiled play-out (games/quintet/fast/_play.pyx)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

def play(rng: np.random.Generator, held: Sequence[int], bots: Sequence[tuple[int, int]]
         ) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]: ...
def rows(rng_at: Callable[[int], np.random.Generator], held: Sequence[int], dealer: int, removed: Sequence[int],
         points: Sequence[int], rotations: Sequence[Sequence[tuple[int, int]]], categories: Sequence[str],
         luck: bool = False) -> Any: ...
def value_table() -> np.ndarray: ...
