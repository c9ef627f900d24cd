# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole casino rounds of ``blackjack/random`` players in C, drawing exactly what the readable engine draws.

One round is ``games.blackjack.state.deal`` (the shoe's ``rng.permutation``, and for one deck the
``reshuffle_order`` permutation, BJ-8.1) followed by ``CasinoState`` played by ``RandomBot``s, one
``rng.random()`` per decision over the legal list ``hit, stand[, double][, split]`` (BJ-7). The
permutation is numpy's: Fisher-Yates from the top index down, each index drawn by
``random_interval`` (a masked 32-bit draw, rejected above the bound). tests/test_blackjack_fast.py
checks the scores of every round and the generator's state against the readable loop.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint32_t, uint64_t

import numpy as np

from ext.npdraw cimport bitgen_t, permute
from ext.npphilox cimport philox_state
from games.blackjack.fast.shoe cimport load, refill

DEF MAXN = 416  # 8 decks
DEF MAXH = 16   # 7 players x 2 hands + spare
DEF MAXC = 24   # cards in one hand
DEF RANDOM = 0       # blackjack/random
DEF DEALER_RULE = 1  # blackjack/dealer-rule
DEF BASIC = 2        # blackjack/basic: code BASIC + k plays chart k (``charts[k]``)
DEF CHART = 660      # one chart: 3 planes (pairs by value, soft by total, hard by total) x 22 x 10 up cards
# a chart's letters (strategy.chart): S, H, Dh, Ds, P; NONE where the chart has no row
DEF L_S = 0
DEF L_H = 1
DEF L_DH = 2
DEF L_DS = 3
DEF L_P = 4


ctypedef struct Shoe:
    int stock[MAXN]
    int n
    int pos
    int reshuffle[52]
    bint has_reshuffle
    int discards[MAXN]
    int nd


cdef inline int draw(Shoe *s) noexcept nogil:
    """BJ-8.1 / BJ-3.4: the next card; the discards in ``reshuffle`` order when the stock runs out."""
    cdef int c
    if s.pos >= s.n:
        s.n, s.pos = refill(s.stock, s.reshuffle, s.discards, s.nd), 0
        s.nd = 0
    c = s.stock[s.pos]
    s.pos += 1
    return c


cdef inline int value(int card) noexcept nogil:
    cdef int r = card >> 2
    return 1 if r == 12 else (10 if r >= 8 else r + 2)


cdef inline int best(const int *cards, int n) noexcept nogil:
    cdef int i, hard = 0
    cdef bint ace = False
    for i in range(n):
        hard += value(cards[i])
        ace = ace or (cards[i] >> 2) == 12
    return hard + 10 if ace and hard + 10 <= 21 else hard


cdef inline bint soft17(const int *cards, int n) noexcept nogil:
    cdef int i, hard = 0
    cdef bint ace = False
    for i in range(n):
        hard += value(cards[i])
        ace = ace or (cards[i] >> 2) == 12
    return ace and hard + 10 == 17


ctypedef struct Hand:
    int cards[MAXC]
    int n
    int bet
    bint split
    bint done
    bint settled
    int result
    bint has_result


cdef inline void discard(Shoe *s, Hand *h) noexcept nogil:
    cdef int i
    h.settled = True
    for i in range(h.n):
        s.discards[s.nd] = h.cards[i]
        s.nd += 1


ctypedef struct Out:
    int dealer[MAXC]
    int dn
    bint dealer_natural
    int nh[7]
    int totals[MAXH]
    int bets[MAXH]
    int results[MAXH]
    bint naturals[MAXH]
    bint busts[MAXH]
    int choices[64]
    int nchoices


cdef void round_(bitgen_t *bg, int players, int decks, int bet, int num, int den, bint das, bint h17,
                 int *scores) noexcept nogil:
    """One round from the generator: the stub as ``draw_stub`` draws it, then ``play``."""
    cdef Shoe shoe
    cdef Out out
    cdef int i
    cdef int perm[MAXN]
    shoe.n = 52 * decks
    permute(bg, perm, shoe.n)
    for i in range(shoe.n):
        shoe.stock[i] = perm[i] % 52
    shoe.has_reshuffle = decks == 1
    if decks == 1:
        permute(bg, shoe.reshuffle, 52)
    shoe.pos, shoe.nd = 0, 0
    cdef Hand hands[MAXH]
    cdef int nh[7]
    play(bg, &shoe, players, bet, num, den, das, h17, NULL, NULL, hands, nh, scores, &out)


cdef void play(bitgen_t *bg, Shoe *sh, int players, int bet, int num, int den, bint das, bint h17,
               const int *bots, const signed char *charts, Hand *hands, int *nh, int *scores,
               Out *out) noexcept nogil:
    """``CasinoState`` played from the dealt stub ``sh`` by the players ``bots`` (per seat ``RANDOM`` or
    ``DEALER_RULE`` or ``BASIC`` + k, chart k of ``charts``; NULL: all random); the result into ``out``, the
    hands into ``hands`` and ``nh``."""
    cdef int dealer[MAXC]
    cdef int dn = 0, s, k, i, t, n_legal, choice, up, a, b
    cdef bint can_double, can_split, standing
    cdef Hand *h
    cdef Hand *h2
    out.nchoices = 0
    out.dealer_natural = False
    # BJ-7.1: hand k of seat s is hands[2 s + k]
    for s in range(players):
        nh[s] = 1
        hands[2 * s].n = 0
        hands[2 * s].bet = bet
        hands[2 * s].split = hands[2 * s].done = hands[2 * s].settled = hands[2 * s].has_result = False
        hands[2 * s].result = 0
    for s in range(players):
        hands[2 * s].cards[0] = draw(sh)
        hands[2 * s].n = 1
    dealer[0] = draw(sh)
    for s in range(players):
        hands[2 * s].cards[1] = draw(sh)
        hands[2 * s].n = 2
    dealer[1] = draw(sh)
    dn = 2
    up = dealer[0] >> 2
    # BJ-7.2 peek
    if (up == 12 or 8 <= up <= 11) and best(dealer, 2) == 21:
        out.dealer_natural = True
        for s in range(players):
            h = &hands[2 * s]
            h.has_result = True
            h.result = 0 if best(h.cards, 2) == 21 else -bet
    else:
        play_hands(bg, sh, players, bet, num, den, das, bots, charts, hands, nh, dealer, &dn, h17, out)
    finish(players, hands, nh, dealer, dn, scores, out)


cdef inline int by_letter(int letter, bint can_double, bint can_split) noexcept nogil:
    """``strategy._fallback``: the letter's action as an index of ``hit, stand[, double][, split]``."""
    if letter == L_P and can_split:
        return 2 + can_double
    if letter == L_DH or letter == L_DS:
        return 2 if can_double else (0 if letter == L_DH else 1)
    return 0 if letter == L_H else 1


cdef inline int basic(const signed char *ch, Hand *h, int up, bint can_double, bint can_split) noexcept nogil:
    """``BasicBot.act`` on a casino hand: a pair's row where the pair may be split, else the soft or hard
    total's row (hard below 4 read as 4); 21 or more, or a total without a row, stands."""
    cdef int i, hard = 0, t, letter
    cdef bint ace = False
    if h.n == 2 and cval(h.cards[0]) == cval(h.cards[1]) and can_split:
        return by_letter(ch[10 * cval(h.cards[0]) + up - 1], can_double, can_split)
    for i in range(h.n):
        hard += cval(h.cards[i])
        ace = ace or cval(h.cards[i]) == 1
    if ace and hard + 10 <= 21:
        t = hard + 10
        if t >= 21:
            return 1
        letter = ch[220 + 10 * t + up - 1]
    else:
        t = hard
        if t >= 21:
            return 1
        letter = ch[440 + 10 * (4 if t < 4 else t) + up - 1]
    if letter < 0:
        return 1
    return by_letter(letter, can_double, can_split)


cdef void play_hands(bitgen_t *bg, Shoe *sh, int players, int bet, int num, int den, bint das, const int *bots,
                     const signed char *charts, Hand *hands, int *nh, int *dealer, int *dn_out, bint h17,
                     Out *out) noexcept nogil:
    """BJ-7.3 .. BJ-7.6: players' naturals paid, the players' choices, the dealer's draws."""
    cdef int dn = dn_out[0], s, k, i, t, n_legal, choice, a, b
    cdef bint can_double, can_split, standing
    cdef Hand *h
    cdef Hand *h2
    for s in range(players):
        if best(hands[2 * s].cards, 2) == 21:  # BJ-7.3
            hands[2 * s].done = hands[2 * s].has_result = True
            hands[2 * s].result = bet * num // den
            discard(sh, &hands[2 * s])
    # BJ-7.4: the players, seat by seat, hand by hand
    for s in range(players):
        k = 0
        while k < nh[s]:
            h = &hands[2 * s + k]
            if h.n == 1:
                h.cards[1] = draw(sh)
                h.n = 2
            while True:
                if not h.done and best(h.cards, h.n) == 21:
                    h.done = True
                if h.done:
                    break
                can_double = h.n == 2 and (not h.split or das)
                can_split = h.n == 2 and nh[s] == 1 and (h.cards[0] >> 2) == (h.cards[1] >> 2)
                n_legal = 2 + can_double + can_split
                if bots == NULL or bots[s] == RANDOM:  # RandomBot: one random() per decision
                    choice = <int> (bg.next_double(bg.state) * n_legal)
                elif bots[s] == DEALER_RULE:  # DealerRuleBot: hit below 17 (BJ-7.6's rule); draws nothing
                    choice = 0 if best(h.cards, h.n) < 17 else 1
                else:  # BasicBot: its chart; draws nothing
                    choice = basic(charts + CHART * (bots[s] - BASIC), h, cval(dealer[0]), can_double, can_split)
                if out.nchoices < 64:  # the choice, and which of double and split were legal (bits 4, 5)
                    out.choices[out.nchoices] = choice | (can_double << 4) | (can_split << 5)
                out.nchoices += 1
                if choice == 1:  # stand
                    h.done = True
                elif choice == 0 or (choice == 2 and can_double):  # hit, double
                    if choice == 2:
                        h.bet *= 2
                        h.done = True
                    h.cards[h.n] = draw(sh)
                    h.n += 1
                    if best(h.cards, h.n) > 21:
                        h.done = h.has_result = True
                        h.result = -h.bet
                        discard(sh, h)
                else:  # split
                    a, b = h.cards[0], h.cards[1]
                    nh[s] = 2
                    h2 = &hands[2 * s + 1]
                    h.n, h2.n = 1, 1
                    h2.cards[0] = b
                    h2.bet = h.bet
                    h.split = h2.split = True
                    h2.done = h2.settled = h2.has_result = False
                    h2.result = 0
                    if (a >> 2) == 12:  # split aces: one card each
                        h.cards[1] = draw(sh)
                        h.n = 2
                        h2.cards[1] = draw(sh)
                        h2.n = 2
                        h.done = h2.done = True
                    else:
                        h.cards[1] = draw(sh)
                        h.n = 2
            k += 1
    # BJ-7.6 / BJ-7.7
    standing = False
    for s in range(players):
        for k in range(nh[s]):
            if not hands[2 * s + k].has_result:
                standing = True
    if standing:
        while True:
            t = best(dealer, dn)
            if t < 17 or (t == 17 and h17 and soft17(dealer, dn)):
                dealer[dn] = draw(sh)
                dn += 1
            else:
                break
    dn_out[0] = dn


cdef void finish(int players, Hand *hands, int *nh, int *dealer, int dn, int *scores, Out *out) noexcept nogil:
    """BJ-7.7: settle every hand still standing; copy the round into ``out``."""
    cdef int s, k, i, t = best(dealer, dn)
    cdef Hand *h
    for i in range(dn):
        out.dealer[i] = dealer[i]
    out.dn = dn
    for s in range(players):
        scores[s] = 0
        out.nh[s] = nh[s]
        for k in range(nh[s]):
            h = &hands[2 * s + k]
            i = best(h.cards, h.n)
            if not h.has_result:
                h.result = h.bet if (t > 21 or i > t) else (-h.bet if i < t else 0)
            scores[s] += h.result
            out.totals[2 * s + k] = i
            out.bets[2 * s + k] = h.bet
            out.results[2 * s + k] = h.result
            out.naturals[2 * s + k] = h.n == 2 and not h.split and i == 21
            out.busts[2 * s + k] = i > 21


def play_random(rng, int players, int decks, int bet, int num, int den, bint das, bint h17, long rounds,
                bint keep=False):
    """Play ``rounds`` casino rounds of random players from ``rng``; (the seats' total scores, per-round
    scores [rounds, players] when ``keep`` else None)."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef int sc[7]
    cdef long r
    cdef int s
    totals = np.zeros(players, dtype=np.int64)
    cdef long long[::1] tot = totals
    per = np.zeros((rounds if keep else 0, players), dtype=np.int64)
    cdef long long[:, ::1] pr = per
    if not 1 <= players <= 7 or decks not in (1, 2, 4, 6, 8):
        raise ValueError("1..7 players, 1, 2, 4, 6 or 8 decks")
    with rng.bit_generator.lock:
        with nogil:
            for r in range(rounds):
                round_(bg, players, decks, bet, num, den, das, h17, sc)
                for s in range(players):
                    tot[s] += sc[s]
                    if keep:
                        pr[r, s] = sc[s]
    return totals, (per if keep else None)


def play_stub(rng, order, reshuffle, int players, int bet, int num, int den, bint das, bint h17, bots=None,
              charts=None):
    """Play the dealt round of ``order`` (and ``reshuffle``, or None) with the players ``bots`` (per seat 0:
    random, 1: dealer-rule, 2 + k: basic by chart k of ``charts``, int8 [k, 660]; None: all random) drawing
    from ``rng``.

    Returns (at every decision the index chosen among the legal actions, plus 16 when ``double`` and 32
    when ``split`` was legal; the dealer's cards, the
    dealer's natural, per seat its score and per hand (total, bet, result, natural, bust))."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef Shoe shoe
    cdef Out out
    cdef int sc[7]
    cdef int codes[7]
    cdef int i, s, k
    cdef Hand hands[MAXH]
    cdef int nh[7]
    cdef const signed char[::1] ch = None if charts is None else np.ascontiguousarray(charts, dtype=np.int8).ravel()
    cdef const signed char *chp = NULL if charts is None else &ch[0]
    if not 1 <= players <= 7 or not 52 <= len(order) <= MAXN:
        raise ValueError("1..7 players and a shoe of 1..8 decks")
    for s in range(players):
        codes[s] = RANDOM if bots is None else bots[s]
    shoe.n = load(shoe.stock, shoe.reshuffle, order, reshuffle)
    shoe.has_reshuffle = reshuffle is not None
    shoe.pos, shoe.nd = 0, 0
    with rng.bit_generator.lock:
        with nogil:
            play(bg, &shoe, players, bet, num, den, das, h17, codes, chp, hands, nh, sc, &out)
    if out.nchoices > 64:
        raise RuntimeError("more than 64 decisions in one round")
    seats = [(sc[s], [(out.totals[2 * s + k], out.bets[2 * s + k], out.results[2 * s + k],
                       bool(out.naturals[2 * s + k]), bool(out.busts[2 * s + k])) for k in range(out.nh[s])])
             for s in range(players)]
    return ([out.choices[i] for i in range(out.nchoices)], [out.dealer[i] for i in range(out.dn)],
            bool(out.dealer_natural), seats)


# ---------------------------------------------------------------------------------------------- whole shards
# numpy's Philox state (``philox_state``, ext/npphilox.pxd) is written in place to point the generator at the
# stream of (deal, rotation) as ``games.core.streams.Streams.at`` does; ``Streams.direct`` is True only when
# that layout was checked against the documented state setter on this numpy.
# numpy's Philox4x64-10 (ext/npphilox.pxd: the counter bumped before each block of four 64-bit words, a
# 32-bit draw the low then the high half of one word, a double the top 53 bits), inlined:
# the stub's permutation makes about 450 bounded 32-bit draws a deal (six decks), and a call through the bit
# generator's function pointers for each, with numpy's own block, cost a third of the kernel. The stub's
# stream is made two blocks at a time (``bj_philox_2blocks``) and the permutation's indices drawn before its
# swaps, without a branch on a rejected draw (``bj_permute_stub``): the kernel's deals/s about doubled (issue
# 30). The parity tests compare the rows with the readable engine's, which draws from numpy's Philox itself.
cdef extern from *:
    """
    typedef struct { uint64_t ctr[4]; uint64_t key[2]; uint64_t buf[4]; int pos; int has32; uint32_t u32; } bj_philox;

    static inline void bj_philox_block(bj_philox *s) {
        np_philox_bump(s->ctr);
        np_philox_block(s->ctr, s->key, s->buf);
        s->pos = 0;
    }
    static inline uint64_t bj_next64(bj_philox *s) {
        if (s->pos >= 4) bj_philox_block(s);
        return s->buf[s->pos++];
    }
    static inline uint32_t bj_next32(bj_philox *s) {
        uint64_t n;
        if (s->has32) { s->has32 = 0; return s->u32; }
        n = bj_next64(s);
        s->has32 = 1;
        s->u32 = (uint32_t)(n >> 32);
        return (uint32_t)(n & 0xffffffffULL);
    }
    /* Blocks ctr0 + 1 and ctr0 + 2 of the stream (0, 0, item, stream) (the counter bumped before each block,
       as bj_philox_block, with no carry out of its first word) into out[8]. gcc's vectorization of the two
       lanes is slower here. */
    static inline __attribute__((optimize("no-tree-vectorize"))) void bj_philox_2blocks(
            const uint64_t *key, uint64_t ctr0, uint64_t item, uint64_t stream, uint64_t *out) {
        uint64_t ca[4] = {ctr0 + 1, 0, item, stream}, cb[4] = {ctr0 + 2, 0, item, stream};
        np_philox_2blocks(ca, cb, key, out, out + 4);
    }

    /* The stream (0, 0, item, 0) of key as 32-bit draws (a word's low half, then its high half: bj_next32),
       made four blocks (32 draws) at a time. */
    typedef struct { const uint64_t *key; uint64_t item, ctr0; uint32_t u32[32]; int pos; } bj_stub_stream;

    static __attribute__((noinline)) void bj_stub_refill(bj_stub_stream *s) {
        uint64_t w[16];
        int k;
        bj_philox_2blocks(s->key, s->ctr0, s->item, 0, w);
        bj_philox_2blocks(s->key, s->ctr0 + 2, s->item, 0, w + 8);
        s->ctr0 += 4;
        for (k = 0; k < 16; k++) { s->u32[2 * k] = (uint32_t)w[k]; s->u32[2 * k + 1] = (uint32_t)(w[k] >> 32); }
        s->pos = 0;
    }

    /* Generator.permutation(n) of `init` (out[i] = init[i] first): Fisher-Yates from the top index down,
       each index by numpy's random_interval (a 32-bit draw masked to the bound's bits, rejected above the
       bound). The indices are drawn first, without a branch on a rejection (a rejected draw keeps i, and
       the next draw overwrites its index), the swaps made after. */
    static inline void bj_permute_stub(bj_stub_stream *s, int *out, const int *init, int n) {
        int i = n - 1, lo, j, t, pos = s->pos;
        uint32_t mask, v;
        int js[416];
        while (i > 0) {
            mask = 0xffffffffU >> __builtin_clz((unsigned)i);
            lo = (int)(mask >> 1);  /* the same mask for every i in lo + 1 .. mask */
            while (i > lo) {
                if (pos >= 32) { bj_stub_refill(s); pos = 0; }
                v = s->u32[pos++] & mask;
                js[i] = (int)v;
                i -= v <= (uint32_t)i;
            }
        }
        s->pos = pos;
        memcpy(out, init, sizeof(int) * n);
        for (i = n - 1; i > 0; i--) {
            j = js[i];
            t = out[i]; out[i] = out[j]; out[j] = t;
        }
    }
    static uint64_t bj_next64_v(void *s) { return bj_next64((bj_philox *)s); }
    static uint32_t bj_next32_v(void *s) { return bj_next32((bj_philox *)s); }
    static double bj_double_v(void *s) { return np_philox_double(bj_next64((bj_philox *)s)); }
    """
    ctypedef struct bj_philox:
        uint64_t ctr[4]
        uint64_t key[2]
        int pos
        int has32
    ctypedef struct bj_stub_stream:
        const uint64_t *key
        uint64_t item
        uint64_t ctr0
        int pos
    void bj_permute_stub(bj_stub_stream *s, int *out, const int *init, int n) noexcept nogil
    uint64_t bj_next64_v(void *s) noexcept nogil
    uint32_t bj_next32_v(void *s) noexcept nogil
    double bj_double_v(void *s) noexcept nogil


cdef inline void at(bj_philox *ph, uint64_t item, uint64_t stream) noexcept nogil:
    """``Streams.at(item, stream)``: counter (0, 0, item, stream), an empty buffer, no spare 32 bits."""
    ph.ctr[0] = 0
    ph.ctr[1] = 0
    ph.ctr[2] = item
    ph.ctr[3] = stream
    ph.pos = 4
    ph.has32 = 0


ctypedef struct Luck:
    # V after a card of each value 1..10 (games.blackjack.luck.SeatValues.vec), C-contiguous tables:
    const double *c1     # [10]
    const double *up     # [c1 - 1][10]
    const double *c2     # [c1 - 1][up - 1][10]
    const double *hole   # [c1 - 1][c2 - 1][up - 1][10]
    const double *split  # [up - 1][hole - 1][pair - 1][10]
    const double *hit    # [up - 1][hole - 1][hard 0..20][ace][10]
    const double *dbl    # [up - 1][hole - 1][hard 0..20][ace][10]
    const double *stand  # [total 0..21][dealer hard 0..31][ace][10]: stand value after the dealer's draw
    int counts[10]
    int left
    int pos
    int n


cdef inline int cval(int card) noexcept nogil:
    """BJ-3.2: the value 1..10 of a card (an ace 1), ``luck.card_value``."""
    cdef int r = card >> 2
    return 1 if r == 12 else (10 if r >= 8 else r + 2)


cdef inline void term(Luck *L, int card, const double *vals, double *acc) noexcept nogil:
    """``luck._Shoe.draw`` for one seat: ``acc += vals[v] - E[vals[next]]`` over the values left; the
    same operations in the same order as the Python sum, so the same doubles."""
    cdef int i
    cdef double e = 0.0
    for i in range(10):
        e = e + L.counts[i] * vals[i]
    acc[0] += vals[cval(card) - 1] - e / L.left


cdef inline void consume(Luck *L, int card) noexcept nogil:
    L.counts[cval(card) - 1] -= 1
    L.left -= 1


cdef void walk(Luck *L, int decks, int players, int base, Hand *hands, int *nh, Out *out,
               double *terms) noexcept nogil:
    """``luck._walk`` of one finished round: each seat's summed terms (per unit of the bet) into ``terms``.
    A card past the first stock (a one-deck shoe's reshuffle, BJ-3.4) has no term."""
    cdef int s, k, i, j, c, v, up, hole, hard, t, dh
    cdef bint ace, split, dace, any_standing
    cdef double vals[10]
    cdef double units[2]
    cdef int stot[2]
    cdef int nstand
    cdef Hand *h
    for i in range(9):
        L.counts[i] = 4 * decks
    L.counts[9] = 16 * decks
    L.left, L.pos, L.n = 52 * decks, 0, 52 * decks
    for s in range(players):
        terms[s] = 0.0
    # the deal (BJ-7.1): first cards, the up card, second cards, the hole card
    for s in range(players):
        c = hands[2 * s].cards[0]
        term(L, c, L.c1, &terms[s])
        consume(L, c)
    up, hole = cval(out.dealer[0]), cval(out.dealer[1])
    for s in range(players):
        term(L, out.dealer[0], L.up + 10 * (cval(hands[2 * s].cards[0]) - 1), &terms[s])
    consume(L, out.dealer[0])
    for s in range(players):
        c = hands[2 * s].cards[1] if nh[s] == 1 else hands[2 * s + 1].cards[0]
        term(L, c, L.c2 + 100 * (cval(hands[2 * s].cards[0]) - 1) + 10 * (up - 1), &terms[s])
        consume(L, c)
    for s in range(players):
        c = hands[2 * s].cards[1] if nh[s] == 1 else hands[2 * s + 1].cards[0]
        term(L, out.dealer[1], L.hole + 1000 * (cval(hands[2 * s].cards[0]) - 1) + 100 * (cval(c) - 1)
             + 10 * (up - 1), &terms[s])
    consume(L, out.dealer[1])
    L.pos = 2 * players + 2
    if out.dealer_natural:
        return
    # each seat's own draws in the order they came (BJ-7.4; luck._hand_draws)
    for s in range(players):
        split = nh[s] == 2
        for k in range(nh[s]):
            h = &hands[2 * s + k]
            if split:
                if L.pos < L.n:
                    term(L, h.cards[1], L.split + 1000 * (up - 1) + 100 * (hole - 1) + 10 * (cval(h.cards[0]) - 1),
                         &terms[s])
                    consume(L, h.cards[1])
                L.pos += 1
            hard = cval(h.cards[0]) + cval(h.cards[1])
            ace = cval(h.cards[0]) == 1 or cval(h.cards[1]) == 1
            for i in range(2, h.n):
                if L.pos < L.n:
                    j = 4200 * (up - 1) + 420 * (hole - 1) + 20 * hard + 10 * ace
                    term(L, h.cards[i], (L.dbl if h.bet != base else L.hit) + j, &terms[s])
                    consume(L, h.cards[i])
                L.pos += 1
                v = cval(h.cards[i])
                hard += v
                ace = ace or v == 1
    # the dealer's draws (BJ-7.6): each standing hand's stand value against the dealer's hand after the card
    hard = up + hole
    dace = up == 1 or hole == 1
    for i in range(2, out.dn):
        c = out.dealer[i]
        if L.pos < L.n:
            for s in range(players):
                nstand = 0
                for k in range(nh[s]):
                    h = &hands[2 * s + k]
                    t = best(h.cards, h.n)
                    if t <= 21 and not (h.n == 2 and not h.split and t == 21):
                        stot[nstand] = t
                        units[nstand] = (<double> h.bet) / base
                        nstand += 1
                if nstand == 0:
                    continue
                for v in range(10):  # sum(units * stand(t, d) for t, units in standing), from 0
                    vals[v] = 0.0
                    for k in range(nstand):
                        vals[v] = vals[v] + units[k] * L.stand[640 * stot[k] + 20 * hard + 10 * dace + v]
                term(L, c, vals, &terms[s])
            consume(L, c)
        L.pos += 1
        v = cval(c)
        hard += v
        dace = dace or v == 1


def play_shard(bits, long start, long stop, int players, int decks, int bet, int num, int den, bint das,
               bint h17, const int[:, ::1] bots, luck=None, charts=None):
    """Every rotation of casino deals ``start .. stop - 1`` of a job, as the shard runner plays them.

    ``bits`` is the job's ``Streams`` Philox bit generator (its key the job's): deal d's stub is drawn from
    the stream (d, 0) exactly as ``state.draw_stub`` draws it (the shoe's permutation, and the reshuffle
    order of one deck), and rotation r plays a copy of it from the stream (d, r + 1) with the seats' bots
    ``bots[r]`` (0 random, 1 dealer-rule, 2 + k basic by chart k of ``charts``). ``luck``: None, or the ``SeatValues`` tables (``playout``) to
    compute each seat's correction (``luck.state_corrections``) in chips.

    Returns the columns of units (deal-major, then rotation) and of seats (unit-major, then seat):
    ``dealer`` (card ids, flat) with ``dealer_n``, ``dealer_total``, ``dealer_natural``, ``hands``;
    ``score``, ``bet``, ``nh``, ``totals`` (flat, ``nh`` per seat), ``result`` (0 natural, 1 bust, 2 win,
    3 loss, 4 push), ``correction``."""
    cdef bitgen_t *np_bg = <bitgen_t *> PyCapsule_GetPointer(bits.capsule, "BitGenerator")
    cdef philox_state *np_ph = <philox_state *> np_bg.state
    cdef bj_philox state
    cdef bj_philox *ph = &state
    cdef bitgen_t own  # the players' draws (``play``) from the same inlined generator
    cdef bitgen_t *bg = &own
    cdef int R = bots.shape[0]
    cdef long deals = stop - start
    cdef long units = deals * R, u = 0, q = 0, dc = 0, tc = 0, d
    cdef int r, s, k, i, net, dt
    cdef bint nat, all_bust, has_luck = luck is not None
    cdef Shoe dealt, shoe
    cdef Out out
    cdef Hand hands[MAXH]
    cdef int nh[7]
    cdef int sc[7]
    cdef int ids[MAXN]  # i mod 52: a permutation of these is the shoe's (``perm % 52``)
    cdef bj_stub_stream stub
    cdef double terms[7]
    cdef Luck L
    cdef const double[::1] t_c1, t_up, t_c2, t_hole, t_split, t_hit, t_dbl, t_stand
    cdef const signed char[::1] ch = None if charts is None else np.ascontiguousarray(charts, dtype=np.int8).ravel()
    cdef const signed char *chp = NULL if charts is None else &ch[0]
    if not 1 <= players <= 7 or decks not in (1, 2, 4, 6, 8) or bots.shape[1] != players or deals < 0:
        raise ValueError("1..7 players, 1, 2, 4, 6 or 8 decks, one bot per seat")
    if type(bits) is not np.random.Philox:
        raise ValueError("play_shard draws from the job's Philox streams")
    if has_luck:
        t_c1, t_up, t_c2, t_hole, t_split, t_hit, t_dbl, t_stand = luck
        L.c1, L.up, L.c2, L.hole = &t_c1[0], &t_up[0], &t_c2[0], &t_hole[0]
        L.split, L.hit, L.dbl, L.stand = &t_split[0], &t_hit[0], &t_dbl[0], &t_stand[0]
    a_dealer = np.empty(units * 12, dtype=np.uint8)
    a_dealer_n = np.empty(units, dtype=np.int32)
    a_dtotal = np.empty(units, dtype=np.int16)
    a_dnat = np.empty(units, dtype=np.bool_)
    a_hands = np.empty(units, dtype=np.int8)
    a_score = np.empty(units * players, dtype=np.int32)
    a_bet = np.empty(units * players, dtype=np.int32)
    a_nh = np.empty(units * players, dtype=np.int8)
    a_totals = np.empty(units * players * 2, dtype=np.int16)
    a_result = np.empty(units * players, dtype=np.int8)
    a_corr = np.zeros(units * players, dtype=np.float64)
    cdef unsigned char[::1] o_dealer = a_dealer
    cdef int[::1] o_dealer_n = a_dealer_n
    cdef short[::1] o_dtotal = a_dtotal
    cdef signed char[::1] o_hands = a_hands
    cdef int[::1] o_score = a_score, o_bet = a_bet
    cdef signed char[::1] o_nh = a_nh, o_result = a_result
    cdef unsigned char[::1] o_dnat = a_dnat.view(np.uint8)
    cdef short[::1] o_totals = a_totals
    cdef double[::1] o_corr = a_corr
    own.state = ph
    own.next_uint64 = bj_next64_v
    own.next_uint32 = bj_next32_v
    own.next_double = bj_double_v
    with bits.lock:
        state.key[0], state.key[1] = np_ph.key[0], np_ph.key[1]  # the job's key; numpy's state is not moved
        stub.key = state.key
        for i in range(MAXN):
            ids[i] = i % 52
        with nogil:
            for d in range(start, stop):
                # the deal's stub (BJ-8.1) from the stream (d, 0): the shoe's permutation of card ids (the
                # permutation of 0 .. n - 1 taken mod 52), then one deck's reshuffle order
                stub.item, stub.ctr0, stub.pos = d, 0, 32
                dealt.n = 52 * decks
                bj_permute_stub(&stub, dealt.stock, ids, dealt.n)
                dealt.has_reshuffle = decks == 1
                if decks == 1:
                    bj_permute_stub(&stub, dealt.reshuffle, ids, 52)
                dealt.pos, dealt.nd = 0, 0
                for r in range(R):
                    at(ph, d, r + 1)
                    shoe = dealt
                    play(bg, &shoe, players, bet, num, den, das, h17, &bots[r, 0], chp, hands, nh, sc, &out)
                    if out.dn > 12:  # cannot happen: 12 cards of a dealer's hand pass 17
                        with gil:
                            raise RuntimeError("a dealer's hand of more than 12 cards")
                    for i in range(out.dn):
                        o_dealer[dc] = out.dealer[i]
                        dc += 1
                    o_dealer_n[u] = out.dn
                    dt = best(out.dealer, out.dn)
                    o_dtotal[u] = dt
                    o_dnat[u] = out.dealer_natural
                    k = 0
                    for s in range(players):
                        k += out.nh[s]
                    o_hands[u] = k
                    if has_luck:
                        walk(&L, decks, players, bet, hands, nh, &out, terms)
                    for s in range(players):
                        o_score[q] = sc[s]
                        o_nh[q] = out.nh[s]
                        o_bet[q] = 0
                        nat, all_bust, net = False, True, 0
                        for k in range(out.nh[s]):
                            i = 2 * s + k
                            o_bet[q] += out.bets[i]
                            o_totals[tc] = out.totals[i]
                            tc += 1
                            nat = nat or (out.naturals[i] and out.results[i] > 0)
                            all_bust = all_bust and out.busts[i]
                            net += out.results[i]
                        o_result[q] = 0 if nat else 1 if all_bust else 2 if net > 0 else 3 if net < 0 else 4
                        if has_luck:
                            o_corr[q] = terms[s] * bet
                        q += 1
                    u += 1
    return {"dealer": a_dealer[:dc], "dealer_n": a_dealer_n, "dealer_total": a_dtotal, "dealer_natural": a_dnat,
            "hands": a_hands, "score": a_score, "bet": a_bet, "nh": a_nh, "totals": a_totals[:tc],
            "result": a_result, "correction": a_corr}
