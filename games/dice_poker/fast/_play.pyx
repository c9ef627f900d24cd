# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One Dice Poker game of ``dice-poker/random``, ``greedy`` and ``optimal`` seats in C, every preset and option.

The game is the readable engine's (games/dice_poker/state.py, docs/rules/dice-poker.md): throws from the
game's pre-drawn faces in order (throw 1 takes five, a re-roll the next faces for its positions in
ascending order, DP-2.5), the legal actions of DP-7 (re-roll masks ascending, then ``stand`` or the
writes the round allows in sheet order), the simple game's stages and rethrows (DP-4.4, DP-4.5), the
sheet's scores and bonuses (DP-5) and the settlement (DP-6.4). The bots are ``bots.RandomBot`` (one
``Generator.integers(n)`` per decision: Lemire's bounded 32-bit draw on ``next_uint32``, nothing
drawn when one action is legal), ``bots.GreedyBot`` (draws nothing), with the same tie-breaks
(the first line in sheet order wins a ``max``), and in full and mixed ``optimal.OptimalBot`` (draws
nothing): at the start of its turn the turn's arrays of its sheet state from the solved values
(``Optimal``: the strategy's buffers, turnrow.pxd's ``write_row`` and ``turn_row``, the solver's own
code), then every decision compares the writes (the first best line) with the keep choices in
``dice.keep_choices`` order, a keep winning only by more than 1e-9. ``play`` returns the actions as codes (1..31 a
re-roll mask, 32 stand, 64 + i a write of line i), with the legal set of each decision when asked
(tests), and what the row functions of games/dice_poker/tables.py read.

``rows(..., luck=...)`` also gives each seat's correction of ``luck.LUCK`` (AIVAT over the dice): every
turn of the game is noted (its sheet state, the multisets after its throws, the kept ones), and at the
game's end each turn's luck is read from the turn's arrays under the estimator's strategy (``optimal_turn``:
``E3``, ``E2``, ``W1``, ``WV23`` and the turn value, memoised by sheet state, computed by the solver's row
code when not there) as ``luck.turn_luck`` computes it: the same floats (``turn_luck``'s docstring).

``play_shard`` deals and plays whole shards of a summary job (``FastPath.play_shard``): each deal's faces drawn
here from the job's Philox stream (d, 0) as ``State.deal`` draws them (``dp_faces_fill``: numpy's
``integers(1, 7, size=n)``, drawn as the games reach them), every rotation from (d, r + 1) through the
C copy of numpy's Philox (``ext.npphilox.np_stream``), the values ``rows`` gives written into numpy columns.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint32_t, uint64_t

from ext.npdraw cimport bitgen_t, bounded
from ext.npphilox cimport np_stream, np_stream_at, np_stream_next32, stream_bitgen, stream_key
from games.dice_poker.fast.turnrow cimport Part, Turn, allowed_local, state_value, turn_row, write_row

import numpy as np

DEF MAXP = 8
DEF MAXF = 5000     # faces of a game: the simple game's 41 stages x 8 seats x 15, at most
DEF MAXA = 1400     # decisions of a game: 41 stages x 8 seats x 2 (simple), 15 x 8 x 3 (sheet)
DEF NLINES = 15
DEF STAND = 32
DEF WRITE = 64

# Lines (rules.LINES): 0..5 the classes ones..sixes, then the main lines.
DEF L_PAIR = 6
DEF L_TWO = 7
DEF L_THREE = 8
DEF L_SMALL = 9
DEF L_LARGE = 10
DEF L_FULL = 11
DEF L_FOUR = 12
DEF L_POKER = 13
DEF L_CHANCE = 14
DEF RANDOM = 0
DEF GREEDY = 1
DEF OPTIMAL = 2
DEF NKEPT = 210     # multisets of 0..4 dice (turn.tables().kept); the five-dice ones follow them in ``msid``
DEF SLOT_BITS = 12  # the memo of turn arrays (optimal seats, the luck): 4,096 sheet states (30 MB),
DEF WAY_BITS = 3    # in sets of 8, the least recently used of a set replaced
cdef long FIRST_OF_SIZE[6]  # the index of the first multiset of k dice among those of 0..5 (``msid``): C(k + 5, 6)
FIRST_OF_SIZE[:] = [0, 1, 7, 28, 84, 210]


# ``play_shard`` draws from the job's Philox streams in C (ext/npphilox.pxd, ``np_stream``): the players' draws
# of rotation r from the stream (d, r + 1) through its ``bitgen_t`` (``np_stream_at`` re-points it as
# ``Streams.at`` does),
# and the deal's faces from the stream (d, 0) as ``Generator.integers(1, 7, size=count)`` draws them: numpy's
# ``random_bounded_uint64_fill`` for the range 5 is ``buffered_bounded_lemire_uint32`` per face on
# ``next_uint32`` (a word's low half, then its high half): m = u32 * 6, rejected while its low 32 bits are below
# 2**32 mod 6 = 4, the face 1 + m >> 32. The faces are drawn as the game reaches them (``take``): a prefix of
# the same sequence, so the same faces as the whole draw, of which a simple game uses a few percent.
cdef extern from *:
    """
    /* A deal's faces from the stream (item, 0), drawn on demand: `limit` faces in all (State.deal's count). */
    typedef struct { np_stream ph; int limit; } dp_faces;

    /* Draw faces into faces[*n ..] until at least `need` are there (32 more at a time, at most `limit`);
       -1 when `need` is beyond the deal's faces. */
    static int dp_faces_fill(dp_faces *s, int *faces, int *n, int need) {
        int upto = *n + 32, k = *n;
        uint64_t m;
        if (need > s->limit) return -1;
        if (upto < need) upto = need;
        if (upto > s->limit) upto = s->limit;
        while (k < upto) {
            do {
                m = (uint64_t)np_stream_next32(&s->ph) * 6u;
            } while ((uint32_t)m < 4u);
            faces[k++] = 1 + (int)(m >> 32);
        }
        *n = k;
        return 0;
    }
    """
    ctypedef struct dp_faces:
        np_stream ph
        int limit
    int dp_faces_fill(dp_faces *s, int *faces, int *n, int need) noexcept nogil


ctypedef struct Opts:
    int preset          # 0 simple, 1 full, 2 mixed
    bint locked         # DP-2.3
    bint kickers        # DP-4.3
    bint rethrow        # DP-4.4 tie_rule
    int max_rethrows
    bint pairwise       # DP-4.5 / DP-6.4
    int ftd             # DP-5.3: 0 all, 1 except_chance, 2 none
    int poker_bonus     # DP-5.4
    int school          # DP-5.5: 0 plus, 1 minus, 2 both, 3 none
    bint fixed          # DP-6.2 school_order


ctypedef struct Note:
    # a turn as the luck reads it (``luck._turns``): its seat, sub-game and sheet state, its throws (``note_throw``)
    int seat
    int part
    long mask
    long s
    int throws
    int ms[3]           # the five-dice multiset after each throw (``midx``)
    int kept[2]         # the multiset kept at each re-roll (``kidx``)
    int sub0            # throw 2's keeps ``_best_keep`` looks at: ``op.sub[sub0:sub0 + nsub]`` (``kidx``)
    int nsub
    # its memo slot and arrays (``game_luck``)
    long slot
    const double *e3
    const double *e2
    const double *w1
    const double *wv23
    double value


ctypedef struct Game:
    int n
    int first
    # the faces and the cursor
    int faces[MAXF]
    int nfaces
    int cur
    dp_faces *lazy         # ``play_shard``: the faces drawn as the game reaches them (NULL: all loaded)
    # decisions
    int nact
    int codes[MAXA]
    int seats[MAXA]
    int allowed_log[MAXA]
    int lines_log[MAXA]
    # the sheet game
    int sheet[MAXP][NLINES]
    int filled[MAXP]
    int pbonus[MAXP]
    int sbonus[MAXP]
    int totals[MAXP]
    # the simple game
    int hands[MAXP][5]      # this stage's hands, by seat
    bint has_hand[MAXP]
    int cat0[MAXP]
    int stage
    # both
    int seat_turns[MAXP]
    int seat_throws[MAXP]
    int turns
    int throws
    int scores[MAXP]
    int winners            # bit s: seat s is among the winners
    double corr[MAXP]      # the luck's correction of each seat (sheet games, when asked)
    Note notes[NLINES * MAXP]  # the turns of the game, for the luck
    int nnotes


cdef inline int popcount(int x) noexcept nogil:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef inline int nth_submask(int allowed, int k) noexcept nogil:
    """The k-th (0-based) non-empty sub-mask of ``allowed`` in ascending order (bits of k + 1 spread
    over the positions of ``allowed``): ``dice.reroll_masks``'s order."""
    cdef int v = k + 1, out = 0, p
    for p in range(5):
        if allowed >> p & 1:
            if v & 1:
                out |= 1 << p
            v >>= 1
    return out


cdef inline int nth_bit(int bits, int k) noexcept nogil:
    cdef int i
    for i in range(NLINES):
        if bits >> i & 1:
            if k == 0:
                return i
            k -= 1
    return -1


cdef inline void counts_of(const int *dice, int *c) noexcept nogil:
    cdef int i
    for i in range(6):
        c[i] = 0
    for i in range(5):
        c[dice[i] - 1] += 1


# ------------------------------------------------------------------ DP-3, DP-4 (scoring.category, hand_key)

cdef int category(const int *c) noexcept nogil:
    cdef int i, mx = 0, pairs = 0, threes = 0
    for i in range(6):
        if c[i] > mx:
            mx = c[i]
        if c[i] == 2:
            pairs += 1
        elif c[i] == 3:
            threes += 1
    if mx == 5:
        return 7
    if mx == 4:
        return 6
    if threes == 1 and pairs == 1:
        return 5
    if mx == 1:
        return 4 if (c[0] == 0 or c[5] == 0) else 0
    if mx == 3:
        return 3
    return 2 if pairs == 2 else 1


cdef void by_mult(const int *c, int *out) noexcept nogil:
    """The five faces sorted by (count descending, face descending)."""
    cdef int k = 0, cnt, f, j
    for cnt in range(5, 0, -1):
        for f in range(5, -1, -1):
            if c[f] == cnt:
                for j in range(cnt):
                    out[k] = f + 1
                    k += 1


cdef int64_t hand_key(const int *dice, bint kickers) noexcept nogil:
    """``scoring.hand_key`` as one integer of the same order (same category: keys of one length)."""
    cdef int c[6]
    cdef int bm[5]
    cdef int cat, i
    cdef int64_t key
    counts_of(dice, c)
    cat = category(c)
    by_mult(c, bm)
    key = cat
    if kickers or cat == 0:
        for i in range(5):
            key = key * 7 + bm[i]
        return key
    if cat == 5 or cat == 2:
        return ((key * 7 + bm[0]) * 7 + bm[3]) * 343
    return (key * 7 + bm[0]) * 2401


# ------------------------------------------------------------------ DP-5 (scoring.base_score, line_score)

cdef int base_score(int line, const int *c) noexcept nogil:
    cdef int f, total = 0, best = 0, hi = 0, lo = 0, need
    for f in range(6):
        total += c[f] * (f + 1)
    if line < 6:
        return (c[line] - 3) * (line + 1)
    if line == L_CHANCE:
        return total
    if line == L_PAIR or line == L_THREE or line == L_FOUR or line == L_POKER:
        need = 2 if line == L_PAIR else 3 if line == L_THREE else 4 if line == L_FOUR else 5
        for f in range(6):
            if (c[f] == 5 if line == L_POKER else c[f] >= need):
                best = need * (f + 1)
        return best
    if line == L_TWO:
        for f in range(6):
            if c[f] >= 2:
                lo = hi
                hi = f + 1
        return 2 * (hi + lo) if lo else 0
    if line == L_FULL:
        hi = 0
        lo = 0
        for f in range(6):
            if c[f] == 3:
                hi = 1
            elif c[f] == 2:
                lo = 1
        return total if hi and lo else 0
    if line == L_SMALL:
        return 15 if c[0] == 1 and c[1] == 1 and c[2] == 1 and c[3] == 1 and c[4] == 1 else 0
    return 20 if c[1] == 1 and c[2] == 1 and c[3] == 1 and c[4] == 1 and c[5] == 1 else 0  # L_LARGE


cdef inline int line_score(const Opts *o, int line, const int *c, int t) noexcept nogil:
    cdef int b = base_score(line, c)
    if t == 1 and line >= 6 and o.ftd != 2 and not (line == L_CHANCE and o.ftd == 1):
        return 2 * b
    return b


cdef inline int poker_bonus(const Opts *o, int line, const int *c) noexcept nogil:
    cdef int f
    if line != L_POKER:
        return 0
    for f in range(6):
        if c[f] == 5:
            return o.poker_bonus
    return 0


# ------------------------------------------------------------------ greedy (bots.keep_for, simple_keep)

cdef int positions(const int *dice, int face, int limit) noexcept nogil:
    cdef int i, m = 0, k = 0
    for i in range(5):
        if dice[i] == face and k < limit:
            m |= 1 << i
            k += 1
    return m


cdef int keep_for(int line, const int *dice, const int *c) noexcept nogil:
    """The positions (a mask) greedy keeps when it plays for ``line``."""
    cdef int bm[5]
    cdef int f, i, m = 0, lo, f0, f1, p1 = 0, p2 = 0
    if line < 6:
        return positions(dice, line + 1, 5)
    by_mult(c, bm)
    f0 = bm[0]
    if line == L_PAIR or line == L_THREE or line == L_FOUR or line == L_POKER:
        return positions(dice, f0, 5)
    if line == L_TWO:
        for f in range(6, 0, -1):  # the two highest faces shown at least twice
            if c[f - 1] >= 2:
                if p1 == 0:
                    p1 = f
                elif p2 == 0:
                    p2 = f
        if p1 == 0:
            return positions(dice, f0, 5)
        m = positions(dice, p1, 2)
        if p2:
            m |= positions(dice, p2, 2)
        return m
    if line == L_FULL:
        m = positions(dice, f0, 3)
        f1 = bm[c[f0 - 1]] if c[f0 - 1] < 5 else 0  # the second face of the (count, face) order
        if f1:
            m |= positions(dice, f1, 2)
        return m
    if line == L_SMALL or line == L_LARGE:
        lo = 1 if line == L_SMALL else 2
        for f in range(lo, lo + 5):
            if c[f - 1]:
                m |= positions(dice, f, 1)
        return m
    for i in range(5):  # chance
        if dice[i] >= 4:
            m |= 1 << i
    return m


cdef int simple_keep(const int *dice, const int *c) noexcept nogil:
    cdef int cat = category(c), i, m = 0
    cdef int bm[5]
    if cat == 4 or cat == 5 or cat == 7:
        return 31
    if cat == 0:
        for i in range(5):
            if dice[i] != 1:
                m |= 1 << i
        return m
    by_mult(c, bm)
    for i in range(5):
        if c[dice[i] - 1] >= 2 and (cat != 1 or dice[i] == bm[0]):
            m |= 1 << i
    return m


# ------------------------------------------------------------------ optimal (optimal.OptimalBot)

ctypedef struct Opt:
    Part parts[2]
    int nparts
    Turn turn
    bint locked
    const long *msid
    const long *ch_start
    const long *ch_code
    const long *sub_start   # [nl + 1] per throw-2 state (K1, N) of ``turn.l_states``: the kept multisets K1 + S,
    const short *sub        # S a proper part of N (``luck._keeps(K1, N)``)
    double *wv1
    double *e3          # the turn in play's arrays (a slot of ``memo``): keeping K before throw 3, throw 2
    double *e2
    double *w1          # W1 [nm]: the value after throw 1 of each multiset (writing or the best keep)
    double *wv23        # WV23 [nm]: the best write after throw 2 or 3 of each multiset
    double value        # the turn's expected value
    long slot           # and its memo slot
    long *keys          # [1 << SLOT_BITS] the sheet state (sub-game, mask, school sum) of each slot, -1: none
    double *memo        # [1 << SLOT_BITS, 2 nk + 2 nm] each slot's E3, E2, W1, WV23
    double *values      # [1 << SLOT_BITS] each slot's turn value
    long *used          # [1 << SLOT_BITS] when each slot was last used (``clock``), 0: never
    long clock
    double *mk
    double *mp
    double *w2


cdef class Optimal:
    """A solved strategy's buffers for the kernel: its sub-games (``solver.SubGame``: school and main for
    ``full``, one for ``mixed``), the turn tables, the keep choices, and the arrays of the turn in play.

    ``msid[code]``: the multiset of face counts ``code`` (base 6, ones first) as its index among the kept
    multisets (0..209, ``turn.tables().kidx``) or 210 + its five-dice index (``midx``);
    ``ch_code[ch_start[id]:ch_start[id + 1]]``: the proper sub-multisets of multiset ``id`` (codes), in
    ``dice.keep_choices`` order."""

    cdef Opt c
    cdef list _keep  # the buffers the pointers point into

    def __init__(self, parts, tuple turn, tuple keeps, bint locked):
        cdef int i
        cdef Turn *t
        cdef long[::1] keys = np.full(1 << SLOT_BITS, -1, dtype=np.int64)
        cdef long[::1] used = np.zeros(1 << SLOT_BITS, dtype=np.int64)
        cdef const short[::1] sv
        self._keep = []
        self.c.nparts = len(parts)
        if not 1 <= self.c.nparts <= 2:
            raise ValueError("one or two sub-games")
        self.c.locked = locked
        for i in range(self.c.nparts):
            (vflat, voff, vlo, vlen, gidx, face, class_bits, fixed_order, sc1, sc23, counts, bonus,
             bonus_zero) = parts[i]
            self.c.parts[i].vflat = self._f(vflat)
            self.c.parts[i].voff = self._i(voff)
            self.c.parts[i].vlo = self._i(vlo)
            self.c.parts[i].vlen = self._i(vlen)
            self.c.parts[i].gidx = self._i(gidx)
            self.c.parts[i].face = self._i(face)
            self.c.parts[i].class_bits = class_bits
            self.c.parts[i].m = len(gidx)
            self.c.parts[i].fixed_order = fixed_order
            self.c.parts[i].sc1 = self._f(sc1)
            self.c.parts[i].sc23 = self._f(sc23)
            self.c.parts[i].counts = self._i(counts)
            self.c.parts[i].bonus = self._f(bonus)
            self.c.parts[i].bonus_zero = bonus_zero
            self.c.parts[i].nm = len(counts)
        o_ms, o_p, o_start, k_drop, ms_drop, p1, p_e3, p_drop, l_ms, l_p, l_drop, l_start = turn
        t = &self.c.turn
        t.o_ms, t.o_p, t.o_start = self._i(o_ms), self._f(o_p), self._i(o_start)
        t.k_drop, t.ms_drop, t.p1 = self._i(k_drop), self._i(ms_drop), self._f(p1)
        t.p_e3, t.p_drop = self._i(p_e3), self._i(p_drop)
        t.l_ms, t.l_p, t.l_drop, t.l_start = self._i(l_ms), self._f(l_p), self._i(l_drop), self._i(l_start)
        t.nk, t.no, t.nm, t.npairs, t.nl = len(o_start), len(o_ms), len(ms_drop), len(p_e3), len(l_ms)
        if t.nk != NKEPT:
            raise ValueError(f"{NKEPT} kept multisets expected, not {t.nk}")
        msid, ch_start, ch_code, sub_start, sub = keeps
        self.c.msid, self.c.ch_start, self.c.ch_code = self._i(msid), self._i(ch_start), self._i(ch_code)
        self.c.sub_start = self._i(sub_start)
        sv = np.ascontiguousarray(sub, dtype=np.int16)
        if len(sub_start) != t.nl + 1 or not (np.asarray(sv) == sub).all():
            raise ValueError("the luck's keep table does not fit the turn tables")
        self._keep.append(sv)
        self.c.sub = &sv[0]
        self.c.wv1, self.c.w2 = self._scratch(t.nm), self._scratch(t.nm)
        self.c.mk = self._scratch(t.nk + 1)
        self.c.memo = self._scratch((1 << SLOT_BITS) * (2 * t.nk + 2 * t.nm))
        self.c.values = self._scratch(1 << SLOT_BITS)
        self._keep.append(keys)
        self.c.keys = &keys[0]
        self._keep.append(used)
        self.c.used = &used[0]
        self.c.clock = 0
        self.c.mp = self._scratch(t.npairs + 1)

    cdef const double *_f(self, a) except NULL:
        cdef const double[::1] v = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
        self._keep.append(v)
        return &v[0]

    cdef const long *_i(self, a) except NULL:
        cdef const long[::1] v = np.ascontiguousarray(a, dtype=np.int64).reshape(-1)
        self._keep.append(v)
        return &v[0]

    cdef double *_scratch(self, Py_ssize_t n) except NULL:
        cdef double[::1] v = np.empty(n)
        self._keep.append(v)
        return &v[0]


cdef inline int counts_code(const int *c) noexcept nogil:
    return c[0] + 6 * (c[1] + 6 * (c[2] + 6 * (c[3] + 6 * (c[4] + 6 * c[5]))))


cdef int keep_mask(const int *dice, int n, int keep) noexcept nogil:
    """``dice.canonical_mask``: re-roll all but the lowest positions showing the kept multiset ``keep`` (a code)."""
    cdef int wanted[6]
    cdef int f, i, mask = 0
    for f in range(6):
        wanted[f] = keep % 6
        keep //= 6
    for i in range(n):
        f = dice[i] - 1
        if wanted[f]:
            wanted[f] -= 1
        else:
            mask |= 1 << i
    return mask


cdef inline long state_key(int part, long mask, long s) noexcept nogil:
    """The memo's key of a sheet state: |s| < 200, masks of at most 15 lines."""
    return ((part * 32768 + mask) << 12) + (s + 2048)


cdef void optimal_turn(Opt *op, int part, long mask, long s) noexcept nogil:
    """The turn's arrays of the sheet state (``OptimalBot.turn_arrays``): the keep values ``op.e3``, ``op.e2``,
    and for the luck ``op.w1``, ``op.wv23`` and the turn's value ``op.value``, from the memo or computed into it (a
    pure function of the state: the same floats either way; the memo's set of 8 slots of the state replaces
    its least recently used)."""
    cdef const Part *p = &op.parts[part]
    cdef long key = state_key(part, mask, s)
    cdef unsigned long first = (<unsigned long> key * 0x9E3779B97F4A7C15UL) >> (64 - SLOT_BITS + WAY_BITS) << WAY_BITS
    cdef unsigned long slot = first, w
    for w in range(first, first + (1 << WAY_BITS)):
        if op.keys[w] == key:
            slot = w
            break
        if op.used[w] < op.used[slot]:
            slot = w
    op.clock += 1
    op.used[slot] = op.clock
    op.slot = slot
    op.e3 = op.memo + slot * (2 * op.turn.nk + 2 * op.turn.nm)
    op.e2 = op.e3 + op.turn.nk
    op.w1 = op.e2 + op.turn.nk
    op.wv23 = op.w1 + op.turn.nm
    if op.keys[slot] != key:
        write_row(p, mask, s, allowed_local(p, mask), op.wv1, op.wv23)
        op.values[slot] = turn_row(&op.turn, op.wv1, op.wv23, op.locked, op.e3, op.e2, op.mk, op.mp, op.w2,
                                   op.w1)
        op.keys[slot] = key
    op.value = op.values[slot]


cdef inline int best_keep_of(const Opt *op, const double *e, long kept, long mid, double v) noexcept nogil:
    """The keep choice (a code: the kept multiset less ``kept``) of the proper sub-multisets S of multiset ``mid``,
    in ``dice.keep_choices`` order, valued ``e[kept + S]``, that beats ``v`` (the best write) and every earlier
    choice by more than 1e-9 (``OptimalBot``'s rule); -1 when none does."""
    cdef long j
    cdef int best = -1
    cdef double w
    for j in range(op.ch_start[mid], op.ch_start[mid + 1]):
        w = e[op.msid[kept + op.ch_code[j]]]
        if w > v + 1e-9:
            best, v = <int> op.ch_code[j], w
    return best


cdef int optimal_sheet(const Opts *o, const Opt *op, const Part *p, long mask, long s, const int *dice, int t,
                       int allowed, int mask0) noexcept nogil:
    """``OptimalBot.choose``: a code (the turn's arrays computed by ``optimal_turn`` at its throw 1)."""
    cdef int c[6]
    cdef int cn[6]
    cdef int ck[6]
    cdef int newd[5]
    cdef int newp[5]
    cdef long bits = allowed_local(p, mask), nxt, s2
    cdef int i, line, score, best_i = -1, n = 0, best_keep, sub, code
    cdef double w, best_w = 0.0
    counts_of(dice, c)
    for i in range(p.m):
        if not bits >> i & 1:
            continue
        line = p.gidx[i]
        score = line_score(o, line, c, t) + poker_bonus(o, line, c)
        nxt = mask | (1 << i)
        s2 = s
        if p.face[i]:
            s2 = s + score
            if nxt & p.class_bits == p.class_bits:
                score += <int> p.bonus[p.bonus_zero + s2]
        w = <double> score + state_value(p, nxt, s2)
        if best_i < 0 or w > best_w:
            best_i, best_w = i, w
    code = WRITE + p.gidx[best_i]
    if t >= 3 or not allowed:
        return code
    if t == 2 and o.locked:  # ``_locked_second``: the first re-roll's kept dice stay, keep part of the new ones
        for i in range(6):
            cn[i] = 0
            ck[i] = 0
        for i in range(5):
            if mask0 >> i & 1:
                newp[n] = i
                newd[n] = dice[i]
                cn[dice[i] - 1] += 1
                n += 1
            else:
                ck[dice[i] - 1] += 1
        best_keep = best_keep_of(op, op.e3, counts_code(ck), op.msid[counts_code(cn)], best_w)
        if best_keep < 0:
            return code
        sub = keep_mask(newd, n, best_keep)
        code = 0
        for i in range(n):
            if sub >> i & 1:
                code |= 1 << newp[i]
        return code
    best_keep = best_keep_of(op, op.e2 if t == 1 else op.e3, 0, op.msid[counts_code(c)], best_w)
    if best_keep < 0:
        return code
    return keep_mask(dice, 5, best_keep)


# ------------------------------------------------------------------ the luck (luck.turn_luck)

cdef extern from *:
    """
    #define DP_PREFETCH(p) __builtin_prefetch((const void *) (p))
    """
    void prefetch "DP_PREFETCH"(const void *p) noexcept nogil


cdef inline void split(const int *dice, int mask, int *kept, int *rolled) noexcept nogil:
    """``luck._kept``'s two multisets as face counts: the dice off ``mask`` and the dice on it."""
    cdef int i
    for i in range(6):
        kept[i] = 0
        rolled[i] = 0
    for i in range(5):
        if mask >> i & 1:
            rolled[dice[i] - 1] += 1
        else:
            kept[dice[i] - 1] += 1


cdef inline int five(const Opt *op, const int *dice) noexcept nogil:
    """The five-dice multiset index (``turn.tables().midx``) of ``dice``."""
    cdef int c[6]
    counts_of(dice, c)
    return <int> op.msid[counts_code(c)] - NKEPT


cdef void note_throw(const Opt *op, Note *n, const int *dice, int mask, int t) noexcept nogil:
    """Note what ``luck.turn_luck`` reads of throw ``t`` (``dice`` after it, ``mask`` the re-roll that threw it:
    the dice off it were kept) as indices into the turn's arrays: throw 1 ``W1[ms]``; throw 2 ``WV23[ms]``,
    ``E2[K1]`` and ``E3`` at every keep ``_best_keep`` looks at; throw 3 ``WV23[ms]`` and ``E3[K2]``."""
    cdef int ck[6]
    cdef int cn[6]
    cdef long l
    n.throws = t
    n.ms[t - 1] = five(op, dice)
    if t == 1:
        return
    split(dice, mask, ck, cn)
    n.kept[t - 2] = <int> op.msid[counts_code(ck)]
    if t == 3:
        return
    if op.locked:  # the state (K1, N): K1 plus a proper part S of the new dice N; the states of K1 follow
        # l_start[K1] in the order of N among the multisets of its size (the first of size k: C(k + 5, 6))
        l = op.turn.l_start[n.kept[0]] + op.msid[counts_code(cn)] - FIRST_OF_SIZE[popcount(mask)]
    else:  # any proper part of the five: the state (no dice, the five)
        l = n.ms[1]
    n.sub0 = <int> op.sub_start[l]
    n.nsub = <int> (op.sub_start[l + 1] - op.sub_start[l])


cdef double turn_luck(const Opt *op, const Note *n) noexcept nogil:
    """``luck.turn_luck`` of the noted turn from its arrays (``optimal_turn``'s, in ``n``): the same floats
    in the same order. ``W1[ms]`` (``turn_row``'s: the largest of ``WV1[ms]`` and ``E2`` over the proper
    sub-multisets of ``ms``) is the Python's ``max(WV1[ms], _best_keep(E2, (), ms))``: a maximum over a set
    of floats is one of them whatever the order, and none is a NaN or a -0.0 (every value is a sum begun at
    +0.0 or a score plus one); ``WV23`` is ``write_row``'s, as the Python's; the terms are added as the
    Python adds them."""
    cdef int j
    cdef double bk = -1e300, w, luck
    luck = n.w1[n.ms[0]] - n.value
    if n.throws >= 2:
        for j in range(n.sub0, n.sub0 + n.nsub):
            w = n.e3[op.sub[j]]
            if w > bk:
                bk = w
        w = n.wv23[n.ms[1]]
        if bk > w:  # Python's max(w, bk): bk only when larger
            w = bk
        luck = luck + (w - n.e2[n.kept[0]])
    if n.throws >= 3:
        luck = luck + (n.wv23[n.ms[2]] - n.e3[n.kept[1]])
    return luck


cdef void game_luck(Opt *op, Game *g) noexcept nogil:
    """Each seat's correction (``g.corr``) from the game's noted turns, as ``luck.unit_corrections`` sums
    them: each turn's luck added to its seat's in the order played. First every turn's arrays are found
    (``optimal_turn``) and the loads of what its luck reads started, then the lucks are summed, so the
    turns' reads from the memo (larger than the caches) overlap. A slot a later turn of the game took is
    computed again (the same floats)."""
    cdef int i, j
    cdef Note *n
    for i in range(g.nnotes):
        n = &g.notes[i]
        optimal_turn(op, n.part, n.mask, n.s)
        n.slot, n.e3, n.e2, n.w1, n.wv23, n.value = op.slot, op.e3, op.e2, op.w1, op.wv23, op.value
        prefetch(&n.w1[n.ms[0]])
        if n.throws >= 2:
            prefetch(&n.wv23[n.ms[1]])
            prefetch(&n.e2[n.kept[0]])
            for j in range(n.sub0, n.sub0 + n.nsub):
                prefetch(&n.e3[op.sub[j]])
        if n.throws >= 3:
            prefetch(&n.wv23[n.ms[2]])
            prefetch(&n.e3[n.kept[1]])
    for i in range(g.nnotes):
        n = &g.notes[i]
        if op.keys[n.slot] != state_key(n.part, n.mask, n.s):
            optimal_turn(op, n.part, n.mask, n.s)
            n.e3, n.e2, n.w1, n.wv23, n.value = op.e3, op.e2, op.w1, op.wv23, op.value
        g.corr[n.seat] = g.corr[n.seat] + turn_luck(op, n)


# ------------------------------------------------------------------ the game

cdef inline int take(Game *g, int *dice, int mask) noexcept nogil:
    """Throw the positions of ``mask`` from the faces (ascending positions, DP-2.5); -1 when short."""
    cdef int p, k = popcount(mask)
    if g.cur + k > g.nfaces and (g.lazy == NULL or dp_faces_fill(g.lazy, g.faces, &g.nfaces, g.cur + k) < 0):
        return -1
    for p in range(5):
        if mask >> p & 1:
            dice[p] = g.faces[g.cur]
            g.cur += 1
    return 0


cdef int allowed_lines(const Opts *o, const Game *g, int seat, int rnd) noexcept nogil:
    """``State.allowed_lines`` as a bit set of lines (DP-6.1-6.3)."""
    cdef int empty = ~g.filled[seat] & 0x7FFF
    if o.preset == 1:
        if rnd <= 6:
            if o.fixed:
                return empty & (1 << (rnd - 1))
            return empty & 0x3F
        return empty & 0x7FC0
    return empty


cdef inline int log(Game *g, int seat, int code, int allowed, int lines) noexcept nogil:
    if g.nact >= MAXA:
        return -1
    g.codes[g.nact] = code
    g.seats[g.nact] = seat
    g.allowed_log[g.nact] = allowed
    g.lines_log[g.nact] = lines
    g.nact += 1
    return 0


cdef int greedy_sheet(const Opts *o, const int *dice, int t, int allowed, int lines) noexcept nogil:
    """``GreedyBot.act`` in full and mixed: a code."""
    cdef int c[6]
    cdef int ln, v, best_now = -1, best_v = 0, target = -1, tv = 0, tk = 0, k, mask
    counts_of(dice, c)
    for ln in range(NLINES):
        if lines >> ln & 1:
            v = line_score(o, ln, c, t) + poker_bonus(o, ln, c)
            if best_now < 0 or v > best_v:
                best_now, best_v = ln, v
    if t >= 3 or not allowed:
        return WRITE + best_now
    for ln in range(NLINES):
        if lines >> ln & 1:
            v = base_score(ln, c) + poker_bonus(o, ln, c)
            k = popcount(keep_for(ln, dice, c))
            if target < 0 or v > tv or (v == tv and k > tk):
                target, tv, tk = ln, v, k
    mask = 31 & ~keep_for(target, dice, c) & allowed
    return mask if mask else WRITE + best_now


cdef int sheet_part(const Opt *op, const Game *g, int seat, int rnd, long *mask, long *ssum) noexcept nogil:
    """``OptimalBot.turn_arrays``'s sub-game of round ``rnd`` (``Strategy.part_for``: its index) and the seat's
    state in it (``optimal.sheet_state``: the filled lines as local bits, the school sum of its filled classes)."""
    cdef int part = 1 if op.nparts == 2 and rnd > 6 else 0
    cdef const Part *p = &op.parts[part]
    cdef int i
    mask[0] = 0
    ssum[0] = 0
    for i in range(p.m):
        if g.filled[seat] >> p.gidx[i] & 1:
            mask[0] |= 1 << i
            if p.face[i]:
                ssum[0] += g.sheet[seat][p.gidx[i]]
    return part


cdef int sheet_game(const Opts *o, Game *g, const int *bots, bitgen_t *bg, Opt *op, Opt *lop) noexcept nogil:
    """The sheet game; with ``lop`` (the luck estimator's strategy) each turn is noted (``g.notes``) and
    ``game_luck`` gives each seat's correction (``g.corr``)."""
    cdef int rnd, pos, seat, t, mask0, allowed, lines, code, nm, nl, k, s, o2, best
    cdef int dice[5]
    cdef int c[6]
    cdef int ssum
    cdef const Part *part = NULL
    cdef int pi
    cdef long pmask = 0, psum = 0
    cdef Note *note = NULL
    g.nnotes = 0
    for rnd in range(1, NLINES + 1):
        for pos in range(g.n):
            seat = (g.first + pos) % g.n
            if take(g, dice, 31) < 0:
                return -1
            t = 1
            mask0 = 0
            if bots[seat] == OPTIMAL:
                pi = sheet_part(op, g, seat, rnd, &pmask, &psum)
                part = &op.parts[pi]
                optimal_turn(op, pi, pmask, psum)
            if lop != NULL:  # the luck's note of the turn: the state before it (the luck's strategy), its throws
                note = &g.notes[g.nnotes]
                g.nnotes += 1
                note.seat = seat
                note.part = sheet_part(lop, g, seat, rnd, &note.mask, &note.s)
                note_throw(lop, note, dice, 0, 1)
            while True:
                allowed = 31 if t == 1 else ((mask0 if o.locked else 31) if t == 2 else 0)
                lines = allowed_lines(o, g, seat, rnd)
                if bots[seat] == RANDOM:
                    nm = (1 << popcount(allowed)) - 1
                    nl = popcount(lines)
                    k = <int> bounded(bg, nm + nl)
                    code = nth_submask(allowed, k) if k < nm else WRITE + nth_bit(lines, k - nm)
                elif bots[seat] == GREEDY:
                    code = greedy_sheet(o, dice, t, allowed, lines)
                else:
                    code = optimal_sheet(o, op, part, pmask, psum, dice, t, allowed, mask0)
                if log(g, seat, code, allowed, lines) < 0:
                    return -2
                if code < STAND:
                    if take(g, dice, code) < 0:
                        return -1
                    if lop != NULL:
                        note_throw(lop, note, dice, code, t + 1)
                    if t == 1:
                        mask0 = code
                    t += 1
                    continue
                k = code - WRITE
                counts_of(dice, c)
                g.sheet[seat][k] = line_score(o, k, c, t)
                g.filled[seat] |= 1 << k
                g.pbonus[seat] += poker_bonus(o, k, c)
                break
            g.turns += 1
            g.throws += t
            g.seat_turns[seat] += 1
            g.seat_throws[seat] += t
    if lop != NULL:
        game_luck(lop, g)
    best = -1000000
    for s in range(g.n):
        ssum = 0
        for k in range(6):
            ssum += g.sheet[s][k]
        g.sbonus[s] = 0  # DP-5.5
        if ssum > 0 and (o.school == 0 or o.school == 2):
            g.sbonus[s] = 50
        elif ssum < 0 and (o.school == 1 or o.school == 2):
            g.sbonus[s] = -50
        g.totals[s] = g.sbonus[s] + g.pbonus[s]
        for k in range(NLINES):
            g.totals[s] += g.sheet[s][k]
        if g.totals[s] > best:
            best = g.totals[s]
    g.winners = 0
    for s in range(g.n):
        if g.totals[s] == best:
            g.winners |= 1 << s
        if o.pairwise:
            g.scores[s] = 0
            for o2 in range(g.n):
                g.scores[s] += (g.totals[s] > g.totals[o2]) - (g.totals[s] < g.totals[o2])
        else:
            g.scores[s] = g.totals[s]
    return 0


cdef int greedy_simple(const Opts *o, const Game *g, int seat, const int *dice, int allowed, bint last) noexcept nogil:
    cdef int c[6]
    cdef int s, mask
    cdef bint ahead = False
    cdef int64_t mine
    if allowed:
        mine = hand_key(dice, o.kickers)
        for s in range(g.n):
            if s != seat and g.has_hand[s]:
                if hand_key(g.hands[s], o.kickers) >= mine:
                    ahead = False
                    break
                ahead = True
        counts_of(dice, c)
        mask = 31 & ~simple_keep(dice, c) & allowed
        if mask and not (last and ahead):
            return mask
    return STAND


cdef int simple_game(const Opts *o, Game *g, const int *bots, bitgen_t *bg) noexcept nogil:
    cdef int order[MAXP]
    cdef int tied[MAXP]
    cdef int64_t keys[MAXP]
    cdef int norder = g.n, pos, seat, t, mask0, allowed, code, nm, k, s, o2, ntied, i
    cdef int dice[5]
    cdef int c[6]
    cdef int64_t best
    for i in range(g.n):
        order[i] = (g.first + i) % g.n
    g.stage = 0
    while True:
        for s in range(g.n):
            g.has_hand[s] = False
        for pos in range(norder):
            seat = order[pos]
            if take(g, dice, 31) < 0:
                return -1
            t = 1
            mask0 = 0
            while True:
                allowed = 31 if t == 1 else (mask0 if o.locked else 31)
                if bots[seat] == 0:
                    nm = (1 << popcount(allowed)) - 1
                    k = <int> bounded(bg, nm + 1)
                    code = nth_submask(allowed, k) if k < nm else STAND
                else:
                    code = greedy_simple(o, g, seat, dice, allowed, pos == norder - 1)
                if log(g, seat, code, allowed, -1) < 0:
                    return -2
                if code == STAND:
                    break
                if take(g, dice, code) < 0:
                    return -1
                if t == 1:
                    mask0 = code
                t += 1
                if t == 3:  # DP-2.2: the turn ends by itself after throw 3
                    break
            for i in range(5):
                g.hands[seat][i] = dice[i]
            g.has_hand[seat] = True
            g.turns += 1
            g.throws += t
            g.seat_turns[seat] += 1
            g.seat_throws[seat] += t
        # DP-4.4 / DP-4.5: the end of a stage
        best = -1
        for pos in range(norder):
            seat = order[pos]
            keys[seat] = hand_key(g.hands[seat], o.kickers)
            if keys[seat] > best:
                best = keys[seat]
        ntied = 0
        for pos in range(norder):
            if keys[order[pos]] == best:
                tied[ntied] = order[pos]
                ntied += 1
        if g.stage == 0:
            for s in range(g.n):
                counts_of(g.hands[s], c)
                g.cat0[s] = category(c)
        g.winners = 0
        for i in range(ntied):
            g.winners |= 1 << tied[i]
        if o.pairwise:
            for s in range(g.n):
                g.scores[s] = 0
                for o2 in range(g.n):
                    g.scores[s] += (keys[s] > keys[o2]) - (keys[s] < keys[o2])
            return 0
        if ntied == 1 or not o.rethrow or g.stage >= o.max_rethrows:
            for s in range(g.n):
                g.scores[s] = (g.n - ntied) if (g.winners >> s & 1) else -ntied
            return 0
        g.stage += 1
        norder = ntied
        for i in range(ntied):
            order[i] = tied[i]


cdef int run(const Opts *o, Game *g, const int *bots, bitgen_t *bg, Opt *op, Opt *lop) noexcept nogil:
    cdef int s, k
    g.cur = 0
    g.nact = 0
    g.turns = 0
    g.throws = 0
    g.stage = 0
    g.winners = 0
    for s in range(g.n):
        g.filled[s] = 0
        g.pbonus[s] = 0
        g.sbonus[s] = 0
        g.totals[s] = 0
        g.seat_turns[s] = 0
        g.seat_throws[s] = 0
        g.scores[s] = 0
        g.cat0[s] = 0
        g.has_hand[s] = False
        g.corr[s] = 0.0
        for k in range(NLINES):
            g.sheet[s][k] = 0
    if o.preset == 0:
        return simple_game(o, g, bots, bg)
    return sheet_game(o, g, bots, bg, op, lop)


# ------------------------------------------------------------------ Python side

CATEGORY_NAMES = ("none", "pair", "two_pairs", "three", "straight", "full_house", "four", "poker")  # rules.CATEGORIES
_NO_SHEET = (None,) * (1 + NLINES + 3)  # a simple game's seat row: no total, lines, school sum or bonuses


cdef void opts_of(Opts *o, tuple opts):
    (o.preset, o.locked, o.kickers, o.rethrow, o.max_rethrows, o.pairwise, o.ftd, o.poker_bonus, o.school,
     o.fixed) = opts


cdef int load(Game *g, tuple faces, int players, int first) except -1:
    cdef int i, n = len(faces)
    if not 1 <= players <= MAXP:
        raise ValueError("1..8 players")
    if n > MAXF:
        n = MAXF
    for i in range(n):
        g.faces[i] = faces[i]
    g.nfaces = n
    g.lazy = NULL
    g.n = players
    g.first = first
    return 0


cdef int play_one(const Opts *o, Game *g, bots, rng, Optimal optimal, Optimal luck=None) except -1:
    cdef int b[MAXP]
    cdef int s, rc
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef Opt *op = NULL if optimal is None else &optimal.c
    cdef Opt *lop = NULL if luck is None else &luck.c
    if lop != NULL and o.preset == 0:
        raise ValueError("the luck's values are the score sheet's (full, mixed)")
    for s in range(g.n):
        b[s] = bots[s]
        if not RANDOM <= b[s] <= OPTIMAL or (b[s] == OPTIMAL and (op == NULL or o.preset == 0)):
            raise ValueError(f"seat {s}: bot code {b[s]} (0 random, 1 greedy, 2 optimal with its strategy, "
                             "full and mixed)")
    with rng.bit_generator.lock:
        rc = run(o, g, b, bg, op, lop)
    if rc == -1:
        raise RuntimeError("the game's faces ran out (the readable engine cannot go on either, DP-8)")
    if rc == -2:
        raise RuntimeError("more decisions than the kernel keeps")
    return 0


def play(rng, tuple faces, int players, int first, tuple opts, bots, bint trace=False, Optimal optimal=None):
    """Play the game of ``faces`` (its whole pre-drawn stream) with ``bots`` (per seat: 0 random, 1 greedy,
    2 optimal playing ``optimal``'s strategy) drawing from ``rng``. Returns (codes, seats, legal) where ``legal`` is per decision (allowed re-roll
    mask, allowed lines as bits or -1 for ``stand``) when ``trace``, else None."""
    cdef Opts o
    cdef Game g
    cdef int i
    opts_of(&o, opts)
    load(&g, faces, players, first)
    play_one(&o, &g, bots, rng, optimal)
    codes = [g.codes[i] for i in range(g.nact)]
    seats = [g.seats[i] for i in range(g.nact)]
    legal = [(g.allowed_log[i], g.lines_log[i]) for i in range(g.nact)] if trace else None
    return codes, seats, legal


def rows(rng_at, tuple faces, int players, int first, tuple opts, rotations, str preset, Optimal optimal=None,
         Optimal luck=None):
    """Per rotation r (its bots ``rotations[r]``, drawing from ``rng_at(r)``): the values of
    ``tables.deal_rows`` and ``tables.seat_rows`` for the finished one-game match. With ``luck`` (the
    strategy ``luck.LUCK`` values positions by, full and mixed) ``(rows, corrections)``: per rotation each
    seat's correction, ``luck.unit_corrections`` of the finished matches (the same floats)."""
    cdef Opts o
    cdef Game g
    cdef int r, s, k, ssum
    cdef double tpt
    opts_of(&o, opts)
    load(&g, faces, players, first)
    out = []
    corrections = []
    for r in range(len(rotations)):
        play_one(&o, &g, rotations[r], rng_at(r), optimal, luck)
        if luck is not None:
            corrections.append([g.corr[s] for s in range(players)])
        winners = [s for s in range(players) if g.winners >> s & 1]
        seat_rows = []
        if o.preset == 0:
            cats = [CATEGORY_NAMES[g.cat0[s]] for s in range(players)]
            deal = (first, (preset, winners, g.turns, g.throws, g.stage, cats, None, None))
            for s in range(players):
                tpt = <double> g.seat_throws[s] / <double> (g.seat_turns[s] if g.seat_turns[s] else 1)
                seat_rows.append((g.scores[s], (g.winners >> s) & 1, tpt, cats[s], *_NO_SHEET))
        else:
            totals = [g.totals[s] for s in range(players)]
            deal = (first, (preset, winners, g.turns, g.throws, None, None, totals, max(totals)))
            for s in range(players):
                tpt = <double> g.seat_throws[s] / <double> (g.seat_turns[s] if g.seat_turns[s] else 1)
                ssum = 0
                for k in range(6):
                    ssum += g.sheet[s][k]
                seat_rows.append((g.scores[s], (g.winners >> s) & 1, tpt, None, g.totals[s],
                                  *[g.sheet[s][k] for k in range(NLINES)], ssum, g.sbonus[s], g.pbonus[s]))
        out.append(([deal], seat_rows))
    return out if luck is None else (out, corrections)


def deal_faces(bits, long item, int count):
    """The ``count`` faces of the stream (``item``, 0) of ``bits``' key as ``play_shard`` draws them, in one
    fill: ``Streams.at(item, 0).integers(1, 7, size=count)`` (tests; ``play_shard`` draws them in pieces)."""
    cdef dp_faces fs
    cdef int n = 0
    if count < 0:
        raise ValueError(f"count must be >= 0, not {count}")
    a = np.zeros(max(count, 1), dtype=np.int32)
    cdef int[::1] out = a
    stream_key(bits, &fs.ph)
    np_stream_at(&fs.ph, item, 0)
    fs.limit = count
    if count > 0:
        dp_faces_fill(&fs, &out[0], &n, count)
    return a[:count].astype(np.int64)


ctypedef struct ShardOut:
    # ``play_shard``'s columns (numpy buffers) and where the next unit, seat and winner go
    signed char *first
    int *nwin
    signed char *win
    short *turns
    short *throws
    signed char *stage
    int *score
    short *won
    double *tpt
    signed char *cat
    int *total
    short *lines
    short *ssum
    short *sbonus
    short *pbonus
    double *corr
    long u
    long q
    long wc


cdef int shard_deal(const Opts *o, Game *g, dp_faces *fs, np_stream *ph, bitgen_t *bg, long d, int first,
                    const int *bots, int R, Opt *op, Opt *lop, ShardOut *out) noexcept nogil:
    """Deal ``d`` (its faces from the stream (d, 0), drawn as the games reach them) played by every rotation r
    from the stream (d, r + 1), its columns written into ``out``: ``rows``' values. ``run``'s code when < 0."""
    cdef int r, s, k, rc, ssum
    cdef long q
    np_stream_at(&fs.ph, d, 0)
    g.nfaces = 0
    g.first = first
    for r in range(R):
        np_stream_at(ph, d, r + 1)
        rc = run(o, g, &bots[r * g.n], bg, op, lop)
        if rc < 0:
            return rc
        out.first[out.u] = first
        k = 0
        for s in range(g.n):
            if g.winners >> s & 1:
                out.win[out.wc] = s
                out.wc += 1
                k += 1
        out.nwin[out.u] = k
        out.turns[out.u] = g.turns
        out.throws[out.u] = g.throws
        out.stage[out.u] = g.stage
        out.u += 1
        for s in range(g.n):
            q = out.q
            out.score[q] = g.scores[s]
            out.won[q] = (g.winners >> s) & 1
            out.tpt[q] = <double> g.seat_throws[s] / <double> (g.seat_turns[s] if g.seat_turns[s] else 1)
            if o.preset == 0:
                out.cat[q] = g.cat0[s]
            else:
                out.total[q] = g.totals[s]
                ssum = 0
                for k in range(NLINES):
                    out.lines[q * NLINES + k] = g.sheet[s][k]
                    if k < 6:
                        ssum += g.sheet[s][k]
                out.ssum[q] = ssum
                out.sbonus[q] = g.sbonus[s]
                out.pbonus[q] = g.pbonus[s]
                out.corr[q] = g.corr[s]
            out.q += 1
    return 0


def play_shard(bits, long start, long stop, int players, const long[::1] firsts, tuple opts,
               const int[:, ::1] bots, int per_game, Optimal optimal=None, Optimal luck=None):
    """Every rotation of the one-game matches ``start .. stop - 1`` of a summary job, dealt and played here.

    ``bits`` is the job's ``Streams`` Philox bit generator (its key the job's; numpy's state is not moved):
    deal d's faces are the stream (d, 0) drawn as ``State.deal`` draws its ``per_game`` faces (``DiceStream.draw``:
    ``integers(1, 7, size=per_game)``), as the game reaches them; rotation r plays them from the stream
    (d, r + 1) with the seats' bot codes ``bots[r]`` (0 random, 1 greedy, 2 optimal playing ``optimal``), the
    first player ``firsts[d - start]`` (the deal's dealer). With ``luck`` each seat's correction as ``rows``.

    Returns the columns of units (deal-major, then rotation) and of seats (unit-major, then seat), the values
    ``rows`` gives: ``first``, ``nwin`` (winners per unit) and ``winners`` (flat), ``turns``, ``throws``,
    ``stage``; per seat ``score``, ``won``, ``tpt``, ``category`` (simple), ``total``, ``lines`` [seat, 15],
    ``school_sum``, ``school_bonus``, ``poker_bonus`` (sheet), ``correction``."""
    cdef Opts o
    cdef Game g
    cdef dp_faces fs
    cdef np_stream play_ph
    cdef bitgen_t own
    cdef ShardOut out
    cdef int R = bots.shape[0]
    cdef long deals = stop - start
    cdef long units = deals * R, d
    cdef int r, s, k, rc = 0
    cdef Opt *op = NULL if optimal is None else &optimal.c
    cdef Opt *lop = NULL if luck is None else &luck.c
    cdef bint sheet, shared = optimal is not None or luck is not None
    opts_of(&o, opts)
    sheet = o.preset != 0
    if not 1 <= players <= MAXP or bots.shape[1] != players or deals < 0 or firsts.shape[0] != deals:
        raise ValueError("1..8 players, one bot per seat, one first player per deal")
    if not 0 <= per_game <= MAXF:
        raise ValueError(f"at most {MAXF} faces a game")
    if lop != NULL and not sheet:
        raise ValueError("the luck's values are the score sheet's (full, mixed)")
    for r in range(R):
        for s in range(players):
            k = bots[r, s]
            if not RANDOM <= k <= OPTIMAL or (k == OPTIMAL and (op == NULL or not sheet)):
                raise ValueError(f"rotation {r}, seat {s}: bot code {k} (0 random, 1 greedy, 2 optimal with its "
                                 "strategy, full and mixed)")
    for d in range(deals):
        if not 0 <= firsts[d] < players:
            raise ValueError("a first player outside the seats")
    stream_key(bits, &fs.ph)
    play_ph.key[0], play_ph.key[1] = fs.ph.key[0], fs.ph.key[1]
    stream_bitgen(&play_ph, &own)
    fs.limit = per_game
    g.n = players
    g.lazy = &fs
    a_first = np.empty(units, dtype=np.int8)
    a_nwin = np.empty(units, dtype=np.int32)
    a_win = np.empty(units * players, dtype=np.int8)
    a_turns = np.empty(units, dtype=np.int16)
    a_throws = np.empty(units, dtype=np.int16)
    a_stage = np.empty(units, dtype=np.int8)
    a_score = np.empty(units * players, dtype=np.int32)
    a_won = np.empty(units * players, dtype=np.int16)
    a_tpt = np.empty(units * players, dtype=np.float64)
    a_cat = np.zeros(units * players, dtype=np.int8)
    a_total = np.zeros(units * players, dtype=np.int32)
    a_lines = np.zeros((units * players, NLINES), dtype=np.int16)
    a_ssum = np.zeros(units * players, dtype=np.int16)
    a_sbonus = np.zeros(units * players, dtype=np.int16)
    a_pbonus = np.zeros(units * players, dtype=np.int16)
    a_corr = np.zeros(units * players, dtype=np.float64)
    cdef signed char[::1] o_first = a_first, o_win = a_win, o_stage = a_stage, o_cat = a_cat
    cdef int[::1] o_nwin = a_nwin, o_score = a_score, o_total = a_total
    cdef short[::1] o_turns = a_turns, o_throws = a_throws, o_won = a_won
    cdef short[::1] o_ssum = a_ssum, o_sbonus = a_sbonus, o_pbonus = a_pbonus
    cdef short[:, ::1] o_lines = a_lines
    cdef double[::1] o_tpt = a_tpt, o_corr = a_corr
    if units == 0:
        deals = 0  # no buffer to point into, nothing to play
    else:
        out.first, out.nwin, out.win, out.turns, out.throws = &o_first[0], &o_nwin[0], &o_win[0], &o_turns[0], &o_throws[0]
        out.stage, out.score, out.won, out.tpt, out.cat = &o_stage[0], &o_score[0], &o_won[0], &o_tpt[0], &o_cat[0]
        out.total, out.lines, out.ssum, out.sbonus = &o_total[0], &o_lines[0, 0], &o_ssum[0], &o_sbonus[0]
        out.pbonus, out.corr = &o_pbonus[0], &o_corr[0]
    out.u, out.q, out.wc = 0, 0, 0
    # The memo of turn arrays of an ``Optimal`` (optimal seats, the luck) is shared by every caller in the
    # process: with one the GIL is held while a game is played (as ``play_one`` does) and let go between
    # deals; without, the whole loop runs without it.
    with nogil:
        for d in range(start, start + deals):
            if shared:
                with gil:
                    rc = shard_deal(&o, &g, &fs, &play_ph, &own, d, firsts[d - start], &bots[0, 0], R, op, lop, &out)
            else:
                rc = shard_deal(&o, &g, &fs, &play_ph, &own, d, firsts[d - start], &bots[0, 0], R, op, lop, &out)
            if rc < 0:
                break
    if rc == -1:
        raise RuntimeError("the game's faces ran out (the readable engine cannot go on either, DP-8)")
    if rc == -2:
        raise RuntimeError("more decisions than the kernel keeps")
    return {"first": a_first, "nwin": a_nwin, "winners": a_win[:out.wc], "turns": a_turns, "throws": a_throws,
            "stage": a_stage, "score": a_score, "won": a_won, "tpt": a_tpt, "category": a_cat, "total": a_total,
            "lines": a_lines, "school_sum": a_ssum, "school_bonus": a_sbonus, "poker_bonus": a_pbonus,
            "correction": a_corr}
