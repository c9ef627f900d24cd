# cython: boundscheck=False, wraparound=False, cdivision=True
"""The dealer's final totals from a finite shoe, by depth-first recursion over his draws (BJ-10).

The same recursion as ``games.blackjack.solver.Dealer._go`` (the readable spec; tests/
test_blackjack_solver.py checks them equal): the shoe's counts are changed in place as cards are
drawn and restored after, so one distribution costs no allocation.
"""

cdef void _go(int* shoe, int n_left, int hard, bint ace, int n, int excl, bint h17, double p,
              double* out) noexcept nogil:
    cdef int t = hard + 10 if ace and hard + 10 <= 21 else hard
    cdef int v, c, denom
    if n == 2 and t == 21:
        out[5] += p
        return
    if t > 21:
        out[6] += p
        return
    if n >= 2 and (t > 17 or (t == 17 and not (h17 and ace and hard + 10 == 17))):
        out[t - 17] += p
        return
    denom = n_left
    if n == 1 and excl:
        denom -= shoe[excl - 1]
    if denom <= 0:
        return
    for v in range(1, 11):
        c = shoe[v - 1]
        if c == 0 or (n == 1 and v == excl):
            continue
        shoe[v - 1] = c - 1
        _go(shoe, n_left - 1, hard + v, ace or v == 1, n + 1 if n < 3 else 3, 0, h17, p * c / denom, out)
        shoe[v - 1] = c


def dealer_dist(tuple shoe, int up, bint peeked, bint h17):
    """Final totals 17..21, natural, bust of a dealer showing ``up`` (1..10) with ``shoe`` left (10 counts)."""
    cdef int counts[10]
    cdef double out[7]
    cdef int i, total = 0
    for i in range(10):
        counts[i] = shoe[i]
        total += counts[i]
    for i in range(7):
        out[i] = 0.0
    cdef int excl = (10 if up == 1 else 1 if up == 10 else 0) if peeked else 0
    _go(counts, total, up, up == 1, 1, excl, h17, 1.0, out)
    return (out[0], out[1], out[2], out[3], out[4], out[5], out[6])
