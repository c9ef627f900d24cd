# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""C play-out of one Order Poker deal by random bots (the hot path of random tables).

The rules live, readable, in ``games/order_poker/state.py``; this is the same state machine
(OP-3 bidding, OP-5 roles, OP-6 exchange) written as C over small arrays, for deals where
every seat is ``order-poker/random``. It lists the legal actions in exactly the order of
``State.legal_actions`` and draws from the numpy bit generator exactly what ``RandomBot.act``
draws (``Generator.random()`` is ``next_double`` of the bit generator), so a deal played here
has the same actions, the same generator state afterwards, and the same record as one played
action by action in Python. ``tests/test_order_poker_native.py`` checks that on thousands of
deals. Scoring (OP-4, OP-7) is left to ``games.order_poker.scoring``.

Cards are the ids of ``games.core.cards`` (``4 * rank + suit``; the 36-card deck is 16..51).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t

cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void *state
        uint64_t (*next_uint64)(void *st) nogil
        double (*next_double)(void *st) nogil

# Phases and end rules (indices into END_RULES).
cdef enum:
    BIDDING = 0
    ROLES = 1
    EXCHANGE = 2
    OVER = 3

#: Rule that ended the deal, by the code ``play_random`` returns.
END_RULES = ("OP-4", "OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8")

# Index of each non-swap action in a seat's block of ``simple`` (see ``play_random``); sources
# of ``swaps`` per seat: the robot, then seats 0..5. C constants (the loop must not look up
# module globals), exported below for the Python side.
cdef enum:
    C_FOR = 9
    C_AGAINST = 10
    C_KEEP = 11
    C_STOP = 12
    C_SIMPLE_PER_SEAT = 13
    C_SOURCES_PER_SEAT = 7

A_PASS, A_FOR, A_AGAINST, A_KEEP, A_STOP = 0, C_FOR, C_AGAINST, C_KEEP, C_STOP
SIMPLE_PER_SEAT = C_SIMPLE_PER_SEAT
SOURCES_PER_SEAT = C_SOURCES_PER_SEAT

cdef int PAIR = 1
# OP-2 rank by the number of equal-rank pairs among a hand's ten pairs of cards (5 cannot occur).
cdef int PAIRS_TO_RANK[7]
PAIRS_TO_RANK[:] = [0, 1, 2, 3, 5, 0, 7]


cdef int category(const int *c) noexcept nogil:
    """OP-2 rank of five distinct cards of the 36-card deck (no wrap-around straights).

    Counts equal-rank pairs among the ten pairs of cards: 1 pair, 2 two pairs, 3 three of a
    kind, 4 full house, 6 four of a kind; with 0 (five ranks) it is a straight, flush,
    straight flush or nothing.
    """
    cdef int r0 = c[0] >> 2, r1 = c[1] >> 2, r2 = c[2] >> 2, r3 = c[3] >> 2, r4 = c[4] >> 2
    cdef int pairs = ((r0 == r1) + (r0 == r2) + (r0 == r3) + (r0 == r4) + (r1 == r2) + (r1 == r3)
                      + (r1 == r4) + (r2 == r3) + (r2 == r4) + (r3 == r4))
    cdef int lo, hi, flush, straight
    if pairs:
        return PAIRS_TO_RANK[pairs]
    lo = min(r0, r1, r2, r3, r4)
    hi = max(r0, r1, r2, r3, r4)
    straight = hi - lo == 4  # five distinct ranks spanning five: consecutive (A-6-7-8-9 spans 8)
    flush = ((c[0] & 3) == (c[1] & 3) and (c[0] & 3) == (c[2] & 3)
             and (c[0] & 3) == (c[3] & 3) and (c[0] & 3) == (c[4] & 3))
    if straight:
        return 8 if flush else 4  # straight_flush, straight
    return 6 if flush else 0  # flush, none


def category_of(cards):
    """OP-2 rank of five card ids (for tests: checked against the evaluator on every hand)."""
    cdef int c[5]
    cdef int i
    for i in range(5):
        c[i] = cards[i]
    return category(c)


cdef struct Deal:
    int n
    int hands[6][5]
    int robot[5]
    int robot_cat
    int banned
    int phase
    int turn
    int in_bid[6]
    int n_in
    int bids[9]
    int bidders[9]
    int nbids
    int orderer
    int order
    int roles[6]  # 0: none yet, 1: for, 2: against
    int is_open
    int round
    int all_kept
    int partner
    int max_rounds
    int end


cdef inline void finish(Deal *d, int rule) noexcept nogil:
    d.phase = OVER
    d.turn = -1
    d.end = rule


cdef inline void start_round(Deal *d) noexcept nogil:
    d.round += 1
    d.all_kept = 1
    d.turn = d.orderer  # OP-6.2


cdef inline void after_exchange_turn(Deal *d, int s) noexcept nogil:
    cdef int t = (s + 1) % d.n
    if t != d.orderer:
        d.turn = t
    elif d.all_kept:
        finish(d, 3)  # OP-6.7: every player but the orderer kept
    elif d.round >= d.max_rounds:
        finish(d, 4)  # OP-6.8
    else:
        start_round(d)


cdef inline void do_swap(Deal *d, int s, int gi, int src, int tj) noexcept nogil:
    """hand[s][gi] <-> (robot or hands[src])[tj]; the taken card goes to the given card's place."""
    cdef int *sp
    cdef int g = d.hands[s][gi]
    if src < 0:
        sp = &d.robot[0]
    else:
        sp = &d.hands[src][0]
    d.hands[s][gi] = sp[tj]
    sp[tj] = g
    if src < 0:
        d.robot_cat = category(d.robot)
    else:
        d.partner = src  # OP-6.4


def play_random(rng, list hands, list robot, int dealer, int max_rounds, list pass_prob, list keep_prob,
                list simple, list swaps, list actions):
    """Play a fresh deal to the end with a random bot (``RandomBot``) at every seat.

    ``hands``/``robot``: card ids as dealt (the lists are updated in place to the final
    cards). ``pass_prob``/``keep_prob``: each seat's parameters (``keep_prob`` None: uniform).
    ``simple[13 * seat + k]`` is the seat's action object number k (pass, order of rank k
    for k = 1..8, for, against, keep, stop) and ``swaps[7 * seat + source + 1][36 * (give -
    16) + take - 16]`` its swap objects (source -1 is the robot): the objects chosen are
    appended to ``actions``, so the caller gets its own action values back.

    Returns ``(end, orderer, order, partner, round, all_kept, is_open, robot_cat, bids,
    bidders, in_bidding, roles)`` with ``end`` an index into ``END_RULES`` and roles coded
    0 (none), 1 (for), 2 (against).
    """
    cdef Deal d
    cdef int n = len(hands)
    cdef int i, j, s, c, k, m, src, cnt, nsrc, idx, cat
    cdef int legal_orders[9]
    cdef int ok[25]
    cdef int srcs[6]
    cdef int tmp[5]
    cdef double pp[6]
    cdef double kp[6]
    cdef double u
    cdef bitgen_t *bg
    bit_generator = rng.bit_generator
    bg = <bitgen_t *> PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
    if n < 3 or n > 6:
        raise ValueError("3 to 6 hands")
    d.n = n
    for s in range(n):
        h = hands[s]
        for i in range(5):
            d.hands[s][i] = h[i]
        pp[s] = pass_prob[s]
        kp[s] = -1.0 if keep_prob[s] is None else keep_prob[s]
        d.in_bid[s] = 1
        d.roles[s] = 0
    for i in range(5):
        d.robot[i] = robot[i]
    d.robot_cat = category(d.robot)
    d.banned = d.robot_cat  # OP-3.2
    d.phase = BIDDING
    d.turn = (dealer + 1) % n  # OP-3.1
    d.n_in = n
    d.nbids = 0
    d.orderer = -1
    d.order = -1
    d.is_open = 0
    d.round = 0
    d.all_kept = 1
    d.partner = -1
    d.max_rounds = max_rounds
    d.end = -1
    with bit_generator.lock:
        while d.phase != OVER:
            s = d.turn
            if d.phase == BIDDING:
                # OP-3.2/3.4: pass, or an order not yet announced and not the robot's.
                cnt = 0
                for c in range(1, 9):
                    if c == d.banned:
                        continue
                    k = 0
                    for j in range(d.nbids):
                        if d.bids[j] == c:
                            k = 1
                            break
                    if not k:
                        legal_orders[cnt] = c
                        cnt += 1
                c = 0  # pass
                if cnt > 0 and bg.next_double(bg.state) >= pp[s]:
                    c = legal_orders[<int>(bg.next_double(bg.state) * cnt)]
                actions.append(simple[C_SIMPLE_PER_SEAT * s + c])
                if c == 0:
                    d.in_bid[s] = 0
                    d.n_in -= 1
                else:
                    d.bids[d.nbids] = c
                    d.bidders[d.nbids] = s
                    d.nbids += 1
                if d.n_in == 0:
                    finish(&d, 0)  # OP-4
                elif d.n_in == 1 and d.nbids > 0:
                    d.orderer = d.bidders[d.nbids - 1]  # OP-3.3
                    d.order = d.bids[d.nbids - 1]
                    d.phase = ROLES
                    d.turn = (d.orderer + 1) % n  # OP-5.1
                else:
                    k = (s + 1) % n
                    while not d.in_bid[k]:
                        k = (k + 1) % n
                    d.turn = k
            elif d.phase == ROLES:
                k = 1 + <int>(bg.next_double(bg.state) * 2)  # for, against
                actions.append(simple[C_SIMPLE_PER_SEAT * s + C_FOR + k - 1])
                d.roles[s] = k
                k = (s + 1) % n
                if k != d.orderer:
                    d.turn = k
                else:
                    for i in range(n):
                        if d.roles[i] == 1:
                            d.is_open = 1  # OP-5.2
                    if d.order == PAIR:
                        finish(&d, 1)  # OP-6.1
                    else:
                        d.phase = EXCHANGE
                        start_round(&d)
            elif s == d.orderer:
                # keep, [stop from round 2], 25 robot swaps, 25 per usable `for` hand (OP-6.3/6.4).
                nsrc = 0
                if d.is_open:
                    if d.partner >= 0:
                        srcs[0] = d.partner
                        nsrc = 1
                    else:
                        for i in range(n):
                            if d.roles[i] == 1:
                                srcs[nsrc] = i
                                nsrc += 1
                k = 1 if d.round >= 2 else 0
                m = 1 + k + 25 * (1 + nsrc)
                u = bg.next_double(bg.state)
                if kp[s] >= 0:
                    if u < kp[s]:
                        idx = 0
                    else:
                        idx = 1 + <int>(bg.next_double(bg.state) * (m - 1))
                else:
                    idx = <int>(u * m)
                if idx == 0:
                    actions.append(simple[C_SIMPLE_PER_SEAT * s + C_KEEP])
                elif k and idx == 1:
                    actions.append(simple[C_SIMPLE_PER_SEAT * s + C_STOP])
                    finish(&d, 2)  # OP-6.3
                    continue
                else:
                    idx -= 1 + k
                    src = -1 if idx < 25 else srcs[idx // 25 - 1]
                    i, j = (idx % 25) // 5, idx % 5
                    c = d.hands[s][i]
                    m = d.robot[j] if src < 0 else d.hands[src][j]
                    actions.append(swaps[C_SOURCES_PER_SEAT * s + src + 1][36 * (c - 16) + m - 16])
                    do_swap(&d, s, i, src, j)
                after_exchange_turn(&d, s)
            else:
                # keep, then the robot swaps that do not lower its rank (OP-6.5), in (i, j) order.
                cnt = 0
                for i in range(5):
                    for j in range(5):
                        if d.robot_cat == 0:
                            ok[cnt] = 5 * i + j
                            cnt += 1
                            continue
                        for k in range(5):
                            tmp[k] = d.robot[k]
                        tmp[j] = d.hands[s][i]
                        cat = category(tmp)
                        if cat >= d.robot_cat:
                            ok[cnt] = 5 * i + j
                            cnt += 1
                idx = 0
                if cnt > 0:
                    m = 1 + cnt
                    u = bg.next_double(bg.state)
                    if kp[s] >= 0:
                        if u >= kp[s]:
                            idx = 1 + <int>(bg.next_double(bg.state) * (m - 1))
                    else:
                        idx = <int>(u * m)
                if idx == 0:
                    actions.append(simple[C_SIMPLE_PER_SEAT * s + C_KEEP])
                else:
                    i, j = ok[idx - 1] // 5, ok[idx - 1] % 5
                    actions.append(swaps[C_SOURCES_PER_SEAT * s][36 * (d.hands[s][i] - 16) + d.robot[j] - 16])
                    do_swap(&d, s, i, -1, j)
                    d.all_kept = 0
                after_exchange_turn(&d, s)
    for s in range(n):
        h = hands[s]
        for i in range(5):
            h[i] = d.hands[s][i]
    for i in range(5):
        robot[i] = d.robot[i]
    return (d.end, d.orderer, d.order, d.partner, d.round, bool(d.all_kept), bool(d.is_open), d.robot_cat,
            [d.bids[i] for i in range(d.nbids)], [d.bidders[i] for i in range(d.nbids)],
            [bool(d.in_bid[i]) for i in range(n)], [d.roles[i] for i in range(n)])


# ---------------------------------------------------------------------------- bots' reach tables
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


def legal_robot_swaps(hand, robot, int rc, list table, list out):
    """Append the non-orderer's legal robot swaps (OP-6.5) to ``out``, in (hand i, robot j) order.

    ``table[36 * (give - 16) + take - 16]`` is the seat's swap object; a swap is legal when
    the robot's rank afterwards is at least ``rc`` (any swap when ``rc`` is 0, `none`).
    """
    cdef int h[5]
    cdef int r[5]
    cdef int tmp[5]
    cdef int i, j, k
    _load(hand, h, 5)
    _load(robot, r, 5)
    for i in range(5):
        for j in range(5):
            if rc != 0:
                for k in range(5):
                    tmp[k] = r[k]
                tmp[j] = h[i]
                if category(tmp) < rc:
                    continue
            out.append(table[36 * (h[i] - 16) + r[j] - 16])
