# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The exact turn solution of games.dice_poker.turn in C: the same recursions, row by row.

``turn_values`` takes the write values of a batch of sheet states (``wv1``, ``wv23``: [B, 252]) and
the index tables of ``turn.tables()`` and writes each row's expected turn value into ``out``. The
tables are ordered so that every "minus one die" entry precedes the entry it comes from, so the
sub-multiset maxima are one forward pass. A row of ``turn_values`` and ``write_values`` is computed by
turnrow.pxd, which the compiled play-out's ``optimal`` seats share.
"""

from libc.stdlib cimport free, malloc

from games.dice_poker.fast.turnrow cimport Part, Turn, dmax, turn_row, write_row

cdef double NEG = -1e18


def turn_values(const double[:, ::1] wv1, const double[:, ::1] wv23, bint locked,
                const long[::1] o_ms, const double[::1] o_p, const long[::1] o_start,
                const long[:, ::1] k_drop, const long[:, ::1] ms_drop, const double[::1] p1,
                const long[::1] p_e3, const long[:, ::1] p_drop,
                const long[::1] l_ms, const double[::1] l_p, const long[:, ::1] l_drop, const long[::1] l_start,
                double[::1] out, double[:, ::1] e3_out=None, double[:, ::1] e2_out=None):
    """Expected turn value of every row (see the module docstring of games.dice_poker.turn); with
    ``e3_out``/``e2_out`` ([B, 210]) also the value of every keep choice before throw 3 and throw 2."""
    cdef bint keep = e3_out is not None and e2_out is not None
    cdef Py_ssize_t B = wv1.shape[0], NK = o_start.shape[0]
    cdef Py_ssize_t b, k
    cdef Turn t = turn_tables(o_ms, o_p, o_start, k_drop, ms_drop, p1, p_e3, p_drop, l_ms, l_p, l_drop, l_start)
    t.nm = wv1.shape[1]
    cdef double* e3 = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* e2 = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* mk = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* mp = <double*> malloc((t.npairs + 1) * sizeof(double))
    cdef double* w2 = <double*> malloc(t.nm * sizeof(double))
    if not e3 or not e2 or not mk or not mp or not w2:
        raise MemoryError()
    try:
        with nogil:
            for b in range(B):
                out[b] = turn_row(&t, &wv1[b, 0], &wv23[b, 0], locked, e3, e2, mk, mp, w2, NULL)
                if keep:
                    for k in range(NK):
                        e3_out[b, k] = e3[k]
                        e2_out[b, k] = e2[k]
    finally:
        free(e3)
        free(e2)
        free(mk)
        free(mp)
        free(w2)


cdef Turn turn_tables(const long[::1] o_ms, const double[::1] o_p, const long[::1] o_start,
                      const long[:, ::1] k_drop, const long[:, ::1] ms_drop, const double[::1] p1,
                      const long[::1] p_e3, const long[:, ::1] p_drop, const long[::1] l_ms, const double[::1] l_p,
                      const long[:, ::1] l_drop, const long[::1] l_start):
    """The ``Turn`` of turn.tables()'s arrays (pointers into the buffers: they must outlive its use)."""
    cdef Turn t
    t.o_ms, t.o_p, t.o_start = &o_ms[0], &o_p[0], &o_start[0]
    t.k_drop, t.ms_drop, t.p1 = &k_drop[0, 0], &ms_drop[0, 0], &p1[0]
    t.p_e3, t.p_drop = &p_e3[0], &p_drop[0, 0]
    t.l_ms, t.l_p, t.l_drop, t.l_start = &l_ms[0], &l_p[0], &l_drop[0, 0], &l_start[0]
    t.nk, t.no, t.nm, t.npairs, t.nl = o_start.shape[0], o_ms.shape[0], ms_drop.shape[0], p_e3.shape[0], l_ms.shape[0]
    return t


cdef inline double state_value(const double[::1] vflat, const long[::1] voff, const long[::1] vlo,
                               const long[::1] vlen, long mask, long s) noexcept nogil:
    cdef long n = vlen[mask]
    cdef long i
    if n == 1:
        return vflat[voff[mask]]
    i = s - vlo[mask]
    if i < 0:
        i = 0
    elif i >= n:
        i = n - 1
    return vflat[voff[mask] + i]


def write_values(const long[::1] masks, const long[::1] sums, const long[::1] allowed,
                 const double[::1] vflat, const long[::1] voff, const long[::1] vlo, const long[::1] vlen,
                 const long[::1] gidx, const long[::1] face, long class_bits,
                 const double[:, ::1] sc1, const double[:, ::1] sc23, const long[:, ::1] counts,
                 const double[::1] bonus, long bonus_zero, double[:, ::1] wv1, double[:, ::1] wv23):
    """The write values of rows (mask, school sum): games.dice_poker.solver.SubGame.write_values in C.

    ``allowed[r]`` is the bit set of the sub-game's lines row r may write, ``face[i]`` line i's class
    face (0: a main line), ``bonus[bonus_zero + S]`` the school bonus of a complete school summing to S.
    """
    cdef Py_ssize_t R = masks.shape[0], r
    cdef Part p
    p.vflat, p.voff, p.vlo, p.vlen = &vflat[0], &voff[0], &vlo[0], &vlen[0]
    p.gidx, p.face, p.class_bits, p.m, p.fixed_order = &gidx[0], &face[0], class_bits, gidx.shape[0], False
    p.sc1, p.sc23, p.counts, p.bonus, p.bonus_zero, p.nm = &sc1[0, 0], &sc23[0, 0], &counts[0, 0], &bonus[0], \
        bonus_zero, counts.shape[0]
    with nogil:
        for r in range(R):
            write_row(&p, masks[r], sums[r], allowed[r], &wv1[r, 0], &wv23[r, 0])


# ---------------------------------------------------------------------------- second moments
# The same recursions, but each maximum carries a second quantity ``q`` of the chosen branch (the
# second moment of the remaining score under the policy that maximises the value). Ties in value
# (within TIE) go to the larger q, so the policy is canonical: the same whatever the order of the
# choices (the brute force of the tests picks the same branch).

cdef double TIE = 1e-9


cdef inline bint better(double w, double q, double bw, double bq) noexcept nogil:
    """(w, q) beats (bw, bq): a larger value, or an equal one (within TIE) with a larger q."""
    return w > bw + TIE or (w >= bw - TIE and q > bq)


def turn_moments(const double[:, ::1] wv1, const double[:, ::1] wv23, const double[:, ::1] q1,
                 const double[:, ::1] q23, bint locked,
                 const long[::1] o_ms, const double[::1] o_p, const long[::1] o_start,
                 const long[:, ::1] k_drop, const long[:, ::1] ms_drop, const double[::1] p1,
                 const long[::1] p_e3, const long[:, ::1] p_drop,
                 const long[::1] l_ms, const double[::1] l_p, const long[:, ::1] l_drop, const long[::1] l_start,
                 double[::1] out):
    """The expectation of ``q`` (q1 after throw 1, q23 after throws 2-3) of every row's turn when the
    turn is played to maximise ``wv`` (``turn_values``'s policy, ties to the larger q)."""
    cdef Py_ssize_t B = wv1.shape[0], NM = wv1.shape[1], NK = o_start.shape[0], NO = o_ms.shape[0]
    cdef Py_ssize_t NP = p_e3.shape[0], NL = l_ms.shape[0]
    cdef Py_ssize_t b, k, o, j, p, l, m, end, d
    cdef double acc, accq, w, q, v, vq
    cdef const double* r1
    cdef const double* r23
    cdef const double* s1
    cdef const double* s23
    cdef double* e3 = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* e3q = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* e2 = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* e2q = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* mk = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* mkq = <double*> malloc((NK + 1) * sizeof(double))
    cdef double* mp = <double*> malloc((NP + 1) * sizeof(double))
    cdef double* mpq = <double*> malloc((NP + 1) * sizeof(double))
    cdef double* w2 = <double*> malloc(NM * sizeof(double))
    cdef double* w2q = <double*> malloc(NM * sizeof(double))
    if not e3 or not e3q or not e2 or not e2q or not mk or not mkq or not mp or not mpq or not w2 or not w2q:
        raise MemoryError()
    try:
        with nogil:
            for b in range(B):
                r1 = &wv1[b, 0]
                r23 = &wv23[b, 0]
                s1 = &q1[b, 0]
                s23 = &q23[b, 0]
                for k in range(NK):
                    end = o_start[k + 1] if k + 1 < NK else NO
                    acc = 0.0
                    accq = 0.0
                    for o in range(o_start[k], end):
                        acc = acc + o_p[o] * r23[o_ms[o]]
                        accq = accq + o_p[o] * s23[o_ms[o]]
                    e3[k] = acc
                    e3q[k] = accq
                if locked:
                    mp[NP] = NEG
                    mpq[NP] = 0.0
                    for p in range(NP):
                        v = e3[p_e3[p]]
                        vq = e3q[p_e3[p]]
                        for j in range(5):
                            d = p_drop[p, j]
                            if d == NP:
                                break
                            if better(mp[d], mpq[d], v, vq):
                                v = mp[d]
                                vq = mpq[d]
                        mp[p] = v
                        mpq[p] = vq
                    for k in range(NK):
                        end = l_start[k + 1] if k + 1 < NK else NL
                        acc = 0.0
                        accq = 0.0
                        for l in range(l_start[k], end):
                            w = r23[l_ms[l]]
                            q = s23[l_ms[l]]
                            for j in range(5):
                                d = l_drop[l, j]
                                if d == NP:
                                    break
                                if better(mp[d], mpq[d], w, q):
                                    w = mp[d]
                                    q = mpq[d]
                            acc = acc + l_p[l] * w
                            accq = accq + l_p[l] * q
                        e2[k] = acc
                        e2q[k] = accq
                else:
                    mk[NK] = NEG
                    mkq[NK] = 0.0
                    for k in range(NK):
                        v = e3[k]
                        vq = e3q[k]
                        for j in range(5):
                            d = k_drop[k, j]
                            if better(mk[d], mkq[d], v, vq):
                                v = mk[d]
                                vq = mkq[d]
                        mk[k] = v
                        mkq[k] = vq
                    for m in range(NM):
                        w = r23[m]
                        q = s23[m]
                        for j in range(5):
                            d = ms_drop[m, j]
                            if better(mk[d], mkq[d], w, q):
                                w = mk[d]
                                q = mkq[d]
                        w2[m] = w
                        w2q[m] = q
                    for k in range(NK):
                        end = o_start[k + 1] if k + 1 < NK else NO
                        acc = 0.0
                        accq = 0.0
                        for o in range(o_start[k], end):
                            acc = acc + o_p[o] * w2[o_ms[o]]
                            accq = accq + o_p[o] * w2q[o_ms[o]]
                        e2[k] = acc
                        e2q[k] = accq
                mk[NK] = NEG
                mkq[NK] = 0.0
                for k in range(NK):
                    v = e2[k]
                    vq = e2q[k]
                    for j in range(5):
                        d = k_drop[k, j]
                        if better(mk[d], mkq[d], v, vq):
                            v = mk[d]
                            vq = mkq[d]
                    mk[k] = v
                    mkq[k] = vq
                accq = 0.0
                for m in range(NM):
                    w = r1[m]
                    q = s1[m]
                    for j in range(5):
                        d = ms_drop[m, j]
                        if better(mk[d], mkq[d], w, q):
                            w = mk[d]
                            q = mkq[d]
                    accq = accq + p1[m] * q
                out[b] = accq
    finally:
        free(e3)
        free(e3q)
        free(e2)
        free(e2q)
        free(mk)
        free(mkq)
        free(mp)
        free(mpq)
        free(w2)
        free(w2q)


def write_moments(const long[::1] masks, const long[::1] sums, const long[::1] allowed,
                  const double[::1] vflat, const double[::1] m2flat, const long[::1] voff, const long[::1] vlo,
                  const long[::1] vlen, const long[::1] gidx, const long[::1] face, long class_bits,
                  const double[:, ::1] sc1, const double[:, ::1] sc23, const long[:, ::1] counts,
                  const double[::1] bonus, long bonus_zero, double[:, ::1] wv1, double[:, ::1] wv23,
                  double[:, ::1] q1, double[:, ::1] q23):
    """``write_values`` plus, for the best write (ties to the larger q), ``q = x^2 + 2 x V' + M2'``: the
    second moment of the remaining score when the write scores x and leaves a state of value V' and
    second moment M2' (``m2flat``, laid out as ``vflat``)."""
    cdef Py_ssize_t R = masks.shape[0], NM = counts.shape[0], M = gidx.shape[0]
    cdef Py_ssize_t r, i, c, ms
    cdef long mask, s, nxt, f, s2, g
    cdef double x, vn, mn, w, q
    cdef double vals[6]
    cdef double qs[6]
    with nogil:
        for r in range(R):
            mask = masks[r]
            s = sums[r]
            for ms in range(NM):
                wv1[r, ms] = NEG
                wv23[r, ms] = NEG
                q1[r, ms] = 0.0
                q23[r, ms] = 0.0
            for i in range(M):
                if not (allowed[r] >> i) & 1:
                    continue
                nxt = mask | (1 << i)
                f = face[i]
                if f:
                    for c in range(6):
                        x = (c - 3) * f
                        s2 = s + (c - 3) * f
                        if nxt & class_bits == class_bits:
                            x = x + bonus[bonus_zero + s2]
                        vn = state_value(vflat, voff, vlo, vlen, nxt, s2)
                        mn = state_value(m2flat, voff, vlo, vlen, nxt, s2)
                        vals[c] = x + vn
                        qs[c] = x * x + 2.0 * x * vn + mn
                    for ms in range(NM):
                        c = counts[ms, f - 1]
                        if better(vals[c], qs[c], wv1[r, ms], q1[r, ms]):
                            wv1[r, ms] = vals[c]
                            q1[r, ms] = qs[c]
                        if better(vals[c], qs[c], wv23[r, ms], q23[r, ms]):
                            wv23[r, ms] = vals[c]
                            q23[r, ms] = qs[c]
                else:
                    g = gidx[i]
                    vn = state_value(vflat, voff, vlo, vlen, nxt, s)
                    mn = state_value(m2flat, voff, vlo, vlen, nxt, s)
                    for ms in range(NM):
                        x = sc1[g, ms]
                        w = x + vn
                        q = x * x + 2.0 * x * vn + mn
                        if better(w, q, wv1[r, ms], q1[r, ms]):
                            wv1[r, ms] = w
                            q1[r, ms] = q
                        x = sc23[g, ms]
                        w = x + vn
                        q = x * x + 2.0 * x * vn + mn
                        if better(w, q, wv23[r, ms], q23[r, ms]):
                            wv23[r, ms] = w
                            q23[r, ms] = q
