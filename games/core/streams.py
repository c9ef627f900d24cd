"""``Streams``: one counter-based generator re-pointed at numbered streams of a seed sequence.

The randomness contract (docs/jobs.md, "Randomness and shards"; ``sims.run``): the 128-bit key of a
Philox generator is drawn from a ``SeedSequence`` (a tournament's ``deal_seed``, a deal-stats shard's
seed); item i (a tournament's global deal, a shard's local sample) then draws from the stream with
counter words ``(0, 0, i, s)`` for its sub-stream s. So what item i draws is a pure function of
(seed sequence, i, s), whatever ran before it. Philox is used
because re-pointing one generator at a stream costs ~3 µs, where building a generator from a
``SeedSequence`` costs ~16 µs: a random bot plays a whole deal in tens of microseconds, so the
cheaper way keeps the runner's overhead small.

It lives in ``games.core`` because both the tournament runner (``sims.run``) and the games' own
deal-stats questions (which never import ``sims``) draw from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Streams"]


class Streams:
    """One Philox generator re-pointed at the stream of (item, sub-stream) of a seed sequence (a
    tournament's deals, a deal-stats shard's samples)."""

    def __init__(self, seed_seq: np.random.SeedSequence) -> None:
        self._key: Any = seed_seq.generate_state(2, np.uint64)
        self._bits = np.random.Philox(key=self._key)
        self.rng = np.random.Generator(self._bits)
        # One state dict, re-used: the setter copies the values into the bit generator, so only
        # the counter's words 2-3 change between calls (building the dict each time cost ~1/3).
        self._counter = np.zeros(4, dtype=np.uint64)
        self._state: Any = {
            "bit_generator": "Philox",
            "state": {"counter": self._counter, "key": self._key},
            "buffer": np.zeros(4, dtype=np.uint64), "buffer_pos": 4, "has_uint32": 0, "uinteger": 0,
        }

    def at(self, item: int, stream: int) -> np.random.Generator:
        """The generator, positioned at the start of stream ``stream`` of local item ``item``."""
        # Words 0-1 of the counter advance as numbers are drawn, so (item, stream) sit in words
        # 2-3: a stream can draw 2**130 numbers before it could meet another one.
        self._counter[2] = item
        self._counter[3] = stream
        self._bits.state = self._state
        return self.rng

    def rotations(self, item: int) -> Callable[[int], np.random.Generator]:
        """``r -> at(item, r + 1)``: the generator of each rotation of local deal ``item``."""
        return lambda r: self.at(item, r + 1)
