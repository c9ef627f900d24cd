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
                 decks: Sequence[Sequence[int]] | np.ndarray, names: Sequence[str]) -> None: ...
    def actions(self, bots: Sequence[int], rng: np.random.Generator, trace: bool = ...) -> Any: ...
    def rows(self, bots: Sequence[int], rng: np.random.Generator
             ) -> tuple[list[tuple[int, tuple[Any, ...]]], list[tuple[Any, ...]]]: ...
    def play_into(self, out: Shard, bots: Sequence[int], rng: np.random.Generator) -> None: ...

class Shard:
    players: int
    def __init__(self, players: int) -> None: ...
    def columns(self) -> dict[str, np.ndarray]: ...
