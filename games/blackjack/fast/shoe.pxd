# cython: language_level=3
"""The stock of a blackjack kernel running out, shared by the casino kernel (``_play.pyx``) and the home and
ochko one (``_home.pyx``): the readable rule is ``games.blackjack.dealing`` (BJ-3.4, BJ-8.1)."""


cdef inline int refill(int *stock, const int *reshuffle, const int *discards, int nd) noexcept nogil:
    """BJ-3.4: the ``nd`` discards, in the order of the stub's ``reshuffle`` permutation of the 52 card ids,
    become the new stock; returns its size. Each id once, as ``Table.draw`` takes them: a stub has a
    ``reshuffle`` only for one deck of distinct cards (``draw_stub``: home, casino with one deck)."""
    cdef int i, k = 0, c
    cdef int pile[52]
    for i in range(52):
        pile[i] = 0
    for i in range(nd):
        pile[discards[i]] += 1
    for i in range(52):
        c = reshuffle[i]
        if pile[c] > 0:
            stock[k] = c
            k += 1
            pile[c] -= 1
    return k


cdef inline int load(int *stock, int *reshuffle, order, reshuffle_order) except -1:
    """A readable stub into a kernel's stock: the card ids of ``order`` (its size returned) and, when the stub
    has one (``reshuffle_order`` not None), the 52-id ``reshuffle`` permutation of BJ-3.4's refill."""
    cdef int i, n = len(order)
    for i in range(n):
        stock[i] = order[i]
    if reshuffle_order is not None:
        for i in range(52):
            reshuffle[i] = reshuffle_order[i]
    return n
