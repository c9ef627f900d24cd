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
