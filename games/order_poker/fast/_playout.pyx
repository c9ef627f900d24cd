# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The random policy over the rules kernel: whole Order Poker deals of ``order-poker/random`` bots.

The rules are the kernel's (``kernel.pxd``: legal actions and apply); this module only chooses,
and chooses as ``RandomBot.act`` does over the same legal list: ``Generator.random()`` is
``next_double`` of the bit generator, so a deal played here has the same actions, the same
generator state afterwards and the same record as one played action by action in Python
(``tests/test_fast_paths.py``).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer

from ext.npdraw cimport bitgen_t
from games.order_poker.fast.kernel cimport (
    K_SIMPLE, K_SOURCES, MAX_LEGAL, OVER, Deal, apply, category, count_legal, legal, legal_at, start,
)
from games.order_poker.fast.policy cimport action_of, random_choice

#: The rule that ended the deal, by the ``end`` code ``play_random`` returns.
END_RULES = ("OP-4", "OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8")
#: The engine's role of a seat by the kernel's code (``Deal.roles``: 0 none yet, 1 for, 2 against).
ROLE_NAMES = (None, "for", "against")
SIMPLE_PER_SEAT = K_SIMPLE
SOURCES_PER_SEAT = K_SOURCES


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
    cdef int aux[MAX_LEGAL]
    cdef int s, m, moves = 0
    while d.phase != OVER:
        s = d.turn
        m = count_legal(d, aux)
        apply(d, legal_at(d, aux, random_choice(d, m, pp[s], kp[s], bg)))
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

    Returns ``(actions, end_rule, hands, robot, robot_cat, bids, bidders, in_bidding, orderer, order,
    roles, is_open, round, all_kept, partner)``, the fields of ``games.order_poker.state.Playout`` in
    its order (one tuple the caller turns into a ``Playout`` without unpacking it): ``end_rule`` from
    ``END_RULES``, the final cards, roles as the engine writes them (None, ``for``, ``against``).
    """
    cdef Deal d
    cdef int i, s, m, n, code
    cdef int codes[MAX_LEGAL]
    cdef double pp[6]
    cdef double kp[6]
    cdef bitgen_t *bg = start_deal(&d, rng, hands, robot, dealer, max_rounds, pass_prob, keep_prob, pp, kp)
    n = d.n
    with rng.bit_generator.lock:
        while d.phase != OVER:
            s = d.turn
            if trace is not None:
                m = legal(&d, codes)
                trace.append([action_of(&d, codes[i], simple, swaps) for i in range(m)])
            m = count_legal(&d, codes)  # the action is listed by its index: the others never are
            code = legal_at(&d, codes, random_choice(&d, m, pp[s], kp[s], bg))
            actions.append(action_of(&d, code, simple, swaps))
            apply(&d, code)
    return (actions, END_RULES[d.end], [[d.hands[s][i] for i in range(5)] for s in range(n)],
            [d.robot[i] for i in range(5)], d.robot_cat, [d.bids[i] for i in range(d.nbids)],
            [d.bidders[i] for i in range(d.nbids)], [bool(d.in_bid[s]) for s in range(n)], d.orderer, d.order,
            [ROLE_NAMES[d.roles[s]] for s in range(n)], bool(d.is_open), d.round, bool(d.all_kept), d.partner)


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
