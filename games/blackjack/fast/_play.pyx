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


cdef void round_(bitgen_t *bg, int players, int decks, int bet, int num, int den, bint das, bint h17,
                 int *scores) noexcept nogil:
    cdef Shoe shoe
    cdef Hand hands[MAXH]
    cdef int nh[7]
    cdef int first[7]
    cdef int dealer[MAXC]
    cdef int dn = 0, s, k, i, t, n_legal, choice, up, a, b
    cdef int perm[MAXN]
    cdef bint can_double, can_split, standing
    shoe.n = 52 * decks
    permute(bg, perm, shoe.n)
    for i in range(shoe.n):
        shoe.stock[i] = perm[i] % 52
    shoe.has_reshuffle = decks == 1
    if decks == 1:
        permute(bg, shoe.reshuffle, 52)
    shoe.pos, shoe.nd = 0, 0
    # BJ-7.1: hand k of seat s is hands[2 s + k]
    for s in range(players):
        nh[s] = 1
        first[s] = 2 * s
        hands[2 * s].n = 0
        hands[2 * s].bet = bet
        hands[2 * s].split = hands[2 * s].done = hands[2 * s].settled = hands[2 * s].has_result = False
        hands[2 * s].result = 0
    for s in range(players):
        hands[2 * s].cards[0] = draw(&shoe)
        hands[2 * s].n = 1
    dealer[0] = draw(&shoe)
    for s in range(players):
        hands[2 * s].cards[1] = draw(&shoe)
        hands[2 * s].n = 2
    dealer[1] = draw(&shoe)
    dn = 2
    up = dealer[0] >> 2
    # BJ-7.2 peek
    if (up == 12 or 8 <= up <= 11) and best(dealer, 2) == 21:
        for s in range(players):
            scores[s] = 0 if best(hands[2 * s].cards, 2) == 21 else -bet
        return
    for s in range(players):
        if best(hands[2 * s].cards, 2) == 21:  # BJ-7.3
            hands[2 * s].done = hands[2 * s].has_result = True
            hands[2 * s].result = bet * num // den
            discard(&shoe, &hands[2 * s])
    # BJ-7.4: the players, seat by seat, hand by hand
    for s in range(players):
        k = 0
        while k < nh[s]:
            h = &hands[2 * s + k]
            if h.n == 1:
                h.cards[1] = draw(&shoe)
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
                if choice == 1:  # stand
                    h.done = True
                elif choice == 0 or (choice == 2 and can_double):  # hit, double
                    if choice == 2:
                        h.bet *= 2
                        h.done = True
                    h.cards[h.n] = draw(&shoe)
                    h.n += 1
                    if best(h.cards, h.n) > 21:
                        h.done = h.has_result = True
                        h.result = -h.bet
                        discard(&shoe, h)
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
                        h.cards[1] = draw(&shoe)
                        h.n = 2
                        h2.cards[1] = draw(&shoe)
                        h2.n = 2
                        h.done = h2.done = True
                    else:
                        h.cards[1] = draw(&shoe)
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
                dealer[dn] = draw(&shoe)
                dn += 1
            else:
                break
    t = best(dealer, dn)
    for s in range(players):
        scores[s] = 0
        for k in range(nh[s]):
            h = &hands[2 * s + k]
            if not h.has_result:
                i = best(h.cards, h.n)
                h.result = h.bet if (t > 21 or i > t) else (-h.bet if i < t else 0)
            scores[s] += h.result


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
