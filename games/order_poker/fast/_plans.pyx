# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Plan tables of the Order Poker bots (``heuristic``, ``plans``), over the kernel's OP-2 ranks.

Exact reachability by swaps (``split_costs``, ``opponent_target``, ``cheapest_plan``) and the
sampled reach of an unknown hand (``one_swap_reach``), each one C loop; checked against the numpy
formulas of ``games.order_poker.plans`` by ``tests/test_order_poker_native.py``.
"""

from games.order_poker.fast.kernel cimport category

def subset_categories(const unsigned char[::1] pool, const unsigned char[:, ::1] subsets, int[::1] out):
    """``out[r]`` = OP-2 rank of the five cards ``pool[subsets[r]]`` (the bots' plan tables).

    The same ranks as the evaluator's ``value >> 20``, without building the (m, 5) card array.
    """
    cdef Py_ssize_t r, m = subsets.shape[0]
    cdef int c[5]
    cdef int i
    if subsets.shape[1] != 5 or out.shape[0] < m:
        raise ValueError("subsets must be (m, 5) and out at least m long")
    for r in range(m):
        for i in range(5):
            c[i] = pool[subsets[r, i]]
        out[r] = category(c)


def one_swap_reach(const unsigned char[::1] unknown, robot, const double[:, ::1] keys, double[::1] out):
    """For each OP-2 rank c, the share of sampled hands that hold c or reach it with one robot swap.

    Sample s is the hand of the five ``unknown`` cards with the smallest ``keys[s]`` (what
    ``argsort(keys, axis=1)[:, :5]`` picks; ``keys`` come from the caller's generator), checked
    as dealt and after each of the 25 swaps of one of its cards with one of ``robot``'s.
    """
    cdef Py_ssize_t samples = keys.shape[0], n = keys.shape[1], s, i, j, k, m
    cdef int rob[5]
    cdef int hand[5]
    cdef int tmp[5]
    cdef Py_ssize_t pick[5]
    cdef long counts[9]
    cdef unsigned int hit
    if n != unknown.shape[0] or n < 5 or out.shape[0] < 9:
        raise ValueError("keys must have one column per unknown card (at least 5), out 9 entries")
    for i in range(5):
        rob[i] = robot[i]
    for i in range(9):
        counts[i] = 0
    for s in range(samples):
        m = 0  # insertion of the five smallest keys of the row
        for j in range(n):
            if m < 5:
                k = m
                m += 1
            elif keys[s, j] < keys[s, pick[4]]:
                k = 4
            else:
                continue
            while k > 0 and keys[s, pick[k - 1]] > keys[s, j]:
                pick[k] = pick[k - 1]
                k -= 1
            pick[k] = j
        for i in range(5):
            hand[i] = unknown[pick[i]]
        hit = 1u << category(hand)
        for i in range(5):
            for k in range(5):
                tmp[k] = hand[k]
            for j in range(5):
                tmp[i] = rob[j]
                hit |= 1u << category(tmp)
        for i in range(9):
            if hit & (1u << i):
                counts[i] += 1
    for i in range(9):
        out[i] = <double> counts[i] / <double> samples


cdef int _load(obj, int *out, int n) except -1:
    cdef int i = 0
    for x in obj:
        if i >= n:
            raise ValueError(f"expected {n} cards")
        out[i] = x
        i += 1
    if i != n:
        raise ValueError(f"expected {n} cards")
    return 0


cdef int FAR = 99  # no plan reaches it

# The 252 splits of a 10-card pool (hand 0..4, robot 5..9) in itertools.combinations order:
# my five pool indices, the robot's five, and the cost (how many of mine come from the robot).
cdef int SPLIT_MINE[252][5]
cdef int SPLIT_OTHER[252][5]
cdef int SPLIT_COST[252]


cdef void _build_splits() noexcept:
    cdef int a, b, c, d, e, i, m, o, mc, n = 0
    for a in range(10):
        for b in range(a + 1, 10):
            for c in range(b + 1, 10):
                for d in range(c + 1, 10):
                    for e in range(d + 1, 10):
                        mc = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                        m = 0
                        o = 0
                        SPLIT_COST[n] = 0
                        for i in range(10):
                            if mc & (1 << i):
                                SPLIT_MINE[n][m] = i
                                m += 1
                                SPLIT_COST[n] += i >= 5
                            else:
                                SPLIT_OTHER[n][o] = i
                                o += 1
                        n += 1


_build_splits()


cdef inline void _split(const int *pool, int n, int *mine, int *other) noexcept nogil:
    cdef int i
    for i in range(5):
        mine[i] = pool[SPLIT_MINE[n][i]]
        other[i] = pool[SPLIT_OTHER[n][i]]


def split_costs(hand, robot, int rc):
    """Fewest swaps with the robot that reach each OP-2 rank, over all 252 splits of hand + robot.

    A split (in ``itertools.combinations(range(10), 5)`` order) is my five cards, the robot
    holding the other five; its cost is how many robot cards I hold. A split counts only if
    the robot's rank in it is at least ``rc`` (OP-6.5 for a non-orderer; ``rc`` 0: every split).
    Returns ``(own, match)``: ``own[c]`` the least cost of a split where my rank is c,
    ``match[c]`` of one where my rank and the robot's are both c; 99 where none.
    """
    cdef int pool[10]
    cdef int mine[5]
    cdef int other[5]
    cdef int own[9]
    cdef int match[9]
    cdef int i, m, n, cost, rcat
    _load(hand, pool, 5)
    _load(robot, &pool[5], 5)
    for i in range(9):
        own[i] = FAR
        match[i] = FAR
    for n in range(252):
        _split(pool, n, mine, other)
        rcat = category(other)
        if rc != 0 and rcat < rc:
            continue
        m = category(mine)
        cost = SPLIT_COST[n]
        if cost < own[m]:
            own[m] = cost
        if m == rcat and cost < match[m]:
            match[m] = cost
    return [own[i] for i in range(9)], [match[i] for i in range(9)]


def opponent_target(hand, robot, int order, int rc, double v_own, double v_match, int half_min, double cont):
    """The split a non-orderer heads for (``HeuristicBot._opponent``), or None to keep.

    Over the 252 splits of hand + robot (``split_costs`` order): value ``v_own`` if my rank is
    the order, else ``v_match`` (pass a negative one to disable) if my rank equals the robot's
    and is at least ``half_min``, else 0; discounted by ``cont ** (cost - 1)`` for a plan of
    ``cost`` >= 1 swaps; a split that lowers the robot below ``rc`` (OP-6.5) scores -1; minus
    0.001 per swap. Returns my five cards of the first best split, or None when that split
    costs nothing or scores <= 0.
    """
    cdef int pool[10]
    cdef int mine[5]
    cdef int other[5]
    cdef int best_cards[5]
    cdef int i, m, n, cost, rcat, best_cost = 0
    cdef double value, score, best = 0.0
    cdef double discs[6]
    cdef bint first = True
    _load(hand, pool, 5)
    _load(robot, &pool[5], 5)
    for i in range(6):  # the discount of a plan of i swaps: 1, then cont ** (i - 1)
        discs[i] = 1.0 if i == 0 else cont ** (i - 1)
    for n in range(252):
        _split(pool, n, mine, other)
        rcat = category(other)
        m = category(mine)
        cost = SPLIT_COST[n]
        if m == order:
            value = v_own
        elif v_match >= 0 and m == rcat and m >= half_min:
            value = v_match
        else:
            value = 0.0
        score = value * discs[cost] if (rc == 0 or rcat >= rc) else -1.0
        score = score - 1e-3 * <double> cost
        if first or score > best:
            first = False
            best = score
            best_cost = cost
            for i in range(5):
                best_cards[i] = mine[i]
    if best_cost == 0 or best <= 0:
        return None
    return [best_cards[i] for i in range(5)]


def cheapest_plan(hand, other, int order):
    """The orderer's cheapest way to the order over hand + ``other`` (robot, or robot + a ``for`` hand).

    Every 5-subset of the pool (``itertools.combinations`` order) whose rank is ``order``;
    its price is the number of cards not from my hand plus 0.01 per card of the ``for``
    hand (pool positions >= 10). Returns ``(price, cards)`` of the first cheapest, or None.
    """
    cdef int pool[15]
    cdef int sub[5]
    cdef int best_cards[5]
    cdef int n = len(other) + 5
    cdef int a, b, c, d, e, i, cost, nfor
    cdef double total, best = 0.0
    cdef bint found = False
    if n != 10 and n != 15:
        raise ValueError("other must hold 5 or 10 cards")
    _load(hand, pool, 5)
    _load(other, &pool[5], n - 5)
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        sub[0] = pool[a]
                        sub[1] = pool[b]
                        sub[2] = pool[c]
                        sub[3] = pool[d]
                        sub[4] = pool[e]
                        if category(sub) != order:
                            continue
                        cost = (a >= 5) + (b >= 5) + (c >= 5) + (d >= 5) + (e >= 5)
                        nfor = (a >= 10) + (b >= 10) + (c >= 10) + (d >= 10) + (e >= 10)
                        total = <double> cost + 0.01 * <double> nfor
                        if not found or total < best:
                            found = True
                            best = total
                            for i in range(5):
                                best_cards[i] = sub[i]
    if not found:
        return None
    return best, [best_cards[i] for i in range(5)]


