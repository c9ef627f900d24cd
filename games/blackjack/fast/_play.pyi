
import numpy as np
import numpy.typing as npt

def play_random(rng: np.random.Generator, players: int, decks: int, bet: int, num: int, den: int, das: bool,
                h17: bool, rounds: int, keep: bool = False
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]: ...
def play_stub(rng: np.random.Generator, order: list[int], reshuffle: list[int] | None, players: int, bet: int,
              num: int, den: int, das: bool, h17: bool
              ) -> tuple[list[int], list[int], bool, list[tuple[int, list[tuple[int, int, int, bool, bool]]]]]: ...
