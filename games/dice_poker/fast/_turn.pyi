"""Type stub of the compiled turn solution (games/dice_poker/fast/_turn.pyx)."""

from typing import Any

def turn_values(wv1: Any, wv23: Any, locked: bool, o_ms: Any, o_p: Any, o_start: Any, k_drop: Any, ms_drop: Any,
                p1: Any, p_e3: Any, p_drop: Any, l_ms: Any, l_p: Any, l_drop: Any, l_start: Any, out: Any,
                e3_out: Any = None, e2_out: Any = None) -> None: ...
def write_values(masks: Any, sums: Any, allowed: Any, vflat: Any, voff: Any, vlo: Any, vlen: Any, gidx: Any,
                 face: Any, class_bits: int, sc1: Any, sc23: Any, counts: Any, bonus: Any, bonus_zero: int,
                 wv1: Any, wv23: Any) -> None: ...
def turn_moments(wv1: Any, wv23: Any, q1: Any, q23: Any, locked: bool, o_ms: Any, o_p: Any, o_start: Any,
                 k_drop: Any, ms_drop: Any, p1: Any, p_e3: Any, p_drop: Any, l_ms: Any, l_p: Any, l_drop: Any,
                 l_start: Any, out: Any) -> None: ...
def write_moments(masks: Any, sums: Any, allowed: Any, vflat: Any, m2flat: Any, voff: Any, vlo: Any, vlen: Any,
                  gidx: Any, face: Any, class_bits: int, sc1: Any, sc23: Any, counts: Any, bonus: Any,
                  bonus_zero: int, wv1: Any, wv23: Any, q1: Any, q23: Any) -> None: ...
