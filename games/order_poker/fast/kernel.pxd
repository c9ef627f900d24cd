# cython: language_level=3
"""The Order Poker rules kernel in C: deal state, legal actions, apply (no policy, no Python).

The readable rules are ``games/order_poker/state.py``; this is the same state machine (OP-3
bidding, OP-5 roles, OP-6 exchange) over small arrays, as inline C functions that every
compiled policy of the game cimports (``_playout.pyx``: the random policy; a compiled heuristic
would be another). ``legal`` lists the actions of the seat to act in exactly the order of
``State.legal_actions``; ``apply`` plays one of them. Scoring (OP-4, OP-7) stays in
``games.order_poker.scoring``.

Action codes are per seat: 0 pass, 1..8 the order of that OP-2 rank, 9 for, 10 against, 11 keep,
12 stop, and ``SWAP + 25 * (source + 1) + 5 * i + j`` the swap of the seat's card at position i
with card j of the source (source -1 is the robot, else a seat). Cards are the ids of
``games.core.cards`` (``4 * rank + suit``; the 36-card deck is 16..51).
"""

cdef enum:
    BIDDING = 0
    ROLES = 1
    EXCHANGE = 2
    OVER = 3

cdef enum:
    K_PASS = 0
    K_FOR = 9
    K_AGAINST = 10
    K_KEEP = 11
    K_STOP = 12
    K_SIMPLE = 13  # non-swap codes per seat (actions.SIMPLE_PER_SEAT)
    K_SWAP = 13  # first swap code
    K_SOURCES = 7  # swap sources per seat: the robot, then seats 0..5
    MAX_LEGAL = 152  # keep, stop, 25 robot swaps and 25 per open `for` hand of 5 others
    PAIR = 1

# Why a deal ended, by ``Deal.end`` (the rule ids of ``State.end_rule``).
cdef enum:
    END_ALL_PASSED = 0  # OP-4
    END_PAIR = 1  # OP-6.1
    END_STOP = 2  # OP-6.3
    END_ALL_KEPT = 3  # OP-6.7
    END_ROUNDS = 4  # OP-6.8


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


cdef inline int category(const int *c) noexcept nogil:
    """OP-2 rank of five distinct cards of the 36-card deck (no wrap-around straights).

    Counts equal-rank pairs among the ten pairs of cards: 1 pair, 2 two pairs, 3 three of a
    kind, 4 full house, 6 four of a kind; with 0 (five ranks) a straight, flush, straight
    flush or nothing.
    """
    cdef int r0 = c[0] >> 2, r1 = c[1] >> 2, r2 = c[2] >> 2, r3 = c[3] >> 2, r4 = c[4] >> 2
    cdef int pairs = ((r0 == r1) + (r0 == r2) + (r0 == r3) + (r0 == r4) + (r1 == r2) + (r1 == r3)
                      + (r1 == r4) + (r2 == r3) + (r2 == r4) + (r3 == r4))
    cdef int lo, hi, flush
    if pairs:
        if pairs <= 3:
            return pairs  # pair, two_pair, three
        return 5 if pairs == 4 else 7  # full_house, four (5 equal-rank pairs cannot occur)
    lo = min(r0, r1, r2, r3, r4)
    hi = max(r0, r1, r2, r3, r4)
    flush = ((c[0] & 3) == (c[1] & 3) and (c[0] & 3) == (c[2] & 3)
             and (c[0] & 3) == (c[3] & 3) and (c[0] & 3) == (c[4] & 3))
    if hi - lo == 4:  # five distinct ranks spanning five: consecutive (A-6-7-8-9 spans 8)
        return 8 if flush else 4  # straight_flush, straight
    return 6 if flush else 0  # flush, none


cdef inline void start(Deal *d, int n, int dealer, int max_rounds) noexcept nogil:
    """A fresh deal of ``n`` seats whose ``hands``/``robot`` the caller has filled (OP-1.4)."""
    cdef int s
    d.n = n
    for s in range(n):
        d.in_bid[s] = 1
        d.roles[s] = 0
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


cdef inline int robot_swap_ok(const Deal *d, int s, int i, int j) noexcept nogil:
    """OP-6.5: a non-orderer's swap of his card i with robot card j keeps the robot's rank."""
    cdef int tmp[5]
    cdef int k
    if d.robot_cat == 0:
        return 1  # `none` may become anything
    for k in range(5):
        tmp[k] = d.robot[k]
    tmp[j] = d.hands[s][i]
    return category(tmp) >= d.robot_cat


cdef inline int legal(const Deal *d, int *out) noexcept nogil:
    """The codes of every legal action of the seat to act, in ``State.legal_actions`` order."""
    cdef int s = d.turn, n = 0, c, j, k, f
    if d.phase == BIDDING:
        out[0] = K_PASS  # OP-3.2/3.4: pass, or an order not yet announced and not the robot's
        n = 1
        for c in range(1, 9):
            if c == d.banned:
                continue
            k = 0
            for j in range(d.nbids):
                if d.bids[j] == c:
                    k = 1
                    break
            if not k:
                out[n] = c
                n += 1
        return n
    if d.phase == ROLES:
        out[0] = K_FOR
        out[1] = K_AGAINST
        return 2
    if d.phase != EXCHANGE:
        return 0
    out[0] = K_KEEP
    n = 1
    if s == d.orderer:
        if d.round >= 2:
            out[1] = K_STOP  # OP-6.3: from round 2 on
            n = 2
        for k in range(25):  # OP-6.3: robot swaps, free of OP-6.5
            out[n + k] = K_SWAP + k
        n += 25
        if d.is_open:  # OP-6.4 [ruling]: once one `for` player was used, only him
            for f in range(d.n):
                if (d.partner >= 0 and f == d.partner) or (d.partner < 0 and d.roles[f] == 1):
                    for k in range(25):
                        out[n + k] = K_SWAP + 25 * (f + 1) + k
                    n += 25
        return n
    for k in range(25):  # OP-6.5, in (hand card, robot card) order
        if robot_swap_ok(d, s, k // 5, k % 5):
            out[n] = K_SWAP + k
            n += 1
    return n


cdef inline void finish(Deal *d, int end) noexcept nogil:
    d.phase = OVER
    d.turn = -1
    d.end = end


cdef inline void start_round(Deal *d) noexcept nogil:
    d.round += 1
    d.all_kept = 1
    d.turn = d.orderer  # OP-6.2


cdef inline void apply(Deal *d, int code) noexcept nogil:
    """Play the legal action ``code`` of the seat to act."""
    cdef int s = d.turn, t, i, j, src, g
    cdef int *sp
    if d.phase == BIDDING:
        if code == K_PASS:
            d.in_bid[s] = 0
            d.n_in -= 1
        else:
            d.bids[d.nbids] = code
            d.bidders[d.nbids] = s
            d.nbids += 1
        if d.n_in == 0:
            finish(d, END_ALL_PASSED)  # OP-4
        elif d.n_in == 1 and d.nbids > 0:
            d.orderer = d.bidders[d.nbids - 1]  # OP-3.3
            d.order = d.bids[d.nbids - 1]
            d.phase = ROLES
            d.turn = (d.orderer + 1) % d.n  # OP-5.1
        else:
            t = (s + 1) % d.n
            while not d.in_bid[t]:
                t = (t + 1) % d.n
            d.turn = t
        return
    if d.phase == ROLES:
        d.roles[s] = 1 if code == K_FOR else 2
        t = (s + 1) % d.n
        if t != d.orderer:
            d.turn = t
            return
        for i in range(d.n):
            if d.roles[i] == 1:
                d.is_open = 1  # OP-5.2
        if d.order == PAIR:
            finish(d, END_PAIR)  # OP-6.1
        else:
            d.phase = EXCHANGE
            start_round(d)
        return
    if code == K_STOP:
        finish(d, END_STOP)  # OP-6.3
        return
    if code >= K_SWAP:
        code -= K_SWAP
        src = code // 25 - 1
        i = (code % 25) // 5
        j = code % 5
        sp = &d.robot[0] if src < 0 else &d.hands[src][0]
        g = d.hands[s][i]  # the taken card goes to the given card's place
        d.hands[s][i] = sp[j]
        sp[j] = g
        if src < 0:
            d.robot_cat = category(d.robot)
        else:
            d.partner = src  # OP-6.4
        if s != d.orderer:
            d.all_kept = 0
    t = (s + 1) % d.n
    if t != d.orderer:
        d.turn = t
    elif d.all_kept:
        finish(d, END_ALL_KEPT)  # OP-6.7: every player but the orderer kept
    elif d.round >= d.max_rounds:
        finish(d, END_ROUNDS)  # OP-6.8
    else:
        start_round(d)
