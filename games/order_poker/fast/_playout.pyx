# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The random policy over the rules kernel: whole Order Poker deals of ``order-poker/random`` bots.

The rules are the kernel's (``kernel.pxd``: legal actions and apply); this module only chooses,
and chooses as ``RandomBot.act`` does over the same legal list: ``Generator.random()`` is
``next_double`` of the bit generator, so a deal played here has the same actions, the same
generator state afterwards and the same record as one played action by action in Python
(``tests/test_fast_paths.py``).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t

from games.order_poker.fast.kernel cimport (
    BIDDING, EXCHANGE, K_SIMPLE, K_SOURCES, K_SWAP, MAX_LEGAL, OVER, Deal, apply, category, legal, start,
)

cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint64_t (*next_uint64)(void *st) nogil
        double (*next_double)(void *st) nogil

#: The rule that ended the deal, by the ``end`` code ``play_random`` returns.
END_RULES = ("OP-4", "OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8")
SIMPLE_PER_SEAT = K_SIMPLE
SOURCES_PER_SEAT = K_SOURCES


cdef inline int choose(const Deal *d, int n, double pp, double kp, bitgen_t *bg) noexcept nogil:
    """``RandomBot.act``: the index of the chosen action among the ``n`` legal ones."""
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
    """The engine's ``Action`` object of the seat to act's ``code`` (from the caller's tables)."""
    cdef int s = d.turn, src, i, j, take
    if code < K_SWAP:
        return simple[K_SIMPLE * s + code]
    code -= K_SWAP
    src = code // 25 - 1
    i = (code % 25) // 5
    j = code % 5
    take = d.robot[j] if src < 0 else d.hands[src][j]
    return swaps[K_SOURCES * s + src + 1][36 * (d.hands[s][i] - 16) + take - 16]


cdef bitgen_t *start_deal(Deal *d, rng, hands, robot, int dealer, int max_rounds, pass_prob, keep_prob,
                          double *pp, double *kp) except NULL:
    """Fill ``d`` with the dealt cards and the seats' parameters; the generator's C interface."""
    cdef int n = len(hands), i, s
    if n < 3 or n > 6:
        raise ValueError("3 to 6 hands")
    for s in range(n):
        h = hands[s]
        for i in range(5):
            d.hands[s][i] = h[i]
        pp[s] = pass_prob[s]
        kp[s] = -1.0 if keep_prob[s] is None else keep_prob[s]
    for i in range(5):
        d.robot[i] = robot[i]
    start(d, n, dealer, max_rounds)
    return <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")


cdef int run(Deal *d, const double *pp, const double *kp, bitgen_t *bg) noexcept nogil:
    """Play ``d`` to the end with the random policy; the number of actions."""
    cdef int codes[MAX_LEGAL]
    cdef int s, m, moves = 0
    while d.phase != OVER:
        s = d.turn
        m = legal(d, codes)
        apply(d, codes[choose(d, m, pp[s], kp[s], bg)])
        moves += 1
    return moves


def play_random(rng, hands, robot, int dealer, int max_rounds, pass_prob, keep_prob,
                list simple, list swaps, list actions, list trace=None):
    """Play a fresh deal to the end with ``RandomBot`` at every seat.

    ``hands``/``robot``: card ids as dealt. ``pass_prob``/``keep_prob``: each seat's parameters
    (``keep_prob`` None: uniform). ``simple[13 * seat + k]`` is the seat's non-swap action of code
    k and ``swaps[7 * seat + source + 1][36 * (give - 16) + take - 16]`` its swap objects (source
    -1 is the robot): the objects chosen are appended to ``actions``, so the caller gets its own
    action values back. ``trace`` (tests): each step's whole legal list is appended to it.

    Returns ``(end, hands, robot, robot_cat, bids, bidders, in_bidding, orderer, order, roles,
    is_open, round, all_kept, partner)``: ``end`` an index into ``END_RULES``, the final cards,
    roles coded 0 (none), 1 (for), 2 (against).
    """
    cdef Deal d
    cdef int i, s, m, idx, n
    cdef int codes[MAX_LEGAL]
    cdef double pp[6]
    cdef double kp[6]
    cdef bitgen_t *bg = start_deal(&d, rng, hands, robot, dealer, max_rounds, pass_prob, keep_prob, pp, kp)
    n = d.n
    with rng.bit_generator.lock:
        while d.phase != OVER:
            s = d.turn
            m = legal(&d, codes)
            if trace is not None:
                trace.append([action_of(&d, codes[i], simple, swaps) for i in range(m)])
            idx = choose(&d, m, pp[s], kp[s], bg)
            actions.append(action_of(&d, codes[idx], simple, swaps))
            apply(&d, codes[idx])
    return (d.end, [[d.hands[s][i] for i in range(5)] for s in range(n)], [d.robot[i] for i in range(5)],
            d.robot_cat, [d.bids[i] for i in range(d.nbids)], [d.bidders[i] for i in range(d.nbids)],
            [bool(d.in_bid[s]) for s in range(n)], d.orderer, d.order, [d.roles[s] for s in range(n)],
            bool(d.is_open), d.round, bool(d.all_kept), d.partner)


def play_random_summary(rng, hands, robot, int dealer, int max_rounds, pass_prob, keep_prob):
    """``play_random`` without the actions: what a summary row needs, nothing else.

    Returns ``(end, orderer, order, stake, is_open, robot_cat, round, partner, n_actions,
    combinations, roles)``: the final OP-2 rank of every hand, roles coded as in ``play_random``.
    """
    cdef Deal d
    cdef int s, moves
    cdef double pp[6]
    cdef double kp[6]
    cdef bitgen_t *bg = start_deal(&d, rng, hands, robot, dealer, max_rounds, pass_prob, keep_prob, pp, kp)
    with rng.bit_generator.lock:
        moves = run(&d, pp, kp, bg)
    return (d.end, d.orderer, d.order, d.nbids, bool(d.is_open), d.robot_cat, d.round, d.partner, moves,
            [category(d.hands[s]) for s in range(d.n)], [d.roles[s] for s in range(d.n)])
