# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""External-sampling MCCFR over the abstraction of games.liars_poker.cfr.abstraction, in C.

The same round (LP-4 with ``rebid: off``, LP-5's payments), the same abstract information sets
(q, k, c, b) and actions (challenge, raise0..2) and the same updates as the readable reference
``abstraction.Mccfr``, with the same sampler (SplitMix64, ``abstraction.SplitMix64``): given the same
dealt notes and seed the two produce the same regret and strategy sums (tests/test_liars_poker_abstract.py).

Information set (q, k, c, b) is row ``((q·(L+1) + k)·(n−1) + c)·(L+1) + b`` of the ``[rows, 4]`` tables.
"""

import numpy as np
cimport numpy as cnp

cnp.import_array()

DEF MAXN = 10
DEF A = 4


cdef struct RState:
    int q          # standing quantity (0: no bid yet)
    int d          # standing digit
    int holder
    int c          # challenges against the standing bid (LP-4.3)
    int to_act


cdef inline unsigned long long splitmix(unsigned long long* s) noexcept nogil:
    cdef unsigned long long z
    s[0] += 0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double uniform(unsigned long long* s) noexcept nogil:
    return <double>(splitmix(s) >> 11) * (1.0 / 9007199254740992.0)


cdef class AbstractMccfr:
    """External-sampling MCCFR of one table (``players`` seats, notes of ``digits`` digits, the digit
    ``ranking`` lowest first, ``stake``), regrets and strategy sums in ``regrets`` / ``sums``."""

    cdef int n, L, V, top, stake
    cdef int ranking[10]
    cdef int pos[10]
    cdef int counts[MAXN][10]
    cdef int totals[10]
    cdef int best[MAXN]        # each seat's most-held digit (ties: the higher ranked)
    cdef int maxc[MAXN]        # and its count
    cdef double[:, ::1] R
    cdef double[:, ::1] S
    cdef unsigned long long rng
    cdef public long long iterations
    cdef public object regrets
    cdef public object sums

    def __init__(self, int players, int digits, ranking, int stake, unsigned long long seed):
        if not 2 <= players <= MAXN:
            raise ValueError(f"players must be 2..{MAXN}")
        self.n = players
        self.L = digits
        self.V = len(ranking)
        self.top = players * digits
        self.stake = stake
        for i in range(10):
            self.pos[i] = -1
        for i, d in enumerate(ranking):
            self.ranking[i] = d
            self.pos[d] = i
        rows = (self.top + 1) * (digits + 1) * (players - 1) * (digits + 1)
        self.regrets = np.zeros((rows, A))
        self.sums = np.zeros((rows, A))
        self.R = self.regrets
        self.S = self.sums
        self.rng = seed
        self.iterations = 0

    def row(self, int q, int k, int c, int b):
        """The table row of information set (q, k, c, b)."""
        return self.key(q, k, c, b)

    cdef inline long key(self, int q, int k, int c, int b) noexcept nogil:
        return ((q * (self.L + 1) + k) * (self.n - 1) + c) * (self.L + 1) + b

    cdef void set_notes(self, const signed char[:, ::1] notes) noexcept nogil:
        cdef int s, j, d, i, bc, bd
        for d in range(10):
            self.totals[d] = 0
        for s in range(self.n):
            for d in range(10):
                self.counts[s][d] = 0
            for j in range(self.L):
                d = notes[s, j]
                self.counts[s][d] += 1
                self.totals[d] += 1
            bc = -1
            bd = -1
            for i in range(self.V):  # the last of the highest counts in ranking order (abstraction.best_digit)
                d = self.ranking[i]
                if self.counts[s][d] >= bc:
                    bc = self.counts[s][d]
                    bd = d
            self.best[s] = bd
            self.maxc[s] = bc

    cdef inline int raise_q(self, RState* st, int seat, int a) noexcept nogil:
        """The quantity of abstract raise ``a`` (1..3) of ``seat`` (its digit is best[seat]); > top: none."""
        cdef int d = self.best[seat]
        cdef int q
        if st.q == 0:
            q = 1
        else:
            q = st.q + (0 if self.pos[d] > self.pos[st.d] else 1)
        return q + a - 1

    cdef double walk(self, RState st, int p) noexcept nogil:
        cdef int seat = st.to_act
        cdef int a, k, nlegal = 0, last
        cdef int legal[A]
        cdef long row
        cdef double sigma[A]
        cdef double vals[A]
        cdef double tot, x, v, u, cum
        cdef RState child
        k = self.counts[seat][st.d] if st.q > 0 else 0
        row = self.key(st.q, k, st.c, self.maxc[seat])
        legal[0] = st.q > 0
        for a in range(1, A):
            legal[a] = self.raise_q(&st, seat, a) <= self.top
        tot = 0.0
        for a in range(A):
            sigma[a] = 0.0
            if legal[a]:
                nlegal += 1
                x = self.R[row, a]
                sigma[a] = x if x > 0.0 else 0.0
                tot += sigma[a]
        for a in range(A):
            if legal[a]:
                sigma[a] = sigma[a] / tot if tot > 0.0 else 1.0 / nlegal
        if seat == p:
            v = 0.0
            for a in range(A):
                if legal[a]:
                    child = st
                    vals[a] = self.step(&child, seat, a, p)
                    v += sigma[a] * vals[a]
            for a in range(A):
                if legal[a]:
                    self.R[row, a] += vals[a] - v
            return v
        for a in range(A):
            self.S[row, a] += sigma[a]
        u = uniform(&self.rng)
        cum = 0.0
        last = -1
        for a in range(A):
            if sigma[a] > 0.0:
                last = a
                cum += sigma[a]
                if u < cum:
                    break
        # (``last`` is the action drawn, or the last positive one when rounding left u above the sum)
        child = st
        return self.step(&child, seat, last, p)

    cdef double step(self, RState* st, int seat, int a, int p) noexcept nogil:
        """Apply abstract action ``a`` of ``seat``; p's value of what follows."""
        cdef int wins, sign
        if a == 0:
            st.c += 1
            if st.c < self.n - 1:
                st.to_act = (seat + 1) % self.n  # LP-4.2
                return self.walk(st[0], p)
            wins = self.totals[st.d] >= st.q  # LP-5.1, LP-5.2
            sign = 1 if wins else -1
            if p == st.holder:
                return sign * self.stake * (self.n - 1)  # LP-5.3
            return -sign * self.stake
        st.q = self.raise_q(st, seat, a)
        st.d = self.best[seat]
        st.holder = seat
        st.c = 0  # LP-4.3
        st.to_act = (seat + 1) % self.n
        return self.walk(st[0], p)

    def iterate(self, const signed char[:, :, ::1] notes, int opener=0):
        """One iteration per dealt round of ``notes`` ([rounds, n, L] digits): a traversal per player."""
        cdef Py_ssize_t r
        cdef int p
        cdef RState st
        if notes.shape[1] != self.n or notes.shape[2] != self.L:
            raise ValueError(f"notes must be [rounds, {self.n}, {self.L}]")
        with nogil:
            for r in range(notes.shape[0]):
                self.iterations += 1
                self.set_notes(notes[r])
                for p in range(self.n):
                    st.q = 0
                    st.d = 0
                    st.holder = -1
                    st.c = 0
                    st.to_act = opener
                    self.walk(st, p)
