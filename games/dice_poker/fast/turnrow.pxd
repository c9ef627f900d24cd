# cython: language_level=3
"""One sheet state's turn in C: its write values and its keep values (games.dice_poker.turn's recursions).

Inline C over raw pointers, cimported by ``_turn.pyx`` (the solver's batches: a row at a time) and by
``_play.pyx`` (the ``optimal`` seats of the compiled play-out: one row per turn), so the two compute the
same floats in the same order. ``Part`` is a solved sub-game (``solver.SubGame``: its values laid out by
mask and school sum, its lines, the score tables), ``Turn`` the multiset index tables of ``turn.tables()``;
every 2-D table is C-ordered (``k_drop[k * 5 + j]``, ``sc1[line * nm + ms]``, ``counts[ms * 6 + face]``).
"""

ctypedef struct Part:
    const double *vflat     # the values of every state, by mask: ``vlen[mask]`` school sums from ``vlo[mask]``
    const long *voff
    const long *vlo
    const long *vlen
    const long *gidx        # [m] the global line index of each local line
    const long *face        # [m] the class face of each local line (0: a main line)
    long class_bits
    long m                  # lines of the sub-game
    bint fixed_order        # DP-6.2 school_order=fixed: the first empty class only
    const double *sc1       # [15, nm] the score of writing line l with multiset ms after throw 1 (bonus in)
    const double *sc23      # [15, nm] after throw 2 or 3
    const long *counts      # [nm, 6] face counts of the five-dice multisets
    const double *bonus     # [2 * bonus_zero + 1] the school bonus of a complete school summing to S
    long bonus_zero
    long nm                 # 252


ctypedef struct Turn:
    const long *o_ms        # [no] E3's (K, o) pairs: the final multiset, its chance, the first pair of each K
    const double *o_p
    const long *o_start     # [nk]
    const long *k_drop      # [nk, 5]
    const long *ms_drop     # [nm, 5]
    const double *p1        # [nm]
    const long *p_e3        # [npairs] (locked)
    const long *p_drop      # [npairs, 5]
    const long *l_ms        # [nl]
    const double *l_p
    const long *l_drop      # [nl, 5]
    const long *l_start     # [nk]
    long nk
    long no
    long nm
    long npairs
    long nl


cdef inline double dmax(double a, double b) noexcept nogil:
    return a if a > b else b


cdef inline double state_value(const Part *p, long mask, long s) noexcept nogil:
    """V of state (``mask``, ``s``), ``s`` clipped into the mask's window."""
    cdef long n = p.vlen[mask]
    cdef long i
    if n == 1:
        return p.vflat[p.voff[mask]]
    i = s - p.vlo[mask]
    if i < 0:
        i = 0
    elif i >= n:
        i = n - 1
    return p.vflat[p.voff[mask] + i]


cdef inline long allowed_local(const Part *p, long mask) noexcept nogil:
    """``SubGame.allowed`` as a bit set of local lines."""
    cdef long empty = ~mask & ((1 << p.m) - 1)
    cdef long classes = empty & p.class_bits
    if p.fixed_order and classes:
        return classes & -classes
    return empty


cdef inline void write_row(const Part *p, long mask, long s, long allowed, double *wv1, double *wv23) noexcept nogil:
    """``SubGame.write_values`` of one state: the best write after throw 1 and after throw 2/3, per multiset."""
    cdef long i, c, ms, nxt, f, sc, s2, g
    cdef double v, vn, w
    cdef double vals[6]
    for ms in range(p.nm):
        wv1[ms] = -1e18
        wv23[ms] = -1e18
    for i in range(p.m):
        if not (allowed >> i) & 1:
            continue
        nxt = mask | (1 << i)
        f = p.face[i]
        if f:
            for c in range(6):
                sc = (c - 3) * f
                s2 = s + sc
                v = state_value(p, nxt, s2) + sc
                if nxt & p.class_bits == p.class_bits:
                    v = v + p.bonus[p.bonus_zero + s2]
                vals[c] = v
            for ms in range(p.nm):
                w = vals[p.counts[ms * 6 + f - 1]]
                wv1[ms] = dmax(wv1[ms], w)
                wv23[ms] = dmax(wv23[ms], w)
        else:
            g = p.gidx[i]
            vn = state_value(p, nxt, s)
            for ms in range(p.nm):
                wv1[ms] = dmax(wv1[ms], p.sc1[g * p.nm + ms] + vn)
                wv23[ms] = dmax(wv23[ms], p.sc23[g * p.nm + ms] + vn)


cdef inline double drop_max(double v, const double *m, const long *drop, long stop) noexcept nogil:
    """The largest of ``v`` and ``m[drop[j]]`` over the five entries of ``drop`` (a multiset minus one die of
    each face, then pads pointing at ``m``'s NEG slot) before the first equal to ``stop`` (-1: all five), in
    that order."""
    cdef long j
    for j in range(5):
        if drop[j] == stop:
            break
        v = dmax(v, m[drop[j]])
    return v


cdef inline void keep_values(double *m, const double *e, const long *at, const long *drop, long n,
                             long stop) noexcept nogil:
    """The keep values ``m[q] = max(e[at[q]], max_j m[drop[q, j]])`` (``e[q]`` when ``at`` is NULL) for
    q = 0..n-1 in order, ``m[n]`` the NEG slot: the best value of keeping any sub-multiset of q, as every
    entry of ``drop[q]`` precedes q. ``drop`` and ``stop`` as ``drop_max``'s."""
    cdef long q
    m[n] = -1e18
    for q in range(n):
        m[q] = drop_max(e[at[q]] if at != NULL else e[q], m, drop + q * 5, stop)


cdef inline void expect_kept(const Turn *t, const double *w, double *e) noexcept nogil:
    """``e[K] = sum_o P(o) w[K + o]`` over the outcomes of the re-rolled dice of every kept multiset K."""
    cdef long k, o, end
    cdef double acc
    for k in range(t.nk):
        end = t.o_start[k + 1] if k + 1 < t.nk else t.no
        acc = 0.0
        for o in range(t.o_start[k], end):
            acc = acc + t.o_p[o] * w[t.o_ms[o]]
        e[k] = acc


cdef inline double turn_row(const Turn *t, const double *r1, const double *r23, bint locked, double *e3,
                            double *e2, double *mk, double *mp, double *w2, double *w1) noexcept nogil:
    """The turn of one state (``turn.solve_turn``): fills ``e3``/``e2`` ([nk], keeping K before throw 3 / 2)
    and returns the turn's expected value; ``w1`` ([nm], unless NULL) gets ``W1``, the value after throw 1 of
    every multiset (the better of writing and the best keep). Scratch: ``mk`` [nk + 1], ``mp`` [npairs + 1],
    ``w2`` [nm]."""
    cdef long k, l, m, end
    cdef double acc, w
    cdef long NK = t.nk, NP = t.npairs
    # E3[K]: keep K, throw the rest once more, then write the best line
    expect_kept(t, r23, e3)
    if locked:
        # (K1, X): the best of keeping K1 and any part of X before throw 3; W2[K1, N] over the new faces N
        keep_values(mp, e3, t.p_e3, t.p_drop, NP, NP)
        for k in range(NK):
            end = t.l_start[k + 1] if k + 1 < NK else t.nl
            acc = 0.0
            for l in range(t.l_start[k], end):
                acc = acc + t.l_p[l] * drop_max(r23[t.l_ms[l]], mp, t.l_drop + l * 5, NP)
            e2[k] = acc
    else:
        keep_values(mk, e3, NULL, t.k_drop, NK, -1)
        for m in range(t.nm):
            w2[m] = drop_max(r23[m], mk, t.ms_drop + m * 5, -1)
        expect_kept(t, w2, e2)
    # throw 1: write now, or keep the best proper sub-multiset before throw 2
    keep_values(mk, e2, NULL, t.k_drop, NK, -1)
    acc = 0.0
    for m in range(t.nm):
        w = drop_max(r1[m], mk, t.ms_drop + m * 5, -1)
        if w1 != NULL:
            w1[m] = w
        acc = acc + t.p1[m] * w
    return acc
