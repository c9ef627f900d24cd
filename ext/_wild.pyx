# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C kernel of the wild-card, five-of-a-kind, four-flush and low-hand evaluator.

Public API: ``ext/handeval.py`` (``evaluate(..., wild=..., low=...)``). Rules:
docs/rules/classic-poker.md CP-2 to CP-5 and CP-10. The no-wild high evaluator
(``ext/_handeval.pyx``) is left as it is; this kernel serves the modes it does not have.

How a hand is evaluated (one pass over its cards, one hashed load, at most four flush loads):

* A natural card's key is its rank key (SKPokerEval's, as in ``_handeval``); a wild card's key
  is ``1 << 23``. The key sum of a hand is therefore ``w << 23 | rank-key sum of the naturals``,
  where w is the number of wild cards, and identifies (w, rank multiset of the naturals).
* ``nf[key]`` (a displacement perfect hash) is the best non-flush value of that multiset with w
  wild cards, taken over every five-card choice and every declaration of the wild cards. It is
  built from ``comp[u][S]``: the best declaration of u wild cards added to the natural
  sub-multiset S of 5 - u cards (CP-3.2: a wild card may stand for any rank, so non-flush hands
  depend on ranks only; five of a kind is the one hand where a rank appears five times).
* With fully wild cards, using every wild card in the five is never worse (a wild card can stand
  for the natural it replaces, CP-3.2), so u = min(w, 5). The bug is not fully wild (CP-3.5):
  the best over u = 0..min(w, 5) bugs is taken, each bug an ace or a straight filler.
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

Values are ``category << 20 | five 4-bit rank positions``. Positions: 1..13 for 2..A with the
ace high, 0 for an ace playing low. High values: higher is better. Low values are returned as
``LOW_TOP - raw`` so that higher is still better.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

cimport numpy as cnp

cnp.import_array()

RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
cdef int64_t RK[13]
for _i in range(13):
    RK[_i] = RANK_KEYS[_i]

#: Category codes of the kernel (mapped to a ranking's own order by ``cat_map``).
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
cdef uint64_t WKEY = 1ULL << 23
cdef int32_t BIG = 0x7FFFFFFF


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil
    ctypedef unsigned long long u128 "unsigned __int128"


cdef int32_t _v5(int* pc, bint suited, int* cmap, uint32_t* stop) noexcept nogil:
    """Value of five cards given their counts over the 14 rank positions (0 = ace low .. 13 = ace)."""
    cdef int p, c, n5 = -1, n4 = -1, n3 = -1, p_hi = -1, p_lo = -1, ns = 0, nt = 0, cat
    cdef int singles[5]
    cdef int tb[5]
    cdef uint32_t mask = 0, top
    cdef int32_t v
    for p in range(13, -1, -1):
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
        tb[1] = singles[0]
        nt = 2
    elif n3 >= 0 and p_hi >= 0:
        cat = C_FULL
        tb[0] = n3
        tb[1] = p_hi
        nt = 2
    elif n3 >= 0:
        cat = C_THREE
        tb[0] = n3
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
    v = cmap[cat] << 20
    for p in range(nt):
        v |= tb[p] << (16 - 4 * p)
    return v


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
    cdef uint32_t stop_hi[16384]
    cdef uint32_t stop_lo[16384]
    cdef uint32_t stop_none[16384]
    cdef uint64_t card_key[256]
    cdef uint64_t card_fbit[256]
    cdef uint8_t card_ok[256]
    cdef int32_t ff_threshold
    cdef uint32_t hmask
    cdef int hshift
    cdef const int32_t[::1] nfh
    cdef const uint32_t[::1] offs
    cdef const int32_t[::1] fl
    cdef const int32_t[::1] ff
    cdef readonly object nfh_array
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
        cdef int i, r, s, c
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
        for i in range(self.nr):
            r = self.ranks[i]
            for s in range(4):
                c = 4 * r + s
                self.card_key[c] = <uint64_t>RK[r]
                self.card_fbit[c] = 1ULL << (16 * s + r)
                self.card_ok[c] = 1
        nwild = 0
        for c in wild_ids:
            if not 0 <= c < 64:
                raise ValueError(f"wild card id {c} is not a card id 0..63")
            if c < 52 and not self.card_ok[c]:
                continue  # a wild rank's cards outside this deck
            self.card_key[c] = WKEY
            self.card_fbit[c] = 0
            self.card_ok[c] = 2
            nwild += 1
        self.maxw = min(nwild, k)
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
            return _v5(pc, suited, self.cmap, self.stop_hi)
        pc[13] = 0
        pc[0] = counts[12]
        for r in range(12):
            pc[r + 1] = counts[r]
        if self.low == L_ACE_TO_FIVE:
            return _v5(pc, 0, self.cmap, self.stop_none)
        b = _v5(pc, suited, self.cmap, self.stop_lo)
        pc[0] = 0
        pc[13] = counts[12]
        a = _v5(pc, suited, self.cmap, self.stop_hi)
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
        cmax = 4 if left >= 4 else left
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
        shift, offs, table = _perfect_hash(karr, varr)
        self.hshift = shift
        self.hmask = <uint32_t>((1 << shift) - 1)
        self.offs_array = offs
        self.offs = offs
        self.nfh_array = table
        self.nfh = table
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

    def _build_fl(self):
        cdef int w, m, i, u, tm, n, cap
        cdef int32_t[::1] flv
        sets = self._sets(5)
        n = len(sets)
        tv = np.asarray([s[0] for s in sets], dtype=np.int32)
        tms = np.asarray([s[1] for s in sets], dtype=np.int32)
        cdef int32_t[::1] tvv = tv
        cdef int32_t[::1] tmv = tms
        fl = np.full((self.maxw + 1) * 8192, -1, dtype=np.int32)
        flv = fl
        for w in range(self.maxw + 1):
            cap = w if w < 5 else 5
            for m in range(8192):
                if __builtin_popcountll(m) > self.k - w or __builtin_popcountll(m) + cap < 5:
                    continue
                for i in range(n):
                    tm = tmv[i]
                    u = __builtin_popcountll(tm & ~m)
                    if u > cap:
                        continue
                    if self.kind == W_BUG_ACE and u and (tm & ~m) != (1 << 12) \
                            and not self.stop_hi[(<uint32_t>tm) << 1]:
                        continue
                    flv[w * 8192 + m] = tvv[i]
                    break
        self.fl_array = fl
        self.fl = fl

    def _build_ff(self):
        cdef int w, m, i, u, tm, n, cap
        cdef int32_t[::1] ffv
        sets = self._sets(4)
        n = len(sets)
        tv = np.asarray([s[0] for s in sets], dtype=np.int32)
        tms = np.asarray([s[1] for s in sets], dtype=np.int32)
        cdef int32_t[::1] tvv = tv
        cdef int32_t[::1] tmv = tms
        ff = np.full((self.maxw + 1) * 8192, -1, dtype=np.int32)
        ffv = ff
        for w in range(self.maxw + 1):
            cap = w if w < 4 else 4
            for m in range(8192):
                if __builtin_popcountll(m) > self.k - w or __builtin_popcountll(m) + cap < 4:
                    continue
                for i in range(n):
                    tm = tmv[i]
                    u = __builtin_popcountll(tm & ~m)
                    if u > cap:
                        continue
                    # CP-4.6: under ace_only the bug is only the suit's ace in a four-flush.
                    if self.kind == W_BUG_ACE and u and (tm & ~m) != (1 << 12):
                        continue
                    ffv[w * 8192 + m] = tvv[i] | (u << 16)
                    break
        self.ff_array = ff
        self.ff = ff

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

    cdef int32_t _eval(self, const uint8_t* cards, int k) noexcept nogil:
        """Value of one hand of k card ids, or -1 if a card is outside the deck or repeated."""
        cdef uint64_t ksum = 0, fb = 0, seen = 0, bit
        cdef int j, s, w, need, cap, u, kick
        cdef uint8_t c
        cdef uint32_t key, m, other
        cdef int32_t v, fv, f
        for j in range(k):
            c = cards[j]
            if not self.card_ok[c]:
                return -1
            bit = 1ULL << c
            if seen & bit:
                return -1
            seen |= bit
            ksum += self.card_key[c]
            fb |= self.card_fbit[c]
        key = <uint32_t>ksum
        v = self.nfh[(key & self.hmask) + self.offs[key >> self.hshift]]
        w = <int>(ksum >> 23)
        if self.low != L_NONE:
            if w == 0 and self.low != L_ACE_TO_FIVE:
                for s in range(4):
                    if __builtin_popcountll((fb >> (16 * s)) & 0x1FFF) >= 5:
                        v = self._low_exact(cards, k)
                        break
            return C_LOW_TOP - v
        cap = w if w < 5 else 5
        need = 5 - cap
        for s in range(4):
            m = <uint32_t>((fb >> (16 * s)) & 0x1FFF)
            if __builtin_popcountll(m) >= need:
                fv = self.fl[w * 8192 + m]
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
        cdef int k = self.k, j, i
        cdef uint64_t st[4]
        cdef uint64_t x, r, bound, low, thr
        cdef uint8_t tmp
        cdef u128 prod
        cdef int32_t v
        for i in range(256):
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
                v = self._eval(work, k)
                if self.low != L_NONE:
                    v = C_LOW_TOP - v
                counts[(v >> 16) & 0xFF] += 1
        return [counts[i] for i in range(256)]


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


def _perfect_hash(keys, vals, int shift=6):
    """Displacement perfect hash of sorted int64 ``keys`` (as in ``_handeval.Tables._build_hash``).

    Returns (shift, offs, table): ``table[(key & mask) + offs[key >> shift]]`` is the key's value.
    """
    cdef int64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.int64)
    cdef Py_ssize_t n = kv.shape[0], i, j, b0, b1
    cdef int64_t maxkey = kv[n - 1]

    cdef int64_t mask = (1 << shift) - 1
    cdef Py_ssize_t nb = (maxkey >> shift) + 1
    offs = np.zeros(nb, dtype=np.uint32)
    cdef uint32_t[::1] offv = offs
    bucket = np.asarray(kv) >> shift
    starts = np.searchsorted(bucket, np.arange(nb + 1))
    sizes = np.diff(starts)
    order = np.lexsort((np.arange(nb), -sizes))
    cdef int64_t[::1] st = starts.astype(np.int64)
    cdef int64_t[::1] orderv = order.astype(np.int64)
    cdef Py_ssize_t cap = 4 * n + 2 * (1 << shift) + 1
    occ = np.zeros(cap, dtype=np.uint8)
    cdef uint8_t[::1] occv = occ
    cdef Py_ssize_t first_free = 0, off, top = 0, lowmin
    cdef int okfit
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
                raise RuntimeError("perfect hash did not fit: the wild tables are wrong")
            okfit = 1
            for j in range(b0, b1):
                if occv[(kv[j] & mask) + off]:
                    okfit = 0
                    break
            if okfit:
                break
            off += 1
        offv[orderv[i]] = <uint32_t>off
        for j in range(b0, b1):
            occv[(kv[j] & mask) + off] = 1
            if (kv[j] & mask) + off + 1 > top:
                top = (kv[j] & mask) + off + 1
    table = np.full(top, -1, dtype=np.int32)
    karr = np.asarray(kv)
    table[(karr & mask) + offs[karr >> shift]] = np.asarray(vals, dtype=np.int32)
    return shift, offs, table
