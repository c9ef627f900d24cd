import numpy as np
from numpy.typing import NDArray

def plackett_luce(values: NDArray[np.float64], present: NDArray[np.uint8], mu: NDArray[np.float64],
                  sigma: NDArray[np.float64], games: NDArray[np.int64], beta: float, kappa: float) -> None: ...
