
from typing import Any

import numpy as np
import numpy.typing as npt

def play_random(rng: np.random.Generator, players: int, decks: int, bet: int, num: int, den: int, das: bool,
                h17: bool, rounds: int, keep: bool = False
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]: ...
def play_stub(rng: np.random.Generator, order: list[int], reshuffle: list[int] | None, players: int, bet: int,
              num: int, den: int, das: bool, h17: bool, bots: list[int] | None = None,
              charts: npt.NDArray[np.int8] | None = None
              ) -> tuple[list[int], list[int], bool, list[tuple[int, list[tuple[int, int, int, bool, bool]]]]]: ...
def play_shard(bits: np.random.Philox, start: int, stop: int, players: int, decks: int, bet: int, num: int, den: int,
               das: bool, h17: bool, bots: npt.NDArray[np.int32],
               luck: tuple[npt.NDArray[np.float64], ...] | None = None, charts: npt.NDArray[np.int8] | None = None
               ) -> dict[str, npt.NDArray[Any]]: ...
