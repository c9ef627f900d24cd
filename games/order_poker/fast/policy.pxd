# cython: language_level=3
"""What Order Poker's compiled policies share over the rules kernel (``kernel.pxd``): ``RandomBot``'s
choice and the engine's ``Action`` object of a kernel code.

``_playout.pyx`` (random tables) and ``_rollout.pyx`` (heuristic and mixed tables, the montecarlo
play-outs) both cimport these, so the random seats of either draw and answer alike. Inline C only: a
module that cimports it compiles its own copy.
"""

from ext.npdraw cimport bitgen_t
from games.order_poker.fast.kernel cimport BIDDING, EXCHANGE, K_SIMPLE, K_SOURCES, K_SWAP, Deal


cdef inline int random_choice(const Deal *d, int n, double pp, double kp, bitgen_t *bg) noexcept nogil:
    """``RandomBot.act``: the index of the chosen action among the ``n`` legal ones (``pp`` its pass
    probability, ``kp`` its keep probability, negative: uniform)."""
    cdef double u
    if n == 1:
        return 0
    u = bg.next_double(bg.state)
    if d.phase == BIDDING:  # the pass comes first
        return 0 if u < pp else 1 + <int>(bg.next_double(bg.state) * (n - 1))
    if d.phase == EXCHANGE and kp >= 0:  # the keep comes first
        return 0 if u < kp else 1 + <int>(bg.next_double(bg.state) * (n - 1))
    return <int>(u * n)


cdef inline object action_of(const Deal *d, int code, list simple, list swaps):
    """The engine's ``Action`` object of the seat to act's ``code``: ``simple[13 * seat + code]`` for a
    non-swap, else ``swaps[7 * seat + source + 1][36 * (give - 16) + take - 16]`` (the caller's tables)."""
    cdef int s = d.turn, src, i, j, take
    if code < K_SWAP:
        return simple[K_SIMPLE * s + code]
    code -= K_SWAP
    src = code // 25 - 1
    i = (code % 25) // 5
    j = code % 5
    take = d.robot[j] if src < 0 else d.hands[src][j]
    return swaps[K_SOURCES * s + src + 1][36 * (d.hands[s][i] - 16) + take - 16]
