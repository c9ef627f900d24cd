# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The ``quintet/equilibrium`` bot's candidate construction and matrix-game solver in C.

The readable reference is games/quintet/equilibrium.py (``build_candidates``) with
games/quintet/solver.py; this module does the same steps with the same draws from the same
generator (``tests/test_quintet_equilibrium_fast.py`` checks candidates, strategies, the layout
played and the generator's state on seeded deals):

* hand values: every 5-card hand of the 32-card deck by its colex rank (``ext.handeval``'s
  ``quintet`` ranking, filled once per process). Per deal the 53,130 hands of the 25 held cards
  are sorted once by (value descending, card sum ascending, ``itertools.combinations`` order): a
  partition step (``construct.partition``: the ``n``-th strongest distinct value of the cards left,
  its hand with the lowest cards, the first in combinations order among those) is then the first
  hands of that list which miss the cards used; with 15 or 10 cards left the step enumerates
  their hands instead;
* ``rng.integers(top)`` (numpy's Lemire draw on 32 bits) and ``rng.permutation(5)`` (Fisher-Yates,
  numpy's ``random_interval``) as numpy draws them;
* best slot orders: gains rounded to a 2**-30 grid (so sums are exact), the best of the 120 orders,
  and where several are best scipy's ``linear_sum_assignment`` chooses, as in the readable step;
* the matrix game: ``solve_game`` below.

``solve_game`` solves a zero-sum matrix game exactly by a double oracle over its own rows and
columns: solve the subgame on a few rows and columns with a dense simplex (Bland's rule, so no
cycling), add the full game's best row reply and best column reply if they beat the subgame's value
by more than 1e-9 (relative to the largest payoff), until neither does. Then no row or column of
the whole matrix does better than the value against the other player's strategy: the pair is an
optimal pair of the game (as the LP's, to the same kind of tolerance). It reports failure (the
caller then solves the LP) if an iteration or pivot bound is hit.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport floor, fabs
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from ext.npdraw cimport bitgen_t, bounded, interval

DEF NCOMB = 201376   # C(32, 5)
DEF NH = 53130       # C(25, 5)
DEF LOW = 20         # card id of the deck's position 0 (7c)
DEF MAXK = 4096      # candidates at most (k is bounded by the distinct layouts anyway)

cdef int BINOM[33][6]
cdef int32_t[::1] VALUES
cdef bint READY = False
_TABLE = None
#: The 120 slot orders in itertools.permutations(range(5)) order.
cdef int PERMS[120][5]


cdef void _binomials() noexcept:
    cdef int n, k
    for n in range(33):
        BINOM[n][0] = 1
        for k in range(1, 6):
            BINOM[n][k] = 0 if n == 0 else BINOM[n - 1][k - 1] + BINOM[n - 1][k]


cdef int _ready() except -1:
    """The value table and the permutations (once per process)."""
    global VALUES, READY, _TABLE
    if READY:
        return 0
    from itertools import permutations
    from games.quintet.fast._play import value_table  # the play-out's table: built once, shared
    _binomials()
    _TABLE = value_table()
    if int(_TABLE.max()) >= (1 << 24) or int(_TABLE.min()) < 0:
        raise ValueError("quintet values must be in 0..2**24-1 for the sort keys")
    VALUES = _TABLE
    for i, p in enumerate(permutations(range(5))):
        for a in range(5):
            PERMS[i][a] = p[a]
    READY = True
    return 0


cdef inline int32_t value5(const int *pos) noexcept nogil:
    """The value of five deck positions, ascending."""
    return VALUES[BINOM[pos[0]][1] + BINOM[pos[1]][2] + BINOM[pos[2]][3] + BINOM[pos[3]][4] + BINOM[pos[4]][5]]


# ------------------------------------------------------------------ the matrix game

cdef int simplex(int m, int n, double *T, double *b, double *d, int *rowvar, int *colvar, double eps,
                 int max_pivots) noexcept nogil:
    """Maximise sum(y) s.t. B y <= 1, y >= 0 for ``T`` = B (m x n, every entry > 0), in place (a compact
    tableau: basic variables ``rowvar``, non-basic ``colvar``; labels 0..n-1 the y, n..n+m-1 the slacks).
    Bland's rule; ``eps`` is the entering tolerance, pivots are entries above 1e-9. Returns the number of
    pivots, -1 if the bound was hit."""
    cdef int i, j, r, s, piv = 0, best_label
    cdef double p, f, ratio, best
    for i in range(m):
        b[i] = 1.0
        rowvar[i] = n + i
    for j in range(n):
        d[j] = 1.0
        colvar[j] = j
    d[n] = 0.0  # the objective's value
    while True:
        s = -1
        best_label = 1 << 30
        for j in range(n):
            if d[j] > eps and colvar[j] < best_label:
                best_label = colvar[j]
                s = j
        if s < 0:
            return piv
        if piv >= max_pivots:
            return -1
        r = -1
        best = 0.0
        for i in range(m):
            f = T[i * n + s]
            if f > 1e-9:  # no pivot on a rounding residue (the entries are in (0, 1] at the start)
                ratio = b[i] / f
                if r < 0 or ratio < best - 1e-12:
                    best = ratio
                    r = i
                elif ratio <= best + 1e-12 and rowvar[i] < rowvar[r]:  # a tie: the smallest label (Bland)
                    r = i
        if r < 0:
            return -1  # unbounded: impossible with a positive matrix
        p = T[r * n + s]
        for j in range(n):
            if j != s:
                T[r * n + j] /= p
        b[r] /= p
        T[r * n + s] = 1.0 / p
        for i in range(m):
            if i == r:
                continue
            f = T[i * n + s]
            if f != 0.0:
                for j in range(n):
                    if j != s:
                        T[i * n + j] -= f * T[r * n + j]
                b[i] -= f * b[r]
                T[i * n + s] = -f / p
        f = d[s]
        for j in range(n):
            if j != s:
                d[j] -= f * T[r * n + j]
        d[n] += f * b[r]
        d[s] = -f / p
        i = rowvar[r]
        rowvar[r] = colvar[s]
        colvar[s] = i
        piv += 1


cdef class Game:
    """Work space of ``solve_game`` for matrices up to ``cap`` x ``cap``."""

    cdef int cap
    cdef double *T
    cdef double *b
    cdef double *d
    cdef int *rowvar
    cdef int *colvar
    cdef int *R
    cdef int *C
    cdef char *inR
    cdef char *inC
    cdef double *xs
    cdef double *ys
    cdef double *u
    cdef double *w

    def __cinit__(self, int cap):
        self.cap = cap
        self.T = <double *> malloc(cap * cap * sizeof(double))
        self.b = <double *> malloc((cap + 1) * sizeof(double))
        self.d = <double *> malloc((cap + 1) * sizeof(double))
        self.rowvar = <int *> malloc(cap * sizeof(int))
        self.colvar = <int *> malloc(cap * sizeof(int))
        self.R = <int *> malloc(cap * sizeof(int))
        self.C = <int *> malloc(cap * sizeof(int))
        self.inR = <char *> malloc(cap)
        self.inC = <char *> malloc(cap)
        self.xs = <double *> malloc(cap * sizeof(double))
        self.ys = <double *> malloc(cap * sizeof(double))
        self.u = <double *> malloc(cap * sizeof(double))
        self.w = <double *> malloc(cap * sizeof(double))
        if not (self.T and self.b and self.d and self.rowvar and self.colvar and self.R and self.C and self.inR
                and self.inC and self.xs and self.ys and self.u and self.w):
            raise MemoryError()

    def __dealloc__(self):
        free(self.T); free(self.b); free(self.d); free(self.rowvar); free(self.colvar); free(self.R)
        free(self.C); free(self.inR); free(self.inC); free(self.xs); free(self.ys); free(self.u); free(self.w)

    cdef int solve(self, int m, int n, const double *M, double *x, double *y, double *value) noexcept nogil:
        """The game ``M`` (m x n, row-major, the row player's gain): optimal ``x`` (m), ``y`` (n) and the
        value. Returns 0, or -1 (bounds hit, or a best reply outside the subgame: use the LP)."""
        cdef int nr = 1, nc = 1, i, j, k, it, bi, bj, piv
        cdef double lo = M[0], hi = M[0], shift, scale, eps, t, v, bu, bw, s
        for k in range(m * n):
            if M[k] < lo:
                lo = M[k]
            if M[k] > hi:
                hi = M[k]
        shift = 1.0 - lo
        scale = hi - lo + 1.0
        eps = 1e-9 * (fabs(hi) if fabs(hi) > fabs(lo) else fabs(lo)) + 1e-12
        memset(self.inR, 0, m)
        memset(self.inC, 0, n)
        self.R[0] = 0
        self.C[0] = 0
        self.inR[0] = 1
        self.inC[0] = 1
        for it in range(m + n + 2):
            for i in range(nr):
                for j in range(nc):
                    self.T[i * nc + j] = (M[self.R[i] * n + self.C[j]] + shift) / scale
            piv = simplex(nr, nc, self.T, self.b, self.d, self.rowvar, self.colvar, 1e-12, 50 * (nr + nc) + 100)
            if piv < 0:
                return -1
            t = self.d[nc]
            if not t > 0.0:
                return -1
            for j in range(nc):
                self.ys[j] = 0.0
            for i in range(nr):
                if self.rowvar[i] < nc:
                    self.ys[self.rowvar[i]] = self.b[i] if self.b[i] > 0.0 else 0.0
            for i in range(nr):
                self.xs[i] = 0.0
            for j in range(nc):
                if self.colvar[j] >= nc:
                    self.xs[self.colvar[j] - nc] = -self.d[j] if self.d[j] < 0.0 else 0.0
            s = 0.0
            for j in range(nc):
                s += self.ys[j]
            for j in range(nc):
                self.ys[j] /= s
            s = 0.0
            for i in range(nr):
                s += self.xs[i]
            if not s > 0.0:
                return -1
            for i in range(nr):
                self.xs[i] /= s
            v = scale / t - shift
            # best replies of the whole game
            bi = -1
            bu = 0.0
            for i in range(m):
                s = 0.0
                for j in range(nc):
                    if self.ys[j] != 0.0:
                        s += M[i * n + self.C[j]] * self.ys[j]
                if bi < 0 or s > bu:
                    bi, bu = i, s
            for j in range(n):
                self.w[j] = 0.0
            for i in range(nr):
                if self.xs[i] != 0.0:
                    for j in range(n):
                        self.w[j] += self.xs[i] * M[self.R[i] * n + j]
            bj = 0
            bw = self.w[0]
            for j in range(1, n):
                if self.w[j] < bw:
                    bj, bw = j, self.w[j]
            k = 0
            if bu > v + eps:
                if self.inR[bi]:
                    return -1
                self.inR[bi] = 1
                self.R[nr] = bi
                nr += 1
                k = 1
            if bw < v - eps:
                if self.inC[bj]:
                    return -1
                self.inC[bj] = 1
                self.C[nc] = bj
                nc += 1
                k = 1
            if k == 0:
                for i in range(m):
                    x[i] = 0.0
                for i in range(nr):
                    x[self.R[i]] = self.xs[i]
                for j in range(n):
                    y[j] = 0.0
                for j in range(nc):
                    y[self.C[j]] = self.ys[j]
                value[0] = v
                return 0
        return -1


def solve_game(matrix):
    """``(ok, value, row, col)`` of the zero-sum game ``matrix`` (2-D float64, the row player's gain); ``ok``
    False when the oracle gave up (the caller then solves the LP)."""
    cdef double[:, ::1] M = np.ascontiguousarray(matrix, dtype=np.float64)
    cdef int m = M.shape[0], n = M.shape[1]
    cdef Game g = Game(max(m, n) + 1)
    x = np.zeros(m)
    y = np.zeros(n)
    cdef double[::1] xv = x, yv = y
    cdef double v = 0.0
    cdef int rc = g.solve(m, n, &M[0, 0], &xv[0], &yv[0], &v)
    return rc == 0, v, x, y


# ------------------------------------------------------------------ one deal's hands

cdef class Hands:
    """The 53,130 hands of one deal's 25 held cards, sorted by (value desc, card sum asc, combinations order)."""

    cdef public tuple key
    cdef int held[25]
    cdef uint32_t *smask
    cdef int32_t *sval

    def __cinit__(self):
        self.smask = <uint32_t *> malloc(NH * sizeof(uint32_t))
        self.sval = <int32_t *> malloc(NH * sizeof(int32_t))
        if not self.smask or not self.sval:
            raise MemoryError()

    def __dealloc__(self):
        free(self.smask)
        free(self.sval)

    def __init__(self, tuple held):
        cdef int i, prev = -1
        _ready()
        if len(held) != 25:
            raise ValueError("25 held cards")
        for i in range(25):
            self.held[i] = <int> held[i] - LOW
            if not prev < self.held[i] < 32:
                raise ValueError("held cards must be ascending card ids of the 32-card deck")
            prev = self.held[i]
        self.key = held
        self._sort()

    cdef void _sort(self) noexcept:
        cdef uint32_t *keys = <uint32_t *> malloc(NH * sizeof(uint32_t))
        cdef uint32_t *keys2 = <uint32_t *> malloc(NH * sizeof(uint32_t))
        cdef uint32_t *masks = <uint32_t *> malloc(NH * sizeof(uint32_t))
        cdef uint32_t *masks2 = <uint32_t *> malloc(NH * sizeof(uint32_t))
        cdef int count[256]
        cdef int pos[5]
        cdef int a, b, c, d, e, i = 0, sh, t, acc
        cdef int32_t v
        cdef uint32_t *tk
        cdef uint32_t *tm
        for a in range(21):
            pos[0] = self.held[a]
            for b in range(a + 1, 22):
                pos[1] = self.held[b]
                for c in range(b + 1, 23):
                    pos[2] = self.held[c]
                    for d in range(c + 1, 24):
                        pos[3] = self.held[d]
                        for e in range(d + 1, 25):
                            pos[4] = self.held[e]
                            v = value5(pos)
                            keys[i] = ((<uint32_t> (0xFFFFFF - v)) << 8) | <uint32_t> (
                                pos[0] + pos[1] + pos[2] + pos[3] + pos[4])
                            masks[i] = (1u << a) | (1u << b) | (1u << c) | (1u << d) | (1u << e)
                            i += 1
        for sh in range(0, 32, 8):  # a stable LSD radix sort: ties keep combinations order
            memset(count, 0, sizeof(count))
            for i in range(NH):
                count[(keys[i] >> sh) & 255] += 1
            acc = 0
            for t in range(256):
                a = count[t]
                count[t] = acc
                acc += a
            for i in range(NH):
                t = (keys[i] >> sh) & 255
                keys2[count[t]] = keys[i]
                masks2[count[t]] = masks[i]
                count[t] += 1
            tk = keys; keys = keys2; keys2 = tk
            tm = masks; masks = masks2; masks2 = tm
        for i in range(NH):
            self.smask[i] = masks[i]
            self.sval[i] = <int32_t> (0xFFFFFF - <int32_t> (keys[i] >> 8))
        free(keys); free(keys2); free(masks); free(masks2)

    cdef int32_t mask_value(self, uint32_t mask) noexcept nogil:
        cdef int pos[5]
        cdef int i, k = 0
        for i in range(25):
            if mask & (1u << i):
                pos[k] = self.held[i]
                k += 1
        return value5(pos)

    cdef void step(self, uint32_t used, int n, uint32_t *out_mask, int32_t *out_val) noexcept nogil:
        """The hand of one partition step: the ``n``-th strongest distinct value of the cards not in ``used``
        (the weakest if there are fewer), its lowest cards, the first in combinations order."""
        cdef int left[25]
        cdef int pos[5]
        cdef int nl = 0, i, a, b, c, dd, e, cnt = 0, j, s
        cdef int32_t last = -1, v
        cdef uint32_t lastm = 0, m
        cdef int32_t kv[8]
        cdef int ks[8]
        cdef uint32_t km[8]
        for i in range(25):
            if not used & (1u << i):
                left[nl] = i
                nl += 1
        if nl > 15:  # the sorted list: the first hand of each new value is that value's chosen one
            for i in range(NH):
                m = self.smask[i]
                if m & used:
                    continue
                v = self.sval[i]
                if v != last:
                    last = v
                    lastm = m
                    cnt += 1
                    if cnt == n + 1:
                        break
            out_mask[0] = lastm
            out_val[0] = last
            return
        # few cards left: enumerate their hands, keeping the n + 1 strongest distinct values
        for a in range(nl - 4):
            pos[0] = self.held[left[a]]
            for b in range(a + 1, nl - 3):
                pos[1] = self.held[left[b]]
                for c in range(b + 1, nl - 2):
                    pos[2] = self.held[left[c]]
                    for dd in range(c + 1, nl - 1):
                        pos[3] = self.held[left[dd]]
                        for e in range(dd + 1, nl):
                            pos[4] = self.held[left[e]]
                            v = value5(pos)
                            if cnt == n + 1 and v < kv[cnt - 1]:
                                continue
                            s = pos[0] + pos[1] + pos[2] + pos[3] + pos[4]
                            m = (1u << left[a]) | (1u << left[b]) | (1u << left[c]) | (1u << left[dd]) | (
                                1u << left[e])
                            j = 0
                            while j < cnt and kv[j] > v:
                                j += 1
                            if j < cnt and kv[j] == v:
                                if s < ks[j]:
                                    ks[j] = s
                                    km[j] = m
                                continue
                            if cnt < n + 1:
                                cnt += 1
                            i = cnt - 1
                            while i > j:
                                kv[i] = kv[i - 1]
                                ks[i] = ks[i - 1]
                                km[i] = km[i - 1]
                                i -= 1
                            kv[j] = v
                            ks[j] = s
                            km[j] = m
        j = n if n < cnt else cnt - 1
        out_mask[0] = km[j]
        out_val[0] = kv[j]

    cdef void partition(self, bitgen_t *bg, int top, uint32_t *pm, int32_t *pv) noexcept nogil:
        """``construct.partition``: packets (masks over the held cards) and values, strongest first."""
        cdef uint32_t m[5]
        cdef int32_t v[5]
        cdef int order[5]
        cdef uint32_t used = 0
        cdef int step, n, i, j, k
        for step in range(4):
            n = <int> bounded(bg, top) if top > 1 else 0
            self.step(used, n, &m[step], &v[step])
            used |= m[step]
        m[4] = (~used) & 0x1FFFFFF
        v[4] = self.mask_value(m[4])
        for i in range(5):
            order[i] = i
        for i in range(1, 5):  # sorted(range(5), key=-value): stable
            k = order[i]
            j = i - 1
            while j >= 0 and v[order[j]] < v[k]:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = k
        for i in range(5):
            pm[i] = m[order[i]]
            pv[i] = v[order[i]]


_HANDS: list = []  # the last deal's sorted hands (both rotations of a deal ask for the same cards)


cdef Hands hands_of(tuple held):
    cdef Hands h
    if _HANDS and (<Hands> _HANDS[0]).key == held:
        return <Hands> _HANDS[0]
    h = Hands(held)
    _HANDS[:] = [h]
    return h


# ------------------------------------------------------------------ candidates

DEF GRID = 1073741824.0  # 2**30: gains are rounded to this grid, so that sums are exact and ties are ties


def _assignment(gain):
    """scipy's ``linear_sum_assignment`` (maximising) of a 5 x 5 gain matrix: the slot of every packet."""
    from scipy.optimize import linear_sum_assignment  # here: scipy costs a second to import

    rows, cols = linear_sum_assignment(gain, maximize=True)
    slots = [0] * 5
    for r, c in zip(rows.tolist(), cols.tolist()):
        slots[r] = c
    return slots


cdef class Build:
    """One deal's candidates (``CandidateSet``) and partitions, with the game work space."""

    cdef int k, nparts, ncand
    cdef uint32_t *pmask   # (nparts, 5)
    cdef int32_t *pval
    cdef uint32_t *cmask   # (ncand, 5): packet of slot s
    cdef int32_t *cval
    cdef double *M
    cdef double *x
    cdef double *y
    cdef double pts[5]
    cdef Game game

    def __cinit__(self, int k, int nparts):
        self.k = k
        self.nparts = 0
        self.ncand = 0
        self.pmask = <uint32_t *> malloc(nparts * 5 * sizeof(uint32_t))
        self.pval = <int32_t *> malloc(nparts * 5 * sizeof(int32_t))
        self.cmask = <uint32_t *> malloc(k * 5 * sizeof(uint32_t))
        self.cval = <int32_t *> malloc(k * 5 * sizeof(int32_t))
        self.M = <double *> malloc(k * k * sizeof(double))
        self.x = <double *> malloc(k * sizeof(double))
        self.y = <double *> malloc(k * sizeof(double))
        if not (self.pmask and self.pval and self.cmask and self.cval and self.M and self.x and self.y):
            raise MemoryError()
        self.game = Game(k + 1)

    def __dealloc__(self):
        free(self.pmask); free(self.pval); free(self.cmask); free(self.cval); free(self.M); free(self.x)
        free(self.y)

    cdef bint add(self, int pi, const int *slots) noexcept nogil:
        """``CandidateSet.add(in_slots(parts[pi], slots))``: False if an equal layout is in (or k are)."""
        cdef uint32_t lm[5]
        cdef int32_t lv[5]
        cdef int q, s
        for q in range(5):
            lm[slots[q]] = self.pmask[5 * pi + q]
            lv[slots[q]] = self.pval[5 * pi + q]
        for q in range(self.ncand):
            if (self.cmask[5 * q] == lm[0] and self.cmask[5 * q + 1] == lm[1] and self.cmask[5 * q + 2] == lm[2]
                    and self.cmask[5 * q + 3] == lm[3] and self.cmask[5 * q + 4] == lm[4]):
                return False
        if self.ncand >= self.k:
            return False
        for s in range(5):
            self.cmask[5 * self.ncand + s] = lm[s]
            self.cval[5 * self.ncand + s] = lv[s]
        self.ncand += 1
        return True

    cdef void matrix(self, int n) noexcept nogil:
        """``margin_matrix`` of the first ``n`` candidates against themselves."""
        cdef int i, j, s
        cdef double acc
        cdef int32_t a, b
        for i in range(n):
            self.M[i * n + i] = 0.0
            for j in range(i + 1, n):
                acc = 0.0
                for s in range(5):
                    a = self.cval[5 * i + s]
                    b = self.cval[5 * j + s]
                    if a > b:
                        acc += self.pts[s]
                    elif a < b:
                        acc -= self.pts[s]
                self.M[i * n + j] = acc
                self.M[j * n + i] = -acc

    cdef int solve(self, int n) except -1:
        """The game on the first ``n`` candidates into ``x``, ``y``; the LP if the oracle gives up."""
        cdef double v
        cdef int i
        self.matrix(n)
        if self.game.solve(n, n, self.M, self.x, self.y, &v) == 0:
            return 0
        from games.quintet.lp import solve_lp
        arr = np.asarray(<double[:n * n]> self.M).reshape(n, n)
        sol = solve_lp(arr)
        for i in range(n):
            self.x[i] = sol.row[i]
            self.y[i] = sol.col[i]
        return 0

    cdef double best_slots(self, int pi, const int *sup, int ns, int *slots) except? -1.0:
        """``construct.best_slots`` of partition ``pi`` against the column strategy ``y``, whose non-zero
        entries are the candidates ``sup`` (``ns`` of them, ascending): the gains on the 2**-30 grid, the best
        of the 120 orders if it is the only best one (the assignment problem's unique optimum), else the
        order scipy's ``linear_sum_assignment`` picks among the best ones, as the readable step does.
        Returns the expected margin times 2**30 (an integer)."""
        cdef double gain[5][5]
        cdef double g, best = -1e300, acc
        cdef int p, s, j, q, bq = 0, ties = 0
        cdef int32_t v
        for p in range(5):
            v = self.pval[5 * pi + p]
            for s in range(5):
                acc = 0.0
                for q in range(ns):
                    j = sup[q]
                    if v > self.cval[5 * j + s]:
                        acc += self.y[j]
                    elif v < self.cval[5 * j + s]:
                        acc -= self.y[j]
                gain[p][s] = floor(acc * self.pts[s] * GRID + 0.5)
        for q in range(120):
            g = gain[0][PERMS[q][0]] + gain[1][PERMS[q][1]] + gain[2][PERMS[q][2]] + gain[3][PERMS[q][3]] + \
                gain[4][PERMS[q][4]]
            if g > best:
                best = g
                bq = q
                ties = 1
            elif g == best:
                ties += 1
        if ties == 1:
            for p in range(5):
                slots[p] = PERMS[bq][p]
            return best
        order = _assignment(np.array(<double[:5, :5]> &gain[0][0]))
        for p in range(5):
            slots[p] = order[p]
        return best


def greedy_partition(tuple held):
    """``construct.partition(held)`` (``top`` = 1): ``(packets, values)``, strongest first, packets ascending card
    ids. The sorted hands of the last deal are kept, so an equilibrium seat's deal gives them for free."""
    cdef Hands h = hands_of(held)
    cdef uint32_t pm[5]
    cdef int32_t pv[5]
    cdef int i, j
    h.partition(NULL, 1, pm, pv)
    packets = []
    for i in range(5):
        packets.append(tuple([h.held[j] + LOW for j in range(25) if pm[i] & (1u << j)]))
    return tuple(packets), tuple([pv[i] for i in range(5)])


cdef void sacrifice_slots(int slot, int *slots) noexcept nogil:
    """``construct.sacrifice``'s order: the weakest packet into ``slot`` (1..5), the others strongest-last."""
    cdef int s, q = 0
    for s in range(4, -1, -1):
        if s != slot - 1:
            slots[q] = s
            q += 1
    slots[4] = slot - 1


def candidates(rng, tuple held, points, int k, int count, int oracle_rounds):
    """``equilibrium.build_candidates(held, points, k, rng, count, oracle_rounds)`` and the solved game:
    ``(layouts, values, row, col, partitions)``: (K, 5, 5) card ids (packet of slot s, ascending), (K, 5)
    values, the row and column strategies of the K x K game, the number of partitions."""
    cdef Hands h = hands_of(held)
    cdef Build bd = Build(k, max(1, count))
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef int TOPS[4]
    cdef int i, q, pi, slot, s, cap, batch, rnd, added, j, t
    cdef int slots[5]
    cdef uint32_t pm[5]
    cdef int32_t pv[5]
    cdef bint dup
    cdef double *gains
    cdef int *order
    cdef int *rslots
    cdef int *sup
    cdef int n, ns
    cdef uint32_t m
    cdef int64_t[:, :, ::1] lv
    cdef int32_t[:, ::1] vv
    cdef double[::1] rv, cv
    TOPS[0], TOPS[1], TOPS[2], TOPS[3] = 2, 3, 4, 6
    for i in range(5):
        bd.pts[i] = <double> points[i]
    with rng.bit_generator.lock:
        # make_partitions
        h.partition(bg, 1, &bd.pmask[0], &bd.pval[0])
        bd.nparts = 1
        for i in range(4 * count):
            if bd.nparts >= count:
                break
            h.partition(bg, TOPS[i % 4], pm, pv)
            dup = False
            for pi in range(bd.nparts):
                if (bd.pmask[5 * pi] == pm[0] and bd.pmask[5 * pi + 1] == pm[1] and bd.pmask[5 * pi + 2] == pm[2]
                        and bd.pmask[5 * pi + 3] == pm[3] and bd.pmask[5 * pi + 4] == pm[4]):
                    dup = True
                    break
            if not dup:
                memcpy(&bd.pmask[5 * bd.nparts], pm, 5 * sizeof(uint32_t))
                memcpy(&bd.pval[5 * bd.nparts], pv, 5 * sizeof(int32_t))
                bd.nparts += 1
        # seeds: greedy's layout, then the sacrifice orders
        for slot in (5, 4, 3, 2):
            if bd.ncand == 0:
                for i in range(5):
                    slots[i] = 4 - i
                bd.add(0, slots)
            sacrifice_slots(slot, slots)
            bd.add(0, slots)
        cap = (k // 2 if k // 2 > 5 else 5) if oracle_rounds > 0 else k
        for pi in range(1, bd.nparts):
            for slot in (1, 5, 4, 3, 2):
                if bd.ncand >= cap:
                    break
                sacrifice_slots(slot, slots)
                bd.add(pi, slots)
        t = oracle_rounds if oracle_rounds > 1 else 1
        batch = (k - bd.ncand + t - 1) // t  # ceil (C division: the operands are >= 0)
        if batch < 4:
            batch = 4
        gains = <double *> malloc(bd.nparts * sizeof(double))
        order = <int *> malloc(bd.nparts * sizeof(int))
        rslots = <int *> malloc(bd.nparts * 5 * sizeof(int))
        sup = <int *> malloc(k * sizeof(int))
        try:
            if not (gains and order and rslots and sup):
                raise MemoryError()
            for rnd in range(oracle_rounds):
                if bd.ncand >= k:
                    break
                t = bd.ncand
                bd.solve(t)
                ns = 0
                for j in range(t):
                    if bd.y[j] != 0.0:
                        sup[ns] = j
                        ns += 1
                for pi in range(bd.nparts):
                    gains[pi] = bd.best_slots(pi, sup, ns, &rslots[5 * pi])
                    order[pi] = pi
                for i in range(1, bd.nparts):  # sorted by -gain, stable
                    q = order[i]
                    j = i - 1
                    while j >= 0 and gains[order[j]] < gains[q]:
                        order[j + 1] = order[j]
                        j -= 1
                    order[j + 1] = q
                added = 0
                for i in range(bd.nparts):
                    if bd.ncand >= k or added >= batch:
                        break
                    added += bd.add(order[i], &rslots[5 * order[i]])
        finally:
            free(gains)
            free(order)
            free(rslots)
            free(sup)
        # the rest: random slot orders of random partitions
        for i in range(20 * k):
            if bd.ncand >= k:
                break
            pi = <int> bounded(bg, bd.nparts)
            for q in range(5):
                slots[q] = q
            for q in range(4, 0, -1):
                j = <int> interval(bg, q)
                s = slots[q]
                slots[q] = slots[j]
                slots[j] = s
            bd.add(pi, slots)
    n = bd.ncand
    bd.solve(n)
    layouts = np.empty((n, 5, 5), dtype=np.int64)
    values = np.empty((n, 5), dtype=np.int32)
    row = np.empty(n)
    col = np.empty(n)
    lv = layouts
    vv = values
    rv = row
    cv = col
    for i in range(n):
        rv[i] = bd.x[i]
        cv[i] = bd.y[i]
        for s in range(5):
            vv[i, s] = bd.cval[5 * i + s]
            m = bd.cmask[5 * i + s]
            q = 0
            for j in range(25):
                if m & (1u << j):
                    lv[i, s, q] = h.held[j] + LOW
                    q += 1
    return layouts, values, row, col, bd.nparts

