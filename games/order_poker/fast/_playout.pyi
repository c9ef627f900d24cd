"""Type stub of the random policy over the Order Poker rules kernel (_playout.pyx)."""

from typing import Any

import numpy as np

END_RULES: tuple[str, ...]
SIMPLE_PER_SEAT: int
SOURCES_PER_SEAT: int

def play_random(
    rng: np.random.Generator, hands: Any, robot: Any, dealer: int, max_rounds: int,
    pass_prob: Any, keep_prob: Any, simple: list[Any], swaps: list[Any],
    actions: list[Any], trace: list[Any] | None = None,
) -> tuple[int, list[list[int]], list[int], int, list[int], list[int], list[bool], int, int, list[int], bool,
           int, bool, int]: ...
def play_random_summary(
    rng: np.random.Generator, hands: Any, robot: Any, dealer: int, max_rounds: int, pass_prob: Any, keep_prob: Any,
) -> tuple[int, int, int, int, bool, int, int, int, int, list[int], list[int]]: ...
