from collections.abc import Sequence
from typing import Any

import numpy as np

PHASES: tuple[str, ...]
KINDS: tuple[str, ...]
MODES: tuple[str, ...]

class Match:
    def __init__(self, opts: dict[str, int], ladder: list[int], players: int, dealer: int,
                 decks: Sequence[Sequence[int]], names: Sequence[str]) -> None: ...
    def actions(self, rng: np.random.Generator, trace: bool = ...) -> Any: ...
    def rows(self, rng: np.random.Generator) -> tuple[list[tuple[int, tuple[Any, ...]]], list[tuple[Any, ...]]]: ...
