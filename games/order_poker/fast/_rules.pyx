# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The kernel's rules, called from the readable engine (``State.legal_actions``) one list at a time."""

from games.order_poker.fast.kernel cimport category


def legal_robot_swaps(hand, robot, int rc, list table, list out):
    """Append the non-orderer's legal robot swaps (OP-6.5) to ``out``, in (hand i, robot j) order.

    ``table[36 * (give - 16) + take - 16]`` is the seat's swap object; a swap is legal when
    the robot's rank afterwards is at least ``rc`` (any swap when ``rc`` is 0, `none`).
    """
    cdef int h[5]
    cdef int r[5]
    cdef int tmp[5]
    cdef int i, j, k
    for i in range(5):
        h[i] = hand[i]
        r[i] = robot[i]
    for i in range(5):
        for j in range(5):
            if rc != 0:
                for k in range(5):
                    tmp[k] = r[k]
                tmp[j] = h[i]
                if category(tmp) < rc:
                    continue
            out.append(table[36 * (h[i] - 16) + r[j] - 16])


def category_of(cards):
    """OP-2 rank of five card ids (for tests: checked against the evaluator on every hand)."""
    cdef int c[5]
    cdef int i
    for i in range(5):
        c[i] = cards[i]
    return category(c)
