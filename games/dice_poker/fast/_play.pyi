"""Type stub of the compiled play-out (games/dice_poker/fast/_play.pyx)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

CATEGORY_NAMES: tuple[str, ...]

def play(rng: np.random.Generator, faces: tuple[int, ...], players: int, first: int, opts: tuple[Any, ...],
         bots: Sequence[int], trace: bool = False
         ) -> tuple[list[int], list[int], list[tuple[int, int]] | None]: ...
def rows(rng_at: Callable[[int], np.random.Generator], faces: tuple[int, ...], players: int, first: int,
         opts: tuple[Any, ...], rotations: Sequence[Sequence[int]], preset: str) -> list[Any]: ...
