"""Type stub of the compiled classic-poker play-out (games/classic_poker/fast/_play.pyx)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

CODES: dict[str, int]
MAX_RAISES: int
RULES_TABLE_SIZE: int
WILD_OFFSETS: tuple[int, ...]

Result = tuple[bool, list[int], list[int], list[int], list[list[int]], bool]

def play(rng: np.random.Generator, deck: Sequence[int], reshuffle: Sequence[int], players: int, dealer: int,
         carried: Sequence[int], ante: int, opts: tuple[int, ...], trace: bool = False,
         kinds: Sequence[int] | None = None, tab: bytes | None = None
         ) -> tuple[list[int], list[int], list[int] | None, Result]: ...
def openers_of(hand: Sequence[int], opts: tuple[int, ...], tab: bytes) -> tuple[bool, int]: ...
def rules_of(hand: Sequence[int], opts: tuple[int, ...], tab: bytes, top: int = 5, ace_ok: bool = False
             ) -> tuple[int, int]: ...
def stud_of(hand: Sequence[int], opts: tuple[int, ...], tab: bytes) -> tuple[int, int]: ...
def results(rng_at: Callable[[int], np.random.Generator], deck: Sequence[int], reshuffle: Sequence[int], players: int,
            dealer: int, carried: Sequence[int], ante: int, opts: tuple[int, ...], rotations: int,
            kinds: Sequence[Sequence[int]] | None = None, tab: bytes | None = None) -> list[Any]: ...
def logged_results(rng_at: Callable[[int], np.random.Generator], deck: Sequence[int], reshuffle: Sequence[int],
                   players: int, dealer: int, carried: Sequence[int], ante: int, opts: tuple[int, ...],
                   rotations: int, kinds: Sequence[Sequence[int]] | None = None, tab: bytes | None = None
                   ) -> list[tuple[Any, list[Any]]]: ...
def corrected_results(rng_at: Callable[[int], np.random.Generator], deck: Sequence[int], reshuffle: Sequence[int],
                      players: int, dealer: int, carried: Sequence[int], ante: int, opts: tuple[int, ...],
                      rotations: int, final: int, draw: bool, orders: Callable[[int, int], np.ndarray],
                      kinds: Sequence[Sequence[int]] | None = None, tab: bytes | None = None
                      ) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray | None]: ...
def logged_hands(units: Sequence[tuple[Sequence[int], Sequence[Sequence[Any]]]], players: int, final: int, draw: bool,
                 orders: Callable[[int, int], np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None: ...
def luck_terms(meta: np.ndarray, index: np.ndarray | None, high: np.ndarray, low: np.ndarray | None, weight: float,
               rotations: int, players: int) -> list[list[float]]: ...
