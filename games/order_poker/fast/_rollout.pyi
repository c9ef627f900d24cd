"""Type stub of the montecarlo bot's compiled play-outs (_rollout.pyx)."""

from typing import Any

import numpy as np
import numpy.typing as npt

class Rollouts:
    def __init__(self, loss: float, cont: float, p_ord: float, spite: float, threshold: float,
                 samples: int, seed_in_c: bool = True) -> None: ...
    @property
    def direct_seeding(self) -> bool: ...
    def sample_totals(self, rng: np.random.Generator, samples: int, known: Any, hidden: Any, pool: Any, robot: Any,
                      dealer: int, max_rounds: int, half_min: int, actions: npt.NDArray[np.intc],
                      candidates: npt.NDArray[np.intc], me: int, totals: npt.NDArray[np.float64]) -> None: ...
    def add_totals(self, seed: int, hands: Any, robot: Any, dealer: int, max_rounds: int,
                   half_min: int, actions: npt.NDArray[np.intc], candidates: npt.NDArray[np.intc], me: int,
                   totals: npt.NDArray[np.float64]) -> None: ...

def seat_cache(pol: Rollouts, s: int) -> tuple[tuple[int, ...], list[int], list[float]] | None: ...
def set_seat_cache(pol: Rollouts, s: int, key: Any, dist: Any, opp: Any) -> None: ...
def play_table(pol: Rollouts, rng: np.random.Generator, hands: Any, robot: Any, dealer: int, max_rounds: int,
               half_min: int, heuristic: Any, pass_prob: Any, keep_prob: Any, simple: list[Any], swaps: list[Any],
               actions: list[Any], trace: list[Any] | None = None) -> tuple[Any, ...]: ...
def play_table_summary(pol: Rollouts, rng: np.random.Generator, hands: Any, robot: Any, dealer: int,
                       max_rounds: int, half_min: int, heuristic: Any, pass_prob: Any,
                       keep_prob: Any) -> tuple[Any, ...]: ...
