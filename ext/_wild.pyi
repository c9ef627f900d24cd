"""Type stub of the wild-card / low-hand kernel (ext/_wild.pyx)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

CODES: tuple[str, ...]
LOW_TOP: int
WILD_SHIFT: int
RANK_KEYS: tuple[int, ...]

class WildTables:
    k: int
    maxw: int
    kind: int
    low: int
    four_flush: int
    def __init__(
        self, k: int, deck_ranks: Sequence[int], wild_ids: Sequence[int], cat_map: Sequence[int],
        straights_hi: Sequence[tuple[int, int]], straights_lo: Sequence[tuple[int, int]], kind: int, low: int,
        four_flush: bool,
    ) -> None: ...
    def value_of(self, cards: Sequence[int]) -> int: ...
    def evaluate_into(self, cards: npt.NDArray[np.uint8], out: npt.NDArray[np.int32]) -> int: ...
    def count_all(self, deck: npt.NDArray[np.uint8], first_mod: int = 1, first_rem: int = 0) -> list[int]: ...
    def sample_chunk(self, deck: npt.NDArray[np.uint8], samples: int, s0: int, s1: int) -> list[int]: ...
