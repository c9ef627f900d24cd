# cython: language_level=3
"""numpy's bit generator and its integer draws, for kernels that must draw exactly as the readable engine.

A kernel that stands in for Python code calling ``Generator.integers(n)`` must leave the generator in the
same state and return the same value. ``bounded`` is numpy's ``buffered_bounded_lemire_uint32``
(numpy/random/src/distributions/distributions.c), which ``Generator.integers(n)`` (default int64
dtype) uses for every range below 2**32: Lemire's multiply-and-reject on ``next_uint32``, and nothing
drawn when n = 1. ``interval`` is numpy's ``random_interval`` and ``permute`` the Fisher-Yates of
``Generator.permutation(n)`` (numpy's ``_shuffle_raw``) over it. Inline C only: a module that cimports it
compiles its own copy (no runtime import). The caller gets the ``bitgen_t`` from
``rng.bit_generator.capsule`` (``PyCapsule_GetPointer(..., "BitGenerator")``) and holds the generator
while it draws.
"""

cimport cython
from libc.stdint cimport uint32_t, uint64_t


cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint64_t (*next_uint64)(void *st) nogil
        uint32_t (*next_uint32)(void *st) nogil
        double (*next_double)(void *st) nogil


cdef inline int random_index(bitgen_t *bg, int m) noexcept nogil:
    """``int(Generator.random() * m)`` (``random()`` is ``next_double``), nothing drawn for m = 1: the random
    bots' uniform choice among ``m`` legal actions (Raspisnoy's ``RandomBot.act``)."""
    if m == 1:
        return 0
    return <int>(bg.next_double(bg.state) * m)


@cython.cdivision(True)  # n >= 2 where it divides: no zero check (the kernels compile with cdivision)
cdef inline uint32_t bounded(bitgen_t *bg, uint32_t n) noexcept nogil:
    """``Generator.integers(n)`` for 1 <= n < 2**32: numpy's buffered Lemire draw on 32 bits; nothing
    drawn for n = 1."""
    cdef uint32_t rng = n - 1, leftover, threshold
    cdef uint64_t m
    if rng == 0:
        return 0
    m = (<uint64_t> bg.next_uint32(bg.state)) * n
    leftover = <uint32_t> (m & 0xFFFFFFFFUL)
    if leftover < n:
        threshold = (<uint32_t> 0xFFFFFFFFUL - rng) % n
        while leftover < threshold:
            m = (<uint64_t> bg.next_uint32(bg.state)) * n
            leftover = <uint32_t> (m & 0xFFFFFFFFUL)
    return <uint32_t> (m >> 32)


cdef inline uint64_t interval(bitgen_t *bg, uint64_t mx) noexcept nogil:
    """numpy's ``random_interval``: uniform in [0, mx], a draw masked to the bits of ``mx`` and rejected
    above it (32 bits for mx < 2**32, 64 above); nothing drawn for mx = 0."""
    cdef uint64_t mask = mx, value
    if mx == 0:
        return 0
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    if mx <= 0xffffffffUL:
        value = bg.next_uint32(bg.state) & mask
        while value > mx:
            value = bg.next_uint32(bg.state) & mask
    else:
        value = bg.next_uint64(bg.state) & mask
        while value > mx:
            value = bg.next_uint64(bg.state) & mask
    return value


cdef inline void permute(bitgen_t *bg, int *out, int n) noexcept nogil:
    """``Generator.permutation(n)`` into ``out[0:n]``: numpy's Fisher-Yates from the top index down, each
    index by ``interval``."""
    cdef int i, j, t
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = <int> interval(bg, i)
        t = out[i]
        out[i] = out[j]
        out[j] = t
