from typing import Any

import numpy as np

def play_stub(rng: np.random.Generator, order: list[int], reshuffle: list[int] | None, players: int, dealer: int,
              bots: list[int], opts: tuple[int, ...]) -> list[tuple[int, int, int]]: ...
def play_rows(rng: np.random.Generator, order: list[int], reshuffle: list[int] | None, players: int, dealer: int,
              bots: list[int], opts: tuple[int, ...], cards: tuple[str, ...]
              ) -> tuple[list[tuple[int, tuple[Any, ...]]], list[tuple[Any, ...]]]: ...
