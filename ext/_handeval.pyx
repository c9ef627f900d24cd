# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C kernels of the hand evaluator (see ``ext/handeval.py`` for the public API).

How a hand is evaluated, in one pass over its cards and two table loads:

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
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

import numpy as np

cimport numpy as cnp

cnp.import_array()

# Rank keys of SKPokerEval: sums of any 5, 6 or 7 of them (each used at most 4 times) are distinct.
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)

cdef uint64_t SUIT_INIT = 0x3333ULL << 32
cdef uint64_t FLUSH_BITS = 0x8888ULL << 32

# Category codes used while building (ranking-independent); mapped to a ranking's own order.
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

# Tie-break styles: every kicker (classic, short-deck), Q-2 of quintet.md (quads, full
# houses and trips compare only their main rank), none (order-poker: only the category).
cdef enum:
    TB_STANDARD = 0
    TB_QUINTET = 1
    TB_NONE = 2


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    ctypedef unsigned long long u128 "unsigned __int128"


cdef inline int32_t _pack(int cat, int* tb, int n) noexcept nogil:
    cdef int32_t v = cat << 20
    cdef int i
    for i in range(n):
        v |= tb[i] << (16 - 4 * i)
    return v


cdef int32_t _value5(int* counts, bint suited, int* cat_map, int tb_style,
                     uint32_t* straight_top) noexcept nogil:
    """Value of five cards given their per-rank counts (13 absolute ranks).

    ``straight_top[mask]`` is 1 + the top rank when the 13-bit rank mask is a straight
    of the ranking, else 0 (looked up only for five distinct ranks).
    """
    cdef int r, c, n4 = -1, n3 = -1, p_hi = -1, p_lo = -1
    cdef int singles[5]
    cdef int ns = 0
    cdef int tb[5]
    cdef int nt = 0
    cdef int cat
    cdef uint32_t mask = 0, top
    for r in range(12, -1, -1):
        c = counts[r]
        if c == 0:
            continue
        mask |= 1u << r
        if c == 4:
            n4 = r
        elif c == 3:
            n3 = r
        elif c == 2:
            if p_hi < 0:
                p_hi = r
            else:
                p_lo = r
        else:
            singles[ns] = r
            ns += 1
    if n4 >= 0:
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
        top = straight_top[mask]
        if top:
            cat = C_SF if suited else C_STRAIGHT
            tb[0] = <int>top - 1
            nt = 1
        else:
            cat = C_FLUSH if suited else C_HIGH
            for r in range(5):
                tb[r] = singles[r]
            nt = 5
    if tb_style == TB_NONE:
        nt = 0
    return _pack(cat_map[cat], tb, nt)


cdef int32_t _best_submultiset(int* counts, int r, int need, int* chosen, int* cat_map,
                               int tb_style, uint32_t* straight_top) noexcept nogil:
    """Best unsuited value over every 5-card sub-multiset of ``counts`` (ranks >= r)."""
    cdef int32_t best = -1, v
    cdef int c, cmax
    if need == 0:
        return _value5(chosen, 0, cat_map, tb_style, straight_top)
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


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t _next(uint64_t* s) noexcept nogil:
    cdef uint64_t result = _rotl(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


cdef class Tables:
    """Lookup tables of one (ranking, deck, hand size). Built once, shared, read-only."""

    cdef readonly int k
    cdef readonly int nranks
    cdef readonly object fl_array
    cdef readonly object key_array
    cdef readonly object fbit_array
    cdef readonly object valid_array
    cdef const int32_t[::1] fl
    cdef const int32_t[::1] nfh
    cdef const uint32_t[::1] offs
    cdef readonly object nfh_array
    cdef readonly object offs_array
    cdef uint32_t hmask
    cdef int hshift
    cdef uint64_t card_key[256]
    cdef uint64_t card_fbit[256]
    cdef uint8_t valid[256]

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
                                v = _value5(counts, 1, cmap, tb_style, stop)
                                if v > best:
                                    best = v
            flv[m] = best
        self.fl_array = fl
        self.fl = fl

    def _build_hash(self, nf):
        """Compress the sparse direct table ``nf`` into a displacement perfect hash.

        The direct table of the 13-rank deck spans 7.8 M entries for 49,205 used ones;
        random loads from it miss every cache. Slot = (key & mask) + offs[key >> shift],
        with offsets found first-fit, largest bucket first, gives a table of about the
        number of keys (L2-sized) for the cost of one extra small load.
        """
        cdef int64_t[::1] keys = np.flatnonzero(nf != -1).astype(np.int64)
        cdef Py_ssize_t n = keys.shape[0], i, j, b0, b1
        cdef int64_t maxkey = keys[n - 1]
        cdef int shift = 0
        while (maxkey >> shift) > 0 and shift < 9:
            shift += 1
        if maxkey < (1 << 18):
            shift = 0
            while (maxkey >> shift) > 0:
                shift += 1
        cdef int64_t mask = (1 << shift) - 1
        cdef Py_ssize_t nb = (maxkey >> shift) + 1
        offs = np.zeros(nb, dtype=np.uint32)
        cdef uint32_t[::1] offv = offs
        # Buckets, largest first (stable on bucket number, so the build is deterministic).
        bucket = np.asarray(keys) >> shift
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
            lowmin = keys[b0] & mask
            while first_free < cap - 1 and occv[first_free]:
                first_free += 1
            off = first_free - lowmin if first_free > lowmin else 0
            while True:
                if off + mask >= cap:
                    raise RuntimeError("perfect hash did not fit: the evaluator tables are wrong")
                taken = 0  # bit d: offset off + d collides for some key of the bucket
                for j in range(b0, b1):
                    slot = (keys[j] & mask) + off
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
                slot = (keys[j] & mask) + off
                occv[slot] = 1
                occw[slot >> 6] |= 1ULL << (slot & 63)
                if slot + 1 > top:
                    top = slot + 1
        nfh = np.full(top, -1, dtype=np.int32)
        nfh_keys = (np.asarray(keys) & mask) + offs[np.asarray(keys) >> shift]
        nfh[nfh_keys] = nf[np.asarray(keys)]
        self.hshift = shift
        self.hmask = <uint32_t>mask
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

    cdef inline int32_t _eval_key(self, uint64_t ksum, uint64_t fb) noexcept nogil:
        cdef uint32_t key = <uint32_t>ksum
        cdef int32_t v = self.nfh[(key & self.hmask) + self.offs[key >> self.hshift]]
        cdef uint64_t fbits = ksum & FLUSH_BITS
        cdef int32_t fv
        cdef int s
        if fbits:
            s = (__builtin_ctzll(fbits) - 35) >> 2
            fv = self.fl[(fb >> (16 * s)) & 0xFFFF]
            if fv > v:
                v = fv
        return v

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
        cdef int k = self.k, j, i
        cdef uint64_t st[4]
        cdef uint64_t ksum, fb, x, r, bound, low, thr
        cdef uint8_t tmp
        cdef u128 prod
        for i in range(16):
            counts[i] = 0
        for i in range(m):
            work[i] = deck[i]
        x = s0 ^ (s1 * 0x9E3779B97F4A7C15ULL)
        for i in range(4):
            x += 0x9E3779B97F4A7C15ULL
            r = x
            r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ULL
            r = (r ^ (r >> 27)) * 0x94D049BB133111EBULL
            st[i] = r ^ (r >> 31)
        with nogil:
            for t in range(samples):
                ksum = SUIT_INIT
                fb = 0
                for j in range(k):
                    bound = m - j
                    prod = <u128>_next(st) * bound
                    low = <uint64_t>prod
                    if low < bound:
                        thr = (0 - bound) % bound
                        while low < thr:
                            prod = <u128>_next(st) * bound
                            low = <uint64_t>prod
                    i = j + <int>(prod >> 64)
                    tmp = work[j]
                    work[j] = work[i]
                    work[i] = tmp
                    ksum += self.card_key[work[j]]
                    fb |= self.card_fbit[work[j]]
                counts[self._eval_key(ksum, fb) >> 20] += 1
        return [counts[i] for i in range(16)]
