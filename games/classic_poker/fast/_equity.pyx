# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Monte Carlo loop of ``classic-poker/equity`` in C (games/classic_poker/bots.py, ``equity``).

It computes exactly what the readable ``bots.equity_reference`` computes, from the same draws of the
same Generator: ``rng.random((samples, n))`` over the ``n`` unseen cards, each row's cards taken in
the order of ``argsort`` of its numbers (the first ``need_me`` complete the bot's hand, the next ones
each unfolded opponent's in seat order), every hand valued by the batch evaluator's tables
(``ext.handeval``: ``Tables`` or ``WildTables.evaluate_into``), ties shared. What changes is the work
around the draw: only the numbers of a row below a threshold (about ``total + 3 sqrt(total)`` of them;
all of them when fewer than ``total`` are) are ordered, by a bucket sort in C, instead of ``argsort`` of
all; every hand of a decision goes to the evaluator in one batch; the comparison is one C loop. Equal numbers in a row (about one row in 10^13) have no order numpy
promises, so such a decision takes its rows from numpy's own ``argsort``. From a Philox generator (every
decision of a job: games/core/streams.py) the numbers are made here, as numpy's Philox makes them, from
its state (``philox_direct``: checked against numpy on first use); from any other, by ``rng.random``.
"""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from ext.npdraw cimport bitgen_t
from ext.npphilox cimport np_philox_2blocks, np_philox_block, np_philox_bump, np_philox_double, philox_state

DEF MAXN = 60   # unseen cards (54 at most)

cdef int64_t QUALIFIED = 1 << 24   # hands.QUALIFIED (CP-5.4)

#: Decisions whose rows came from numpy's ``argsort`` (equal numbers in a row): a count for the tests.
ARGSORT_FALLBACKS = 0


cdef inline void _bucket_sort(double* vals, uint8_t* idx, int m, double scale) noexcept nogil:
    """Sort ``vals[0..m)`` (numbers in [0, 1 / scale)) and ``idx`` with them, equal numbers in their
    first order: a bucket sort into ``2m`` buckets of ``floor(2m scale v)`` (about one number each, the
    numbers being uniform), then an insertion sort fixing the few buckets holding two or more."""
    cdef int cnt[2 * MAXN + 1]
    cdef uint8_t bk[MAXN]
    cdef uint8_t i0[MAXN]
    cdef double v0[MAXN]
    cdef int nb = 2 * m, i, j, b, acc, t
    cdef double v, f = nb * scale
    cdef uint8_t ii
    for b in range(nb + 1):
        cnt[b] = 0
    for i in range(m):
        v0[i] = vals[i]
        i0[i] = idx[i]
        b = <int>(vals[i] * f)
        if b >= nb:  # rounding at the top: kept in range
            b = nb - 1
        bk[i] = <uint8_t>b
        cnt[b + 1] += 1
    acc = 0
    for b in range(nb + 1):
        acc += cnt[b]
        cnt[b] = acc
    for i in range(m):
        b = bk[i]
        t = cnt[b]
        cnt[b] = t + 1
        idx[t] = i0[i]
        vals[t] = v0[i]
    for i in range(1, m):
        v = vals[i]
        if v < vals[i - 1]:
            ii = idx[i]
            j = i
            while j > 0 and vals[j - 1] > v:
                vals[j] = vals[j - 1]
                idx[j] = idx[j - 1]
                j -= 1
            vals[j] = v
            idx[j] = ii


cdef inline bint _select(const double* x, int n, int k, double t, uint8_t* out) noexcept nogil:
    """The indices of the ``k`` smallest of ``x[0..n)`` (numbers in [0, 1)) in increasing order of value;
    False on equal numbers among them or at the ``k``-th place (the caller then asks numpy, whose order
    of ties is its own).

    The numbers below ``t`` (chosen so that about ``k + 3 sqrt(k)`` are) are kept in index order and
    sorted; when fewer than ``k`` are, all ``n`` are."""
    cdef double vals[MAXN]
    cdef uint8_t idx[MAXN]
    cdef int m = 0, i
    cdef double v
    if t < 1.0:
        for i in range(n):
            v = x[i]
            vals[m] = v
            idx[m] = <uint8_t>i
            m += v < t
    if m < k:
        for i in range(n):
            vals[i] = x[i]
            idx[i] = <uint8_t>i
        m = n
        t = 1.0
    _bucket_sort(vals, idx, m, 1.0 / t)
    for i in range(k):
        if i + 1 < m and vals[i] == vals[i + 1]:
            return False
        out[i] = idx[i]
    return True


cdef void _philox_fill(philox_state *st, double *out, Py_ssize_t cnt) noexcept nogil:
    """``cnt`` numbers as ``Generator.random`` draws them from a Philox generator, the state left as it
    leaves it (the counter, the buffer of the last block and its position). The state's layout is checked
    against ``Generator.random`` on first use (``philox_direct``), and not used when it differs; the blocks
    are made two at a time (ext/npphilox.pxd): numpy's ``random`` calls its generator through a function
    pointer per number."""
    cdef Py_ssize_t i = 0
    cdef uint64_t ca[4]
    cdef uint64_t cb[4]
    cdef uint64_t wa[4]
    cdef uint64_t wb[4]
    cdef int j
    while i < cnt and st.buffer_pos < 4:
        out[i] = np_philox_double(st.buffer[st.buffer_pos])
        st.buffer_pos += 1
        i += 1
    if i == cnt:
        return
    for j in range(4):
        ca[j] = st.ctr[j]
    while cnt - i > 4:  # two blocks: the second is needed, at least in part
        np_philox_bump(ca)
        for j in range(4):
            cb[j] = ca[j]
        np_philox_bump(cb)
        np_philox_2blocks(ca, cb, st.key, wa, wb)
        for j in range(4):
            out[i + j] = np_philox_double(wa[j])
        i += 4
        for j in range(4):
            ca[j] = cb[j]
        if cnt - i <= 4:  # the second block is the last: it stays in the buffer
            for j in range(4):
                st.buffer[j] = wb[j]
            st.buffer_pos = <int>(cnt - i)
            for j in range(st.buffer_pos):
                out[i + j] = np_philox_double(wb[j])
            for j in range(4):
                st.ctr[j] = ca[j]
            return
        for j in range(4):
            out[i + j] = np_philox_double(wb[j])
        i += 4
    np_philox_bump(ca)  # one block for the last 1-4 numbers
    np_philox_block(ca, st.key, wa)
    for j in range(4):
        st.buffer[j] = wa[j]
        st.ctr[j] = ca[j]
    st.buffer_pos = <int>(cnt - i)
    for j in range(st.buffer_pos):
        out[i + j] = np_philox_double(wa[j])


cdef int _philox_direct = -1   # -1: not checked yet (``philox_direct``)


def _draw(object rng, int samples, int n):
    """``rng.random((samples, n))``: made here from a Philox generator's state when ``philox_direct()``."""
    cdef philox_state *st
    cdef double[:, ::1] x
    if type(rng) is np.random.Generator and type(rng.bit_generator) is np.random.Philox and \
            (_philox_direct == 1 or _philox_direct == -1 and philox_direct()):
        bits = rng.bit_generator
        out = np.empty((samples, n), dtype=np.float64)
        if samples * n == 0:
            return out
        x = out
        st = <philox_state *> (<bitgen_t *> PyCapsule_GetPointer(bits.capsule, "BitGenerator")).state
        with bits.lock:
            with nogil:
                _philox_fill(st, &x[0, 0], <Py_ssize_t> samples * n)
        return out
    return rng.random((samples, n))


def philox_direct() -> bool:
    """Whether Philox generators are drawn from here: checked once, on first use, against
    ``Generator.random`` on this numpy (the numbers and the state after, from every buffer position, over
    lengths 1-13 and a long one, and across a carry of the counter); False: numpy draws them."""
    global _philox_direct
    if _philox_direct != -1:
        return _philox_direct == 1
    _philox_direct = 1
    try:
        for key, start in ((0x1234, 0), (2**63 + 5, 0), (7, 2**64 - 3)):
            ctr = np.array([start, 0, 0, 0], dtype=np.uint64)
            for skip in range(5):
                for cnt in (*range(1, 14), 300 * 47):
                    a = np.random.Generator(np.random.Philox(key=key, counter=ctr))
                    b = np.random.Generator(np.random.Philox(key=key, counter=ctr))
                    if skip:
                        a.random(skip)
                        b.random(skip)
                    x, y = a.random((1, cnt)), _draw(b, 1, cnt)
                    sa, sb = a.bit_generator.state, b.bit_generator.state
                    if not (np.array_equal(x, y) and a.random() == b.random()
                            and np.array_equal(sa["state"]["counter"], sb["state"]["counter"])
                            and sa["buffer_pos"] == sb["buffer_pos"] and np.array_equal(sa["buffer"], sb["buffer"])):
                        _philox_direct = 0
    except Exception:
        _philox_direct = 0
    return _philox_direct == 1


def _values(tabs, const uint8_t[:, ::1] hands, int kind, int64_t low_top):
    """The value that decides the pot of every row: the first table's, or under ``kind`` 2 (a low pot
    with the 8 qualifier, ``hands.low_pot_values``) the qualifying low + QUALIFIED, else the high."""
    cdef Py_ssize_t rows = hands.shape[0], i
    out_a = np.empty(rows, dtype=np.int32)
    if tabs[0].evaluate_into(hands, out_a) >= 0:
        raise ValueError("invalid hand in an equity batch")
    res = out_a.astype(np.int64)
    if kind != 2:
        return res
    out_b = np.empty(rows, dtype=np.int32)
    if tabs[1].evaluate_into(hands, out_b) >= 0:
        raise ValueError("invalid hand in an equity batch")
    cdef int64_t[::1] r = res
    cdef const int32_t[::1] hi = out_b
    cdef int64_t raw
    with nogil:
        for i in range(rows):
            raw = low_top - r[i]
            if (raw >> 20) == 0 and ((raw >> 16) & 0xF) <= 7:
                r[i] = r[i] + QUALIFIED
            else:
                r[i] = hi[i]
    return res


def equity(object rng, const uint8_t[::1] unseen, const uint8_t[::1] mine, int need_me,
           const uint8_t[::1] opp_cards, const uint8_t[::1] opp_len, int final, int samples,
           object mine_tabs, object opp_tabs, int kind, int64_t low_top):
    """The share of the pot won against ``samples`` random completions (ties shared).

    ``unseen``: the cards the bot cannot see, in deck order; ``mine``: its cards (and the common card),
    completed with ``need_me`` unseen ones; ``opp_cards``: each unfolded opponent's known cards (up
    cards, the common card) one after another, ``opp_len`` long each, completed to ``final`` cards.
    ``mine_tabs`` / ``opp_tabs``: (table, second table or None) for the bot's and the opponents' hand
    sizes; ``kind`` 2 when the second table gives the high values of a low pot with a qualifier.
    """
    cdef int n = unseen.shape[0], nopp = opp_len.shape[0], wm = mine.shape[0] + need_me
    cdef int total = need_me, j, s, c, at, off, L
    for j in range(nopp):
        total += final - opp_len[j]
    if n > MAXN or total > n or wm > 8 or final > 8 or total == 0 and nopp == 0:
        raise ValueError("equity: unsupported sizes")
    x_arr = _draw(rng, samples, n)
    cdef const double[:, ::1] x = x_arr
    sel_arr = np.empty((samples, max(total, 1)), dtype=np.uint8)
    cdef uint8_t[:, ::1] sel = sel_arr
    cdef bint ties = False
    cdef double t = (total + 3.0 * sqrt(total) + 3.0) / n
    with nogil:
        for s in range(samples):
            if total > 0 and not _select(&x[s, 0], n, total, t, &sel[s, 0]):
                ties = True
                break
    if ties:
        global ARGSORT_FALLBACKS
        ARGSORT_FALLBACKS += 1
        sel_arr = np.argsort(x_arr, axis=1)[:, :max(total, 1)].astype(np.uint8)
        sel = sel_arr
    m_arr = np.empty((samples, wm), dtype=np.uint8)
    o_arr = np.empty((nopp * samples, final), dtype=np.uint8)
    cdef uint8_t[:, ::1] mh = m_arr
    cdef uint8_t[:, ::1] oh = o_arr
    cdef int nm = mine.shape[0]
    with nogil:
        for s in range(samples):
            for c in range(nm):
                mh[s, c] = mine[c]
            for c in range(need_me):
                mh[s, nm + c] = unseen[sel[s, c]]
        at = need_me
        off = 0
        for j in range(nopp):
            L = opp_len[j]
            for s in range(samples):
                for c in range(L):
                    oh[j * samples + s, c] = opp_cards[off + c]
                for c in range(final - L):
                    oh[j * samples + s, L + c] = unseen[sel[s, at + c]]
            at += final - L
            off += L
    my_arr = _values(mine_tabs, m_arr, kind, low_top)
    their_arr = _values(opp_tabs, o_arr, kind, low_top)
    cdef const int64_t[::1] my = my_arr
    cdef const int64_t[::1] th = their_arr
    cdef int64_t best, w2 = 0
    with nogil:
        for s in range(samples):
            best = -1
            for j in range(nopp):
                if th[j * samples + s] > best:
                    best = th[j * samples + s]
            if my[s] > best:
                w2 += 2
            elif my[s] == best:
                w2 += 1
    return (w2 / 2.0) / samples
