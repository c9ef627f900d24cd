# cython: language_level=3
"""Raspisnoy trick play in C, shared by the compiled play-outs (``_playout.pyx``, ``_match.pyx``) and the
double-dummy solver (``_dd.pyx``): the readable rules are ``games.core.tricks`` (R-4.2, R-4.4 - R-4.8).

Cards are 0..35 (core id - 16): suit = c & 3 (c d h s), rank = c >> 2 (6 .. A). A play's mode is 0
for a real card, 1 high, 2 low, 3 plain (a joker's modes, R-4.4); a lead's call is its suit 0..3, -1
(or 7 in a move code) for none. A move code is ``card | mode << 6 | call << 8`` with call 7 for none.
"""

from libc.stdint cimport uint64_t

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil


cdef inline int led_of(int mode0, int card0, int call0) noexcept nogil:
    """The suit of a trick: the lead's suit (a real card or a plain joker), else the suit a joker lead calls."""
    if mode0 == 0 or mode0 == 3:
        return card0 & 3
    return call0


cdef inline int trick_trump_of(int rotating, int trump, int led) noexcept nogil:
    """The trick's trump: the deal's (-1: none), or under rotating trumps the suit after the led one (R-2.3)."""
    if rotating:
        return (led + 1) & 3  # s -> c -> d -> h -> s
    return trump


cdef inline int play_key(int i, int mode, int card, int led, int trump) noexcept nogil:
    """R-4.7's order as one int (higher wins; -1 cannot win) of the play at index ``i`` of the trick."""
    cdef int s
    if mode == 1:
        return 310 - i  # R-4.7 step 1, R-4.8: the first high joker
    if mode == 2:
        return 109 if i == 0 else -1  # a lowest-SUIT lead counts below the 6; a low follower never wins
    s = card & 3
    if trump >= 0 and s == trump:
        return 210 + (card >> 2)
    if s == led:
        return 110 + (card >> 2)
    return -1


cdef inline int winner_index(int count, int* modes, int* cards, int* calls, int rotating, int trump) noexcept nogil:
    """R-4.7: the index of the play that holds the first ``count`` plays of a trick (``trick_winner``)."""
    cdef int L = led_of(modes[0], cards[0], calls[0])
    cdef int T = trick_trump_of(rotating, trump, L)
    cdef int best = -1, bi = 0, key, i
    for i in range(count):
        key = play_key(i, modes[i], cards[i], L, T)
        if key > best:
            best = key
            bi = i
    return bi


cdef inline uint64_t suit_cards(uint64_t cards, int suit) noexcept nogil:
    """The cards of ``suit`` among ``cards`` (none for suit -1)."""
    if suit < 0:
        return 0
    return cards & (<uint64_t>0x111111111 << suit)


cdef inline uint64_t real_base(uint64_t real, int lead_mode, int led, int trump, int must_trump,
                               int leads_any) noexcept nogil:
    """R-4.6: the real cards a follower may play (``legal_plays``'s ``base``) given the lead's mode,
    the led suit and the trick's trump."""
    cdef uint64_t follow = suit_cards(real, led), trumps = suit_cards(real, trump)
    if lead_mode == 1:  # R-4.5/R-4.6: the highest card of the called suit; void: a trump only with any
        if follow:
            return (<uint64_t>1) << (63 - __builtin_clzll(follow))
        if trumps and must_trump and leads_any:
            return trumps
        return real
    if follow:
        return follow
    if trumps and must_trump:
        return trumps
    return real


cdef inline int plain_allowed(int lead_mode, int led, int trump, uint64_t real, int must_trump) noexcept nogil:
    """R-4.6: a follower may play a joker (the 7 or 6 of spades) plain where its printed card would be legal."""
    cdef uint64_t follow, trumps
    if lead_mode == 1 or lead_mode == 2:
        return 0
    if led == 3:
        return 1
    follow = suit_cards(real, led)
    trumps = suit_cards(real, trump)
    return not follow and (trump == 3 or not trumps or not must_trump)


cdef inline int joker_moves(int card, int count, int leads_any, int rotating, int deal_trump, int joker_low,
                            int joker_plain, int plain, int* moves) noexcept nogil:
    """R-4.4, R-4.5: the plays of joker ``card`` in the engine's order (high < low < plain, then call); a lead
    (``count`` 0) calls a suit, a follower's call is none (7); ``plain``: R-4.6 lets a follower play it
    plain (``plain_allowed``). The number of moves written."""
    cdef int m = 0, s
    if count == 0:  # R-4.5: a joker lead
        if leads_any or rotating:
            for s in range(4):
                moves[m] = card | (1 << 6) | (s << 8)
                m += 1
        elif deal_trump >= 0:
            moves[m] = card | (1 << 6) | (deal_trump << 8)
            m += 1
        if joker_low:
            for s in range(4):
                moves[m] = card | (2 << 6) | (s << 8)
                m += 1
        if joker_plain:
            moves[m] = card | (3 << 6) | (7 << 8)
            m += 1
        return m
    moves[m] = card | (1 << 6) | (7 << 8)
    m += 1
    if joker_low:
        moves[m] = card | (2 << 6) | (7 << 8)
        m += 1
    if plain:
        moves[m] = card | (3 << 6) | (7 << 8)
        m += 1
    return m


cdef inline int bid_values_of(int n, int k, int dealer, int restriction, int max_passes, int* bids, int* runs,
                              int seat, int lo, int* out) noexcept nogil:
    """``Deal.bid_values`` (R-3.1, R-3.3, R-3.4, R-3.8): the bids ``lo..k`` ``seat`` may make, ascending, with
    ``bids`` the others' bids so far (-1: none) and ``runs`` each seat's passes in a row (``max_passes`` -1:
    no limit)."""
    cdef int m = 0, v, duty, forbidden = -1, s, tot = 0
    duty = max_passes >= 0 and runs[seat] >= max_passes
    if restriction and seat == dealer:
        for s in range(n):
            if s != seat and bids[s] >= 0:
                tot += bids[s]
        if 0 <= k - tot <= k:
            forbidden = k - tot
    for v in range(lo, k + 1):
        if duty and v == 0:
            continue
        if v == forbidden:
            continue
        out[m] = v
        m += 1
    if m == 0 and duty and forbidden >= 0:
        out[0] = 1
        m = 1
    return m


cdef inline int engine_moves(uint64_t hand, uint64_t jokers, int count, int lead_mode, int led, int trick_trump,
                             int deal_trump, int rotating, int must_trump, int joker_plain, int joker_low,
                             int leads_any, int* moves) noexcept nogil:
    """R-4.6: every legal play of ``hand`` in the readable engine's order (``legal_plays``: by card, then
    mode high < low < plain, then call); ``count`` plays are on the trick (0: a lead)."""
    cdef uint64_t real = hand & ~jokers, base
    cdef int m = 0, card, plain = 0
    if count == 0:
        base = real
    else:
        base = real_base(real, lead_mode, led, trick_trump, must_trump, leads_any)
        plain = joker_plain and plain_allowed(lead_mode, led, trick_trump, real, must_trump)
    for card in range(36):
        if (base >> card) & 1:
            moves[m] = card | (7 << 8)
            m += 1
        elif (hand >> card) & 1 and (jokers >> card) & 1:
            m += joker_moves(card, count, leads_any, rotating, deal_trump, joker_low, joker_plain, plain, moves + m)
    return m
