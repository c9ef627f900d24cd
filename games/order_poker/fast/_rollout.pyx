# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The play-outs of ``order-poker/montecarlo`` in C: ``HeuristicBot`` at every seat over the rules kernel.

``MonteCarloBot`` scores each candidate by playing the sampled deal to its end with the heuristic
policy at every seat. Through the readable engine a play-out cost ~1 ms (a view, a legal list and
Python arithmetic per action); here the deal is a ``kernel.pxd`` ``Deal``, the policy is
``HeuristicBot``'s arithmetic in C (the same operations in the same order on doubles, so the same
choices), and the one generator draw the policy makes (the bidding's sampled opponent hands,
``plans.sampled_one_swap_reach``) is the same ``next_double`` sequence that ``Generator.random``
fills. Each seat's bidding cache (``HeuristicBot._bid_key``: priced once per hand and robot) lives in
the ``Rollouts`` object, as in the bot's per-seat ``HeuristicBot``s, so the draws happen exactly when
the readable play-out makes them. ``tests/test_order_poker_rollout.py`` checks that the bot decides
the same as its readable play-out (``MonteCarloBot(readable=True)``) on many states.

The plan searches (``split_costs``, ``opponent_target``, ``cheapest_plan``, ``one_swap_reach``) give
``_plans.pyx``'s answers (same ties) by shorter routes: the ranks of the 252 hand/robot splits are
bytes (pairs by one vector pass per equal-rank pair of the pool, straights and flushes listed) and the
searches over them are vector passes (a non-orderer's target: the first cheapest split of the order's
rank and of the robot's; fewest swaps to each rank; the orderer's cheapest plan without ``for`` cards);
the orderer's levels with ``for`` cards are looked at one price at a time from the cheapest, and not at
all when the pool lacks the order's cards (``_may_make``); a non-orderer checks OP-6.5 only for the
swaps his target wants, not for all 25; one-swap reach counts the hand's ranks once and picks each
sampled hand's five smallest keys without branches (the bidding's keys drawn in C when the generator is
the play-outs' PCG64).
``tests/test_order_poker_rollout.py`` compares these with ``_plans`` on random pools as well.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport pow
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from ext.npdraw cimport bitgen_t, permute
from games.order_poker.fast.kernel cimport (
    BIDDING, EXCHANGE, K_AGAINST, K_FOR, K_KEEP, K_STOP, K_SWAP, MAX_LEGAL, OVER, ROLES, Deal,
    apply, category, count_legal, legal, legal_at, robot_swap_ok, start,
)
from games.order_poker.fast.policy cimport action_of, random_choice

cdef extern from *:
    """
    /* numpy's SeedSequence(seed).generate_state(4, uint64) for one non-negative seed below 2**64, and
       PCG64's seeding from those words (numpy/random/bit_generator.pyx, src/pcg64/pcg64.h): a play-out
       generator is np.random.default_rng(seed), built here without three Python objects. The layout
       of numpy's PCG64 state is checked once against the Python API (Rollouts._check_direct). */
    #include <stdint.h>
    typedef unsigned __int128 rl_u128;
    typedef struct { rl_u128 state; rl_u128 inc; } rl_pcg128;
    typedef struct { rl_pcg128 *pcg_state; int has_uint32; uint32_t uinteger; } rl_pcg64_state;
    typedef struct { rl_pcg128 pcg; int has_uint32; uint32_t uinteger; } rl_saved;

    static uint32_t rl_hashmix(uint32_t value, uint32_t *hash_const) {
        value ^= *hash_const;
        *hash_const *= 0x931e8875u;
        value *= *hash_const;
        value ^= value >> 16;
        return value;
    }
    static uint32_t rl_mix(uint32_t x, uint32_t y) {
        uint32_t r = 0xca01f9ddu * x - 0x4973f715u * y;
        r ^= r >> 16;
        return r;
    }
    static void rl_seed_words(uint64_t seed, uint64_t out[4]) {
        uint32_t ent[2], pool[4], st[8], hc = 0x43b0d7e5u, v;
        int n = 0, i, j;
        if (seed == 0) ent[n++] = 0;
        while (seed > 0) { ent[n++] = (uint32_t)(seed & 0xffffffffu); seed >>= 32; }
        for (i = 0; i < 4; i++) pool[i] = rl_hashmix(i < n ? ent[i] : 0, &hc);
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++)
                if (i != j) pool[j] = rl_mix(pool[j], rl_hashmix(pool[i], &hc));
        hc = 0x8b51f9ddu;
        for (i = 0; i < 8; i++) {
            v = pool[i % 4];
            v ^= hc;
            hc *= 0x58f38dedu;
            v *= hc;
            v ^= v >> 16;
            st[i] = v;
        }
        for (i = 0; i < 4; i++) out[i] = (uint64_t)st[2 * i] | ((uint64_t)st[2 * i + 1] << 32);
    }
    static void rl_pcg_seed(void *bitgen_state, uint64_t seed) {
        uint64_t w[4];
        const rl_u128 mult = ((rl_u128)2549297995355413924ULL << 64) | 4865540595714422341ULL;
        rl_pcg64_state *s = (rl_pcg64_state *)bitgen_state;
        rl_pcg128 *r = s->pcg_state;
        rl_seed_words(seed, w);
        r->state = 0;
        r->inc = ((((rl_u128)w[2] << 64) | w[3]) << 1u) | 1u;
        r->state = r->state * mult + r->inc;
        r->state += ((rl_u128)w[0] << 64) | w[1];
        r->state = r->state * mult + r->inc;
        s->has_uint32 = 0;
        s->uinteger = 0;
    }
    #include <string.h>
    /* n draws of Generator.random() from numpy's PCG64 (XSL-RR 128/64: step, then output), without a
       call per draw; checked against numpy's own draws in Rollouts._check_direct. */
    static void rl_pcg_doubles(void *bitgen_state, uint64_t *out, int n) {
        const rl_u128 mult = ((rl_u128)2549297995355413924ULL << 64) | 4865540595714422341ULL;
        rl_pcg128 *r = ((rl_pcg64_state *)bitgen_state)->pcg_state;
        rl_u128 st = r->state, inc = r->inc;
        uint64_t x;
        unsigned int rot;
        double d;
        int i;
        for (i = 0; i < n; i++) {
            st = st * mult + inc;
            x = ((uint64_t)(st >> 64)) ^ (uint64_t)st;
            rot = (unsigned int)(st >> 122);
            x = (x >> rot) | (x << ((-rot) & 63u));
            d = (double)(x >> 11) * (1.0 / 9007199254740992.0);
            memcpy(&out[i], &d, 8);
        }
        r->state = st;
    }
    static void rl_pcg_save(void *bitgen_state, rl_saved *out) {
        rl_pcg64_state *s = (rl_pcg64_state *)bitgen_state;
        out->pcg = *s->pcg_state;
        out->has_uint32 = s->has_uint32;
        out->uinteger = s->uinteger;
    }
    static void rl_pcg_restore(void *bitgen_state, const rl_saved *in) {
        rl_pcg64_state *s = (rl_pcg64_state *)bitgen_state;
        *s->pcg_state = in->pcg;
        s->has_uint32 = in->has_uint32;
        s->uinteger = in->uinteger;
    }
    """
    ctypedef struct rl_saved:
        pass
    void rl_pcg_seed(void *bitgen_state, uint64_t seed) nogil
    void rl_pcg_save(void *bitgen_state, rl_saved *out) nogil
    void rl_pcg_doubles(void *bitgen_state, uint64_t *out, int n) nogil
    void rl_pcg_restore(void *bitgen_state, const rl_saved *inp) nogil

cdef extern from *:
    """
    /* The splits' vector loops (gcc vectorizes them with SSE2): a pool's 252 split ranks are bytes,
       cats[n] for split n and rev[n] = cats[251 - n], the rank of the split's complement (the robot's
       five cards: complementing reverses the combinations order), both padded to 256. */
    #include <string.h>
    static short rl_v[256];              /* (cost << 8) | n; 0x7fff for split 0 and the padding */
    static unsigned char rl_pairsub[45][256];  /* 1 where split n holds both positions of pair e */
    /* out[n] = the rank of split n by its equal-rank pairs (eq: the pool's, as pair numbers): their
       count, 4 (full house) and 6 (four of a kind) read 5 and 7, as PAIR_CAT maps them. */
    static void rl_pair_cats(unsigned char *out, const int *eq, int ne) {
        int e, n;
        memset(out, 0, 256);
        for (e = 0; e < ne; e++) {
            const unsigned char *t = rl_pairsub[eq[e]];
            for (n = 0; n < 256; n++) out[n] += t[n];
        }
        for (n = 0; n < 256; n++) out[n] += out[n] >= 4;
    }
    static unsigned char rl_costb[256];  /* cost of split n; 99 for the padding */
    /* rev[k] = buf[255 - k] for a 256-byte buf holding cats at offset 4 (buf[0..3] padding). */
    static void rl_reverse256(const unsigned char *buf, unsigned char *rev) {
        uint64_t w;
        int i;
        for (i = 0; i < 32; i++) {
            memcpy(&w, buf + 8 * (31 - i), 8);
            w = __builtin_bswap64(w);
            memcpy(rev + 8 * i, &w, 8);
        }
    }
    /* opponent_target's classes 2 and 3: the least (cost << 8) | n of each over splits 1..251 that
       keep the robot's rank (rc), 0x7fff for none. */
    static void rl_first_best(const unsigned char *cats, const unsigned char *rev, int order, int rc,
                              int match_ok, int half_min, int *b2o, int *b3o) {
        short b2 = 0x7fff, b3 = 0x7fff;
        unsigned char o = (unsigned char)order, r = (unsigned char)rc, hm = (unsigned char)half_min;
        short mo = match_ok != 0, rz = rc == 0;
        int n;
        for (n = 0; n < 256; n++) {
            unsigned char m = cats[n], rcat = rev[n];
            short ok = rz | (rcat >= r);
            short is2 = ok & (m == o);
            short is3 = ok & (m != o) & mo & (m == rcat) & (m >= hm);
            short v = rl_v[n];
            short v2 = v | ((is2 - 1) & 0x7fff), v3 = v | ((is3 - 1) & 0x7fff);
            b2 = v2 < b2 ? v2 : b2;
            b3 = v3 < b3 ? v3 : b3;
        }
        *b2o = b2;
        *b3o = b3;
    }
    static uint64_t rl_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
    static short rl_v0[256];             /* (cost << 8) | n, split 0 too; 0x7fff for the padding */
    /* The least (cost << 8) | n of the splits of rank ``order``, 0x7fff for none. */
    static int rl_first_rank(const unsigned char *cats, int order) {
        short b = 0x7fff;
        unsigned char o = (unsigned char)order;
        int n;
        for (n = 0; n < 256; n++) {
            short v = rl_v0[n] | (((short)(cats[n] == o) - 1) & 0x7fff);
            b = v < b ? v : b;
        }
        return b;
    }
    /* The positions of the five smallest of n keys (the bits of doubles in [0, 1), which order as the
       doubles do), by (key, position): a sorted five kept by compare-exchanges without branches, each
       key entering in place of the largest when below it (strictly: of equal keys the first stays). */
    #define RL_CX(x, ix, y, iy) { uint64_t m_ = -(uint64_t)((y) < (x)); uint64_t t_ = ((x) ^ (y)) & m_; \
        int mi_ = (int)m_, ti_ = ((ix) ^ (iy)) & mi_; (x) ^= t_; (y) ^= t_; (ix) ^= ti_; (iy) ^= ti_; }
    static void rl_five_smallest(const uint64_t *row, int n, int *pick) {
        uint64_t a0 = UINT64_MAX, a1 = UINT64_MAX, a2 = UINT64_MAX, a3 = UINT64_MAX, a4 = UINT64_MAX, x, m;
        int i0 = 0, i1 = 0, i2 = 0, i3 = 0, i4 = 0, j;
        for (j = 0; j < n; j++) {
            x = row[j];
            m = -(uint64_t)(x < a4);
            a4 ^= (a4 ^ x) & m;
            i4 ^= (i4 ^ j) & (int)m;
            RL_CX(a3, i3, a4, i4); RL_CX(a2, i2, a3, i3); RL_CX(a1, i1, a2, i2); RL_CX(a0, i0, a1, i1);
        }
        pick[0] = i0; pick[1] = i1; pick[2] = i2; pick[3] = i3; pick[4] = i4;
    }
    /* The same five, first narrowed to the keys below thr (in order) when five or more are. */
    static void rl_pick_five(const uint64_t *row, int n, uint64_t thr, int *pick) {
        uint64_t c[64];
        int ci[64], k = 0, j;
        if (n > 64) { rl_five_smallest(row, n, pick); return; }
        for (j = 0; j < n; j++) { c[k] = row[j]; ci[k] = j; k += row[j] < thr; }
        if (k < 5) { rl_five_smallest(row, n, pick); return; }
        rl_five_smallest(c, k, pick);
        for (j = 0; j < 5; j++) pick[j] = ci[pick[j]];
    }
    /* split_costs: own[m] the least cost of a split of rank m keeping the robot's rank (rc), match[m]
       of one whose complement is of rank m too; 99 for none. */
    static void rl_split_costs(const unsigned char *cats, const unsigned char *rev, int rc, int *own, int *match) {
        unsigned char r = (unsigned char)rc, rz = rc == 0;
        int m, n;
        for (m = 0; m < 9; m++) {
            unsigned char o = 99, t = 99, mm = (unsigned char)m;
            for (n = 0; n < 256; n++) {
                unsigned char ok = rz | (rev[n] >= r);
                unsigned char c = rl_costb[n];
                unsigned char s1 = ok & (cats[n] == mm);
                unsigned char s2 = s1 & (rev[n] == mm);
                unsigned char c1 = s1 ? c : 99, c2 = s2 ? c : 99;
                o = c1 < o ? c1 : o;
                t = c2 < t ? c2 : t;
            }
            own[m] = o;
            match[m] = t;
        }
    }
    """
    short rl_v[256]
    unsigned char rl_costb[256]
    short rl_v0[256]
    int rl_first_rank(const unsigned char *cats, int order) nogil
    void rl_pick_five(const uint64_t *row, int n, uint64_t thr, int *pick) nogil
    uint64_t rl_bits(double d) nogil
    unsigned char rl_pairsub[45][256]
    void rl_pair_cats(unsigned char *out, const int *eq, int ne) nogil
    void rl_reverse256(const unsigned char *buf, unsigned char *rev) nogil
    void rl_first_best(const unsigned char *cats, const unsigned char *rev, int order, int rc, int match_ok,
                       int half_min, int *b2o, int *b3o) nogil
    void rl_split_costs(const unsigned char *cats, const unsigned char *rev, int rc, int *own, int *match) nogil

import numpy as np

cdef int FAR = 99

# Memo tables of the two plan searches (most of a play-out's time): both are pure functions of their
# inputs, and the play-outs of one sampled deal repeat positions (every candidate's play-out starts
# from the same deal; a seat that keeps faces the same cards next round), so a direct-mapped table
# keyed by the whole input returns exactly what the search would.
DEF MEMO = 4096
DEF OPP_KEY = 14  # hand 5, robot 5, order, stake, against, half_min
DEF PLAN_KEY = 17  # hand 5, other 10 (0-padded), number of other cards, order


cdef struct OppMemo:
    int used
    int key[OPP_KEY]
    int found
    int cards[5]


cdef struct PlanMemo:
    int used
    int key[PLAN_KEY]
    int found
    double price
    int cards[5]


cdef inline unsigned int memo_slot(const int *key, int n) noexcept nogil:
    cdef unsigned int h = 2166136261u
    cdef int i
    for i in range(n):
        h = (h ^ <unsigned int> key[i]) * 16777619u
    return (h ^ (h >> 15)) & (MEMO - 1)


cdef inline bint same_key(const int *a, const int *b, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True
cdef int SPLIT_MINE[252][5]
cdef int SPLIT_OTHER[252][5]
cdef int SPLIT_COST[252]
cdef int SPLIT_COMP[252]  # the index of the complement (the robot's five) among the 252 subsets


cdef void _build_splits() noexcept:
    """The 252 splits of hand (pool 0..4) + robot (5..9), in ``itertools.combinations`` order."""
    cdef int a, b, c, d, e, i, m, o, mc, n = 0
    for a in range(10):
        for b in range(a + 1, 10):
            for c in range(b + 1, 10):
                for d in range(c + 1, 10):
                    for e in range(d + 1, 10):
                        mc = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                        m = 0
                        o = 0
                        SPLIT_COST[n] = 0
                        for i in range(10):
                            if mc & (1 << i):
                                SPLIT_MINE[n][m] = i
                                m += 1
                                SPLIT_COST[n] += i >= 5
                            else:
                                SPLIT_OTHER[n][o] = i
                                o += 1
                        n += 1


_build_splits()


cdef void _build_complements() noexcept:
    cdef int n, m, i, same
    for n in range(252):
        for m in range(252):
            same = 1
            for i in range(5):
                if SPLIT_MINE[m][i] != SPLIT_OTHER[n][i]:
                    same = 0
                    break
            if same:
                SPLIT_COMP[n] = m
                break


_build_complements()
for _n in range(252):  # complementing reverses the combinations order: opponent_target reads 251 - n
    if SPLIT_COMP[_n] != 251 - _n:
        raise AssertionError("split complement order")

# PAIR_BIT[i][j]: the number of the pair of pool positions i < j of a 10-card pool (45 pairs); PAIR_MASK[n]:
# the ten pairs inside subset n (as bits), from which rl_pairsub is built.
cdef int PAIR_BIT[10][10]
cdef unsigned long long PAIR_MASK[252]
cdef unsigned int POS_MASK[252]  # the pool positions of subset n (bit i: position i)
# The rank of five cards with p equal-rank pairs, p > 0 (1, 2, 3 -> pair, two_pair, three; 4 -> full house;
# 6 -> four), as ``category`` computes it; p == 0 reads 0 (five distinct ranks: none, or see split_cats).
cdef int PAIR_CAT[7]
PAIR_CAT[:] = [0, 1, 2, 3, 5, 6, 7]


cdef void _build_pair_masks() noexcept:
    cdef int i, j, n, b = 0
    for i in range(10):
        for j in range(i + 1, 10):
            PAIR_BIT[i][j] = b
            b += 1
    for n in range(252):
        PAIR_MASK[n] = 0
        POS_MASK[n] = 0
        for i in range(5):
            POS_MASK[n] |= 1u << SPLIT_MINE[n][i]
            for j in range(i + 1, 5):
                PAIR_MASK[n] |= 1ULL << PAIR_BIT[SPLIT_MINE[n][i]][SPLIT_MINE[n][j]]


_build_pair_masks()


cdef extern from *:
    """
    #define rl_popcount(x) __builtin_popcountll(x)
    """
    int rl_popcount(unsigned long long x) nogil


cdef inline void _pool(const int *hand, const int *robot, int *pool) noexcept nogil:
    cdef int i
    for i in range(5):
        pool[i] = hand[i]
        pool[5 + i] = robot[i]


cdef short MASK_INDEX[1024]  # the subset index n of each POS_MASK (-1: not five positions)
# FIVE_OF[k]: the subsets n whose five positions are all below k, in order (C(k, 5) of them): the
# five-card subsets of the first k positions of any list, as positions 0..k-1 of SPLIT_MINE.
cdef short FIVE_OF[11][252]
cdef int NFIVE_OF[11]


cdef void _build_mask_index() noexcept:
    cdef int n, k
    for n in range(1024):
        MASK_INDEX[n] = -1
    for n in range(252):
        MASK_INDEX[POS_MASK[n]] = <short> n
    for k in range(11):
        NFIVE_OF[k] = 0
        for n in range(252):
            if SPLIT_MINE[n][4] < k:
                FIVE_OF[k][NFIVE_OF[k]] = <short> n
                NFIVE_OF[k] += 1


_build_mask_index()


cdef void _build_vector_tables() noexcept:
    cdef int n, e
    for e in range(45):
        for n in range(256):
            rl_pairsub[e][n] = 1 if n < 252 and PAIR_MASK[n] & (1ULL << e) else 0
    for n in range(256):
        rl_v[n] = <short> ((SPLIT_COST[n] << 8) | n) if 0 < n < 252 else 0x7fff
        rl_v0[n] = <short> ((SPLIT_COST[n] << 8) | n) if n < 252 else 0x7fff
        rl_costb[n] = <unsigned char> SPLIT_COST[n] if n < 252 else 99


_build_vector_tables()


cdef void split_cats(const int *pool, unsigned char *buf, unsigned char *rev) noexcept nogil:
    """``category`` of each subset n of a 10-card pool (``SPLIT_MINE`` order) as bytes: ``buf[4 + n]``
    (``buf``: 260 bytes), and ``rev[n]`` that of subset 251 - n, its complement (``rev``: 256 bytes).

    Five cards with equal-rank pairs are ranked by their count (``rl_pair_cats``: one vector pass per
    equal-rank pair of the pool, ``PAIR_CAT``'s values); the others are
    ``none`` unless a straight or a flush, and those are few: a straight takes one card of each of
    five consecutive ranks all in the pool, a flush five cards of one suit holding five or more of
    the pool (all of distinct ranks), so both are listed from the pool's positions by rank and by
    suit and marked (``category``'s answers: straight 4, flush 6, straight flush 8).
    """
    cdef int eq[45]
    cdef int ne = 0
    cdef unsigned int ranks = 0, m0, m1, m2, m3, m4, x0, x1, x2, x3, x4
    cdef int i, j, n, q, k, t
    cdef int r[10]
    cdef int pos[10]
    cdef unsigned int rpos[16]
    cdef unsigned int smask[4]
    cdef const short *sub
    cdef unsigned char *out = buf + 4
    for i in range(4):
        smask[i] = 0
    for i in range(16):
        rpos[i] = 0
    for i in range(10):
        r[i] = pool[i] >> 2
        ranks |= 1u << r[i]
        rpos[r[i]] |= 1u << i
        smask[pool[i] & 3] |= 1u << i
    for i in range(10):
        for j in range(i + 1, 10):
            if r[i] == r[j]:
                eq[ne] = PAIR_BIT[i][j]
                ne += 1
    rl_pair_cats(out, eq, ne)
    for q in range(12):  # ranks q..q+4 all in the pool: one position of each
        if ((ranks >> q) & 31u) != 31u:
            continue
        m0 = rpos[q]
        while m0:
            x0 = m0 & (~m0 + 1u)
            m0 ^= x0
            m1 = rpos[q + 1]
            while m1:
                x1 = m1 & (~m1 + 1u)
                m1 ^= x1
                m2 = rpos[q + 2]
                while m2:
                    x2 = m2 & (~m2 + 1u)
                    m2 ^= x2
                    m3 = rpos[q + 3]
                    while m3:
                        x3 = m3 & (~m3 + 1u)
                        m3 ^= x3
                        m4 = rpos[q + 4]
                        while m4:
                            x4 = m4 & (~m4 + 1u)
                            m4 ^= x4
                            out[MASK_INDEX[x0 | x1 | x2 | x3 | x4]] = 4
    for i in range(4):  # at most two suits of ten cards hold five
        k = rl_popcount(smask[i])
        if k < 5:
            continue
        k = 0
        for j in range(10):
            if smask[i] & (1u << j):
                pos[k] = j
                k += 1
        sub = FIVE_OF[k]
        for t in range(NFIVE_OF[k]):
            n = MASK_INDEX[(1u << pos[SPLIT_MINE[sub[t]][0]]) | (1u << pos[SPLIT_MINE[sub[t]][1]])
                           | (1u << pos[SPLIT_MINE[sub[t]][2]]) | (1u << pos[SPLIT_MINE[sub[t]][3]])
                           | (1u << pos[SPLIT_MINE[sub[t]][4]])]
            out[n] = 8 if out[n] == 4 else 6
    for i in range(4):
        buf[i] = 0
        buf[256 + i] = 0
    rl_reverse256(buf, rev)


cdef void split_costs(const int *hand, const int *robot, int rc, int *own, int *match) noexcept nogil:
    """``_plans.split_costs``: fewest robot swaps to each rank (and to matching the robot's)."""
    cdef int pool[10]
    cdef unsigned char buf[260]
    cdef unsigned char rev[256]
    _pool(hand, robot, pool)
    split_cats(pool, buf, rev)
    rl_split_costs(buf + 4, rev, rc, own, match)


cdef inline bint _decreasing(const double *table, int match_ok) noexcept nogil:
    """Do the scores of classes 2 and 3 (3 only if it can occur) fall strictly with each swap (cost 1 to 5)?"""
    cdef int i
    for i in range(1, 5):
        if not table[12 + i] > table[13 + i]:
            return False
        if match_ok and not table[18 + i] > table[19 + i]:
            return False
    return True


cdef int _first_best(const unsigned char *cats, const unsigned char *rev, int order, int rc, int match_ok,
                     int half_min, const double *table, double best0) noexcept nogil:
    """``opponent_target``'s scan when split 0 keeps the robot's rank and the scores fall with the cost:
    only the order's rank (class 2) and matching the robot's (class 3) can beat split 0, and each
    class's best is its first split of the lowest cost, (cost, n) at its least; split 0 wins ties."""
    cdef int b2, b3, best_n = 0, k
    cdef double best = best0
    rl_first_best(cats, rev, order, rc, match_ok, half_min, &b2, &b3)
    if b2 != 0x7fff:
        k = 12 + (b2 >> 8)
        if table[k] > best:
            best = table[k]
            best_n = b2 & 255
    if b3 != 0x7fff:
        k = 18 + (b3 >> 8)
        if table[k] > best or (table[k] == best and best_n != 0 and (b3 & 255) < best_n):
            best_n = b3 & 255
    return best_n


cdef int opponent_target(const int *hand, const int *robot, int order, int rc, double v_own, double v_match,
                         int half_min, double cont, int *best_cards) noexcept nogil:
    """``_plans.opponent_target``: 1 with the split's five cards in ``best_cards``, 0 to keep.

    ``rc`` is the robot's rank (``category(robot)``). A split's score is a function of its cost and
    class (0: the robot's rank would fall below ``rc``; 1: worth nothing; 2: my rank is the order,
    ``v_own``; 3: it matches the robot's, ``v_match``), so the 24 scores are computed first, in the
    same operations as ``_plans`` (the same doubles), and the scan's answer is the first split of the
    best (class, cost). When split 0 (my hand as it is) keeps the robot's rank, as it does in play,
    classes 0 and 1 cannot beat it, and when the scores fall with the cost each class's best is its
    cheapest first split (``_first_best``); otherwise the first split of each (class, cost) is found in
    one pass from the last. The first best is kept, as ``_plans``' scan keeps it.
    """
    cdef int pool[10]
    cdef unsigned char buf[260]
    cdef unsigned char rev[256]
    cdef const unsigned char *cats = buf + 4
    cdef double table[24]
    cdef unsigned char first[25]
    cdef int i, k, m, n, c, rcat, best_n = 0, valid0, ok, is2, is3, skip
    cdef int match_ok = v_match >= 0
    cdef double disc, best
    _pool(hand, robot, pool)
    if not match_ok and not _may_make(hand, robot, 5, order):
        for i in range(5):  # no split is worth anything: split 0 (keep) is the best
            best_cards[i] = hand[i]
        return 0
    split_cats(pool, buf, rev)
    for i in range(6):
        disc = 1.0 if i == 0 else cont ** (i - 1)
        table[i] = -1.0 - 1e-3 * <double> i
        table[6 + i] = 0.0 * disc - 1e-3 * <double> i
        table[12 + i] = v_own * disc - 1e-3 * <double> i
        table[18 + i] = v_match * disc - 1e-3 * <double> i
    m = cats[0]
    rcat = rev[0]
    valid0 = rc == 0 or rcat >= rc
    c = 2 if m == order else (3 if match_ok and m == rcat and m >= half_min else 1)
    best = table[6 * c * valid0]  # cost 0
    if valid0 and _decreasing(table, match_ok):
        best_n = _first_best(cats, rev, order, rc, match_ok, half_min, table, best)
        if best_n:
            best = table[6 * (2 if cats[best_n] == order else 3) + SPLIT_COST[best_n]]
    else:
        # Class 0 and 1 left out (key 24) when split 0 keeps the robot's rank: they score under it.
        for k in range(25):
            first[k] = 255
        for n in range(251, 0, -1):
            m = cats[n]
            rcat = rev[n]
            ok = (rc == 0) | (rcat >= rc)
            is2 = m == order
            is3 = match_ok & (m == rcat) & (m >= half_min)
            c = ok * (1 + is2 + 2 * (is3 & (1 - is2)))
            skip = valid0 & (c < 2)
            first[skip * 24 + (1 - skip) * (6 * c + SPLIT_COST[n])] = <unsigned char> n
        for k in range(24):  # the scan keeps the first strictly better split: split 0 wins its ties
            if first[k] == 255:
                continue
            if table[k] > best:
                best = table[k]
                best_n = first[k]
            elif table[k] == best and best_n != 0 and first[k] < best_n:
                best_n = first[k]
    for i in range(5):
        best_cards[i] = pool[SPLIT_MINE[best_n][i]]
    return not (SPLIT_COST[best_n] == 0 or best <= 0)


# COMBS[k][i]: the i-th k-subset of positions 0..4 in ``itertools.combinations`` order (NCOMB[k] of them).
cdef int COMBS[6][10][5]
cdef int NCOMB[6]


cdef void _build_combs() noexcept:
    cdef int k, m, i, n
    for k in range(6):  # each k-subset once, then sorted into combinations (lexicographic) order
        n = 0
        for m in range(32):
            if rl_popcount(m) != k:
                continue
            i = n
            while i > 0 and _comb_after(COMBS[k][i - 1], m, k):
                COMBS[k][i] = COMBS[k][i - 1]
                i -= 1
            _comb_set(COMBS[k][i], m)
            n += 1
        NCOMB[k] = n


cdef void _comb_set(int *out, int m) noexcept:
    cdef int i, n = 0
    for i in range(5):
        if m & (1 << i):
            out[n] = i
            n += 1


cdef bint _comb_after(const int *a, int m, int k) noexcept:
    """Does the subset ``a`` come after the subset of mask ``m`` (both of ``k`` positions)?"""
    cdef int b[5]
    cdef int i
    _comb_set(b, m)
    for i in range(k):
        if a[i] != b[i]:
            return a[i] > b[i]
    return False


_build_combs()


cdef inline double _price(int cost, int nfor) noexcept nogil:
    """A plan's price: its cards not from my hand, plus 0.01 per card of the ``for`` hand."""
    return <double> cost + 0.01 * <double> nfor


cdef bint _may_make(const int *hand, const int *other, int n_other, int order) noexcept nogil:
    """Could five of hand + ``other[:n_other]`` be of rank ``order``? False only when none can: the
    rank's cards are not there (two of a rank for a pair, two such ranks for two pairs, three of a rank,
    five consecutive ranks, three of a rank and two of another, five of a suit, four of a rank, five
    consecutive ranks of one suit)."""
    cdef int cnt[16]
    cdef int suits[4]
    cdef unsigned int ranks = 0
    cdef unsigned int sranks[4]
    cdef int i, c, n2 = 0, n3 = 0, n4 = 0
    for i in range(16):
        cnt[i] = 0
    for i in range(4):
        suits[i] = 0
        sranks[i] = 0
    for i in range(5 + n_other):
        c = hand[i] if i < 5 else other[i - 5]
        cnt[c >> 2] += 1
        suits[c & 3] += 1
        ranks |= 1u << (c >> 2)
        sranks[c & 3] |= 1u << (c >> 2)
    for i in range(16):
        n2 += cnt[i] >= 2
        n3 += cnt[i] >= 3
        n4 += cnt[i] >= 4
    if order == 1:
        return n2 >= 1
    if order == 2:
        return n2 >= 2
    if order == 3:
        return n3 >= 1
    if order == 4:
        return (ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)) != 0
    if order == 5:
        return n3 >= 1 and n2 >= 2
    if order == 6:
        return suits[0] >= 5 or suits[1] >= 5 or suits[2] >= 5 or suits[3] >= 5
    if order == 7:
        return n4 >= 1
    if order == 8:
        for i in range(4):
            if (sranks[i] & (sranks[i] >> 1) & (sranks[i] >> 2) & (sranks[i] >> 3) & (sranks[i] >> 4)) != 0:
                return True
        return False
    return True


cdef int _plan_level(const int *hand, const int *robot, const int *fo, int c, int f, int order,
                     int *best_cards) noexcept nogil:
    """The first five-card subset of rank ``order`` of ``5 - c`` hand cards, ``c - f`` robot cards and ``f``
    ``for`` cards, each part in combinations order: 1 with its cards in ``best_cards``, else 0."""
    cdef int cards[5]
    cdef int h = 5 - c, rb = c - f, ih, ir, jf, k
    for ih in range(NCOMB[h]):
        for k in range(h):
            cards[k] = hand[COMBS[h][ih][k]]
        for ir in range(NCOMB[rb]):
            for k in range(rb):
                cards[h + k] = robot[COMBS[rb][ir][k]]
            for jf in range(NCOMB[f]):
                for k in range(f):
                    cards[h + rb + k] = fo[COMBS[f][jf][k]]
                if category(cards) == order:
                    for k in range(5):
                        best_cards[k] = cards[k]
                    return 1
    return 0


cdef int cheapest_plan(const int *hand, const int *other, int n_other, int order, double *price,
                       int *best_cards) noexcept nogil:
    """``_plans.cheapest_plan`` over hand + ``n_other`` (5 or 10) face-up cards: 1 if a plan exists.

    ``_plans`` takes the first (in ``itertools.combinations`` order over hand, robot, ``for`` hand)
    of the five-card subsets of the order's rank with the lowest price. A price is its number of
    cards not from my hand (``cost``), plus 0.01 per ``for`` card (``nfor``), so prices order as
    (cost, nfor) do: the subsets are visited one (cost, nfor) at a time from the cheapest, each level
    as hand cards x robot cards x ``for`` cards in combinations order (that is the combinations order of
    the level's subsets, whose positions all read hand < robot < ``for``); the first of the rank is it.
    The levels without ``for`` cards are the splits of hand + robot, in their order within a level: their
    ranks come from ``split_cats`` and the cheapest first of the order's rank from one vector pass
    (``rl_first_rank``); only the levels with ``for`` cards below its cost are visited one by one.
    """
    cdef int pool[10]
    cdef unsigned char buf[260]
    cdef unsigned char rev[256]
    cdef int c, f, i, b = 0x7fff, c0 = 6, fmax = 5 if n_other == 10 else 0
    price[0] = 0.0
    if not _may_make(hand, other, n_other, order):
        return 0  # what the whole search would find
    if n_other == 5 or _may_make(hand, other, 5, order):
        _pool(hand, other, pool)
        split_cats(pool, buf, rev)
        b = rl_first_rank(buf + 4, order)
        if b != 0x7fff:
            c0 = b >> 8
    for c in range(1, c0 if fmax else 1):  # the levels with ``for`` cards before (c0, 0)
        for f in range(1, min(c, fmax) + 1):
            if _plan_level(hand, other, other + 5, c, f, order, best_cards):
                price[0] = _price(c, f)
                return 1
    if b == 0x7fff:
        return 0
    for i in range(5):
        best_cards[i] = pool[SPLIT_MINE[b & 255][i]]
    price[0] = _price(c0, 0)
    return 1


cdef inline unsigned int reach_bits(const int *hand, const int *rob) noexcept nogil:
    """Bit ``category`` of ``hand`` and of each hand with card i replaced by robot card j (25 of them).

    The hand's ranks are counted once (a nibble per rank); the four cards kept at each i then have
    ``pairs - count(rank i) + 1`` equal-rank pairs, and with robot card j ``count(rank j) - (rank i ==
    rank j)`` more: a positive count gives the rank as ``category`` does, and five distinct ranks are a
    straight when consecutive and a flush when the robot card has the suit the four share.
    """
    cdef int r[5]
    cdef int su[5]
    cdef int rq[5]
    cdef int i, j, k, q, pairs = 0, base, p, fs, straight, flush, ci
    cdef unsigned long long cnt = 0, scnt = 0
    cdef unsigned int hit = 1u << category(hand), hm = 0, rm, m
    for k in range(5):
        r[k] = hand[k] >> 2
        su[k] = hand[k] & 3
        rq[k] = rob[k] >> 2
        cnt += 1ULL << (4 * r[k])
        scnt += 1ULL << (8 * su[k])
        hm |= 1u << r[k]
    for k in range(5):
        pairs += <int> ((cnt >> (4 * r[k])) & 15u)
    pairs = (pairs - 5) // 2  # each card counts the cards of its rank, itself included
    for i in range(5):
        ci = <int> ((cnt >> (4 * r[i])) & 15u)
        base = pairs - ci + 1
        rm = hm & ~((<unsigned int> (ci == 1)) << r[i])  # the four's ranks
        fs = su[1] if i == 0 else su[0]
        if <int> ((scnt >> (8 * fs)) & 255u) - (su[i] == fs) != 4:
            fs = -1
        for j in range(5):
            q = rq[j]
            p = base + <int> ((cnt >> (4 * q)) & 15u) - (r[i] == q)
            if p:
                hit |= 1u << PAIR_CAT[p]
            else:
                m = rm | (1u << q)
                straight = m == (m & (~m + 1u)) * 31u
                flush = fs == (rob[j] & 3)
                hit |= 1u << (4 * straight + 6 * flush - 2 * (straight & flush))
    return hit


cdef void one_swap_reach(const int *unknown, int n, const int *rob, const uint64_t *keys, int samples,
                         double *out) noexcept nogil:
    """``_plans.one_swap_reach`` over a C array of keys (``samples`` rows of ``n``, each key the bits of
    its double, ``rl_bits``): a row's hand is the five cards of its smallest keys (``rl_pick_five``;
    ``reach_bits`` does not depend on their order)."""
    cdef int s, i
    cdef int hand[5]
    cdef int pick[5]
    cdef long counts[9]
    cdef unsigned int hit
    cdef uint64_t thr = rl_bits(0.35)  # about 9 of 26 keys are below it
    for i in range(9):
        counts[i] = 0
    for s in range(samples):
        rl_pick_five(keys + s * n, n, thr, pick)
        for i in range(5):
            hand[i] = unknown[pick[i]]
        hit = reach_bits(hand, rob)
        for i in range(9):
            counts[i] += (hit >> i) & 1u
    for i in range(9):
        out[i] = <double> counts[i] / <double> samples


cdef inline int index_of(const int *cards, int card) noexcept nogil:
    cdef int i
    for i in range(5):
        if cards[i] == card:
            return i
    return -1


cdef inline int holds(const int *cards, int n, int card) noexcept nogil:
    cdef int i
    for i in range(n):
        if cards[i] == card:
            return 1
    return 0


cdef int apply_encoded(Deal *d, const int *a) noexcept nogil:
    """Apply an action given as (code, give, take, source, seat) (``montecarlo.encode``); -1 if it
    cannot be the seat to act's (another seat's, or a swap of cards not where it says)."""
    cdef int s = d.turn, i, j
    cdef const int *src
    if d.phase == OVER or a[4] != s:
        return -1
    if a[0] < K_SWAP:
        apply(d, a[0])
        return 0
    src = &d.robot[0] if a[3] < 0 else &d.hands[a[3]][0]
    i = index_of(d.hands[s], a[1])
    j = index_of(src, a[2])
    if i < 0 or j < 0:
        return -1
    apply(d, K_SWAP + 25 * (a[3] + 1) + 5 * i + j)
    return 0


cdef int rebuild(Deal *d, int n, int dealer, int max_rounds, const int *actions, int na) noexcept nogil:
    """``d`` holds the cards now: undo the public swaps (last first), start the deal as dealt and replay
    every public action (``montecarlo.sample_state``'s way); -1 if they do not fit the cards."""
    cdef int k, i, j
    cdef int *hand
    cdef int *src
    cdef const int *a
    for k in range(na - 1, -1, -1):
        a = &actions[5 * k]
        if a[0] >= K_SWAP:
            hand = &d.hands[a[4]][0]
            src = &d.robot[0] if a[3] < 0 else &d.hands[a[3]][0]
            i = index_of(hand, a[2])
            j = index_of(src, a[1])
            if i < 0 or j < 0:
                return -1
            hand[i] = a[1]
            src[j] = a[2]
    start(d, n, dealer, max_rounds)
    for k in range(na):
        if apply_encoded(d, &actions[5 * k]) < 0:
            return -1
    return 0


cdef void score(const Deal *d, int dealer, int half_min, int *out) noexcept nogil:
    """``scoring.score_deal`` (OP-4, OP-7) of a finished deal."""
    cdef int cats[6]
    cdef int i, any_score = 0, s = d.nbids, h = (d.nbids + 1) // 2, fors = 0, for_fulfilled = 0
    cdef int o = d.orderer
    for i in range(d.n):
        cats[i] = category(d.hands[i])
        out[i] = 0
    if o < 0:  # OP-4
        for i in range(d.n):
            if cats[i] >= 1:
                out[i] = -1
                any_score = 1
        if d.robot_cat < 1 and not any_score:
            out[dealer] = -1
        return
    for i in range(d.n):
        if d.roles[i] == 1:
            fors += 1
            if cats[i] == d.order:
                for_fulfilled = 1
    if cats[o] != d.order:
        out[o] = -1
    elif not fors:
        out[o] = h
    elif for_fulfilled:
        out[o] = s
    else:
        out[o] = 1
    for i in range(d.n):
        if d.roles[i] == 1:
            if cats[o] == d.order:
                if cats[i] == d.order:
                    out[i] = s
                elif d.partner == i:
                    out[i] = 1
        elif d.roles[i] == 2:
            if cats[i] == d.order:
                out[i] = s
            elif cats[i] == d.robot_cat and cats[i] >= half_min:
                out[i] = h


cdef class Rollouts:
    """``HeuristicBot`` at every seat of a play-out, with each seat's bidding cache (see the module doc).

    ``loss``, ``cont``, ``p_ord``, ``spite``, ``threshold``, ``samples``: the ``HeuristicBot`` fields of
    the same names (``loss`` is ``2 * (1 - risk)``).
    """

    cdef double loss, cont, p_ord, spite, threshold
    cdef int samples
    cdef int has_key[6]
    cdef int key[6][10]
    cdef int dist[6][9]
    cdef double opp[6][9]
    cdef uint64_t *keys  # the bidding's sampled keys, as the bits of their doubles
    cdef int half_min
    cdef int dealer
    cdef OppMemo *opp_memo
    cdef PlanMemo *plan_memo
    cdef object gen  # the play-out generator, re-seeded in place (see _check_direct)
    cdef bint direct
    cdef bitgen_t *gen_bg  # gen's bit generator when direct (its draws made in C), else NULL

    def __cinit__(self, double loss, double cont, double p_ord, double spite, double threshold, int samples,
                  bint seed_in_c=True):
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.loss = loss
        self.cont = cont
        self.p_ord = p_ord
        self.spite = spite
        self.threshold = threshold
        self.samples = samples
        for i in range(6):
            self.has_key[i] = 0
        self.keys = <uint64_t *> malloc(sizeof(uint64_t) * max(samples * 26, 40))
        self.opp_memo = <OppMemo *> calloc(MEMO, sizeof(OppMemo))
        self.plan_memo = <PlanMemo *> calloc(MEMO, sizeof(PlanMemo))
        if self.keys == NULL or self.opp_memo == NULL or self.plan_memo == NULL:
            raise MemoryError()
        self.gen = np.random.Generator(np.random.PCG64(0))
        self.direct = seed_in_c and self._check_direct()  # False: numpy's own generators (tests compare)
        self.gen_bg = NULL
        if self.direct:
            self.gen_bg = <bitgen_t *> PyCapsule_GetPointer(self.gen.bit_generator.capsule, "BitGenerator")

    def _check_direct(self):
        """Does seeding ``gen`` in C give ``default_rng(seed)``'s state, and do save and restore keep it?

        numpy documents the algorithms, not the C layout of PCG64's state: if a numpy changes it, the
        play-outs take ``default_rng(seed)`` and the Python state API instead (slower, the same draws).
        """
        cdef bitgen_t *bg
        cdef rl_saved saved
        if type(self.gen.bit_generator) is not np.random.PCG64:
            return False
        bg = <bitgen_t *> PyCapsule_GetPointer(self.gen.bit_generator.capsule, "BitGenerator")
        for seed in (0, 1, 12345, (1 << 32) - 1, 1 << 32, (1 << 62) - 1, 3141592653589793238):
            ref = np.random.default_rng(seed)
            rl_pcg_seed(bg.state, seed)
            if self.gen.bit_generator.state != ref.bit_generator.state:
                return False
            rl_pcg_save(bg.state, &saved)
            self.gen.random(3)
            ref.random(3)
            if self.gen.bit_generator.state != ref.bit_generator.state:
                return False
            rl_pcg_restore(bg.state, &saved)
            if self.gen.bit_generator.state != np.random.default_rng(seed).bit_generator.state:
                return False
            ref = np.random.default_rng(seed)
            want = ref.random(40)
            rl_pcg_doubles(bg.state, self.keys, 40)
            if [self.keys[i] for i in range(40)] != [rl_bits(x) for x in want.tolist()]:
                return False
            if self.gen.bit_generator.state != ref.bit_generator.state:
                return False
        return True

    @property
    def direct_seeding(self):
        """True when play-out generators are seeded and restored in C (``_check_direct``)."""
        return bool(self.direct)

    def __reduce__(self):
        """Pickled with its parameters and each seat's bidding cache (what later draws depend on); the
        memo tables are caches of pure functions and start empty."""
        caches = [(bool(self.has_key[s]), [self.key[s][i] for i in range(10)], [self.dist[s][i] for i in range(9)],
                   [self.opp[s][i] for i in range(9)]) for s in range(6)]
        return (Rollouts, (self.loss, self.cont, self.p_ord, self.spite, self.threshold, self.samples,
                           bool(self.direct)), caches)

    def __setstate__(self, caches):
        for s in range(6):
            has, key, dist, opp = caches[s]
            self.has_key[s] = has
            for i in range(10):
                self.key[s][i] = key[i]
            for i in range(9):
                self.dist[s][i] = dist[i]
                self.opp[s][i] = opp[i]

    def __dealloc__(self):
        free(self.keys)
        free(self.opp_memo)
        free(self.plan_memo)

    cdef int target(self, const int *hand, const int *robot, int order, int rc, int stake, bint against,
                    int *cards) noexcept nogil:
        """``opponent_target`` through the memo table (the same result)."""
        cdef int key[OPP_KEY]
        cdef int i
        cdef unsigned int h
        cdef OppMemo *e
        for i in range(5):
            key[i] = hand[i]
            key[5 + i] = robot[i]
        key[10] = order
        key[11] = stake
        key[12] = against
        key[13] = self.half_min
        h = memo_slot(key, OPP_KEY)
        e = &self.opp_memo[h]
        if not (e.used and same_key(e.key, key, OPP_KEY)):
            e.used = 1
            for i in range(OPP_KEY):
                e.key[i] = key[i]
            e.found = opponent_target(hand, robot, order, rc, <double> stake * (1.0 if against else self.p_ord),
                                      <double> ((stake + 1) // 2) if against else -1.0, self.half_min,
                                      self.cont, e.cards)
        for i in range(5):
            cards[i] = e.cards[i]
        return e.found

    cdef int plan(self, const int *hand, const int *other, int n_other, int order, double *price,
                  int *cards) noexcept nogil:
        """``cheapest_plan`` through the memo table (the same result)."""
        cdef int key[PLAN_KEY]
        cdef int i
        cdef unsigned int h
        cdef PlanMemo *e
        for i in range(5):
            key[i] = hand[i]
        for i in range(10):
            key[5 + i] = other[i] if i < n_other else 0
        key[15] = n_other
        key[16] = order
        h = memo_slot(key, PLAN_KEY)
        e = &self.plan_memo[h]
        if not (e.used and same_key(e.key, key, PLAN_KEY)):
            e.used = 1
            for i in range(PLAN_KEY):
                e.key[i] = key[i]
            e.found = cheapest_plan(hand, other, n_other, order, &e.price, e.cards)
        price[0] = e.price
        for i in range(5):
            cards[i] = e.cards[i]
        return e.found

    cdef inline double reach(self, int d, bint first) noexcept nogil:
        cdef double p
        if d == 0:
            return 1.0
        if d >= FAR:
            return 0.0
        p = pow(self.cont, <double> (d - 1))
        return p if first else p * 0.8

    cdef int bid(self, const Deal *d, const int *aux, int n, bitgen_t *bg) noexcept nogil:
        """``HeuristicBot._bid`` (OP-3)."""
        cdef int s = d.turn, i, k, c, m = 0, stake, gain, mine, best
        cdef int unknown[36]
        cdef int match[9]
        cdef const int *hand = d.hands[s]
        cdef const int *robot = d.robot
        cdef double ev_pass = 0.0, best_ev, p, ev
        cdef bint same = self.has_key[s]
        if same:
            for i in range(5):
                if self.key[s][i] != hand[i] or self.key[s][5 + i] != robot[i]:
                    same = False
                    break
        if not same:  # hand and robot do not change during the bidding: priced once per seat
            split_costs(hand, robot, 0, self.dist[s], match)
            for c in range(16, 52):
                if not holds(hand, 5, c) and not holds(robot, 5, c):
                    unknown[m] = c
                    m += 1
            if bg == self.gen_bg:  # Generator.random((samples, m)): row-major next_double
                rl_pcg_doubles(bg.state, self.keys, self.samples * m)
            else:
                for i in range(self.samples * m):
                    self.keys[i] = rl_bits(bg.next_double(bg.state))
            one_swap_reach(unknown, m, robot, self.keys, self.samples, self.opp[s])
            for i in range(5):
                self.key[s][i] = hand[i]
                self.key[s][5 + i] = robot[i]
            self.has_key[s] = 1
        stake = d.nbids + 1
        gain = (stake + 1) // 2
        mine = category(hand)
        if d.n_in == 1 and d.nbids == 0:  # OP-3.3/OP-4: passing ends the deal
            if mine >= 1:
                ev_pass = -1.0
            elif self.dealer == s and d.robot_cat == 0:
                ev_pass = -0.5
        best = aux[0]
        best_ev = ev_pass + self.threshold
        for k in range(1, n):
            c = aux[k]
            if c == 1:
                p = 1.0 if self.dist[s][c] == 0 else 0.0
            else:
                p = self.reach(self.dist[s][c], True)
            ev = (p * gain - (1.0 - p) * self.loss
                  - self.spite * self.opp[s][c] * <double> stake * <double> (d.n - 1) / 2.0)
            if ev > best_ev:
                best = c
                best_ev = ev
        return best

    cdef int role(self, const Deal *d) noexcept nogil:
        """``HeuristicBot._role`` (OP-5)."""
        cdef int s = d.turn, c = d.order, stake = d.nbids, h = (d.nbids + 1) // 2, rc = d.robot_cat, mine, i
        cdef int own[9]
        cdef int match[9]
        cdef int d_me, d_match = FAR
        cdef double p_me, p_match, ev_against, ev_for
        cdef bint any_for = False
        if c == 1:  # OP-6.1: no exchange on `pair`
            mine = category(d.hands[s])
            return K_AGAINST if mine == 1 or (mine == rc and mine >= self.half_min) else K_FOR
        split_costs(d.hands[s], d.robot, rc, own, match)
        d_me = own[c]
        for i in range(self.half_min, 9):
            if match[i] < d_match:
                d_match = match[i]
        p_me = self.reach(d_me, False)
        p_match = self.reach(d_match, False)
        ev_against = p_me * stake + (1 - p_me) * p_match * h
        ev_for = self.p_ord * (p_me * stake + (1 - p_me) * 0.25)
        for i in range(d.n):
            if d.roles[i] == 1:
                any_for = True
        if not any_for:
            ev_for += self.spite * self.p_ord * (h - 1) * (1 - p_me)
        return K_FOR if ev_for > ev_against else K_AGAINST

    cdef bint for_may_fulfil(self, const Deal *d) noexcept nogil:
        """``HeuristicBot._for_may_fulfil``: an open ``for`` hand holds the order or could with one swap."""
        cdef int f, i, j, k, rc = d.robot_cat, c = d.order
        cdef int mine[5]
        cdef int rob[5]
        if d.round >= d.max_rounds:
            return False
        for f in range(d.n):
            if d.roles[f] != 1:
                continue
            if category(d.hands[f]) == c:
                return False
            for i in range(5):
                for j in range(5):
                    for k in range(5):
                        mine[k] = d.hands[f][k]
                        rob[k] = d.robot[k]
                    mine[i] = d.robot[j]
                    rob[j] = d.hands[f][i]
                    if category(mine) == c and (rc == 0 or category(rob) >= rc):
                        return True
        return False

    cdef int orderer(self, const Deal *d) noexcept nogil:
        """``HeuristicBot._orderer`` (OP-6, the orderer)."""
        cdef int s = d.turn, c = d.order, src, f, i, j, give = -1, take = -1, best_src = -2, found = 0
        cdef const int *hand = d.hands[s]
        cdef int other[10]
        cdef int cards[5]
        cdef int target[5]
        cdef double price, best = 0.0
        if category(hand) == c:
            if d.round >= 2 and not self.for_may_fulfil(d):
                return K_STOP
            return K_KEEP
        for f in range(-1, d.n):
            if f >= 0 and not (d.roles[f] == 1 and (d.partner == -1 or d.partner == f)):
                continue
            for i in range(5):
                other[i] = d.robot[i]
                if f >= 0:
                    other[5 + i] = d.hands[f][i]
            if self.plan(hand, other, 5 if f < 0 else 10, c, &price, cards):
                if not found or price < best:
                    found = 1
                    best = price
                    best_src = f
                    for i in range(5):
                        target[i] = cards[i]
        if not found:
            return K_KEEP
        for i in range(5):
            if not holds(target, 5, hand[i]):
                give = hand[i]
                break
        for i in range(5):  # the first wanted card the robot holds, else the first wanted
            if not holds(hand, 5, target[i]):
                if take < 0:
                    take = target[i]
                if holds(d.robot, 5, target[i]):
                    take = target[i]
                    break
        if holds(d.robot, 5, take):
            src = -1
        else:
            src = best_src
            if not (d.is_open and (d.partner == src or (d.partner < 0 and d.roles[src] == 1))):
                return K_KEEP  # not legal (cannot happen: the plan's source is a usable `for` hand)
        i = index_of(hand, give)
        j = index_of(d.robot, take) if src < 0 else index_of(d.hands[src], take)
        return K_SWAP + 25 * (src + 1) + 5 * i + j

    cdef int opponent(self, const Deal *d) noexcept nogil:
        """``HeuristicBot._opponent`` (OP-6, a non-orderer): keep, or the first legal robot swap (in
        ``State.legal_actions`` order) that gives a card outside the target and takes one in it. Only
        the swaps that qualify are checked against OP-6.5 (the same answer as listing the legal ones
        first; ``target`` is a pure function, so asking it when no swap is legal changes nothing)."""
        cdef int s = d.turn, stake = d.nbids, k, i, j
        cdef int target[5]
        if not self.target(d.hands[s], d.robot, d.order, d.robot_cat, stake, d.roles[s] == 2, target):
            return K_KEEP
        for k in range(25):  # (hand card, robot card) order, as count_legal lists them
            i = k // 5
            j = k % 5
            if (not holds(target, 5, d.hands[s][i]) and holds(target, 5, d.robot[j])
                    and robot_swap_ok(d, s, i, j)):
                return K_SWAP + k
        return K_KEEP

    cdef int choose(self, Deal *d, bitgen_t *bg) noexcept nogil:
        cdef int aux[MAX_LEGAL]
        cdef int n
        if d.phase == EXCHANGE and d.turn != d.orderer:
            return self.opponent(d)
        n = count_legal(d, aux)
        if n == 1:
            return legal_at(d, aux, 0)
        if d.phase == BIDDING:
            return self.bid(d, aux, n, bg)
        if d.phase == ROLES:
            return self.role(d)
        return self.orderer(d)

    cdef void play_sample(self, Deal *base, uint64_t seed, bitgen_t *bg, const int *candidates, int nc, int me,
                          int dealer, int half_min, double *totals) noexcept nogil:
        """Every candidate played out from ``base`` with ``default_rng(seed)`` (seeded in C), ``me``'s
        score added to ``totals``; a candidate that does not apply (cannot happen) scores nothing."""
        cdef Deal d
        cdef int k
        cdef int sc[6]
        cdef rl_saved fresh
        rl_pcg_seed(bg.state, seed)
        rl_pcg_save(bg.state, &fresh)
        for k in range(nc):
            if k:
                rl_pcg_restore(bg.state, &fresh)  # the same play-out randomness for every candidate
            d = base[0]
            if apply_encoded(&d, &candidates[5 * k]) < 0:
                continue
            while d.phase != OVER:
                apply(&d, self.choose(&d, bg))
            score(&d, dealer, half_min, sc)
            totals[k] += sc[me]

    def sample_totals(self, rng, int samples, known, hidden, pool, robot, int dealer, int max_rounds,
                      int half_min, const int[::1] actions, const int[::1] candidates, int me, double[::1] totals):
        """``MonteCarloBot``'s sampling loop in C: ``samples`` deals drawn with ``rng``, each played out.

        Per sample, the draws of the readable loop (``montecarlo.draw_hands`` and the play-out seed):
        ``rng.permutation(len(pool))`` (numpy's shuffle: ``random_interval`` from the last position
        down), then ``rng.integers(1 << 62)`` (Lemire's bounded draw, which for a power of two is the
        top 62 bits of one ``next_uint64``). ``known``: each seat's hand in view or None; ``hidden``:
        (seat, known cards, how many to draw) of the others, in seat order (``montecarlo.Layout``).
        Needs the in-place seeding (``direct_seeding``); ``tests/test_order_poker_rollout.py`` checks
        the decisions and ``rng``'s state afterwards against the readable loop.
        """
        cdef Deal base
        cdef int n = len(known), npool = len(pool), s, i, k, t, need, smp, nh = len(hidden)
        cdef int nc = candidates.shape[0] // 5
        cdef int pool_c[36]
        cdef int perm[36]
        cdef int robot_c[5]
        cdef int hid_seat[6]
        cdef int hid_need[6]
        cdef int hid_known[6][5]
        cdef int fixed[6][5]
        cdef int is_fixed[6]
        cdef uint64_t seed
        cdef bitgen_t *rg
        cdef bitgen_t *bg
        if not self.direct:
            raise RuntimeError("sample_totals needs the in-place seeding of numpy's PCG64 (direct_seeding)")
        if n < 3 or n > 6 or npool > 36 or totals.shape[0] < nc or not 0 <= me < n:
            raise ValueError("3 to 6 seats, at most 36 unseen cards, one total per candidate")
        for i in range(npool):
            pool_c[i] = pool[i]
        for i in range(5):
            robot_c[i] = robot[i]
        for s in range(n):
            is_fixed[s] = known[s] is not None
            if is_fixed[s]:
                for i in range(5):
                    fixed[s][i] = known[s][i]
        for t in range(nh):
            seat, mine, need = hidden[t]
            hid_seat[t] = seat
            hid_need[t] = need
            for i in range(5 - need):
                hid_known[t][i] = mine[i]
        self.half_min = half_min
        self.dealer = dealer
        rg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        bg = <bitgen_t *> PyCapsule_GetPointer(self.gen.bit_generator.capsule, "BitGenerator")
        with rng.bit_generator.lock:
            for smp in range(samples):
                permute(rg, perm, npool)  # rng.permutation(npool)
                for s in range(n):
                    if is_fixed[s]:
                        for i in range(5):
                            base.hands[s][i] = fixed[s][i]
                k = 0
                for t in range(nh):
                    for i in range(5 - hid_need[t]):
                        base.hands[hid_seat[t]][i] = hid_known[t][i]
                    for i in range(hid_need[t]):
                        base.hands[hid_seat[t]][5 - hid_need[t] + i] = pool_c[perm[k]]
                        k += 1
                seed = rg.next_uint64(rg.state) >> 2  # integers(1 << 62)
                for i in range(5):
                    base.robot[i] = robot_c[i]
                if rebuild(&base, n, dealer, max_rounds, &actions[0], actions.shape[0] // 5) < 0:
                    raise ValueError("the public actions do not apply to a sampled deal")
                with nogil:
                    self.play_sample(&base, seed, bg, &candidates[0], nc, me, dealer, half_min, &totals[0])

    def add_totals(self, seed, hands, robot, int dealer, int max_rounds, int half_min, const int[::1] actions,
                   const int[::1] candidates, int me, double[::1] totals):
        """Add ``me``'s play-out score of each candidate to ``totals`` (one sampled deal).

        ``hands``/``robot``: the sampled cards now (after the public swaps); ``actions``: every public
        action so far, ``candidates``: the actions to try, each as five ints (``montecarlo.encode``).
        The deal as dealt is the cards with the swaps undone (last first); every candidate is played
        out with a fresh ``default_rng(seed)`` (``seed``: 0 to 2**64 - 1), as the readable bot does.
        Without ``direct_seeding`` the generator is numpy's own, its state restored through Python.
        """
        cdef Deal base, d
        cdef int n = len(hands), s, i, k, nc = candidates.shape[0] // 5
        cdef int sc[6]
        cdef bitgen_t *bg
        if n < 3 or n > 6 or totals.shape[0] < nc or not 0 <= me < n:
            raise ValueError("3 to 6 hands, a seat of them, and one total per candidate")
        for s in range(n):
            h = hands[s]
            for i in range(5):
                base.hands[s][i] = h[i]
        for i in range(5):
            base.robot[i] = robot[i]
        if rebuild(&base, n, dealer, max_rounds, &actions[0], actions.shape[0] // 5) < 0:
            raise ValueError("the public actions do not apply to the sampled deal")
        for k in range(nc):
            d = base
            if apply_encoded(&d, &candidates[5 * k]) < 0:
                raise ValueError(f"candidate {k} does not apply to the sampled deal")
        self.half_min = half_min
        self.dealer = dealer
        cdef uint64_t seed_c = seed
        if self.direct:
            bg = <bitgen_t *> PyCapsule_GetPointer(self.gen.bit_generator.capsule, "BitGenerator")
            with nogil:
                self.play_sample(&base, seed_c, bg, &candidates[0], nc, me, dealer, half_min, &totals[0])
            return
        gen = np.random.default_rng(seed)
        bg = <bitgen_t *> PyCapsule_GetPointer(gen.bit_generator.capsule, "BitGenerator")
        saved = gen.bit_generator.state
        for k in range(nc):
            if k:
                gen.bit_generator.state = saved  # the same play-out randomness for every candidate
            d = base
            apply_encoded(&d, &candidates[5 * k])
            with gen.bit_generator.lock:
                with nogil:
                    while d.phase != OVER:
                        apply(&d, self.choose(&d, bg))
            score(&d, dealer, half_min, sc)
            totals[k] += sc[me]


# ---------------------------------------------------------------- whole deals of a job's table
# The fast path ``order-poker/c-table`` (``playout.py``): heuristic seats decide by ``Rollouts.choose``
# and random seats by ``RandomBot.act``'s draws, all from the job's one generator in play order, as
# the runner's ``view -> act -> apply`` loop does. ``Rollouts.seat_cache``/``set_seat_cache`` carry a
# ``HeuristicBot``'s bidding cache in and out, so its draws happen exactly when the bot's would.

cdef inline int table_choose(Rollouts pol, Deal *d, const int *heur, const double *pp, const double *kp,
                             bitgen_t *bg) noexcept nogil:
    cdef int aux[MAX_LEGAL]
    cdef int s = d.turn, m
    if heur[s]:
        return pol.choose(d, bg)
    m = count_legal(d, aux)
    return legal_at(d, aux, random_choice(d, m, pp[s], kp[s], bg))


cdef bitgen_t *table_start(Rollouts pol, Deal *d, rng, hands, robot, int dealer, int max_rounds, int half_min,
                           heuristic, pass_prob, keep_prob, int *heur, double *pp, double *kp) except NULL:
    cdef int n = len(hands), i, s
    if n < 3 or n > 6 or len(heuristic) != n:
        raise ValueError("3 to 6 hands, and one heuristic flag per seat")
    for s in range(n):
        h = hands[s]
        for i in range(5):
            d.hands[s][i] = h[i]
        heur[s] = 1 if heuristic[s] else 0
        pp[s] = 0.0 if heur[s] else pass_prob[s]
        kp[s] = -1.0 if heur[s] or keep_prob[s] is None else keep_prob[s]
    for i in range(5):
        d.robot[i] = robot[i]
    start(d, n, dealer, max_rounds)
    pol.half_min = half_min
    pol.dealer = dealer
    return <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")


def seat_cache(Rollouts pol, int s):
    """Seat ``s``'s bidding cache: ``(key, dist, opp)`` (``HeuristicBot._bid_key`` and ``_bid_info``'s
    lists), or None when the seat has priced nothing."""
    if not 0 <= s < 6:
        raise ValueError("seat must be in 0..5")
    if not pol.has_key[s]:
        return None
    return (tuple([pol.key[s][i] for i in range(10)]), [pol.dist[s][i] for i in range(9)],
            [pol.opp[s][i] for i in range(9)])


def set_seat_cache(Rollouts pol, int s, key, dist, opp):
    """Give seat ``s`` a ``HeuristicBot``'s bidding cache (``key`` empty: none)."""
    cdef int i
    if not 0 <= s < 6:
        raise ValueError("seat must be in 0..5")
    if len(key) != 10:
        pol.has_key[s] = 0
        return
    for i in range(10):
        pol.key[s][i] = key[i]
    for i in range(9):
        pol.dist[s][i] = dist[i]
        pol.opp[s][i] = opp[i]
    pol.has_key[s] = 1


def play_table(Rollouts pol, rng, hands, robot, int dealer, int max_rounds, int half_min, heuristic, pass_prob,
               keep_prob, list simple, list swaps, list actions, list trace=None):
    """``_playout.play_random`` with ``pol``'s heuristic at the seats where ``heuristic`` is true (the
    random bot of ``pass_prob``/``keep_prob`` elsewhere); the same tuple, the fields of a ``Playout``."""
    cdef Deal d
    cdef int i, s, m, n, code
    cdef int codes[MAX_LEGAL]
    cdef int heur[6]
    cdef double pp[6]
    cdef double kp[6]
    cdef bitgen_t *bg = table_start(pol, &d, rng, hands, robot, dealer, max_rounds, half_min, heuristic,
                                    pass_prob, keep_prob, heur, pp, kp)
    n = d.n
    with rng.bit_generator.lock:
        while d.phase != OVER:
            if trace is not None:
                m = legal(&d, codes)
                trace.append([action_of(&d, codes[i], simple, swaps) for i in range(m)])
            code = table_choose(pol, &d, heur, pp, kp, bg)
            actions.append(action_of(&d, code, simple, swaps))
            apply(&d, code)
    return (actions, ("OP-4", "OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8")[d.end],
            [[d.hands[s][i] for i in range(5)] for s in range(n)],
            [d.robot[i] for i in range(5)], d.robot_cat, [d.bids[i] for i in range(d.nbids)],
            [d.bidders[i] for i in range(d.nbids)], [bool(d.in_bid[s]) for s in range(n)], d.orderer, d.order,
            [(None, "for", "against")[d.roles[s]] for s in range(n)], bool(d.is_open), d.round, bool(d.all_kept),
            d.partner)


def play_table_summary(Rollouts pol, rng, hands, robot, int dealer, int max_rounds, int half_min, heuristic,
                       pass_prob, keep_prob):
    """``play_table`` without the actions: ``_playout.play_random_summary``'s tuple."""
    cdef Deal d
    cdef int s, moves = 0
    cdef int heur[6]
    cdef double pp[6]
    cdef double kp[6]
    cdef bitgen_t *bg = table_start(pol, &d, rng, hands, robot, dealer, max_rounds, half_min, heuristic,
                                    pass_prob, keep_prob, heur, pp, kp)
    with rng.bit_generator.lock:
        with nogil:
            while d.phase != OVER:
                apply(&d, table_choose(pol, &d, heur, pp, kp, bg))
                moves += 1
    return (d.end, d.orderer, d.order, d.nbids, bool(d.is_open), d.robot_cat, d.round, d.partner, moves,
            [category(d.hands[s]) for s in range(d.n)], [d.roles[s] for s in range(d.n)])


# ---------------------------------------------------------------- test hooks
# The plan searches above as Python calls, for ``tests/test_order_poker_rollout.py`` to compare with
# ``_plans`` (the readable engine's kernels) on random pools.

def _check_cheapest_plan(hand, other, int order):
    """``cheapest_plan`` as ``_plans.cheapest_plan`` answers: ``(price, cards)`` or None."""
    cdef int h[5]
    cdef int o[10]
    cdef int cards[5]
    cdef double price
    cdef int i, n = len(other)
    if n != 5 and n != 10:
        raise ValueError("other must hold 5 or 10 cards")
    for i in range(5):
        h[i] = hand[i]
    for i in range(n):
        o[i] = other[i]
    if not cheapest_plan(h, o, n, order, &price, cards):
        return None
    return price, [cards[i] for i in range(5)]


def _check_opponent_target(hand, robot, int order, double v_own, double v_match, int half_min, double cont,
                           rc=None):
    """``opponent_target`` as ``_plans.opponent_target`` answers; ``rc`` the robot's rank unless given
    (in play it is; another, or ``cont`` above 1, takes the general scan)."""
    cdef int h[5]
    cdef int r[5]
    cdef int cards[5]
    cdef int i
    for i in range(5):
        h[i] = hand[i]
        r[i] = robot[i]
    if not opponent_target(h, r, order, category(r) if rc is None else rc, v_own, v_match, half_min, cont, cards):
        return None
    return [cards[i] for i in range(5)]


def _check_split_costs(hand, robot, int rc):
    """``split_costs`` as ``_plans.split_costs`` answers: ``(own, match)``."""
    cdef int h[5]
    cdef int r[5]
    cdef int own[9]
    cdef int match[9]
    cdef int i
    for i in range(5):
        h[i] = hand[i]
        r[i] = robot[i]
    split_costs(h, r, rc, own, match)
    return [own[i] for i in range(9)], [match[i] for i in range(9)]


def _check_reach_bits(hand, robot):
    """``reach_bits``: bit c set when ``hand``, or it with one card replaced by one of ``robot``, is of rank c."""
    cdef int h[5]
    cdef int r[5]
    cdef int i
    for i in range(5):
        h[i] = hand[i]
        r[i] = robot[i]
    return reach_bits(h, r)


def _check_one_swap_reach(unknown, robot, keys):
    """``one_swap_reach`` of ``keys`` (rows of doubles in [0, 1), one per unknown card) as
    ``_plans.one_swap_reach`` answers: the 9 shares."""
    cdef int n = len(unknown), samples = len(keys), s, i
    cdef int unk[36]
    cdef int rob[5]
    cdef double out[9]
    cdef uint64_t *k
    if not 5 <= n <= 36 or samples < 1:
        raise ValueError("5 to 36 unknown cards and at least one row of keys")
    for i in range(n):
        unk[i] = unknown[i]
    for i in range(5):
        rob[i] = robot[i]
    k = <uint64_t *> malloc(sizeof(uint64_t) * samples * n)
    if k == NULL:
        raise MemoryError()
    try:
        for s in range(samples):
            row = keys[s]
            for i in range(n):
                k[s * n + i] = rl_bits(row[i])
        one_swap_reach(unk, n, rob, k, samples, out)
    finally:
        free(k)
    return [out[i] for i in range(9)]
