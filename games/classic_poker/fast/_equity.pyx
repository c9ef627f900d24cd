# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Monte Carlo loop of ``classic-poker/equity`` in C (games/classic_poker/bots.py, ``equity``), with the
view's parsing and the bot's choice (issue 30 item 3).

It computes exactly what the readable ``bots.equity_reference`` computes (with its sampler,
``bots.fisher_yates_draws``), from the same draws of the same Generator. Each sample is a partial
Fisher-Yates of the ``n`` unseen cards (in deck order): the ``i``-th card swapped with the one an offset
further on, the offset uniform below ``n - i``; the first ``need_me`` cards complete the bot's hand, the
next ones each unfolded opponent's in seat order. The offsets come in groups of consecutive positions whose
ranges multiply to less than 2**32 (five cards of a 52-card deck), one number per group: row after row,
``rng.integers(0, products, size=(samples, groups))``, each number the group's offsets in mixed radix (the
first position's offset its remainder by ``n - i``, the next one's the quotient's remainder by
``n - i - 1``, ...), so exactly uniform. Every hand is valued by the batch evaluator's tables
(``ext.handeval``), ties shared: plain tables (a high pot without wild cards) here, each hand's key sum the
known cards' sum plus the drawn cards' (``_direct``, ``Tables._eval_key`` of ext/_handeval.pxd, the table
slots prefetched ahead of their look-ups), other tables in one batch per hand size and table
(``WildTables.evaluate_into``); a bot's hand with no card to draw (draw, the seventh street) is valued once for
all the samples.

``Setup`` holds what a rules object needs (``bots._Plan.setup``: the deck, the tables, card ids by name, the
arrays the evaluator fills, kept between decisions) and reads the view (the bot's, the common and the up
cards; ``Setup.equity``); ``decide`` is ``EquityBot._decide``'s choice and ``same_rules`` the check that a
view's rules are the last ones met (``bots._rules_plan``).

The numbers are drawn here from the generator's bit generator as numpy draws them (``bounded``,
ext/npdraw.pxd: numpy's Lemire draw on 32 bits, which ``integers`` uses for each element of an int64 array
of bounds below 2**32); from a Philox generator (a job's streams, games/core/streams.py) from a copy of its
state (``_px_next32``, ext/npphilox.pxd's block function two blocks at a time, no call per number; the
layout checked against numpy on first use, ``philox_direct``); from anything but a
``numpy.random.Generator``, by its ``integers``. ``_numbers`` is that draw alone, checked against numpy by
tests/test_classic_poker_equity.py. The numbers are drawn first, then read while the cards are swapped
(``_swaps``): a position's offset the remainder by ``n - i`` and the quotient passed on, by a multiplication
(``fastdiv``), four samples side by side.
"""

import sys

import numpy as np

from games.core import betting as bt

cimport numpy as cnp
from cpython.object cimport Py_EQ, PyObject_RichCompareBool
from cpython.pycapsule cimport PyCapsule_GetPointer
from cpython.unicode cimport PyUnicode_GET_LENGTH, PyUnicode_READ_CHAR
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ext._handeval cimport Tables, tables_suit_init
from ext.npdraw cimport bitgen_t, bounded
from ext.npphilox cimport np_philox_2blocks, np_philox_bump, philox_state

cnp.import_array()

DEF MAXN = 60   # unseen cards (54 at most)
DEF MAXW = 8    # cards of a hand
DEF BLK = 32    # samples valued at a time by ``_direct`` (their hands' keys kept in L1)
DEF AHEAD = 8   # hands between a table slot's prefetch and its look-up (``_direct``)

cdef extern from *:
    int __builtin_popcountll(unsigned long long) noexcept nogil
    void __builtin_prefetch(const void *addr) noexcept nogil

cdef int64_t QUALIFIED = 1 << 24   # hands.QUALIFIED (CP-5.4)
cdef uint64_t MAG[MAXN + 1]   # 2**64 / d rounded up for the divisors d = 2 .. MAXN (``fastdiv``), 0 for 0 and 1
MAG[0] = MAG[1] = 0
for _d in range(2, MAXN + 1):
    MAG[_d] = 0xFFFFFFFFFFFFFFFFULL // <uint64_t> _d + 1
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


cdef object _GENERATOR = np.random.Generator
cdef object _PHILOX = np.random.Philox


cdef inline bitgen_t* _bitgen(object rng):
    """The C bit generator of a ``numpy.random.Generator``, NULL for anything else."""
    if type(rng) is not _GENERATOR:
        return NULL
    return <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")


cdef struct _Philox:
    # A copy of numpy's Philox state (``philox_state``, ext/npphilox.pxd), drawn from here and written back;
    # ``nxt``: the block after ``buf`` when ``has_nxt`` (made with it, its counter not reached yet).
    uint64_t ctr[4]
    uint64_t key[2]
    uint64_t buf[4]
    int pos
    int has32
    uint32_t u32
    uint64_t nxt[4]
    int has_nxt


cdef inline uint32_t _px_next32(_Philox *p) noexcept nogil:
    """numpy's ``philox_next32``: the kept high half of the last word, else the next word's low half (a new
    block of four words, the counter bumped first, when the buffer is used up). The blocks are made two at a
    time (``np_philox_2blocks``: their multiplies overlap), the second kept in ``nxt`` until its turn; the
    state written back (``_px_store``) is the counter and block reached, as numpy leaves them."""
    cdef uint64_t w
    cdef uint64_t c2[4]
    if p.has32:
        p.has32 = 0
        return p.u32
    if p.pos >= 4:
        np_philox_bump(p.ctr)
        if p.has_nxt:
            memcpy(p.buf, p.nxt, 32)
            p.has_nxt = 0
        else:
            memcpy(c2, p.ctr, 32)
            np_philox_bump(c2)
            np_philox_2blocks(p.ctr, c2, p.key, p.buf, p.nxt)
            p.has_nxt = 1
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
    p.has_nxt = 0


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
    if bg != NULL and type(rng.bit_generator) is _PHILOX and \
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


cdef inline int _card(object name, dict ids, object parse, const int16_t *two) except -1:
    """A card id from its name: ``ids`` (``bots._IDS``; ``two``, its two-letter ASCII names by their letters,
    first), else ``parse`` (``hands.parse``); 0..255, as the bytes of ``bots.equity`` held them."""
    cdef uint32_t a, b
    cdef int got2
    if type(name) is str and PyUnicode_GET_LENGTH(name) == 2:
        a = <uint32_t> PyUnicode_READ_CHAR(name, 0)
        b = <uint32_t> PyUnicode_READ_CHAR(name, 1)
        if a < 128 and b < 128:
            got2 = two[(a << 7) | b]
            if got2 >= 0:
                return got2
    cdef object got = ids.get(name)
    if got is None:
        got = parse(name)
    cdef long c = got
    if not 0 <= c < 256:
        raise ValueError("bytes must be in range(0, 256)")
    return <int> c


cdef class Setup:
    """What ``equity`` needs of one rules, built once (``bots._Plan``): the deck in its order, the final hand
    size, ``kind`` 2 for a low pot with the 8 qualifier (CP-5.4: second tables of the high values), the
    evaluator tables by hand size (``tables(k)``: (table, second table or None)), card ids by name and the
    parser of other names, and the arrays the evaluator fills, kept between decisions."""

    cdef uint8_t deck[MAXN]
    cdef int ndeck
    cdef readonly int final
    cdef readonly int kind
    cdef int64_t low_top
    cdef dict ids
    cdef int16_t two[128 * 128]
    cdef object parse
    cdef object tables
    cdef list tabs
    cdef dict bufs
    cdef bint busy

    def __init__(self, bytes deck, int final, int kind, int64_t low_top, dict ids, object parse, object tables):
        if len(deck) > MAXN or not 0 < final <= MAXW:
            raise ValueError("Setup: unsupported sizes")
        self.ndeck = len(deck)
        memcpy(self.deck, <const uint8_t *> deck, self.ndeck)
        self.final, self.kind, self.low_top = final, kind, low_top
        self.ids, self.parse, self.tables = ids, parse, tables
        cdef int i
        for i in range(128 * 128):
            self.two[i] = -1
        for name, c in ids.items():
            if type(name) is str and len(name) == 2 and max(map(ord, name)) < 128 and 0 <= c < 256:
                self.two[(ord(name[0]) << 7) | ord(name[1])] = c
        self.tabs = [None] * (MAXW + 1)
        self.bufs = {}
        self.busy = False

    cdef object _tables(self, int k):
        if not 0 <= k <= MAXW:
            return self.tables(k)
        t = self.tabs[k]
        if t is None:
            t = self.tabs[k] = self.tables(k)
        return t

    cdef tuple _buffers(self, int samples, int wm, int nopp):
        """The hands' rows (8 bytes of padding after the last: a row is written as one 8-byte word) and the
        values: the bot's, the opponents', then the second ones (``kind`` 2); kept by size unless another
        thread holds them (``busy``)."""
        key = (samples, wm, nopp)
        got = None if self.busy else self.bufs.get(key)
        if got is None:
            m = np.empty(samples * wm + 8, dtype=np.uint8)[:samples * wm].reshape(samples, wm)
            o = np.empty(nopp * samples * self.final + 8, dtype=np.uint8)[:nopp * samples * self.final].reshape(
                nopp * samples, self.final)
            v = np.empty(2 * (nopp + 1) * samples, dtype=np.int32)
            got = (m, o, v, v[:samples], v[samples:(nopp + 1) * samples], v[(nopp + 1) * samples:(nopp + 2) * samples],
                   v[(nopp + 2) * samples:], m[:1], v[:1], v[(nopp + 1) * samples:(nopp + 1) * samples + 1])
            if not self.busy:
                if len(self.bufs) >= 32:
                    self.bufs.clear()
                self.bufs[key] = got
        return got

    def equity(self, view, hand, int samples, object rng):
        """``bots.equity`` of the view (its cards parsed here; ``hand`` the bot's card ids, None: parsed
        from ``view["hand"]``): 1.0 with no unfolded opponent, an even share when the unseen cards cannot
        complete every hand, else the share of the pot won against ``samples`` random completions."""
        cdef uint8_t mine[MAXN]
        cdef uint8_t oc[4 * MAXN]
        cdef uint8_t ol[MAXN]
        cdef uint8_t up[MAXN]
        cdef uint8_t un[MAXN]
        cdef uint64_t seen[4]
        cdef int nm = 0, noc = 0, nopp = 0, nup, n = 0, c, i, extra = -1, need_me, wm
        cdef dict ids = self.ids
        cdef object parse = self.parse
        memset(seen, 0, sizeof(seen))
        for x in (view["hand"] if hand is None else hand):
            c = _card(x, ids, parse, self.two) if hand is None else <int> x
            if nm >= MAXN or not 0 <= c < 256:
                raise ValueError("equity: unsupported sizes")
            mine[nm] = c
            nm += 1
            seen[c >> 6] |= 1ULL << (c & 63)
        common = view["common"]
        if common:  # the common card (CP-8.6): in every hand
            extra = _card(common, ids, parse, self.two)
            seen[extra >> 6] |= 1ULL << (extra & 63)
        me, live = view["seat"], view["in"]
        for p, cards in view["up"].items():
            p = int(p)
            nup = 0
            for x in cards:
                c = _card(x, ids, parse, self.two)
                seen[c >> 6] |= 1ULL << (c & 63)
                if nup < MAXN:
                    up[nup] = c
                nup += 1
            if live[p] and p != me:
                if nopp >= MAXN or nup > MAXN or noc + nup + 1 > 4 * MAXN:
                    raise ValueError("equity: unsupported sizes")
                memcpy(&oc[noc], up, nup)
                noc += nup
                if extra >= 0:
                    oc[noc] = extra
                    noc += 1
                ol[nopp] = nup + (extra >= 0)
                nopp += 1
        if nopp == 0:
            return 1.0
        for i in range(self.ndeck):  # the deck in its order, the seen cards left out
            c = self.deck[i]
            if not (seen[c >> 6] >> (c & 63)) & 1:
                un[n] = c
                n += 1
        if extra >= 0:
            if nm >= MAXN:
                raise ValueError("equity: unsupported sizes")
            mine[nm] = extra
            nm += 1
        need_me = self.final - nm if self.final > nm else 0
        if need_me + self.final * nopp - noc > n:
            return 1.0 / (nopp + 1)
        wm = nm + need_me
        mine_tabs = self._tables(wm)
        return _run(self, rng, un, n, mine, nm, need_me, oc, noc, ol, nopp, samples, mine_tabs,
                    self._tables(self.final))


cdef inline void _swaps(uint8_t (*dk)[72], const uint32_t *xs, int ng, const int *glen, const uint64_t *mag,
                        const uint32_t *rad, int nb) noexcept nogil:
    """The partial Fisher-Yates of ``nb`` samples side by side (their divisions and swaps are independent:
    the processor overlaps them), sample b's deck ``dk[b]`` and its numbers ``xs[b * ng:]``: position i
    swapped with the one its offset further on, the offset the number's digit in mixed radix, x mod (n - i),
    the quotient passed on to the next position of the group (the quotient by ``fastdiv``; the divisor 1, the
    deck's last card, only ever meets 0, whose quotient by ``mag`` 0 is 0)."""
    cdef uint32_t xb[4]
    cdef uint32_t q
    cdef uint8_t t
    cdef int i = 0, g, k, b, j
    for g in range(ng):
        for b in range(nb):
            xb[b] = xs[b * ng + g]
        for k in range(glen[g]):
            for b in range(nb):
                q = fastdiv(xb[b], mag[i])
                j = i + <int> (xb[b] - q * rad[i])
                xb[b] = q
                t = dk[b][i]
                dk[b][i] = dk[b][j]
                dk[b][j] = t
            i += 1


cdef int64_t _direct(Tables t, const uint8_t *base, const uint32_t *xs, int samples, int ng, const int *glen,
                     const uint64_t *mag, const uint32_t *rad, const uint8_t *mc, int nm, int need_me,
                     const uint8_t *oc, const uint8_t *ol, int nopp, int final) noexcept nogil:
    """Twice the pot shares won (ties 1, wins 2) over the samples, -1 if a hand is invalid (a card twice or
    outside the deck), every hand valued by the plain tables ``t`` in C (``Tables._eval_key``,
    ext/_handeval.pxd) from its key sum: the known cards' sum once, the drawn cards' added per sample, as
    ``Tables.evaluate_into`` values the rows of the batched path (``_run``). ``BLK`` samples at a time: their
    shuffles (``_swaps``) and keys, each key's bucket offset prefetched, then their values, the slot of the
    hand ``AHEAD`` further on prefetched (the look-ups of a pass over tables out of the cache overlap)."""
    cdef uint8_t dk[4][72]
    cdef uint64_t ko[MAXN + 1]
    cdef uint64_t fo[MAXN + 1]
    cdef int kn[MAXN + 1]
    cdef int kd[MAXN + 1]
    cdef uint64_t K[BLK * (MAXN + 1)]
    cdef uint64_t F[BLK * (MAXN + 1)]
    cdef int32_t V[BLK * (MAXN + 1)]
    cdef uint64_t ksum, fb
    cdef uint32_t key
    cdef int32_t mconst = 0
    cdef int64_t best, mv, w2 = 0
    cdef int H, h, nh, s0, s, b, nb, j, c, at, off, blk, bad = 0, k = t.k
    # The hands of a sample: the bot's when it draws (slot 0), then each opponent's; their known cards' key
    # sums and flush bits, where their drawn cards start in the shuffled deck and how many.
    H = 0
    if need_me > 0:
        ko[0] = tables_suit_init()
        fo[0] = 0
        for c in range(nm):
            ko[0] += t.card_key[mc[c]]
            fo[0] |= t.card_fbit[mc[c]]
        kn[0], kd[0] = 0, need_me
        H = 1
    else:  # the bot's hand is complete: valued once
        ksum = tables_suit_init()
        fb = 0
        for c in range(nm):
            ksum += t.card_key[mc[c]]
            fb |= t.card_fbit[mc[c]]
        if __builtin_popcountll(fb) != k:
            return -1
        mconst = t._eval_key(ksum, fb)
    off = 0
    at = need_me
    for j in range(nopp):
        ko[H] = tables_suit_init()
        fo[H] = 0
        for c in range(ol[j]):
            ko[H] += t.card_key[oc[off + c]]
            fo[H] |= t.card_fbit[oc[off + c]]
        kn[H], kd[H] = at, final - ol[j]
        off += ol[j]
        at += final - ol[j]
        H += 1
    for b in range(4):
        memset(&dk[b][0], 0, 72)
    for s0 in range(0, samples, BLK):
        blk = samples - s0 if samples - s0 < BLK else BLK
        for s in range(s0, s0 + blk, 4):
            nb = s0 + blk - s if s0 + blk - s < 4 else 4
            for b in range(nb):
                memcpy(&dk[b][0], base, 64)
            if nb == 4:  # the common case, its loop over the samples unrolled
                _swaps(dk, &xs[s * ng], ng, glen, mag, rad, 4)
            else:
                _swaps(dk, &xs[s * ng], ng, glen, mag, rad, nb)
            for b in range(nb):
                h = (s - s0 + b) * H
                for j in range(H):
                    ksum = ko[j]
                    fb = fo[j]
                    for c in range(kn[j], kn[j] + kd[j]):
                        ksum += t.card_key[dk[b][c]]
                        fb |= t.card_fbit[dk[b][c]]
                    bad |= __builtin_popcountll(fb) != k
                    K[h + j] = ksum
                    F[h + j] = fb
                    __builtin_prefetch(&t.offs[(<uint32_t> ksum) >> t.hshift])
        if bad:
            return -1
        nh = blk * H
        for h in range(nh):
            if h + AHEAD < nh:
                key = <uint32_t> K[h + AHEAD]
                __builtin_prefetch(&t.nfh[(key & t.hmask) + t.offs[key >> t.hshift]])
            V[h] = t._eval_key(K[h], F[h])
        for s in range(blk):
            h = s * H
            if need_me > 0:
                mv = V[h]
                h += 1
            else:
                mv = mconst
            best = -1
            for j in range(nopp):
                if V[h + j] > best:
                    best = V[h + j]
            if mv > best:
                w2 += 2
            elif mv == best:
                w2 += 1
    return w2


cdef double _run(Setup su, object rng, const uint8_t *un, int n, const uint8_t *mc, int nm, int need_me,
                 const uint8_t *oc, int noc, const uint8_t *ol, int nopp, int samples, object mine_tabs,
                 object opp_tabs) except? -1.0:
    """The share of the pot won against ``samples`` random completions (ties shared).

    ``un``: the ``n`` cards the bot cannot see, in deck order; ``mc``: its ``nm`` cards (and the common card),
    completed with ``need_me`` unseen ones; ``oc``: each unfolded opponent's known cards (up cards, the common
    card) one after another, ``ol`` long each, completed to ``final`` cards. ``mine_tabs`` / ``opp_tabs``:
    (table, second table or None) for the bot's and the opponents' hand sizes; ``kind`` 2 when the second
    table gives the high values of a low pot with a qualifier. The numbers drawn first (under the generator's
    lock), then the hands dealt and valued: by ``_direct``, else as rows in ``su``'s arrays for
    ``evaluate_into``.
    """
    cdef int final = su.final, kind = su.kind, wm = nm + need_me
    cdef int64_t low_top = su.low_top
    cdef int total = need_me, j, s, c, i, at, off, L, row
    for j in range(nopp):
        total += final - ol[j]
    if n > MAXN or total > n or wm > MAXW or final > MAXW or nopp == 0 or samples <= 0 \
            or noc + total - need_me != nopp * final:
        raise ValueError("equity: unsupported sizes")
    # The plain tables of one hand size for every hand (a high pot without wild cards): valued here
    # (``_direct``); else in a batch per table by ``evaluate_into`` (the rows kept in ``su``'s arrays).
    cdef Tables direct = None
    if kind != 2 and type(mine_tabs[0]) is Tables and opp_tabs[0] is mine_tabs[0] and wm == final \
            and (<Tables> mine_tabs[0]).k == final:
        direct = <Tables> mine_tabs[0]
    cdef tuple bufs = su._buffers(samples, wm, nopp) if direct is None else None
    cdef bint held = direct is None and not su.busy
    m_arr, o_arr = (bufs[0], bufs[1]) if direct is None else (None, None)
    cdef uint8_t *mh = <uint8_t *> cnp.PyArray_DATA(m_arr) if direct is None else NULL
    cdef uint8_t *oh = <uint8_t *> cnp.PyArray_DATA(o_arr) if direct is None else NULL
    cdef int32_t *va = <int32_t *> cnp.PyArray_DATA(bufs[2]) if direct is None else NULL
    cdef uint8_t base[64]
    cdef uint8_t dk[4][72]
    cdef uint64_t tm_me = 0, w
    cdef uint64_t tmo[MAXN]
    cdef uint64_t first[MAXN]
    cdef uint32_t prod[MAXN]
    cdef uint32_t rad[MAXN]
    cdef uint64_t mag[MAXN]
    cdef int glen[MAXN]
    cdef int ng, g, b, nb
    ng = _groups(n, total, prod, glen)
    cdef uint32_t thr[MAXN]
    for g in range(ng):
        thr[g] = _threshold(prod[g])
    for i in range(total):  # the offsets' ranges and their ``fastdiv`` multipliers (``_swaps``)
        rad[i] = n - i
        mag[i] = MAG[rad[i]]
    for i in range(64):
        base[i] = un[i] if i < n else 0
    cdef bitgen_t *bg = _bitgen(rng)
    cdef philox_state *st = _philox(rng, bg)
    cdef _Philox px
    cdef const int64_t[:, ::1] nums
    cdef int32_t *ma = va
    cdef int32_t *ta = va + samples
    cdef int32_t *mb = ma
    cdef int32_t *tb = ta
    if kind == 2:  # the second values (``_pot_value`` reads them only then)
        mb = va + (nopp + 1) * samples
        tb = mb + samples
    cdef int64_t best, v, mv, w2 = 0
    cdef uint32_t *xs = <uint32_t *> malloc(<size_t> samples * ng * 4 + 4)
    if xs == NULL:
        raise MemoryError()
    if held:  # the buffers are this call's until it returns (a call meanwhile makes its own)
        su.busy = True
    try:
        if bg == NULL:  # not a numpy Generator: its own ``integers``, the same numbers
            nums = np.ascontiguousarray(rng.integers(0, np.asarray([prod[g] for g in range(ng)], dtype=np.int64),
                                                     size=(samples, ng)), dtype=np.int64)
        if _LITTLE and direct is None:  # the known cards of each hand as the low bytes of a word
            for c in range(nm):
                tm_me |= (<uint64_t> mc[c]) << (8 * c)
            off = 0
            for j in range(nopp):
                tmo[j] = 0
                for c in range(ol[j]):
                    tmo[j] |= (<uint64_t> oc[off + c]) << (8 * c)
                off += ol[j]
        with rng.bit_generator.lock if bg != NULL else _NoLock():
            with nogil:
                # A number per group and sample, drawn in that order.
                if st != NULL:
                    _px_load(&px, st)
                    for s in range(samples):
                        for g in range(ng):
                            xs[s * ng + g] = _px_bounded(&px, prod[g], thr[g])
                    _px_store(&px, st)
                elif bg != NULL:
                    for s in range(samples):
                        for g in range(ng):
                            xs[s * ng + g] = bounded(bg, prod[g])
                else:
                    for s in range(samples):
                        for g in range(ng):
                            xs[s * ng + g] = <uint32_t> nums[s, g]
        if direct is not None:
            with nogil:
                w2 = _direct(direct, base, xs, samples, ng, glen, mag, rad, mc, nm, need_me, oc, ol, nopp, final)
            if w2 < 0:
                raise ValueError("invalid hand in an equity batch")
            return (w2 / 2.0) / samples
        with nogil:
            # The hands: the known cards, then the drawn ones, a partial Fisher-Yates of the unseen cards per
            # sample (``_swaps``), four samples side by side.
            for b in range(4):
                memset(&dk[b][0], 0, 72)
            for s in range(0, samples, 4):
                nb = samples - s if samples - s < 4 else 4
                for b in range(nb):
                    memcpy(&dk[b][0], base, 64)
                if nb == 4:  # the common case, its loop over the samples unrolled
                    _swaps(dk, &xs[s * ng], ng, glen, mag, rad, 4)
                else:
                    _swaps(dk, &xs[s * ng], ng, glen, mag, rad, nb)
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
        # With no card to draw (a draw hand, a seventh street) the bot's rows are all its hand: valued once.
        if mine_tabs[0].evaluate_into(bufs[7] if need_me == 0 else m_arr, bufs[8] if need_me == 0 else bufs[3]) >= 0 \
                or opp_tabs[0].evaluate_into(o_arr, bufs[4]) >= 0:
            raise ValueError("invalid hand in an equity batch")
        if kind == 2 and (mine_tabs[1].evaluate_into(bufs[7] if need_me == 0 else m_arr,
                                                     bufs[9] if need_me == 0 else bufs[5]) >= 0
                          or opp_tabs[1].evaluate_into(o_arr, bufs[6]) >= 0):
            raise ValueError("invalid hand in an equity batch")
        if need_me == 0:
            for s in range(1, samples):
                ma[s] = ma[0]
                mb[s] = mb[0]
        for s in range(samples):
            best = -1
            if kind == 2:
                for j in range(nopp):
                    v = _pot_value(ta[j * samples + s], tb[j * samples + s], kind, low_top)
                    if v > best:
                        best = v
                mv = _pot_value(ma[s], mb[s], kind, low_top)
            else:  # the first values (``_pot_value`` of any other kind)
                for j in range(nopp):
                    if ta[j * samples + s] > best:
                        best = ta[j * samples + s]
                mv = ma[s]
            if mv > best:
                w2 += 2
            elif mv == best:
                w2 += 1
    finally:
        free(xs)
        if held:
            su.busy = False
    return (w2 / 2.0) / samples


class _NoLock:
    """A context that holds nothing (the draws were made by the generator's own ``integers``)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


cdef object _FOLD = bt.Act.FOLD
cdef object _CHECK = bt.Act.CHECK
cdef object _CALL = bt.Act.CALL
cdef object _RAISE = bt.Act.RAISE


def decide(view, legal, double eq):
    """``bots.EquityBot._decide``'s action (the readable one, which ``bots.ReferenceEquityBot`` plays) for the
    equity ``eq``: the largest raise with a clear edge (above 1.4 times an even share), a call or a check
    with the equity at the pot odds or above, else a check, a fold, or the first bet action's kind (CP-6.4).
    None for an action whose kind is not one of ``betting.Act``'s four (the caller then decides by
    ``_decide``)."""
    cdef object raise_min = None, raise_max = None, call = None, check = None, fold = None
    cdef int first = -1, k
    for a in legal:
        bet = a.bet
        if bet is None:
            continue
        act = bet.act
        if act is _RAISE:
            if raise_min is None:
                raise_min = a
            raise_max = a
            k = 3
        elif act is _CALL:
            call, k = a, 2
        elif act is _CHECK:
            check, k = a, 1
        elif act is _FOLD:
            fold, k = a, 0
        else:
            return None
        if first < 0:
            first = k
    opponents = sum(view["in"]) - 1
    fair = 1.0 / (opponents + 1)
    to_call = view["to_call"]
    odds = to_call / (view["pot"] + to_call) if to_call else 0.0
    if eq > fair * 1.4 and raise_max is not None:
        return raise_max
    if eq >= odds and (call is not None or check is not None):
        return call if call is not None else check
    if check is not None:
        return check
    if fold is not None:
        return fold
    if first < 0:
        raise StopIteration
    return (fold, check, call, raise_min)[first]


def same_rules(d, last) -> bool:
    """Whether the rules object ``d`` equals the dict ``last`` key by key, each value of the same type
    (``bots._rules_plan``: 1 is not True)."""
    if type(d) is not dict or type(last) is not dict or len(<dict> d) != len(<dict> last):
        return False
    for key, v in (<dict> d).items():
        lv = (<dict> last).get(key, _MISSING)
        if lv is _MISSING or type(v) is not type(lv) or not PyObject_RichCompareBool(v, lv, Py_EQ):
            return False
    return True


cdef object _MISSING = object()
