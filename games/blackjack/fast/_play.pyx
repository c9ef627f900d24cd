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

cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint64_t (*next_uint64)(void *st) nogil
        uint32_t (*next_uint32)(void *st) nogil
        double (*next_double)(void *st) nogil

DEF MAXN = 416  # 8 decks
DEF MAXH = 16   # 7 players x 2 hands + spare
DEF MAXC = 24   # cards in one hand


cdef inline uint64_t interval(bitgen_t *bg, uint64_t mx) noexcept nogil:
    """numpy's ``random_interval``: uniform in [0, mx]."""
    cdef uint64_t mask = mx, value
    if mx == 0:
        return 0
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    if mx <= 0xffffffffUL:
        value = bg.next_uint32(bg.state) & mask
        while value > mx:
            value = bg.next_uint32(bg.state) & mask
    else:
        value = bg.next_uint64(bg.state) & mask
        while value > mx:
            value = bg.next_uint64(bg.state) & mask
    return value


cdef inline void permute(bitgen_t *bg, int *out, int n) noexcept nogil:
    """``Generator.permutation(n)``."""
    cdef int i, j, t
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = <int> interval(bg, i)
        t = out[i]
        out[i] = out[j]
        out[j] = t


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
    cdef int i, j, k, c
    cdef int pile[52]
    if s.pos >= s.n:
        for i in range(52):
            pile[i] = 0
        for i in range(s.nd):
            pile[s.discards[i]] += 1
        k = 0
        for i in range(52):
            c = s.reshuffle[i]
            if pile[c] > 0:
                s.stock[k] = c
                k += 1
                pile[c] -= 1
        s.n, s.pos, s.nd = k, 0, 0
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
    play(bg, &shoe, players, bet, num, den, das, h17, scores, &out)


cdef void play(bitgen_t *bg, Shoe *sh, int players, int bet, int num, int den, bint das, bint h17,
               int *scores, Out *out) noexcept nogil:
    """``CasinoState`` played by random players from the dealt stub ``sh``; the result into ``out``."""
    cdef Hand hands[MAXH]
    cdef int nh[7]
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
        play_hands(bg, sh, players, bet, num, den, das, hands, nh, dealer, &dn, h17, out)
    finish(players, hands, nh, dealer, dn, scores, out)


cdef void play_hands(bitgen_t *bg, Shoe *sh, int players, int bet, int num, int den, bint das, Hand *hands,
                     int *nh, int *dealer, int *dn_out, bint h17, Out *out) noexcept nogil:
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
                choice = <int> (bg.next_double(bg.state) * n_legal)
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


def play_stub(rng, order, reshuffle, int players, int bet, int num, int den, bint das, bint h17):
    """Play the dealt round of ``order`` (and ``reshuffle``, or None) with random players drawing from ``rng``.

    Returns (at every decision the index chosen among the legal actions, plus 16 when ``double`` and 32
    when ``split`` was legal; the dealer's cards, the
    dealer's natural, per seat its score and per hand (total, bet, result, natural, bust))."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef Shoe shoe
    cdef Out out
    cdef int sc[7]
    cdef int i, s, k
    if not 1 <= players <= 7 or not 52 <= len(order) <= MAXN:
        raise ValueError("1..7 players and a shoe of 1..8 decks")
    shoe.n = len(order)
    for i in range(shoe.n):
        shoe.stock[i] = order[i]
    shoe.has_reshuffle = reshuffle is not None
    if reshuffle is not None:
        for i in range(52):
            shoe.reshuffle[i] = reshuffle[i]
    shoe.pos, shoe.nd = 0, 0
    with rng.bit_generator.lock:
        with nogil:
            play(bg, &shoe, players, bet, num, den, das, h17, sc, &out)
    if out.nchoices > 64:
        raise RuntimeError("more than 64 decisions in one round")
    seats = [(sc[s], [(out.totals[2 * s + k], out.bets[2 * s + k], out.results[2 * s + k],
                       bool(out.naturals[2 * s + k]), bool(out.busts[2 * s + k])) for k in range(out.nh[s])])
             for s in range(players)]
    return ([out.choices[i] for i in range(out.nchoices)], [out.dealer[i] for i in range(out.dn)],
            bool(out.dealer_natural), seats)
