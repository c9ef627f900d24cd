"""Type stub of the C play-out of random Order Poker deals (ext/_orderpoker.pyx)."""

from typing import Any

import numpy as np

END_RULES: tuple[str, ...]
A_PASS: int
A_FOR: int
A_AGAINST: int
A_KEEP: int
A_STOP: int
SIMPLE_PER_SEAT: int
SOURCES_PER_SEAT: int

def category_of(cards: Any) -> int: ...
def play_random(
    rng: np.random.Generator, hands: list[list[int]], robot: list[int], dealer: int, max_rounds: int,
    pass_prob: list[float], keep_prob: list[float | None], simple: list[Any], swaps: list[list[Any]],
    actions: list[Any],
) -> tuple[int, int, int, int, int, bool, bool, int, list[int], list[int], list[bool], list[int]]: ...
def subset_categories(pool: Any, subsets: Any, out: Any) -> None: ...
def one_swap_reach(unknown: Any, robot: Any, keys: Any, out: Any) -> None: ...
def split_costs(hand: Any, robot: Any, rc: int) -> tuple[list[int], list[int]]: ...
def opponent_target(
    hand: Any, robot: Any, order: int, rc: int, v_own: float, v_match: float, half_min: int, cont: float,
) -> list[int] | None: ...
def cheapest_plan(hand: Any, other: Any, order: int) -> tuple[float, list[int]] | None: ...
def legal_robot_swaps(hand: Any, robot: Any, rc: int, table: list[Any], out: list[Any]) -> None: ...
