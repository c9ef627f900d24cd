# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The C kernel of the hand evaluator: plain rankings and wild cards (see ``ext/handeval.py``).

One module, two table kinds over the same code: ``Tables`` (a plain high ranking: classic,
short-deck, order-poker, quintet) and ``WildTables`` (wild cards, five of a kind, the four-flush
and low hands of docs/rules/classic-poker.md CP-2 to CP-5 and CP-10). They share the card keys,
the five-card value (``_five_value``), the perfect hash of the non-flush table, the flush test by
suit counters and the seeded sampler; only what a wild card changes is their own.

How a plain hand is evaluated, in one pass over its cards and two table loads:

* Every card of a deck has a 64-bit *key*: the low 32 bits are a per-rank number chosen
  so that the sum over any 5, 6 or 7 cards identifies the multiset of ranks uniquely
  (the rank keys of Kenneth Shackleton's SKPokerEval; uniqueness is re-checked when a
  table is built), the high 32 bits hold four 4-bit suit counters that start at 3, so a
  suit with five or more cards sets bit 3 of its nibble.
* Summing the keys of a hand gives the rank multiset and tells whether a suit holds five
  cards. ``nf[rank sum]`` is the best non-flush value of that multiset; when a suit holds
  five or more cards, ``fl[mask of that suit's ranks]`` is its best flush or straight
  flush, and the hand's value is the larger of the two.
* Values are ``category << 20 | tie-break`` where the tie-break is up to five 4-bit rank
  numbers, most significant first, exactly as the ranking compares hands (a ranking that
  ignores kickers simply leaves them out, so those hands get equal values).

Tables are built here from a small description of the ranking (category order, which
five-rank sets are straights, which tie-breaks count) by enumerating rank multisets, so
one kernel serves every ranking and deck.

With wild cards (``WildTables``) the same pass and the same loads, with three changes:

* A wild card's key is ``1 << 23`` plus one on *every* suit counter. The key sum is
  ``w << 23 | rank-key sum of the naturals`` (w wild cards) and a suit's counter sets its bit 3
  exactly when its naturals and the w wild cards make five: the suits that can hold a flush.
* ``nf[key]`` (perfect-hashed as above) is the best non-flush value of that multiset with w wild
  cards, taken over every five-card choice and every declaration of the wild cards. It is built
  from ``comp[u][S]``: the best declaration of u wild cards added to the natural sub-multiset S of
  5 - u cards (CP-3.2: a wild card may stand for any rank, so non-flush hands depend on ranks only;
  five of a kind is the one hand where a rank appears five times). With fully wild cards, using
  every wild card in the five is never worse (a wild card can stand for the natural it replaces,
  CP-3.2), so u = min(w, 5). The bug is not fully wild (CP-3.5): the best over u = 0..min(w, 5)
  bugs is taken, each bug an ace or a straight filler.
* ``fl[w][m]`` is the best flush or straight flush reachable by the natural ranks m of one suit
  and w wild cards: the best five-rank set T with |T - m| <= min(w, 5) (under ``bug_flush=ace_only``
  the missing ranks must be the ace, unless T is a straight: CP-3.5).
* The four-flush (CP-4, an option) is looked up the same way (``ff``: the best four suited ranks)
  when the hand is below two pair; its kicker is the best card outside the suit (CP-4.3).
* Low hands (CP-5) use the same tables with *min* instead of max and the low ranking's raw
  values (the high value with the ace high, with the ace low, or ace-to-five without straights
  and flushes). Wild cards in a low hand, the bug too, are fully wild (CP-5.5); with a wild card
  in the five a low hand is never a flush (the wild card takes another suit), so flushes matter
  only for hands without wild cards, which a short exact path handles when a suit holds five.

Wild values are ``category << 20 | five 4-bit rank positions``. Positions: 1..13 for 2..A with the
ace high, 0 for an ace playing low (plain values number the ranks 0..12 instead: their keys are
unchanged). Higher is better. Low values are returned as ``LOW_TOP - raw`` so that higher is still
better.
"""

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

import numpy as np

cimport numpy as cnp

cnp.import_array()

# Rank keys of SKPokerEval: sums of any 5, 6 or 7 of them (each used at most 4 times) are distinct.
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
cdef int64_t RK[13]
for _i in range(13):
    RK[_i] = RANK_KEYS[_i]

cdef uint64_t SUIT_INIT = 0x3333ULL << 32   # also in ext/_handeval.pxd (tables_suit_init)
cdef uint64_t FLUSH_BITS = 0x8888ULL << 32   # also in ext/_handeval.pxd (Tables._eval_key)

#: Category codes of the kernel (mapped to a ranking's own order by ``cat_map``; plain tables map
#: the first nine).
CODES = ("high", "pair", "two_pair", "three", "straight", "flush", "full_house", "four", "straight_flush",
         "five", "four_flush")
cdef enum:
    C_HIGH = 0
    C_PAIR = 1
    C_TWO_PAIR = 2
    C_THREE = 3
    C_STRAIGHT = 4
    C_FLUSH = 5
    C_FULL = 6
    C_FOUR = 7
    C_SF = 8
    C_FIVE = 9
    C_FF = 10

# Tie-break styles: every kicker (classic, short-deck, every wild mode), Q-2 of quintet.md (quads,
# full houses and trips compare only their main rank), none (order-poker: only the category).
cdef enum:
    TB_STANDARD = 0
    TB_QUINTET = 1
    TB_NONE = 2

#: Wild kinds: fully wild (jokers, deuces, declared cards), the bug with ``bug_flush`` fill or ace_only.
cdef enum:
    W_FULL = 0
    W_BUG_FILL = 1
    W_BUG_ACE = 2

#: Low rankings of CP-5.2 (0: a high evaluator).
cdef enum:
    L_NONE = 0
    L_ACE_HIGH = 1
    L_ACE_EITHER = 2
    L_ACE_TO_FIVE = 3

WILD_SHIFT = 23
LOW_TOP = (1 << 24) - 1
cdef int32_t C_LOW_TOP = (1 << 24) - 1
# A wild card: one in the wild count (bit 23 up) and one on every suit counter.
cdef uint64_t WKEY = (1ULL << 23) | (0x1111ULL << 32)
cdef int32_t BIG = 0x7FFFFFFF


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil
    ctypedef unsigned long long u128 "unsigned __int128"


# ---------------------------------------------------------------------- shared by both tables

cdef int32_t _five_value(int* pc, int npos, bint suited, int* cmap, int tb_style,
                         uint32_t* stop) noexcept nogil:
    """Value of five cards given their counts over ``npos`` rank positions (lowest first).

    Plain tables pass the 13 ranks, wild tables the 14 positions (0 = ace low .. 13 = ace).
    ``stop[mask]`` is 1 + the top position when the rank mask of five distinct positions is a
    straight, else 0. A position counted five times is five of a kind (wild cards only).
    """
    cdef int p, c, n5 = -1, n4 = -1, n3 = -1, p_hi = -1, p_lo = -1, ns = 0, nt = 0, cat
    cdef int singles[5]
    cdef int tb[5]
    cdef uint32_t mask = 0, top
    cdef int32_t v
    for p in range(npos - 1, -1, -1):
        c = pc[p]
        if c == 0:
            continue
        mask |= 1u << p
        if c >= 5:
            n5 = p
        elif c == 4:
            n4 = p
        elif c == 3:
            n3 = p
        elif c == 2:
            if p_hi < 0:
                p_hi = p
            else:
                p_lo = p
        else:
            singles[ns] = p
            ns += 1
    if n5 >= 0:
        cat = C_FIVE
        tb[0] = n5
        nt = 1
    elif n4 >= 0:
        cat = C_FOUR
        tb[0] = n4
        nt = 1
        if tb_style == TB_STANDARD:
            tb[1] = singles[0]
            nt = 2
    elif n3 >= 0 and p_hi >= 0:
        cat = C_FULL
        tb[0] = n3
        nt = 1
        if tb_style == TB_STANDARD:
            tb[1] = p_hi
            nt = 2
    elif n3 >= 0:
        cat = C_THREE
        tb[0] = n3
        nt = 1
        if tb_style == TB_STANDARD:
            tb[1] = singles[0]
            tb[2] = singles[1]
            nt = 3
    elif p_lo >= 0:
        cat = C_TWO_PAIR
        tb[0] = p_hi
        tb[1] = p_lo
        tb[2] = singles[0]
        nt = 3
    elif p_hi >= 0:
        cat = C_PAIR
        tb[0] = p_hi
        tb[1] = singles[0]
        tb[2] = singles[1]
        tb[3] = singles[2]
        nt = 4
    else:
        top = stop[mask]
        if top:
            cat = C_SF if suited else C_STRAIGHT
            tb[0] = <int>top - 1
            nt = 1
        else:
            cat = C_FLUSH if suited else C_HIGH
            for p in range(5):
                tb[p] = singles[p]
            nt = 5
    if tb_style == TB_NONE:
        nt = 0
    v = cmap[cat] << 20
    for p in range(nt):
        v |= tb[p] << (16 - 4 * p)
    return v


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t _next(uint64_t* s) noexcept nogil:
    """xoshiro256**."""
    cdef uint64_t result = _rotl(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


cdef inline void _seed(uint64_t* st, uint64_t s0, uint64_t s1) noexcept nogil:
    """The xoshiro256** state of a sampling chunk, by splitmix64 from (s0, s1)."""
    cdef uint64_t x = s0 ^ (s1 * 0x9E3779B97F4A7C15ULL), r
    cdef int i
    for i in range(4):
        x += 0x9E3779B97F4A7C15ULL
        r = x
        r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ULL
        r = (r ^ (r >> 27)) * 0x94D049BB133111EBULL
        st[i] = r ^ (r >> 31)


cdef inline int _bounded(uint64_t* st, uint64_t bound) noexcept nogil:
    """A uniform integer in [0, bound): Lemire's multiply-and-reject."""
    cdef u128 prod = <u128>_next(st) * bound
    cdef uint64_t low = <uint64_t>prod, thr
    if low < bound:
        thr = (0 - bound) % bound
        while low < thr:
            prod = <u128>_next(st) * bound
            low = <uint64_t>prod
    return <int>(prod >> 64)


cdef inline void _sample_start(int64_t* counts, int ncounts, uint8_t* work, const uint8_t[::1] deck,
                               uint64_t* st, uint64_t s0, uint64_t s1) noexcept:
    """A sampling chunk's start (``sample_chunk`` of Tables and WildTables): ``counts[:ncounts]`` zero,
    ``work`` a copy of ``deck``, ``st`` seeded from (s0, s1)."""
    cdef Py_ssize_t i
    for i in range(ncounts):
        counts[i] = 0
    for i in range(deck.shape[0]):
        work[i] = deck[i]
    _seed(st, s0, s1)


cdef inline void _draw(uint8_t* work, Py_ssize_t m, int k, uint64_t* st) noexcept nogil:
    """Partial Fisher-Yates: ``work[:k]`` becomes a uniform random k-subset of ``work[:m]``."""
    cdef int j, i
    cdef uint8_t tmp
    for j in range(k):
        i = j + _bounded(st, <uint64_t>(m - j))
        tmp = work[j]
        work[j] = work[i]
        work[i] = tmp


def _perfect_hash(keys, vals, int shift):
    """Displacement perfect hash of sorted int64 ``keys`` with int32 ``vals``.

    Sparse direct tables (7.8 M entries for 49,205 used ones on the 13-rank deck) miss every cache
    on random loads. Slot = (key & mask) + offs[key >> shift], with offsets found first-fit, largest
    bucket first, gives a table of about the number of keys for the cost of one extra small load.
    Returns (offs, table): ``table[(key & mask) + offs[key >> shift]]`` is the key's value, -1 in
    the unused slots.
    """
    cdef int64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.int64)
    cdef Py_ssize_t n = kv.shape[0], i, j, b0, b1
    cdef int64_t maxkey = kv[n - 1]
    cdef int64_t mask = (1 << shift) - 1
    cdef Py_ssize_t nb = (maxkey >> shift) + 1
    offs = np.zeros(nb, dtype=np.uint32)
    cdef uint32_t[::1] offv = offs
    # Buckets, largest first (stable on bucket number, so the build is deterministic).
    karr = np.asarray(kv)
    bucket = karr >> shift
    starts = np.searchsorted(bucket, np.arange(nb + 1))
    sizes = np.diff(starts)
    order = np.lexsort((np.arange(nb), -sizes))
    cdef int64_t[::1] st = starts.astype(np.int64)
    cdef int64_t[::1] orderv = order.astype(np.int64)
    cdef Py_ssize_t cap = 4 * n + 2 * (1 << shift) + 1
    occ = np.zeros(cap, dtype=np.uint8)
    cdef uint8_t[::1] occv = occ
    # The same occupancy as bits (bit s of word s >> 6: slot s taken), so that one pass over a
    # bucket's keys tests 64 offsets at once: the first fit found is the one a test of every offset
    # in turn finds, 64 at a time (the build of the 7-card tables took 0.3 s offset by offset).
    occb = np.zeros((cap >> 6) + 3, dtype=np.uint64)
    cdef uint64_t[::1] occw = occb
    cdef Py_ssize_t first_free = 0, off, top = 0, lowmin, slot
    cdef uint64_t taken
    for i in range(nb):
        b0 = st[orderv[i]]
        b1 = st[orderv[i] + 1]
        if b1 == b0:
            break
        lowmin = kv[b0] & mask
        while first_free < cap - 1 and occv[first_free]:
            first_free += 1
        off = first_free - lowmin if first_free > lowmin else 0
        while True:
            if off + mask >= cap:
                raise RuntimeError("perfect hash did not fit: the evaluator tables are wrong")
            taken = 0  # bit d: offset off + d collides for some key of the bucket
            for j in range(b0, b1):
                slot = (kv[j] & mask) + off
                if slot & 63:
                    taken |= (occw[slot >> 6] >> (slot & 63)) | (occw[(slot >> 6) + 1] << (64 - (slot & 63)))
                else:
                    taken |= occw[slot >> 6]
                if taken == 0xFFFFFFFFFFFFFFFFULL:
                    break
            if taken != 0xFFFFFFFFFFFFFFFFULL:
                off += __builtin_ctzll(~taken)
                if off + mask >= cap:
                    raise RuntimeError("perfect hash did not fit: the evaluator tables are wrong")
                break
            off += 64
        offv[orderv[i]] = <uint32_t>off
        for j in range(b0, b1):
            slot = (kv[j] & mask) + off
            occv[slot] = 1
            occw[slot >> 6] |= 1ULL << (slot & 63)
            if slot + 1 > top:
                top = slot + 1
    table = np.full(top, -1, dtype=np.int32)
    table[(karr & mask) + offs[karr >> shift]] = np.asarray(vals, dtype=np.int32)
    return offs, table


# ---------------------------------------------------------------------- plain rankings

cdef int32_t _best_submultiset(int* counts, int r, int need, int* chosen, int* cat_map,
                               int tb_style, uint32_t* straight_top) noexcept nogil:
    """Best unsuited value over every 5-card sub-multiset of ``counts`` (ranks >= r)."""
    cdef int32_t best = -1, v
    cdef int c, cmax
    if need == 0:
        return _five_value(chosen, 13, 0, cat_map, tb_style, straight_top)
    if r > 12:
        return -1
    cmax = counts[r] if counts[r] < need else need
    for c in range(cmax, -1, -1):
        chosen[r] = c
        v = _best_submultiset(counts, r + 1, need - c, chosen, cat_map, tb_style, straight_top)
        if v > best:
            best = v
    chosen[r] = 0
    return best



@cython.final
cdef class Tables:
    """Lookup tables of one (ranking, deck, hand size). Built once, shared, read-only. Its attributes and
    ``_eval_key`` are declared in ext/_handeval.pxd (kernels that value hands in C cimport them)."""

    def __init__(self, int k, deck_ranks, cat_map, straights, int tb_style):
        """Build the tables.

        deck_ranks: ascending absolute ranks (0..12) present in the deck.
        cat_map: 9 ints, the ranking's category index of each build-time category code.
        straights: list of (13-bit absolute rank mask, top rank) of the ranking's straights.
        tb_style: TB_STANDARD, TB_QUINTET or TB_NONE.
        """
        cdef int i, r, s, pos, c
        cdef int nr = len(deck_ranks)
        cdef int cmap[9]
        cdef uint32_t stop[8192]
        cdef int absr[13]
        if not 5 <= k <= 7:
            raise ValueError(f"hands of {k} cards are not supported: use 5, 6 or 7")
        self.k = k
        self.nranks = nr
        for i in range(9):
            cmap[i] = cat_map[i]
        for i in range(8192):
            stop[i] = 0
        for mask, top in straights:
            stop[mask] = top + 1
        for i in range(nr):
            absr[i] = deck_ranks[i]
        for i in range(256):
            self.card_key[i] = 0
            self.card_fbit[i] = 0
            self.valid[i] = 0
        for pos in range(nr):
            r = absr[pos]
            for s in range(4):
                i = 4 * r + s
                self.card_key[i] = <uint64_t>RANK_KEYS[pos] | (1ULL << (32 + 4 * s))
                self.card_fbit[i] = 1ULL << (16 * s + pos)
                self.valid[i] = 1
        self.key_array = np.asarray(<uint64_t[:256]>self.card_key).copy()
        self.fbit_array = np.asarray(<uint64_t[:256]>self.card_fbit).copy()
        self.valid_array = np.asarray(<uint8_t[:256]>self.valid).copy()

        # Non-flush table over rank-key sums of every k-multiset (each rank at most 4 times).
        cdef int64_t maxsum = 0
        cdef int left = k
        for pos in range(nr - 1, -1, -1):
            c = 4 if left >= 4 else left
            maxsum += c * RANK_KEYS[pos]
            left -= c
            if left == 0:
                break
        nf = np.full(maxsum + 1, -1, dtype=np.int32)
        cdef int32_t[::1] nfv = nf
        cdef int counts[13]
        cdef int chosen[13]
        cdef int poscount[13]
        for i in range(13):
            counts[i] = 0
            chosen[i] = 0
            poscount[i] = 0
        self._fill_nf(nfv, poscount, counts, chosen, 0, k, 0, nr, absr, cmap, tb_style, stop)
        # Only the compressed table is kept: the direct one spans 7.8 M entries on 52 cards.
        self._build_hash(nf)

        # Flush table over suited rank masks (deck positions) with 5..k cards.
        fl = np.full(1 << nr, -1, dtype=np.int32)
        cdef int32_t[::1] flv = fl
        cdef int m, b, nb
        cdef int32_t best, v
        cdef int sub[7]
        cdef int a0, a1, a2, a3, a4
        for m in range(1 << nr):
            nb = __builtin_popcountll(m)
            if nb < 5 or nb > k:
                continue
            nb = 0
            for b in range(nr):
                if m & (1 << b):
                    sub[nb] = absr[b]
                    nb += 1
            best = -1
            for a0 in range(nb):
                for a1 in range(a0 + 1, nb):
                    for a2 in range(a1 + 1, nb):
                        for a3 in range(a2 + 1, nb):
                            for a4 in range(a3 + 1, nb):
                                for i in range(13):
                                    counts[i] = 0
                                counts[sub[a0]] = 1
                                counts[sub[a1]] = 1
                                counts[sub[a2]] = 1
                                counts[sub[a3]] = 1
                                counts[sub[a4]] = 1
                                v = _five_value(counts, 13, 1, cmap, tb_style, stop)
                                if v > best:
                                    best = v
            flv[m] = best
        self.fl_array = fl
        self.fl = fl

    def _build_hash(self, nf):
        """Compress the sparse direct table ``nf`` into the displacement perfect hash ``nfh``."""
        keys = np.flatnonzero(nf != -1).astype(np.int64)
        cdef int64_t maxkey = keys[len(keys) - 1]
        cdef int shift = 0
        while (maxkey >> shift) > 0 and shift < 9:
            shift += 1
        if maxkey < (1 << 18):
            shift = 0
            while (maxkey >> shift) > 0:
                shift += 1
        offs, nfh = _perfect_hash(keys, nf[keys], shift)
        self.hshift = shift
        self.hmask = <uint32_t>((1 << shift) - 1)
        self.offs_array = offs
        self.offs = offs
        self.nfh_array = nfh
        self.nfh = nfh

    cdef int64_t _fill_nf(self, int32_t[::1] nfv, int* poscount, int* counts, int* chosen,
                          int pos, int left, int64_t keysum, int nr, int* absr, int* cmap,
                          int tb_style, uint32_t* stop) except -1:
        cdef int c, cmax
        cdef int64_t n = 0
        if left == 0:
            if nfv[keysum] != -1:
                raise RuntimeError(f"rank keys collide at sum {keysum}: the evaluator tables are wrong")
            nfv[keysum] = _best_submultiset(counts, 0, 5, chosen, cmap, tb_style, stop)
            return 1
        if pos >= nr:
            return 0
        cmax = 4 if left >= 4 else left
        for c in range(cmax + 1):
            counts[absr[pos]] = c
            n += self._fill_nf(nfv, poscount, counts, chosen, pos + 1, left - c,
                               keysum + c * RANK_KEYS[pos], nr, absr, cmap, tb_style, stop)
        counts[absr[pos]] = 0
        return n

    cpdef int32_t value_of(self, cards) except -2:
        """Value of one hand given as a sequence of k card ids (no numpy overhead).

        Returns -1 when the hand is invalid (a card outside the deck or a duplicate).
        """
        cdef uint64_t ksum = SUIT_INIT, fb = 0
        cdef int c, n = 0
        for c in cards:
            if c < 0 or c > 255:
                return -1
            ksum += self.card_key[c]
            fb |= self.card_fbit[c]
            n += 1
        if n != self.k or __builtin_popcountll(fb) != n:
            return -1
        return self._eval_key(ksum, fb)

    def swap_values(self, hand, other):
        """Values of both hands after every one-card swap between them.

        ``hand`` and ``other`` are sequences of k card ids. Returns two lists of k*k values:
        entry ``i*k + j`` is the value of ``hand`` (first list) and of ``other`` (second list)
        after ``hand[i]`` and ``other[j]`` change places. This is the inner loop of games
        whose players swap cards with a face-up hand (Order Poker OP-6.3, OP-6.5).
        """
        cdef int k = self.k, i, j, c
        cdef uint64_t hk[8]
        cdef uint64_t hf[8]
        cdef uint64_t ok_[8]
        cdef uint64_t of[8]
        cdef uint64_t hsum = SUIT_INIT, osum = SUIT_INIT, hfb = 0, ofb = 0, hf_rest, of_rest
        cdef int n = 0
        for c in hand:
            if n >= k or c < 0 or c > 255:
                raise ValueError("hand must hold k valid card ids")
            hk[n] = self.card_key[c]
            hf[n] = self.card_fbit[c]
            hsum += hk[n]
            hfb |= hf[n]
            n += 1
        if n != k:
            raise ValueError("hand must hold k valid card ids")
        n = 0
        for c in other:
            if n >= k or c < 0 or c > 255:
                raise ValueError("other must hold k valid card ids")
            ok_[n] = self.card_key[c]
            of[n] = self.card_fbit[c]
            osum += ok_[n]
            ofb |= of[n]
            n += 1
        if n != k:
            raise ValueError("other must hold k valid card ids")
        if __builtin_popcountll(hfb | ofb) != 2 * k:
            raise ValueError("hand and other must be 2k distinct cards of the deck")
        hv = [0] * (k * k)
        ov = [0] * (k * k)
        for i in range(k):
            hf_rest = 0
            for c in range(k):
                if c != i:
                    hf_rest |= hf[c]
            for j in range(k):
                of_rest = 0
                for c in range(k):
                    if c != j:
                        of_rest |= of[c]
                hv[i * k + j] = self._eval_key(hsum - hk[i] + ok_[j], hf_rest | of[j])
                ov[i * k + j] = self._eval_key(osum - ok_[j] + hk[i], of_rest | hf[i])
        return hv, ov

    def evaluate_into(self, const uint8_t[:, ::1] cards, int32_t[::1] out):
        """Evaluate every row of ``cards`` into ``out``; return -1, or the first bad row."""
        cdef Py_ssize_t n = cards.shape[0], i
        cdef int k = cards.shape[1], j
        cdef uint64_t ksum, fb
        cdef uint8_t c
        cdef Py_ssize_t bad = -1
        if k != self.k:
            raise ValueError(f"tables are for {self.k}-card hands, got {k}")
        with nogil:
            for i in range(n):
                ksum = SUIT_INIT
                fb = 0
                for j in range(k):
                    c = cards[i, j]
                    ksum += self.card_key[c]
                    fb |= self.card_fbit[c]
                # Cards outside the deck have no bit and duplicates share one, so the
                # hand is valid exactly when its k cards set k distinct bits.
                if __builtin_popcountll(fb) != k:
                    bad = i
                    break
                out[i] = self._eval_key(ksum, fb)
        return bad

    def count_all(self, const uint8_t[::1] deck, int first_mod=1, int first_rem=0):
        """Category counts (index = value >> 20) over every k-subset of ``deck``.

        Incremental enumeration: the key sum and flush bits of each prefix are kept per
        nesting level, so a hand costs one addition, one OR and the table loads. Only first
        cards whose position p has ``p % first_mod == first_rem`` are enumerated (to split
        the work between threads).
        """
        cdef Py_ssize_t m = deck.shape[0]
        cdef int64_t counts[16]
        cdef int a, b, c, d, e, f, g, i
        cdef uint64_t k1, k2, k3, k4, k5, k6, f1, f2, f3, f4, f5, f6
        cdef uint64_t keys[64]
        cdef uint64_t fbits[64]
        cdef int k = self.k
        for i in range(16):
            counts[i] = 0
        for i in range(m):
            keys[i] = self.card_key[deck[i]]
            fbits[i] = self.card_fbit[deck[i]]
        a = first_rem - first_mod
        with nogil:
            while True:
                a += first_mod
                if a >= m:
                    break
                k1 = SUIT_INIT + keys[a]
                f1 = fbits[a]
                for b in range(a + 1, m):
                    k2 = k1 + keys[b]
                    f2 = f1 | fbits[b]
                    for c in range(b + 1, m):
                        k3 = k2 + keys[c]
                        f3 = f2 | fbits[c]
                        for d in range(c + 1, m):
                            k4 = k3 + keys[d]
                            f4 = f3 | fbits[d]
                            if k == 5:
                                for e in range(d + 1, m):
                                    counts[self._eval_key(k4 + keys[e], f4 | fbits[e]) >> 20] += 1
                                continue
                            for e in range(d + 1, m):
                                k5 = k4 + keys[e]
                                f5 = f4 | fbits[e]
                                if k == 6:
                                    for f in range(e + 1, m):
                                        counts[self._eval_key(k5 + keys[f], f5 | fbits[f]) >> 20] += 1
                                    continue
                                for f in range(e + 1, m):
                                    k6 = k5 + keys[f]
                                    f6 = f5 | fbits[f]
                                    for g in range(f + 1, m):
                                        counts[self._eval_key(k6 + keys[g], f6 | fbits[g]) >> 20] += 1
        return [counts[i] for i in range(16)]

    def sample_chunk(self, const uint8_t[::1] deck, Py_ssize_t samples, uint64_t s0, uint64_t s1):
        """Category counts of ``samples`` random k-card hands from ``deck``.

        The generator is xoshiro256** seeded by splitmix64 from (s0, s1); hands are drawn by
        a partial Fisher-Yates shuffle with Lemire's unbiased bounded integers. A chunk is a
        pure function of its arguments, so results do not depend on how chunks are spread
        over threads.
        """
        cdef int64_t counts[16]
        cdef uint8_t work[64]
        cdef Py_ssize_t m = deck.shape[0], t
        cdef int k = self.k, j
        cdef uint64_t st[4]
        cdef uint64_t ksum, fb
        _sample_start(counts, 16, work, deck, st, s0, s1)
        with nogil:
            for t in range(samples):
                _draw(work, m, k, st)
                ksum = SUIT_INIT
                fb = 0
                for j in range(k):
                    ksum += self.card_key[work[j]]
                    fb |= self.card_fbit[work[j]]
                counts[self._eval_key(ksum, fb) >> 20] += 1
        return [counts[i] for i in range(16)]


# ---------------------------------------------------------------------- wild cards, the four-flush, low hands

#: Bucket width (log2) of the wild tables' perfect hash: their keys span (w + 1) << 23.
WILD_HASH_SHIFT = 9


@cython.final
cdef class WildTables:
    """Tables of one evaluation mode and hand size (built once, read-only afterwards)."""

    cdef readonly int k
    cdef readonly int maxw
    cdef readonly int kind
    cdef readonly int low
    cdef readonly int four_flush
    cdef int cmap[11]
    cdef int nr
    cdef int ranks[13]
    cdef int nat[13]
    cdef uint32_t stop_hi[16384]
    cdef uint32_t stop_lo[16384]
    cdef uint32_t stop_none[16384]
    cdef uint64_t card_key[256]
    cdef uint64_t card_fbit[256]
    cdef uint8_t card_ok[256]
    cdef uint64_t card_vbit[256]
    cdef bint vcheck
    cdef int32_t ff_threshold
    cdef uint32_t hmask
    cdef int hshift
    cdef const uint16_t[::1] nfx
    cdef const int32_t[::1] nfv
    cdef const uint32_t[::1] offs
    cdef const int32_t[::1] fl
    cdef const int32_t[::1] ff
    cdef readonly object nfh_array
    cdef readonly object nfx_array
    cdef readonly object nfv_array
    cdef readonly object offs_array
    cdef readonly object fl_array
    cdef readonly object ff_array
    cdef list comp

    def __init__(self, int k, deck_ranks, wild_ids, cat_map, straights_hi, straights_lo, int kind, int low,
                 bint four_flush):
        """Build the tables.

        deck_ranks: ascending ranks (0..12 = 2..A) of the deck. wild_ids: card ids that are wild
        (natural ids 0..51 of wild ranks or cards, jokers 52 and 53); every other id of the deck's
        ranks below 52 is natural. cat_map: 11 ints, the ranking's category index of each code
        of ``CODES`` (-1 where the category does not exist). straights_hi / straights_lo: lists
        of (14-bit position mask, top position) of the straights with the ace high / low.
        kind: 0 fully wild, 1 bug (fill), 2 bug (ace_only). low: 0 high, 1 ace_high,
        2 ace_either, 3 ace_to_five.
        """
        cdef int i, r, s, c, nwild
        if not 5 <= k <= 7:
            raise ValueError(f"hands of {k} cards are not supported: use 5, 6 or 7")
        self.k = k
        self.kind = kind
        self.low = low
        self.four_flush = 1 if (four_flush and low == L_NONE) else 0
        for i in range(11):
            self.cmap[i] = cat_map[i]
        for i in range(16384):
            self.stop_hi[i] = 0
            self.stop_lo[i] = 0
            self.stop_none[i] = 0
        for mask, top in straights_hi:
            self.stop_hi[mask] = top + 1
        for mask, top in straights_lo:
            self.stop_lo[mask] = top + 1
        self.nr = len(deck_ranks)
        for i in range(self.nr):
            self.ranks[i] = deck_ranks[i]
        for i in range(256):
            self.card_key[i] = 0
            self.card_fbit[i] = 0
            self.card_ok[i] = 0
            self.card_vbit[i] = 0
        for i in range(self.nr):
            r = self.ranks[i]
            for s in range(4):
                c = 4 * r + s
                self.card_key[c] = <uint64_t>RK[r] | (1ULL << (32 + 4 * s))
                self.card_fbit[c] = 1ULL << (16 * s + r)
                self.card_ok[c] = 1
                self.card_vbit[c] = 1ULL << c
        # A wild card's flush bit is one of the 12 bits above the 13 ranks of the four suit lanes (no flush
        # mask reads them), so that k distinct cards of the deck set k bits there as in Tables; with more
        # than 12 wild ids the hand is checked by one bit per card id instead (``vcheck``).
        nwild = 0
        wild_list = [c for c in wild_ids if not (0 <= c < 52 and not self.card_ok[c])]
        self.vcheck = len(wild_list) > 12
        for c in wild_ids:
            if not 0 <= c < 64:
                raise ValueError(f"wild card id {c} is not a card id 0..63")
            if c < 52 and not self.card_ok[c]:
                continue  # a wild rank's cards outside this deck
            self.card_key[c] = WKEY
            self.card_fbit[c] = 0 if self.vcheck else 1ULL << (16 * (nwild // 3) + 13 + nwild % 3)
            self.card_ok[c] = 2
            self.card_vbit[c] = 1ULL << c
            nwild += 1
        self.maxw = min(nwild, k)
        # Natural cards of each rank: a rank whose cards are wild (deuces) has none, and a hand never
        # holds more of a rank than it has, so the non-flush table leaves those multisets out.
        for r in range(13):
            self.nat[r] = 0
        for c in range(52):
            if self.card_ok[c] == 1:
                self.nat[c >> 2] += 1
        self.ff_threshold = self.cmap[C_TWO_PAIR] << 20
        self._build_comp()
        self._build_nf()
        if low == L_NONE:
            self._build_fl()
            if self.four_flush:
                self._build_ff()

    # ------------------------------------------------------------------ building
    cdef int32_t _raw(self, int* counts, bint suited) noexcept nogil:
        """Value of five cards (13 rank counts): the high value, or the raw low value (lower is better)."""
        cdef int pc[14]
        cdef int r
        cdef int32_t a, b
        if self.low == L_NONE or self.low == L_ACE_HIGH:
            pc[0] = 0
            for r in range(13):
                pc[r + 1] = counts[r]
            return _five_value(pc, 14, suited, self.cmap, TB_STANDARD, self.stop_hi)
        pc[13] = 0
        pc[0] = counts[12]
        for r in range(12):
            pc[r + 1] = counts[r]
        if self.low == L_ACE_TO_FIVE:
            return _five_value(pc, 14, 0, self.cmap, TB_STANDARD, self.stop_none)
        b = _five_value(pc, 14, suited, self.cmap, TB_STANDARD, self.stop_lo)
        pc[0] = 0
        pc[13] = counts[12]
        a = _five_value(pc, 14, suited, self.cmap, TB_STANDARD, self.stop_hi)
        return a if a < b else b

    cdef int32_t _complete(self, int* counts, int ri, int left, int nonace) noexcept nogil:
        """Best (high: max, low: min) value of ``counts`` plus ``left`` more wild cards of ranks >= ranks[ri]."""
        cdef int32_t best, v
        cdef int r, i, j, distinct, mask
        if left == 0:
            if self.low != L_NONE:
                return self._raw(counts, 0)
            if self.kind != W_FULL and nonace:
                # CP-3.5: a bug that is not an ace must complete a straight.
                mask = 0
                for r in range(13):
                    if counts[r] > 1:
                        return -1
                    if counts[r]:
                        mask |= 1 << (r + 1)
                if not self.stop_hi[mask]:
                    return -1
            return self._raw(counts, 0)
        best = BIG if self.low != L_NONE else -1
        for i in range(ri, self.nr):
            r = self.ranks[i]
            counts[r] += 1
            v = self._complete(counts, i, left - 1, nonace + (1 if r != 12 else 0))
            counts[r] -= 1
            if self.low != L_NONE:
                if v < best:
                    best = v
            elif v > best:
                best = v
        return best

    cdef void _enum_s(self, int32_t[::1] out, int* counts, int pos, int left, int u):
        cdef int c, cmax, r, i, j
        cdef int64_t code
        if left == 0:
            code = 0
            for r in range(12, -1, -1):
                for j in range(counts[r]):
                    code = code * 13 + r
            out[code] = self._complete(counts, 0, u, 0)
            return
        if pos >= self.nr:
            return
        r = self.ranks[pos]
        cmax = 4 if left >= 4 else left
        for c in range(cmax + 1):
            counts[r] = c
            self._enum_s(out, counts, pos + 1, left - c, u)
        counts[r] = 0

    def _build_comp(self):
        cdef int counts[13]
        cdef int u, i
        self.comp = []
        for u in range(min(self.maxw, 5) + 1):
            arr = np.full(int(round(13 ** (5 - u))), -1, dtype=np.int32)
            for i in range(13):
                counts[i] = 0
            self._enum_s(arr, counts, 0, 5 - u, u)
            self.comp.append(arr)

    cdef int32_t _best_sub(self, const int32_t* comp, int* counts, int avail, int r, int need,
                           int64_t code) noexcept:
        """Best (max or min) of ``comp`` over sub-multisets of ``counts`` (ranks <= r, ``avail`` cards
        among them) of ``need`` cards; -2 when there is none."""
        cdef int c, cmax, cmin, j
        cdef int32_t best, v
        cdef int64_t cd
        if need == 0:
            return comp[code]
        if r < 0 or avail < need:
            return -2
        best = -2
        cmax = counts[r] if counts[r] < need else need
        # Take at least what the lower ranks cannot supply (prunes the dead branches).
        cmin = need - (avail - counts[r])
        if cmin < 0:
            cmin = 0
        for c in range(cmax, cmin - 1, -1):
            cd = code
            for j in range(c):
                cd = cd * 13 + r
            v = self._best_sub(comp, counts, avail - counts[r], r - 1, need - c, cd)
            if v == -2 or v == -1:
                continue
            if best == -2 or (self.low != L_NONE and v < best) or (self.low == L_NONE and v > best):
                best = v
        return best

    cdef void _enum_n(self, list keys, list vals, int* counts, int pos, int left, int64_t ksum, int w):
        cdef int c, cmax, r, u, umin, umax
        cdef int32_t best, v
        cdef const int32_t[::1] compv
        if left == 0:
            umax = w if w < 5 else 5
            umin = umax if (self.kind == W_FULL or self.low != L_NONE) else 0
            best = -2
            for u in range(umin, umax + 1):
                if self.k - w < 5 - u:
                    continue
                compv = self.comp[u]
                v = self._best_sub(&compv[0], counts, self.k - w, 12, 5 - u, 0)
                if v < 0:
                    continue
                if best == -2 or (self.low != L_NONE and v < best) or (self.low == L_NONE and v > best):
                    best = v
            keys.append((w << 23) | ksum)
            vals.append(best)
            return
        if pos >= self.nr:
            return
        r = self.ranks[pos]
        cmax = self.nat[r] if left >= self.nat[r] else left
        for c in range(cmax + 1):
            counts[r] = c
            self._enum_n(keys, vals, counts, pos + 1, left - c, ksum + c * RK[r], w)
        counts[r] = 0

    def _build_nf(self):
        cdef int counts[13]
        cdef int w, i
        keys: list = []
        vals: list = []
        for w in range(self.maxw + 1):
            for i in range(13):
                counts[i] = 0
            self._enum_n(keys, vals, counts, 0, self.k - w, 0, w)
        order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
        karr = np.asarray(keys, dtype=np.int64)[order]
        varr = np.asarray(vals, dtype=np.int32)[order]
        if (varr < 0).any():
            raise RuntimeError("a natural multiset has no value: the wild tables are wrong")
        cdef int shift = WILD_HASH_SHIFT
        offs, table = _perfect_hash(karr, varr, shift)
        self.hshift = shift
        self.hmask = <uint32_t>((1 << shift) - 1)
        self.offs_array = offs
        self.offs = offs
        self.nfh_array = table
        # The hashed table as 16-bit indices into its few thousand distinct values: half the bytes
        # of the table the loads hit at random (the values' own array stays in the nearest cache).
        distinct, index = np.unique(table, return_inverse=True)
        if len(distinct) > 65536:
            raise RuntimeError("more than 65,536 distinct values: the wild tables are wrong")
        self.nfv_array = distinct.astype(np.int32)
        self.nfv = self.nfv_array
        self.nfx_array = index.reshape(-1).astype(np.uint16)
        self.nfx = self.nfx_array
        self.comp = None

    def _sets(self, int size):
        """Every ``size``-subset of the deck's ranks as a 13-bit mask, with its suited value."""
        cdef int counts[13]
        cdef int r, m
        out = []
        from itertools import combinations
        for combo in combinations([self.ranks[i] for i in range(self.nr)], size):
            m = 0
            for r in range(13):
                counts[r] = 0
            for r in combo:
                m |= 1 << r
                counts[r] = 1
            if size == 5:
                v = self._raw(counts, 1)
            else:
                v = 0
                for r in sorted(combo, reverse=True):
                    v = v * 16 + (r + 1)
            out.append((v, m))
        out.sort(reverse=True)
        return out

    def _flush_table(self, int size):
        """Per (wild count w, natural rank mask m of one suit): the best flush of ``size`` cards (5; 4 for the
        four-flush table, whose entries also hold in bits 16+ the wild cards it uses) the suit's natural
        ranks make with at most w wild cards, -1 for none."""
        cdef int w, m, i, u, tm, n, cap
        cdef int32_t[::1] tabv
        sets = self._sets(size)
        n = len(sets)
        tv = np.asarray([s[0] for s in sets], dtype=np.int32)
        tms = np.asarray([s[1] for s in sets], dtype=np.int32)
        cdef int32_t[::1] tvv = tv
        cdef int32_t[::1] tmv = tms
        tab = np.full((self.maxw + 1) * 8192, -1, dtype=np.int32)
        tabv = tab
        for w in range(self.maxw + 1):
            cap = w if w < size else size
            for m in range(8192):
                if __builtin_popcountll(m) > self.k - w or __builtin_popcountll(m) + cap < size:
                    continue
                for i in range(n):
                    tm = tmv[i]
                    u = __builtin_popcountll(tm & ~m)
                    if u > cap:
                        continue
                    # CP-4.6: under ace_only the bug is only the suit's ace (in a flush, or the top of a
                    # straight flush as stop_hi says; in a four-flush only the ace).
                    if self.kind == W_BUG_ACE and u and (tm & ~m) != (1 << 12) \
                            and (size == 4 or not self.stop_hi[(<uint32_t>tm) << 1]):
                        continue
                    tabv[w * 8192 + m] = tvv[i] | (u << 16) if size == 4 else tvv[i]
                    break
        return tab

    def _build_fl(self):
        self.fl_array = self._flush_table(5)
        self.fl = self.fl_array

    def _build_ff(self):
        self.ff_array = self._flush_table(4)
        self.ff = self.ff_array

    # ------------------------------------------------------------------ evaluation
    cdef int32_t _low_exact(self, const uint8_t* cards, int k) noexcept nogil:
        """Raw low value of a hand without wild cards that holds five of a suit: every five-card choice."""
        cdef int a, b, c, d, e, i, s
        cdef int counts[13]
        cdef int idx[5]
        cdef int32_t best = BIG, v
        for a in range(k):
            for b in range(a + 1, k):
                for c in range(b + 1, k):
                    for d in range(c + 1, k):
                        for e in range(d + 1, k):
                            idx[0] = a
                            idx[1] = b
                            idx[2] = c
                            idx[3] = d
                            idx[4] = e
                            for i in range(13):
                                counts[i] = 0
                            s = cards[a] & 3
                            for i in range(5):
                                counts[cards[idx[i]] >> 2] += 1
                            v = self._raw(counts, (cards[b] & 3) == s and (cards[c] & 3) == s
                                          and (cards[d] & 3) == s and (cards[e] & 3) == s)
                            if v < best:
                                best = v
        return best

    cdef int32_t _low_suited(self, const uint8_t* cards, int k, int32_t vnf, int s) noexcept nogil:
        """Raw low value of a hand without wild cards that holds five or more of suit ``s``; ``vnf`` is its
        value with suits ignored (the rank table's: the best of its five-card choices, none counted as a flush).

        The same value as ``_low_exact``, found cheaply: a choice that mixes suits is no flush, so when the
        hand holds a card of another suit and no choice of five cards of suit ``s`` reaches ``vnf`` (the
        least, over every choice, of the value with suits ignored), some mixed choice does and the answer is
        ``vnf``; so it is too when a choice of suit ``s`` that reaches ``vnf`` holds a rank of which the hand
        has a card of another suit (that card in its place is a mixed choice of the same ranks). Otherwise
        (every card of one suit, or such a choice with no such rank) every choice is valued as ``_low_exact``
        does."""
        cdef int idx[9]
        cdef int counts[13]
        cdef int m = 0, i, a, b, c, d, e
        cdef uint32_t other = 0
        for i in range(k):
            if (cards[i] & 3) == s:
                if m == 9:
                    return self._low_exact(cards, k)
                idx[m] = cards[i] >> 2
                m += 1
            else:
                other |= 1u << (cards[i] >> 2)
        if m == k:
            return self._low_exact(cards, k)
        for i in range(13):
            counts[i] = 0
        for a in range(m):
            counts[idx[a]] += 1
            for b in range(a + 1, m):
                counts[idx[b]] += 1
                for c in range(b + 1, m):
                    counts[idx[c]] += 1
                    for d in range(c + 1, m):
                        counts[idx[d]] += 1
                        for e in range(d + 1, m):
                            counts[idx[e]] += 1
                            if self._raw(counts, 0) <= vnf:
                                if other & ((1u << idx[a]) | (1u << idx[b]) | (1u << idx[c]) | (1u << idx[d])
                                            | (1u << idx[e])):
                                    return vnf
                                return self._low_exact(cards, k)
                            counts[idx[e]] -= 1
                        counts[idx[d]] -= 1
                    counts[idx[c]] -= 1
                counts[idx[b]] -= 1
            counts[idx[a]] -= 1
        return vnf

    cdef inline int32_t _eval(self, const uint8_t* cards, int k) noexcept nogil:
        """Value of one hand of k card ids, or -1 if a card is outside the deck or repeated."""
        cdef uint64_t ksum = SUIT_INIT, fb = 0, vb = 0, fbits
        cdef int j, s, w, u, kick
        cdef uint8_t c
        cdef uint32_t key, m, other
        cdef int32_t v, fv, f
        # Cards outside the deck have no bit and a repeated card sets its bit once, so the hand is
        # valid exactly when its k cards set k bits (as in Tables.evaluate_into).
        if self.vcheck:
            for j in range(k):
                c = cards[j]
                ksum += self.card_key[c]
                fb |= self.card_fbit[c]
                vb |= self.card_vbit[c]
            if __builtin_popcountll(vb) != k:
                return -1
        else:
            for j in range(k):
                c = cards[j]
                ksum += self.card_key[c]
                fb |= self.card_fbit[c]
            if __builtin_popcountll(fb) != k:
                return -1
        key = <uint32_t>ksum
        v = self.nfv[self.nfx[(key & self.hmask) + self.offs[key >> self.hshift]]]
        w = <int>(key >> 23)
        # Bit 3 of a suit's counter: its naturals and the w wild cards make five.
        fbits = ksum & FLUSH_BITS
        if self.low != L_NONE:
            if w == 0 and fbits and self.low != L_ACE_TO_FIVE:
                v = self._low_suited(cards, k, v, (__builtin_ctzll(fbits) - 35) >> 2)
            return C_LOW_TOP - v
        while fbits:
            s = (__builtin_ctzll(fbits) - 35) >> 2
            fbits &= fbits - 1
            fv = self.fl[w * 8192 + <uint32_t>((fb >> (16 * s)) & 0x1FFF)]
            if fv > v:
                v = fv
        if self.four_flush and v < self.ff_threshold:
            for s in range(4):
                m = <uint32_t>((fb >> (16 * s)) & 0x1FFF)
                if __builtin_popcountll(m) + w < 4:
                    continue
                f = self.ff[w * 8192 + m]
                if f < 0:
                    continue
                u = f >> 16
                other = 0
                for j in range(4):
                    if j != s:
                        other |= <uint32_t>((fb >> (16 * j)) & 0x1FFF)
                # CP-4.3: the fifth card is the best card outside the four; a spare wild card is an ace.
                kick = 0
                if w > u:
                    kick = 13
                elif other:
                    kick = 63 - __builtin_clzll(other) + 1
                fv = (self.cmap[C_FF] << 20) | ((f & 0xFFFF) << 4) | kick
                if fv > v:
                    v = fv
        return v

    cdef Py_ssize_t _eval_rows(self, const uint8_t[:, ::1] cards, int64_t[::1] out, int low_top) noexcept nogil:
        """``_eval`` of every row of ``cards`` into ``out`` (widened), a low that does not qualify as -1 when
        ``low_top`` >= 0 (``evaluate_pair``). Returns -1, or the first invalid row."""
        cdef Py_ssize_t i
        cdef int k = cards.shape[1]
        cdef int32_t v, raw
        for i in range(cards.shape[0]):
            v = self._eval(&cards[i, 0], k)
            if v < 0:
                return i
            if low_top >= 0:
                raw = C_LOW_TOP - v
                if (raw >> 20) != 0 or ((raw >> 16) & 0xF) > low_top:
                    v = -1
            out[i] = v
        return -1

    cpdef int32_t value_of(self, cards) except -2:
        """Value of one hand given as a sequence of k card ids; -1 when it is not a valid hand."""
        cdef uint8_t buf[8]
        cdef int n = 0
        for c in cards:
            if n >= 8 or c < 0 or c > 255:
                return -1
            buf[n] = c
            n += 1
        if n != self.k:
            return -1
        return self._eval(buf, n)

    def evaluate_into(self, const uint8_t[:, ::1] cards, int32_t[::1] out):
        """Evaluate every row of ``cards`` into ``out``; return -1, or the first invalid row."""
        cdef Py_ssize_t n = cards.shape[0], i
        cdef int k = cards.shape[1]
        cdef int32_t v
        cdef Py_ssize_t bad = -1
        if k != self.k:
            raise ValueError(f"tables are for {self.k}-card hands, got {k}")
        with nogil:
            for i in range(n):
                v = self._eval(&cards[i, 0], k)
                if v < 0:
                    bad = i
                    break
                out[i] = v
        return bad

    def count_all(self, const uint8_t[::1] deck, int first_mod=1, int first_rem=0):
        """Counts of ``(value >> 16) & 0xFF`` (category and first tie-break position) over every
        k-subset of ``deck`` whose first card's position p has ``p % first_mod == first_rem``."""
        cdef int64_t counts[256]
        cdef int idx[8]
        cdef uint8_t hand[8]
        cdef int m = deck.shape[0], k = self.k, i, j
        cdef int32_t v
        for i in range(256):
            counts[i] = 0
        if m < k:
            return [0] * 256
        with nogil:
            for i in range(k):
                idx[i] = i
            while True:
                if idx[0] % first_mod == first_rem:
                    for i in range(k):
                        hand[i] = deck[idx[i]]
                    v = self._eval(hand, k)
                    if self.low != L_NONE:
                        v = C_LOW_TOP - v
                    counts[(v >> 16) & 0xFF] += 1
                # next combination
                i = k - 1
                while i >= 0 and idx[i] == m - k + i:
                    i -= 1
                if i < 0:
                    break
                idx[i] += 1
                for j in range(i + 1, k):
                    idx[j] = idx[j - 1] + 1
        return [counts[i] for i in range(256)]

    def sample_chunk(self, const uint8_t[::1] deck, Py_ssize_t samples, uint64_t s0, uint64_t s1):
        """Counts as ``count_all`` of ``samples`` random k-card hands (xoshiro256**, as ``_handeval``)."""
        cdef int64_t counts[256]
        cdef uint8_t work[64]
        cdef Py_ssize_t m = deck.shape[0], t
        cdef int k = self.k
        cdef uint64_t st[4]
        cdef int32_t v
        _sample_start(counts, 256, work, deck, st, s0, s1)
        with nogil:
            for t in range(samples):
                _draw(work, m, k, st)
                v = self._eval(work, k)
                if self.low != L_NONE:
                    v = C_LOW_TOP - v
                counts[(v >> 16) & 0xFF] += 1
        return [counts[i] for i in range(256)]


# ---------------------------------------------------------------------- high and low, widened
def evaluate_pair(object high, WildTables low, const uint8_t[:, ::1] cards, int64_t[::1] out_high,
                  int64_t[::1] out_low, int low_top):
    """Every row's high value by ``high`` (``Tables`` or ``WildTables``) into ``out_high`` and, when ``low`` is
    given, its low value into ``out_low`` (-1 for a low that does not qualify: ``low_top`` >= 0 asks that
    the low be no pair, category 0, with its top card at position ``low_top`` or lower, as
    ``games/classic_poker/hands.low_qualifies`` tests ``low_qualifier=8``, CP-5.4; -1 takes every low):
    the values ``evaluate_into`` gives, widened to int64, the qualifier applied in C (one table at a time:
    each stays in the cache while its pass runs). Returns -1, or the first invalid row."""
    cdef Py_ssize_t n = cards.shape[0], i
    cdef int k = cards.shape[1], j
    cdef bint use_plain = isinstance(high, Tables)
    cdef Tables plain = None
    cdef WildTables wild = None
    cdef uint64_t ksum, fb
    cdef uint8_t c
    cdef Py_ssize_t bad = -1
    if use_plain:
        plain = <Tables> high
        if k != plain.k:
            raise ValueError(f"tables are for {plain.k}-card hands, got {k}")
    else:
        wild = <WildTables?> high
        if k != wild.k:
            raise ValueError(f"tables are for {wild.k}-card hands, got {k}")
    if low is not None and k != low.k:
        raise ValueError(f"tables are for {low.k}-card hands, got {k}")
    if out_high.shape[0] != n or (low is not None and out_low.shape[0] != n):
        raise ValueError("an output row per hand")
    with nogil:
        if use_plain:  # Tables.evaluate_into, widened
            for i in range(n):
                ksum = SUIT_INIT
                fb = 0
                for j in range(k):
                    c = cards[i, j]
                    ksum += plain.card_key[c]
                    fb |= plain.card_fbit[c]
                if __builtin_popcountll(fb) != k:
                    bad = i
                    break
                out_high[i] = plain._eval_key(ksum, fb)
        else:
            bad = wild._eval_rows(cards, out_high, -1)
    if bad >= 0 or low is None:
        return bad
    with nogil:
        bad = low._eval_rows(cards, out_low, low_top)
    return bad
