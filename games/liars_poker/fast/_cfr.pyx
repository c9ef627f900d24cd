# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""CFR+ and exact best responses over the small two-player tree (games.liars_poker.cfr.game), in C.

The same updates as the numpy reference ``games.liars_poker.cfr.solver.Cfr`` (checked against it by
tests/test_liars_poker_cfr.py): vector form over the hands, alternating updates, regrets floored at
zero, the average strategy weighted by the iteration number. Scratch buffers are one block per tree
depth (at most K + 1), so a traversal allocates nothing.
"""

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free

cnp.import_array()


cdef struct Tree:
    int K
    int H
    int D
    int L
    long long *cnt     # cnt[h * D + p]: hand h's count of the digit at position p
    double *bucket     # L + 2 scratch sums for terminal()
    long long *off
    long long *last
    double *win
    double *R
    double *S
    double *P          # a fixed policy (best response, expected value)
    double *sigma_buf
    double *vals_buf
    double *reach_buf
    double *reach2_buf
    double weight


cdef inline int popcount(long long x) nogil:
    return __builtin_popcountll(x)


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil


cdef void regret_match(Tree* t, long long lo, int A, double* sigma) noexcept nogil:
    cdef int H = t.H, a, h
    cdef double tot, x
    for h in range(H):
        tot = 0.0
        for a in range(A):
            x = t.R[(lo + a) * H + h]
            if x > 0:
                tot += x
        for a in range(A):
            x = t.R[(lo + a) * H + h]
            if tot > 0:
                sigma[a * H + h] = x / tot if x > 0 else 0.0
            else:
                sigma[a * H + h] = 1.0 / A


cdef void terminal(Tree* t, long long rank, int challenger, double* r_opp, double* scale, int i,
                   double* out) noexcept nogil:
    """Player i's values when ``challenger`` challenges bid ``rank`` (opponent reach r_opp·scale).

    The holder wins when his count plus the other's count of the bid digit reaches q (LP-5.2), so
    sum_o win[h, o]·reach[o] = 2·S(q - c_h) - T, with S(k) the reach of the other's hands holding at
    least k of the digit and T all of it: O(H + L) instead of O(H²)."""
    cdef int H = t.H, L = t.L, D = t.D, h, o, k
    cdef int q = <int>(rank // D) + 1
    cdef int p = <int>(rank % D)
    cdef double x, total = 0.0, sign = 1.0 if (1 - challenger) == i else -1.0
    cdef double* b = t.bucket
    for k in range(L + 2):
        b[k] = 0.0
    for o in range(H):
        x = r_opp[o] * (scale[o] if scale != NULL else 1.0)
        b[t.cnt[o * D + p]] += x
        total += x
    for k in range(L - 1, -1, -1):  # b[k] = reach of hands with at least k of the digit
        b[k] += b[k + 1]
    for h in range(H):
        k = q - <int>t.cnt[h * D + p]
        if k <= 0:
            x = total
        elif k > L:
            x = 0.0
        else:
            x = b[k]
        out[h] = sign * (2.0 * x - total)


cdef void walk(Tree* t, long long mask, int depth, double* r_me, double* r_opp, int i, double* out) noexcept nogil:
    cdef int K = t.K, H = t.H, a, h
    cdef int actor = popcount(mask) & 1
    cdef long long last = t.last[mask]
    cdef int nb = <int>(K - 1 - last)
    cdef int A = nb + (1 if mask != 0 else 0)
    cdef long long lo = t.off[mask], child
    cdef double* sigma = t.sigma_buf + depth * (K + 1) * H
    cdef double* vals = t.vals_buf + depth * (K + 1) * H
    cdef double* reach = t.reach_buf + depth * H
    cdef double v
    regret_match(t, lo, A, sigma)
    for a in range(nb):
        child = mask | (1LL << (last + 1 + a))
        if actor == i:
            for h in range(H):
                reach[h] = r_me[h] * sigma[a * H + h]
            walk(t, child, depth + 1, reach, r_opp, i, vals + a * H)
        else:
            for h in range(H):
                reach[h] = r_opp[h] * sigma[a * H + h]
            walk(t, child, depth + 1, r_me, reach, i, vals + a * H)
    if mask != 0:
        terminal(t, last, actor, r_opp, NULL if actor == i else sigma + nb * H, i, vals + nb * H)
    if actor != i:
        for h in range(H):
            v = 0.0
            for a in range(A):
                v += vals[a * H + h]
            out[h] = v
        return
    for h in range(H):
        v = 0.0
        for a in range(A):
            v += sigma[a * H + h] * vals[a * H + h]
        out[h] = v
        for a in range(A):
            t.R[(lo + a) * H + h] += vals[a * H + h] - v
            if t.R[(lo + a) * H + h] < 0:
                t.R[(lo + a) * H + h] = 0.0
            t.S[(lo + a) * H + h] += t.weight * r_me[h] * sigma[a * H + h]


cdef void br_walk(Tree* t, long long mask, int depth, double* r_opp, int i, double* out) noexcept nogil:
    """Best-response values of player i (vector over his hands) against the policy t.P."""
    cdef int K = t.K, H = t.H, a, h
    cdef int actor = popcount(mask) & 1
    cdef long long last = t.last[mask]
    cdef int nb = <int>(K - 1 - last)
    cdef int A = nb + (1 if mask != 0 else 0)
    cdef long long lo = t.off[mask], child
    cdef double* vals = t.vals_buf + depth * (K + 1) * H
    cdef double* reach = t.reach_buf + depth * H
    cdef double v
    for a in range(nb):
        child = mask | (1LL << (last + 1 + a))
        if actor == i:
            br_walk(t, child, depth + 1, r_opp, i, vals + a * H)
        else:
            for h in range(H):
                reach[h] = r_opp[h] * t.P[(lo + a) * H + h]
            br_walk(t, child, depth + 1, reach, i, vals + a * H)
    if mask != 0:
        terminal(t, last, actor, r_opp, NULL if actor == i else t.P + (lo + nb) * H, i, vals + nb * H)
    for h in range(H):
        v = vals[h] if actor == i else 0.0
        for a in range(A):
            if actor == i:
                if vals[a * H + h] > v:
                    v = vals[a * H + h]
            else:
                v += vals[a * H + h]
        out[h] = v


cdef double ev_walk(Tree* t, long long mask, int depth, double* r0, double* r1) noexcept nogil:
    """Player 0's expected payoff below ``mask`` (reaches r0, r1 include chance) under t.P for both."""
    cdef int K = t.K, H = t.H, a, h, o
    cdef int actor = popcount(mask) & 1
    cdef long long last = t.last[mask]
    cdef int nb = <int>(K - 1 - last)
    cdef long long lo = t.off[mask], child
    cdef double* reach = t.reach_buf + depth * H
    cdef double* reach2 = t.reach2_buf + depth * H
    cdef double total = 0.0, x, sign
    cdef double* w
    for a in range(nb):
        child = mask | (1LL << (last + 1 + a))
        for h in range(H):
            reach[h] = (r0[h] if actor == 1 else r0[h] * t.P[(lo + a) * H + h])
            reach2[h] = (r1[h] if actor == 0 else r1[h] * t.P[(lo + a) * H + h])
        total += ev_walk(t, child, depth + 1, reach, reach2)
    if mask != 0:
        w = t.win + last * H * H
        sign = 1.0 if actor == 1 else -1.0
        for h in range(H):
            for o in range(H):
                x = r0[h] * r1[o] * w[h * H + o]
                if actor == 0:
                    x *= t.P[(lo + nb) * H + h]
                else:
                    x *= t.P[(lo + nb) * H + o]
                total += sign * x
    return total


cdef class Kernel:
    """The compiled CFR+ over one ``SmallGame``'s arrays (regrets and sums are numpy arrays it updates)."""

    cdef Tree t
    cdef public object regrets, sums, offset, last, win, probs, counts
    cdef public long iterations

    def __init__(self, int K, int H, offset, last, win, probs, counts):
        self.offset = np.ascontiguousarray(offset, dtype=np.int64)
        self.last = np.ascontiguousarray(last, dtype=np.int64)
        self.win = np.ascontiguousarray(win, dtype=np.float64)
        self.probs = np.ascontiguousarray(probs, dtype=np.float64)
        self.counts = np.ascontiguousarray(counts, dtype=np.int64)
        rows = int(self.offset[-1])
        self.regrets = np.zeros((rows, H))
        self.sums = np.zeros((rows, H))
        self.iterations = 0
        self.t.K = K
        self.t.H = H
        self.t.D = self.counts.shape[1]
        self.t.L = int(self.counts[0].sum())
        self.t.cnt = <long long*> cnp.PyArray_DATA(self.counts)
        self.t.bucket = <double*> malloc((self.t.L + 2) * sizeof(double))
        self.t.off = <long long*> cnp.PyArray_DATA(self.offset)
        self.t.last = <long long*> cnp.PyArray_DATA(self.last)
        self.t.win = <double*> cnp.PyArray_DATA(self.win)
        self.t.R = <double*> cnp.PyArray_DATA(self.regrets)
        self.t.S = <double*> cnp.PyArray_DATA(self.sums)
        self.t.P = NULL
        n = (K + 2) * (K + 1) * H
        self.t.sigma_buf = <double*> malloc(n * sizeof(double))
        self.t.vals_buf = <double*> malloc(n * sizeof(double))
        self.t.reach_buf = <double*> malloc((K + 2) * H * sizeof(double))
        self.t.reach2_buf = <double*> malloc((K + 2) * H * sizeof(double))
        if not self.t.sigma_buf or not self.t.vals_buf or not self.t.reach_buf or not self.t.reach2_buf \
                or not self.t.bucket:
            raise MemoryError()

    def __dealloc__(self):
        free(self.t.sigma_buf)
        free(self.t.vals_buf)
        free(self.t.reach_buf)
        free(self.t.reach2_buf)
        free(self.t.bucket)

    def iterate(self, long n):
        """``n`` CFR+ iterations (player 0's update, then player 1's)."""
        cdef cnp.ndarray[cnp.float64_t, ndim=1] out = np.empty(self.t.H)
        cdef double* p = <double*> cnp.PyArray_DATA(self.probs)
        cdef int i
        cdef long k
        cdef long it = self.iterations
        with nogil:
            for k in range(n):
                it += 1
                self.t.weight = <double> it
                for i in range(2):
                    walk(&self.t, 0, 0, p, p, i, <double*> out.data)
        self.iterations = it

    def best_response(self, policy, int i):
        """The value to player i of a best response to ``policy`` ([rows, H]) of the other player."""
        pol = np.ascontiguousarray(policy, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] out = np.empty(self.t.H)
        cdef double* p = <double*> cnp.PyArray_DATA(self.probs)
        self.t.P = <double*> cnp.PyArray_DATA(pol)
        with nogil:
            br_walk(&self.t, 0, 0, p, i, <double*> out.data)
        self.t.P = NULL
        return float(self.probs @ out)

    def expected_value(self, policy):
        """Player 0's expected payoff when both players use ``policy``."""
        pol = np.ascontiguousarray(policy, dtype=np.float64)
        cdef double v
        cdef double* p = <double*> cnp.PyArray_DATA(self.probs)
        self.t.P = <double*> cnp.PyArray_DATA(pol)
        with nogil:
            v = ev_walk(&self.t, 0, 0, p, p)
        self.t.P = NULL
        return v
