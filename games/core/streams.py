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

import ctypes
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
        self._direct = _Direct.of(self._bits)

    @property
    def bits(self) -> np.random.Philox:
        """The Philox bit generator behind ``rng`` (its key the seed sequence's): a compiled kernel that
        re-points it at streams itself (``direct``) draws from it without a call per stream."""
        return self._bits

    @property
    def direct(self) -> bool:
        """True when the generator's C state has the layout ``_Direct`` writes in place (checked on this
        numpy): only then may a kernel write ``(0, 0, item, stream)`` into the counter as ``at`` does."""
        return self._direct is not None

    def at(self, item: int, stream: int) -> np.random.Generator:
        """The generator, positioned at the start of stream ``stream`` of local item ``item``."""
        # Words 0-1 of the counter advance as numbers are drawn, so (item, stream) sit in words
        # 2-3: a stream can draw 2**130 numbers before it could meet another one.
        d = self._direct
        if d is not None:  # the same state, written in place (a third of the setter's cost)
            d.set(item, stream)
            return self.rng
        self._counter[2] = item
        self._counter[3] = stream
        self._bits.state = self._state
        return self.rng

    def rotations(self, item: int) -> Callable[[int], np.random.Generator]:
        """``r -> at(item, r + 1)``: the generator of each rotation of local deal ``item``."""
        return lambda r: self.at(item, r + 1)


class _Direct:
    """Philox's C state (numpy's ``philox_state``: pointers to the counter and the key, then
    ``buffer_pos``, ``buffer[4]``, ``has_uint32``, ``uinteger``) written in place through the bit
    generator's ``ctypes`` interface: what ``Philox.state = {...}`` does for a state whose key is
    unchanged (counter ``(0, 0, item, stream)``, an empty buffer, no spare 32 bits), without parsing a
    dict. ``of`` checks the layout against the documented setter and getter on the generator it is given
    and returns None if they disagree (another numpy), so ``Streams.at`` falls back to the setter."""

    _BUFFER_POS, _HAS_UINT32, _UINTEGER = 16, 56, 60

    def __init__(self, bits: np.random.Philox) -> None:
        self._bits = bits  # keeps the memory below alive
        addr = bits.ctypes.state_address
        ctr_addr = ctypes.c_void_p.from_address(addr).value
        assert ctr_addr is not None
        self._ctr = (ctypes.c_uint64 * 4).from_address(ctr_addr)
        self._pos = ctypes.c_int.from_address(addr + self._BUFFER_POS)
        self._has = ctypes.c_int.from_address(addr + self._HAS_UINT32)
        self._uint = ctypes.c_uint32.from_address(addr + self._UINTEGER)

    def set(self, item: int, stream: int) -> None:
        """Position the generator at the start of stream ``stream`` of ``item``."""
        ctr = self._ctr
        ctr[0] = 0
        ctr[1] = 0
        ctr[2] = item
        ctr[3] = stream
        self._pos.value = 4  # PHILOX_BUFFER_SIZE: the next draw computes a fresh block
        self._has.value = 0
        self._uint.value = 0

    @classmethod
    def of(cls, bits: np.random.BitGenerator) -> _Direct | None:
        """The direct writer of ``bits``, or None when its layout is not the one assumed."""
        if type(bits) is not np.random.Philox:  # another generator's struct is not philox_state
            return None
        try:
            d = cls(bits)
            before = bits.state
            rng = np.random.Generator(bits)
            rng.integers(0, 2**32, 3)
            rng.random()  # counter, buffer_pos and the spare 32 bits all moved
            rng.integers(0, 2**16, dtype=np.uint32)
            d.set(12345, 6789)
            got = bits.state
            bits.state = before
            ok = (got["state"]["counter"].tolist() == [0, 0, 12345, 6789]
                  and got["state"]["key"].tolist() == before["state"]["key"].tolist()
                  and got["buffer_pos"] == 4 and got["has_uint32"] == 0 and got["uinteger"] == 0)
        except Exception:  # no ctypes interface, or a layout this code does not know
            return None
        return d if ok else None
