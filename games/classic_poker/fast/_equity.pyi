"""Type stub of the compiled Monte Carlo loop of ``classic-poker/equity`` (games/classic_poker/fast/_equity.pyx)."""

from typing import Any

ARGSORT_FALLBACKS: int

def philox_direct() -> bool: ...
def _draw(rng: Any, samples: int, n: int) -> Any: ...

def equity(rng: Any, unseen: bytes, mine: bytes, need_me: int, opp_cards: bytes, opp_len: bytes, final: int,
           samples: int, mine_tabs: tuple[Any, Any], opp_tabs: tuple[Any, Any], kind: int, low_top: int) -> float: ...
