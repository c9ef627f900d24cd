"""Type stub of the hand-evaluation kernel (ext/_handeval.pyx): plain and wild-card tables."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

RANK_KEYS: tuple[int, ...]
CODES: tuple[str, ...]
LOW_TOP: int
WILD_SHIFT: int
WILD_HASH_SHIFT: int

class Tables:
    k: int
    nranks: int
    nfh_array: npt.NDArray[np.int32]
    offs_array: npt.NDArray[np.uint32]
    fl_array: npt.NDArray[np.int32]
    def __init__(
        self, k: int, deck_ranks: Sequence[int], cat_map: Sequence[int],
        straights: Sequence[tuple[int, int]], tb_style: int,
    ) -> None: ...
    def evaluate_into(self, cards: npt.NDArray[np.uint8], out: npt.NDArray[np.int32]) -> int: ...
    def count_all(self, deck: npt.NDArray[np.uint8], first_mod: int = 1, first_rem: int = 0) -> list[int]: ...
    def sample_chunk(self, deck: npt.NDArray[np.uint8], samples: int, s0: int, s1: int) -> list[int]: ...
    def value_of(self, cards: Sequence[int]) -> int: ...
    def swap_values(self, hand: Sequence[int], other: Sequence[int]) -> tuple[list[int], list[int]]: ...

class WildTables:
    k: int
    maxw: int
    kind: int
    low: int
    four_flush: int
    nfh_array: npt.NDArray[np.int32]
    nfx_array: npt.NDArray[np.uint16]
    nfv_array: npt.NDArray[np.int32]
    offs_array: npt.NDArray[np.uint32]
    fl_array: npt.NDArray[np.int32]
    ff_array: npt.NDArray[np.int32]
    def __init__(
        self, k: int, deck_ranks: Sequence[int], wild_ids: Sequence[int], cat_map: Sequence[int],
        straights_hi: Sequence[tuple[int, int]], straights_lo: Sequence[tuple[int, int]], kind: int, low: int,
        four_flush: bool,
    ) -> None: ...
    def value_of(self, cards: Sequence[int]) -> int: ...
    def evaluate_into(self, cards: npt.NDArray[np.uint8], out: npt.NDArray[np.int32]) -> int: ...
    def count_all(self, deck: npt.NDArray[np.uint8], first_mod: int = 1, first_rem: int = 0) -> list[int]: ...
    def sample_chunk(self, deck: npt.NDArray[np.uint8], samples: int, s0: int, s1: int) -> list[int]: ...
def evaluate_pair(high: Tables | WildTables, low: WildTables | None, cards: npt.NDArray[np.uint8],
                  out_high: npt.NDArray[np.int64], out_low: npt.NDArray[np.int64], low_top: int) -> int: ...
