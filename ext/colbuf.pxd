# cython: language_level=3
"""Growable typed C buffers of a shard's columns, for match kernels that write every match's rows of a whole shard
(Raspisnoy's and Preferans's ``_match.Shard``, ``FastPath.play_shard``; issue 30): one ``Buf`` per column, values
appended by ``put8`` .. ``putf`` (the capacity doubling from 4 KiB), copied into numpy arrays of the column's
dtype by ``buf_columns``. Inline only: a module that cimports it compiles its own copy."""

from libc.stdint cimport int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy


cdef struct Buf:
    char* p
    size_t n  # bytes used
    size_t cap


cdef inline int grow(Buf* b, size_t more) except -1:
    cdef size_t cap = b.cap if b.cap else 4096
    cdef char* p
    while cap < b.n + more:
        cap *= 2
    p = <char*>realloc(b.p, cap)
    if p == NULL:
        raise MemoryError()
    b.p = p
    b.cap = cap
    return 0


cdef inline int put8(Buf* b, int v) except -1:
    if b.n + 1 > b.cap:
        grow(b, 1)
    (<signed char*>(b.p + b.n))[0] = <signed char>v
    b.n += 1
    return 0


cdef inline int put16(Buf* b, int v) except -1:
    if b.n + 2 > b.cap:
        grow(b, 2)
    (<short*>(b.p + b.n))[0] = <short>v
    b.n += 2
    return 0


cdef inline int put32(Buf* b, int v) except -1:
    if b.n + 4 > b.cap:
        grow(b, 4)
    (<int*>(b.p + b.n))[0] = v
    b.n += 4
    return 0


cdef inline int put64(Buf* b, int64_t v) except -1:
    if b.n + 8 > b.cap:
        grow(b, 8)
    (<int64_t*>(b.p + b.n))[0] = v
    b.n += 8
    return 0


cdef inline int putf(Buf* b, double v) except -1:
    if b.n + 8 > b.cap:
        grow(b, 8)
    (<double*>(b.p + b.n))[0] = v
    b.n += 8
    return 0


cdef inline void bufs_init(Buf* bufs, int n) noexcept:
    """``n`` empty buffers."""
    cdef int i
    for i in range(n):
        bufs[i].p = NULL
        bufs[i].n = 0
        bufs[i].cap = 0


cdef inline void bufs_free(Buf* bufs, int n) noexcept:
    cdef int i
    for i in range(n):
        free(bufs[i].p)
        bufs[i].p = NULL


cdef inline dict buf_columns(Buf* bufs, names_dtypes):
    """Buffer i as a numpy array (a copy) of its dtype, by name: ``names_dtypes[i]`` is (name, dtype)."""
    import numpy as np

    cdef int i
    cdef unsigned char[::1] view
    out = {}
    for i, (name, dtype) in enumerate(names_dtypes):
        arr = np.empty(bufs[i].n, dtype=np.uint8)
        if bufs[i].n:
            view = arr
            memcpy(&view[0], bufs[i].p, bufs[i].n)
        out[name] = arr.view(dtype)
    return out
