"""Type stub of the compiled turn solution (games/dice_poker/fast/_turn.pyx)."""

from typing import Any

def turn_values(wv1: Any, wv23: Any, locked: bool, o_ms: Any, o_p: Any, o_start: Any, k_drop: Any, ms_drop: Any,
                p1: Any, p_e3: Any, p_drop: Any, l_ms: Any, l_p: Any, l_drop: Any, l_start: Any, out: Any) -> None: ...
