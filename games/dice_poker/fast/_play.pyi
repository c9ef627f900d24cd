"""Type stub of the compiled play-out (games/dice_poker/fast/_play.pyx)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

CATEGORY_NAMES: tuple[str, ...]

class Optimal:
    def __init__(self, parts: Sequence[tuple[Any, ...]], turn: tuple[Any, ...], keeps: tuple[Any, ...],
                 locked: bool) -> None: ...

def play(rng: np.random.Generator, faces: tuple[int, ...], players: int, first: int, opts: tuple[Any, ...],
         bots: Sequence[int], trace: bool = False, optimal: Optimal | None = None
         ) -> tuple[list[int], list[int], list[tuple[int, int]] | None]: ...
def rows(rng_at: Callable[[int], np.random.Generator], faces: tuple[int, ...], players: int, first: int,
         opts: tuple[Any, ...], rotations: Sequence[Sequence[int]], preset: str,
         optimal: Optimal | None = None, luck: Optimal | None = None) -> Any: ...
def deal_faces(bits: np.random.Philox, item: int, count: int) -> np.ndarray: ...
def play_shard(bits: np.random.Philox, start: int, stop: int, players: int, firsts: np.ndarray, opts: tuple[Any, ...],
               bots: np.ndarray, per_game: int, optimal: Optimal | None = None,
               luck: Optimal | None = None) -> dict[str, np.ndarray]: ...
