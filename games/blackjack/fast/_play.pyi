
import numpy as np
import numpy.typing as npt

def play_random(rng: np.random.Generator, players: int, decks: int, bet: int, num: int, den: int, das: bool,
                h17: bool, rounds: int, keep: bool = False
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]: ...
