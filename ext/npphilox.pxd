# cython: language_level=3
"""numpy's Philox4x64-10 in C, for kernels that draw a job's Philox streams (games/core/streams.py) without a
call through the bit generator per number.

``philox_state`` is numpy's state layout (``philox_state`` in numpy/random/src/philox/philox.h), reached by
``(<bitgen_t *> PyCapsule_GetPointer(bits.capsule, "BitGenerator")).state``; a kernel that reads or writes
it checks that layout against numpy's own draws or documented state setter first (``Streams.direct``,
``games.classic_poker.fast._equity.philox_direct``). The block function is numpy's ``philox4x64_round``
ten times with the key bumped between rounds: ``np_philox_block`` one block of a counter,
``np_philox_2blocks`` two blocks at once (their multiplies overlap; four run out of registers and are slower).
The blackjack stub's refill uses the two-block function with gcc's vectorization off (its own attribute there:
faster so).
numpy bumps the counter (``np_philox_bump``) before each block of four 64-bit words, draws a 32-bit
number as a word's low half then its high half, and a double as the top 53 bits of a word
(``np_philox_double``). Inline C only: a module that cimports it compiles its own copy.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint32_t, uint64_t

from ext.npdraw cimport bitgen_t


ctypedef struct philox_state:
    uint64_t *ctr
    uint64_t *key
    int buffer_pos
    uint64_t buffer[4]
    int has_uint32
    uint32_t uinteger


cdef extern from *:
    """
    #ifndef RASKLAD_NPPHILOX_H
    #define RASKLAD_NPPHILOX_H
    /* One Philox4x64 round of the words (x0, x1, x2, x3) under the round key (k0, k1). */
    #define NP_PHILOX_ROUND(x0, x1, x2, x3, k0, k1) do { \\
            __uint128_t np_lo_ = (__uint128_t)0xD2E7470EE14C6C93ULL * (x0); \\
            __uint128_t np_hi_ = (__uint128_t)0xCA5A826395121157ULL * (x2); \\
            (x0) = (uint64_t)(np_hi_ >> 64) ^ (x1) ^ (k0); (x1) = (uint64_t)np_hi_; \\
            (x2) = (uint64_t)(np_lo_ >> 64) ^ (x3) ^ (k1); (x3) = (uint64_t)np_lo_; \\
        } while (0)
    #define NP_PHILOX_BUMPKEY(k0, k1) do { (k0) += 0x9E3779B97F4A7C15ULL; (k1) += 0xBB67AE8584CAA73BULL; } while (0)

    static inline void np_philox_bump(uint64_t *c) {
        if (++c[0] == 0 && ++c[1] == 0 && ++c[2] == 0) ++c[3];
    }
    /* The block of counter ctr (not bumped here) into out[4]. */
    static inline void np_philox_block(const uint64_t *ctr, const uint64_t *key, uint64_t *out) {
        uint64_t a0 = ctr[0], a1 = ctr[1], a2 = ctr[2], a3 = ctr[3], k0 = key[0], k1 = key[1];
        int r;
        for (r = 0; r < 10; r++) {
            if (r) NP_PHILOX_BUMPKEY(k0, k1);
            NP_PHILOX_ROUND(a0, a1, a2, a3, k0, k1);
        }
        out[0] = a0; out[1] = a1; out[2] = a2; out[3] = a3;
    }
    /* The blocks of counters ca and cb into wa[4] and wb[4], a round of both at a time. */
    static inline void np_philox_2blocks(
            const uint64_t *ca, const uint64_t *cb, const uint64_t *key, uint64_t *wa, uint64_t *wb) {
        uint64_t a0 = ca[0], a1 = ca[1], a2 = ca[2], a3 = ca[3], b0 = cb[0], b1 = cb[1], b2 = cb[2], b3 = cb[3];
        uint64_t k0 = key[0], k1 = key[1];
        int r;
        for (r = 0; r < 10; r++) {
            if (r) NP_PHILOX_BUMPKEY(k0, k1);
            NP_PHILOX_ROUND(a0, a1, a2, a3, k0, k1);
            NP_PHILOX_ROUND(b0, b1, b2, b3, k0, k1);
        }
        wa[0] = a0; wa[1] = a1; wa[2] = a2; wa[3] = a3; wb[0] = b0; wb[1] = b1; wb[2] = b2; wb[3] = b3;
    }
    static inline double np_philox_double(uint64_t w) {
        return (w >> 11) * (1.0 / 9007199254740992.0);
    }
    #endif
    """
    void np_philox_bump(uint64_t *c) noexcept nogil
    void np_philox_block(const uint64_t *ctr, const uint64_t *key, uint64_t *out) noexcept nogil
    void np_philox_2blocks(const uint64_t *ca, const uint64_t *cb, const uint64_t *key, uint64_t *wa,
                           uint64_t *wb) noexcept nogil
    double np_philox_double(uint64_t w) noexcept nogil


# A job's Philox stream drawn in C (``np_stream``), for shard kernels that deal and play many units without a
# numpy generator per unit (dice poker's and Quintet's ``play_shard``): ``np_stream_at`` re-points it at
# ``Streams.at(item, stream)`` (counter (0, 0, item, stream), an empty buffer, no spare 32 bits), and
# ``stream_bitgen`` makes a ``bitgen_t`` that draws from it as numpy's Philox would from the same counter.
cdef extern from *:
    """
    #ifndef RASKLAD_NPSTREAM_H
    #define RASKLAD_NPSTREAM_H
    typedef struct { uint64_t ctr[4]; uint64_t key[2]; uint64_t buf[4]; int pos; int has32; uint32_t u32; } np_stream;

    static inline uint64_t np_stream_next64(np_stream *s) {
        if (s->pos >= 4) {
            np_philox_bump(s->ctr);
            np_philox_block(s->ctr, s->key, s->buf);
            s->pos = 0;
        }
        return s->buf[s->pos++];
    }
    /* numpy's 32-bit draw: a word's low half, then its high half. */
    static inline uint32_t np_stream_next32(np_stream *s) {
        uint64_t n;
        if (s->has32) { s->has32 = 0; return s->u32; }
        n = np_stream_next64(s);
        s->has32 = 1;
        s->u32 = (uint32_t)(n >> 32);
        return (uint32_t)(n & 0xffffffffULL);
    }
    static inline uint64_t np_stream_next64_v(void *s) { return np_stream_next64((np_stream *)s); }
    static inline uint32_t np_stream_next32_v(void *s) { return np_stream_next32((np_stream *)s); }
    static inline double np_stream_double_v(void *s) { return np_philox_double(np_stream_next64((np_stream *)s)); }
    static inline void np_stream_at(np_stream *s, uint64_t item, uint64_t stream) {
        s->ctr[0] = 0; s->ctr[1] = 0; s->ctr[2] = item; s->ctr[3] = stream;
        s->pos = 4; s->has32 = 0; s->u32 = 0;
    }
    #endif
    """
    ctypedef struct np_stream:
        uint64_t ctr[4]
        uint64_t key[2]
    uint64_t np_stream_next64(np_stream *s) noexcept nogil
    uint32_t np_stream_next32(np_stream *s) noexcept nogil
    uint64_t np_stream_next64_v(void *s) noexcept nogil
    uint32_t np_stream_next32_v(void *s) noexcept nogil
    double np_stream_double_v(void *s) noexcept nogil
    void np_stream_at(np_stream *s, uint64_t item, uint64_t stream) noexcept nogil


cdef inline int stream_key(object bits, np_stream *s) except -1:
    """The job's Philox key (``bits``: the ``Streams`` bit generator; numpy's state is read, not moved) into
    ``s``; ValueError for another bit generator."""
    from numpy.random import Philox

    cdef philox_state *st
    if type(bits) is not Philox:
        raise ValueError("play_shard draws from the job's Philox streams")
    st = <philox_state *> (<bitgen_t *> PyCapsule_GetPointer(bits.capsule, "BitGenerator")).state
    with bits.lock:
        s.key[0], s.key[1] = st.key[0], st.key[1]
    return 0


cdef inline void stream_bitgen(np_stream *s, bitgen_t *bg) noexcept nogil:
    """``bg`` drawing from ``s`` (the kernels' bot functions take a ``bitgen_t``)."""
    bg.state = s
    bg.next_uint64 = np_stream_next64_v
    bg.next_uint32 = np_stream_next32_v
    bg.next_double = np_stream_double_v
