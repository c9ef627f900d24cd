"""``games.core.streams.Streams``: re-pointing the Philox generator in place (``_Direct``) gives exactly the
state and the draws of numpy's documented ``state`` setter, whatever was drawn before (a partly used
buffer, a spare 32-bit half), so every row of every job is unchanged by it (tests/test_rows_golden.py)."""

from __future__ import annotations

import numpy as np

from games.core.streams import Streams, _Direct


def _draws(rng: np.random.Generator) -> list[float]:
    return [*rng.integers(0, 2**40, 3).tolist(), float(rng.random()), int(rng.integers(0, 7, dtype=np.uint32)),
            *rng.permutation(32)[:7].tolist(), float(rng.standard_normal())]


def test_the_direct_writer_is_used_and_repoints_as_the_setter_does() -> None:
    direct = Streams(np.random.SeedSequence(2026))
    setter = Streams(np.random.SeedSequence(2026))
    setter._direct = None  # the documented path: Philox.state = {...}
    assert direct._direct is not None
    for item, stream in [(0, 0), (5, 1), (5, 1), (2**40 + 3, 2), (7, 0), (0, 0)]:
        a, b = direct.at(item, stream), setter.at(item, stream)
        sa, sb = a.bit_generator.state, b.bit_generator.state
        assert sa["state"]["counter"].tolist() == sb["state"]["counter"].tolist() == [0, 0, item, stream]
        assert sa["state"]["key"].tolist() == sb["state"]["key"].tolist()
        assert (sa["buffer_pos"], sa["has_uint32"], sa["uinteger"]) == (sb["buffer_pos"], sb["has_uint32"],
                                                                         sb["uinteger"]) == (4, 0, 0)
        assert _draws(a) == _draws(b)  # and leaves both mid-buffer with a spare half for the next at()


def test_the_layout_check_refuses_a_generator_it_does_not_know() -> None:
    assert _Direct.of(np.random.Philox(1)) is not None
    assert _Direct.of(np.random.PCG64(1)) is None  # another bit generator: Streams would use the setter
