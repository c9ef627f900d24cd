# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Monte Carlo loop of ``classic-poker/equity`` in C (games/classic_poker/bots.py, ``equity``).

It computes exactly what the readable ``bots.equity_reference`` computes (with its sampler,
``bots.fisher_yates_draws``), from the same draws of the same Generator. Each sample is a partial
Fisher-Yates of the ``n`` unseen cards (in deck order): the ``i``-th card swapped with the one an offset
further on, the offset uniform below ``n - i``; the first ``need_me`` cards complete the bot's hand, the
next ones each unfolded opponent's in seat order. The offsets come in groups of consecutive positions whose
ranges multiply to less than 2**32 (five cards of a 52-card deck), one number per group: row after row,
``rng.integers(0, products, size=(samples, groups))``, each number the group's offsets in mixed radix (the
first position's offset its remainder by ``n - i``, the next one's the quotient's remainder by
``n - i - 1``, ...), so exactly uniform. Every hand is valued by the batch evaluator's tables
(``ext.handeval``: ``Tables`` or ``WildTables.evaluate_into``), ties shared.

The numbers are drawn here from the generator's bit generator as numpy draws them (``bounded``,
ext/npdraw.pxd: numpy's Lemire draw on 32 bits, which ``integers`` uses for each element of an int64 array
of bounds below 2**32); from a Philox generator (a job's streams, games/core/streams.py) from a copy of its
state (``_px_next32``, ext/npphilox.pxd's block function, no call per number; the layout checked against
numpy on first use, ``philox_direct``); from anything but a ``numpy.random.Generator``, by its
``integers``. ``_numbers`` is that draw alone, checked against numpy by tests/test_classic_poker_equity.py.
A position's offset is read as (number // P) mod (n - i), P the product of the ranges before it in its
group (the same digit as the quotient-then-remainder reading, each position on its own), both by a
multiplication (``fastdiv``, ``fastmod``). The samples' swaps run four side by side, and all the hands of
a decision go to the evaluator in one batch per hand size and table.
"""

import sys

import numpy as np

cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ext.npdraw cimport bitgen_t, bounded
from ext.npphilox cimport np_philox_block, np_philox_bump, philox_state

cnp.import_array()

DEF MAXN = 60   # unseen cards (54 at most)
DEF MAXW = 8    # cards of a hand

cdef int64_t QUALIFIED = 1 << 24   # hands.QUALIFIED (CP-5.4)
cdef bint _LITTLE = sys.byteorder == "little"   # a hand's row built as one 8-byte word (``equity``)

cdef extern from *:
    """
    /* floor(a / d) for a 32-bit a, m = 2**64 / d rounded up (d >= 2): exact for every a < 2**32
       (Lemire, Kaser, Kurz 2019, "Faster remainder by direct computation": 64 >= 32 + log2 d). */
    static inline uint32_t eq_fastdiv(uint32_t a, uint64_t m) {
        return (uint32_t) (((__uint128_t) m * a) >> 64);
    }
    """
    uint32_t fastdiv "eq_fastdiv" (uint32_t a, uint64_t m) noexcept nogil

cdef extern from *:
    """
    /* a mod d for a 32-bit a, m = 2**64 / d rounded up (0 for d = 1): exact for every a < 2**32 (the same
       paper: the fractional part of a / d kept in m * a mod 2**64, times d). */
    static inline uint32_t eq_fastmod(uint32_t a, uint64_t m, uint32_t d) {
        return (uint32_t) (((__uint128_t) (m * a) * d) >> 64);
    }
    """
    uint32_t fastmod "eq_fastmod" (uint32_t a, uint64_t m, uint32_t d) noexcept nogil


cdef int _groups(int n, int total, uint32_t *prod, int *glen) noexcept nogil:
    """The products of the offsets' ranges ``n``, ``n - 1``, ... of ``total`` positions, grouped from the
    first while the product stays below 2**32 (``bots.fisher_yates_draws``), into ``prod``, each group's
    length into ``glen``; returns the number of groups."""
    cdef uint64_t p = 1
    cdef int i, k = 0, g = 0
    for i in range(total):
        if k and p * <uint64_t> (n - i) > 0xFFFFFFFFULL:
            prod[g] = <uint32_t> p
            glen[g] = k
            g += 1
            p, k = 1, 0
        p *= <uint64_t> (n - i)
        k += 1
    if k:
        prod[g] = <uint32_t> p
        glen[g] = k
        g += 1
    return g


def groups(int n, int total):
    """``_groups`` as lists (products, lengths), for the tests."""
    cdef uint32_t prod[MAXN]
    cdef int glen[MAXN]
    if not 0 <= total <= n <= MAXN:
        raise ValueError("groups: unsupported sizes")
    cdef int g = _groups(n, total, prod, glen)
    return [prod[i] for i in range(g)], [glen[i] for i in range(g)]


cdef inline bitgen_t* _bitgen(object rng):
    """The C bit generator of a ``numpy.random.Generator``, NULL for anything else."""
    if type(rng) is not np.random.Generator:
        return NULL
    return <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")


cdef struct _Philox:
    # A copy of numpy's Philox state (``philox_state``, ext/npphilox.pxd), drawn from here and written back.
    uint64_t ctr[4]
    uint64_t key[2]
    uint64_t buf[4]
    int pos
    int has32
    uint32_t u32


cdef inline uint32_t _px_next32(_Philox *p) noexcept nogil:
    """numpy's ``philox_next32``: the kept high half of the last word, else the next word's low half (a new
    block of four words, the counter bumped first, when the buffer is used up)."""
    cdef uint64_t w
    if p.has32:
        p.has32 = 0
        return p.u32
    if p.pos >= 4:
        np_philox_bump(p.ctr)
        np_philox_block(p.ctr, p.key, p.buf)
        p.pos = 0
    w = p.buf[p.pos]
    p.pos += 1
    p.has32 = 1
    p.u32 = <uint32_t> (w >> 32)
    return <uint32_t> w


cdef inline uint32_t _px_bounded(_Philox *p, uint32_t n, uint32_t threshold) noexcept nogil:
    """``bounded`` (ext/npdraw.pxd: numpy's Lemire draw on 32 bits) on ``_px_next32``, its rejection
    threshold ``(2**32 - n) % n`` given (``_threshold``: the same for every draw of a group)."""
    cdef uint64_t m
    cdef uint32_t leftover
    if n == 1:
        return 0
    m = (<uint64_t> _px_next32(p)) * n
    leftover = <uint32_t> (m & 0xFFFFFFFFUL)
    if leftover < n:
        while leftover < threshold:
            m = (<uint64_t> _px_next32(p)) * n
            leftover = <uint32_t> (m & 0xFFFFFFFFUL)
    return <uint32_t> (m >> 32)


cdef inline uint32_t _threshold(uint32_t n) noexcept nogil:
    """numpy's Lemire threshold for the range ``n`` (``n - 1`` its ``rng``): ``(UINT32_MAX - rng) % n``."""
    return (<uint32_t> 0xFFFFFFFFUL - (n - 1)) % n if n > 1 else 0


cdef inline void _px_load(_Philox *p, philox_state *st) noexcept nogil:
    cdef int i
    for i in range(4):
        p.ctr[i] = st.ctr[i]
        p.buf[i] = st.buffer[i]
    p.key[0] = st.key[0]
    p.key[1] = st.key[1]
    p.pos = st.buffer_pos
    p.has32 = st.has_uint32
    p.u32 = st.uinteger


cdef inline void _px_store(_Philox *p, philox_state *st) noexcept nogil:
    cdef int i
    for i in range(4):
        st.ctr[i] = p.ctr[i]
        st.buffer[i] = p.buf[i]
    st.buffer_pos = p.pos
    st.has_uint32 = p.has32
    st.uinteger = p.u32


cdef int _philox_direct = -1   # -1: not checked yet (``philox_direct``)


cdef inline philox_state* _philox(object rng, bitgen_t *bg):
    """The Philox state to draw from here (``philox_direct``), NULL to draw through ``bg``."""
    if bg != NULL and type(rng.bit_generator) is np.random.Philox and \
            (_philox_direct == 1 or _philox_direct == -1 and philox_direct()):
        return <philox_state *> bg.state
    return NULL


def philox_direct() -> bool:
    """Whether Philox generators are drawn from their state here: checked once, on first use, against
    ``Generator.integers`` on this numpy (the numbers and the state after, from every buffer position, a
    kept half word or none, across a carry of the counter); False: through the bit generator."""
    global _philox_direct
    if _philox_direct != -1:
        return _philox_direct == 1
    _philox_direct = 1
    try:
        for key, start in ((0x1234, 0), (2**63 + 5, 0), (7, 2**64 - 2)):
            ctr = np.array([start, 0, 0, 0], dtype=np.uint64)
            for skip in range(10):
                for samples, highs in ((1, [5]), (3, [2**31 + 1, 7]), (40, [4_000_000_000, 183_907_600, 17])):
                    a = np.random.Generator(np.random.Philox(key=key, counter=ctr))
                    b = np.random.Generator(np.random.Philox(key=key, counter=ctr))
                    for r in (a, b):
                        r.integers(0, 10, size=skip % 2)
                        r.random(skip // 2)
                    want = a.integers(0, np.asarray(highs, dtype=np.int64), size=(samples, len(highs)))
                    if not (np.array_equal(_numbers(b, samples, highs, True), want)
                            and a.integers(2**32, size=3).tolist() == b.integers(2**32, size=3).tolist()
                            and a.random() == b.random()):
                        _philox_direct = 0
    except Exception:
        _philox_direct = 0
    return _philox_direct == 1


def _numbers(object rng, int samples, highs, bint direct=False):
    """``rng.integers(0, highs, size=(samples, len(highs)))`` (``highs`` below 2**32) drawn here as
    ``equity`` draws its numbers (``direct``: from a Philox state copied here, as ``equity`` draws from a
    Philox generator once ``philox_direct`` holds), for the tests that check them against numpy."""
    cdef int g = len(highs), s, i
    cdef uint32_t hi[MAXN]
    cdef _Philox px
    cdef philox_state *st = NULL
    for i in range(g):
        hi[i] = highs[i]
    out = np.empty((samples, g), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    cdef bitgen_t *bg = _bitgen(rng)
    if bg == NULL or g > MAXN:
        raise TypeError("a numpy.random.Generator and at most 60 bounds")
    if direct:
        if type(rng.bit_generator) is not np.random.Philox:
            raise TypeError("direct: a Philox generator")
        st = <philox_state *> bg.state
    with rng.bit_generator.lock:
        with nogil:
            if st != NULL:
                _px_load(&px, st)
                for s in range(samples):
                    for i in range(g):
                        o[s, i] = _px_bounded(&px, hi[i], _threshold(hi[i]))
                _px_store(&px, st)
            else:
                for s in range(samples):
                    for i in range(g):
                        o[s, i] = bounded(bg, hi[i])
    return out


cdef inline int64_t _pot_value(int32_t first, int32_t second, int kind, int64_t low_top) noexcept nogil:
    """The value that decides the pot: the first table's, or under ``kind`` 2 (a low pot with the 8
    qualifier, ``hands.low_pot_values``, CP-5.4) the qualifying low + QUALIFIED, else the high."""
    cdef int64_t raw
    if kind != 2:
        return first
    raw = low_top - first
    if (raw >> 20) == 0 and ((raw >> 16) & 0xF) <= 7:
        return first + QUALIFIED
    return second


def equity(object rng, bytes unseen, bytes mine, int need_me, bytes opp_cards, bytes opp_len, int final,
           int samples, object mine_tabs, object opp_tabs, int kind, int64_t low_top):
    """The share of the pot won against ``samples`` random completions (ties shared).

    ``unseen``: the cards the bot cannot see, in deck order; ``mine``: its cards (and the common card),
    completed with ``need_me`` unseen ones; ``opp_cards``: each unfolded opponent's known cards (up
    cards, the common card) one after another, ``opp_len`` long each, completed to ``final`` cards.
    ``mine_tabs`` / ``opp_tabs``: (table, second table or None) for the bot's and the opponents' hand
    sizes; ``kind`` 2 when the second table gives the high values of a low pot with a qualifier.
    """
    cdef int n = len(unseen), nopp = len(opp_len), nm = len(mine), wm = nm + need_me
    cdef const uint8_t *un = unseen
    cdef const uint8_t *mc = mine
    cdef const uint8_t *oc = opp_cards
    cdef const uint8_t *ol = opp_len
    cdef int total = need_me, j, s, c, i, at, off, L, row
    for j in range(nopp):
        total += final - ol[j]
    if n > MAXN or total > n or wm > MAXW or final > MAXW or nopp == 0 or samples <= 0 \
            or len(opp_cards) + total - need_me != nopp * final:
        raise ValueError("equity: unsupported sizes")
    # 8 bytes beyond the last row: a row is stored as one 8-byte word (``_LITTLE``), its tail spilling over
    # the start of the next row, which is stored after it (or the padding)
    m_arr = np.empty(samples * wm + 8, dtype=np.uint8)[:samples * wm].reshape(samples, wm)
    o_arr = np.empty(nopp * samples * final + 8, dtype=np.uint8)[:nopp * samples * final].reshape(nopp * samples, final)
    cdef uint8_t *mh = <uint8_t *> cnp.PyArray_DATA(m_arr)
    cdef uint8_t *oh = <uint8_t *> cnp.PyArray_DATA(o_arr)
    cdef uint8_t base[64]
    cdef uint8_t dk[4][72]
    cdef uint64_t tm_me = 0, w
    cdef uint64_t tmo[MAXN]
    cdef uint64_t first[MAXN]
    cdef uint8_t t
    cdef uint32_t prod[MAXN]
    cdef uint32_t rad[MAXN]
    cdef uint64_t mag[MAXN]
    cdef uint64_t pmag[MAXN]
    cdef int glen[MAXN]
    cdef int ng, g, k, b, nb, i0
    cdef uint32_t x, xi
    cdef uint64_t pk
    ng = _groups(n, total, prod, glen)
    cdef uint32_t thr[MAXN]
    for g in range(ng):
        thr[g] = _threshold(prod[g])
    # The offset of position i is (x // P) mod (n - i), P the product of the ranges before it in its group
    # (the quotient-then-remainder reading, each position on its own: no chain of divisions). ``mag`` and
    # ``pmag``: 2**64 / (n - i) and 2**64 / P rounded up (``fastmod``, ``fastdiv``); 0 for a divisor 1.
    i = 0
    for g in range(ng):
        pk = 1
        for k in range(glen[g]):
            rad[i] = n - i
            mag[i] = 0xFFFFFFFFFFFFFFFFULL // rad[i] + 1 if rad[i] > 1 else 0
            pmag[i] = 0xFFFFFFFFFFFFFFFFULL // pk + 1 if pk > 1 else 0
            pk *= rad[i]
            i += 1
    for i in range(64):
        base[i] = un[i] if i < n else 0
    cdef bitgen_t *bg = _bitgen(rng)
    cdef philox_state *st = _philox(rng, bg)
    cdef _Philox px
    cdef const int64_t[:, ::1] nums
    if bg == NULL:  # not a numpy Generator: its own ``integers``, the same numbers
        nums = np.ascontiguousarray(rng.integers(0, np.asarray([prod[g] for g in range(ng)], dtype=np.int64),
                                                 size=(samples, ng)), dtype=np.int64)
    cdef uint8_t *offs = <uint8_t *> malloc(<size_t> samples * total + 1)
    if offs == NULL:
        raise MemoryError()
    try:
        # The offsets: a number per group, read in mixed radix.
        with rng.bit_generator.lock if bg != NULL else _NoLock():
            with nogil:
                if st != NULL:
                    _px_load(&px, st)
                for s in range(samples):
                    i = 0
                    for g in range(ng):
                        if st != NULL:
                            x = _px_bounded(&px, prod[g], thr[g])
                        elif bg != NULL:
                            x = bounded(bg, prod[g])
                        else:
                            x = <uint32_t> nums[s, g]
                        i0 = i
                        for k in range(glen[g]):
                            xi = fastdiv(x, pmag[i]) if i > i0 else x
                            offs[s * total + i] = <uint8_t> fastmod(xi, mag[i], rad[i])
                            i += 1
                if st != NULL:
                    _px_store(&px, st)
        # The hands: the known cards, then the drawn ones, a partial Fisher-Yates of the unseen cards per
        # sample, four samples side by side (their swaps are independent: the processor overlaps them).
        if _LITTLE:  # the known cards of each hand as the low bytes of a word
            for c in range(nm):
                tm_me |= (<uint64_t> mc[c]) << (8 * c)
            off = 0
            for j in range(nopp):
                tmo[j] = 0
                for c in range(ol[j]):
                    tmo[j] |= (<uint64_t> oc[off + c]) << (8 * c)
                off += ol[j]
        with nogil:
            for b in range(4):
                memset(&dk[b][0], 0, 72)
            for s in range(0, samples, 4):
                nb = samples - s if samples - s < 4 else 4
                for b in range(nb):
                    memcpy(&dk[b][0], base, 64)
                for i in range(total):
                    for b in range(nb):
                        j = i + offs[(s + b) * total + i]
                        t = dk[b][i]
                        dk[b][i] = dk[b][j]
                        dk[b][j] = t
                for b in range(nb):
                    if _LITTLE:  # a row: the known cards' word, the drawn cards' word shifted above them
                        if nm < 8:
                            memcpy(&w, &dk[b][0], 8)
                            w = tm_me | (w << (8 * nm))
                        else:
                            w = tm_me
                        memcpy(&mh[(s + b) * wm], &w, 8)
                        at = need_me
                        for j in range(nopp):
                            memcpy(&w, &dk[b][at], 8)
                            w = tmo[j] | (w << (8 * ol[j]))
                            if s + b == 0:
                                first[j] = w
                            memcpy(&oh[(j * samples + s + b) * final], &w, 8)
                            at += final - ol[j]
                        continue
                    row = (s + b) * wm
                    for c in range(nm):
                        mh[row + c] = mc[c]
                    for c in range(need_me):
                        mh[row + nm + c] = dk[b][c]
                    at = need_me
                    off = 0
                    for j in range(nopp):
                        L = ol[j]
                        row = (j * samples + s + b) * final
                        for c in range(L):
                            oh[row + c] = oc[off + c]
                        for c in range(final - L):
                            oh[row + L + c] = dk[b][at + c]
                        at += final - L
                        off += L
            if _LITTLE:  # the first row of each opponent but the first, over which the previous one's last spilt
                for j in range(1, nopp):
                    for c in range(final):
                        oh[j * samples * final + c] = <uint8_t> (first[j] >> (8 * c))
    finally:
        free(offs)
    vals = np.empty(2 * (nopp + 1) * samples if kind == 2 else (nopp + 1) * samples, dtype=np.int32)
    cdef int32_t *va = <int32_t *> cnp.PyArray_DATA(vals)
    cdef int32_t *ma = va
    cdef int32_t *ta = va + samples
    cdef int32_t *mb = ma
    cdef int32_t *tb = ta
    if kind == 2:  # the second values (``_pot_value`` reads them only then)
        mb = va + (nopp + 1) * samples
        tb = mb + samples
    if mine_tabs[0].evaluate_into(m_arr, vals[:samples]) >= 0 \
            or opp_tabs[0].evaluate_into(o_arr, vals[samples:(nopp + 1) * samples]) >= 0:
        raise ValueError("invalid hand in an equity batch")
    if kind == 2 and (mine_tabs[1].evaluate_into(m_arr, vals[(nopp + 1) * samples:(nopp + 2) * samples]) >= 0
                      or opp_tabs[1].evaluate_into(o_arr, vals[(nopp + 2) * samples:]) >= 0):
        raise ValueError("invalid hand in an equity batch")
    cdef int64_t best, v, mv, w2 = 0
    with nogil:
        for s in range(samples):
            best = -1
            for j in range(nopp):
                v = _pot_value(ta[j * samples + s], tb[j * samples + s], kind, low_top)
                if v > best:
                    best = v
            mv = _pot_value(ma[s], mb[s], kind, low_top)
            if mv > best:
                w2 += 2
            elif mv == best:
                w2 += 1
    return (w2 / 2.0) / samples


class _NoLock:
    """A context that holds nothing (the draws were made by the generator's own ``integers``)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
