from collections.abc import Sequence
from typing import Any

import numpy as np

PHASES: tuple[str, ...]
KINDS: tuple[str, ...]
MODES: tuple[str, ...]
RANDOM: int
HEURISTIC: int

class Match:
    def __init__(self, opts: dict[str, int], ladder: list[int], players: int, dealer: int,
                 decks: Sequence[Sequence[int]], names: Sequence[str]) -> None: ...
    def actions(self, bots: Sequence[int], rng: np.random.Generator, trace: bool = ...) -> Any: ...
    def rows(self, bots: Sequence[int], rng: np.random.Generator
             ) -> tuple[list[tuple[int, tuple[Any, ...]]], list[tuple[Any, ...]]]: ...
