# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The plain evaluator's tables (``Tables``, ext/_handeval.pyx) for kernels that value hands in C: a module that
cimports them sums its cards' ``card_key`` and ORs their ``card_fbit`` from ``SUIT_INIT`` (``tables_suit_init``)
and calls ``_eval_key`` (compiled inline in that module), as ``Tables.evaluate_into`` does; a hand is valid
when its k cards set k bits of the sum of ``card_fbit``. Read-only once built."""

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil


cdef inline uint64_t tables_suit_init() noexcept nogil:
    """A hand's key sum before its cards (``SUIT_INIT`` of ext/_handeval.pyx: four suit counters at 3)."""
    return 0x3333ULL << 32


@cython.final
cdef class Tables:
    cdef readonly int k
    cdef readonly int nranks
    cdef readonly object fl_array
    cdef readonly object key_array
    cdef readonly object fbit_array
    cdef readonly object valid_array
    cdef const int32_t[::1] fl
    cdef const int32_t[::1] nfh
    cdef const uint32_t[::1] offs
    cdef readonly object nfh_array
    cdef readonly object offs_array
    cdef uint32_t hmask
    cdef int hshift
    cdef uint64_t card_key[256]
    cdef uint64_t card_fbit[256]
    cdef uint8_t valid[256]

    cdef int64_t _fill_nf(self, int32_t[::1] nfv, int* poscount, int* counts, int* chosen,
                          int pos, int left, int64_t keysum, int nr, int* absr, int* cmap,
                          int tb_style, uint32_t* stop) except -1

    cdef inline int32_t _eval_key(self, uint64_t ksum, uint64_t fb) noexcept nogil:
        """The value of a hand from its key sum and flush bits: the non-flush value by the perfect hash, the
        best flush of a suit with five cards or more above it (the suits' counters start at 3: bit 3 of a
        counter, ``FLUSH_BITS`` of ext/_handeval.pyx, is set by its fifth card)."""
        cdef uint32_t key = <uint32_t>ksum
        cdef int32_t v = self.nfh[(key & self.hmask) + self.offs[key >> self.hshift]]
        cdef uint64_t fbits = ksum & (0x8888ULL << 32)
        cdef int32_t fv
        cdef int s
        if fbits:
            s = (__builtin_ctzll(fbits) - 35) >> 2
            fv = self.fl[(fb >> (16 * s)) & 0xFFFF]
            if fv > v:
                v = fv
        return v

    cpdef int32_t value_of(self, cards) except -2
