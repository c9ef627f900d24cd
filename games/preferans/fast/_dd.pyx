# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Double-dummy solver for Preferans (3 hands, trump / no-trump / misère), compiled.

Fail-soft alpha-beta over single cards, the value being the declarer's tricks from now on; a
transposition table at trick boundaries keyed on the three hands and the leader keeps lower and upper
bounds (a position not in it starts from the leader's quick tricks: the top cards he cashes where
nobody can trump); equivalent cards (a run of one hand's cards with no card of another hand, or of the
trick in progress, between them) are searched once; moves are ordered (cheapest winning card, else the
highest losing one for the side that wants to lose). The declarer maximises; at misère the two
defenders maximise his tricks and he minimises them. PF-7.2 (follow suit, else trump, else any)
and PF-7.3 (highest trump, else highest of the led suit) are the rules of play.

The table is kept between solves: its key holds the contract (trump, declarer, misère) with the
position, so a bound stored by one solve is true in any later one, and pimc's samples and candidate
cards share what they have in common. ``probe`` is one null-window search (a bound, for callers that
need only a comparison).

Cards inside are bits ``suit * 8 + rank`` (rank 0..7 for 7..A, suit as games.core.cards: c d h s).
games/preferans/reference.py is the plain minimax this is tested against.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free

cdef extern from *:
    int __builtin_clz(unsigned int x) nogil
    int __builtin_ctz(unsigned int x) nogil
    int __builtin_popcount(unsigned int x) nogil

cdef enum:
    TT_BITS = 20
    TT_SIZE = 1 << 20

ctypedef struct Entry:  # 16 bytes
    uint64_t k1
    uint32_t k2
    uint16_t gen
    uint8_t lo
    uint8_t hi

ctypedef struct Ctx:
    uint32_t hand[3]
    int trick[3]
    int leader
    int declarer
    int trump  # -1: none
    int misere
    int remaining  # tricks not yet completed
    uint16_t gen
    long nodes

cdef Entry* _tt = NULL
cdef int _use_tt = 1
cdef int _use_eq = 1


def _debug_switches(int tt, int eq):
    """Turn the table, or the equivalent-card pruning and the quick tricks, off (tests of the search only)."""
    global _use_tt, _use_eq
    _use_tt, _use_eq = tt, eq
cdef uint16_t _gen = 0


cdef inline int _highest(uint32_t x) nogil:
    return 31 - __builtin_clz(x)

cdef inline uint64_t _mix(uint64_t x) nogil:
    x ^= x >> 33
    x *= <uint64_t>0xff51afd7ed558ccd
    x ^= x >> 33
    x *= <uint64_t>0xc4ceb9fe1a85ec53
    x ^= x >> 33
    return x


cdef inline int _wins(int a, int b, int led, int trump) nogil:
    """True when card bit ``a`` beats the card bit ``b`` currently winning a trick led in ``led``."""
    cdef int sa = a >> 3, sb = b >> 3
    if trump >= 0:
        if sa == trump and sb != trump:
            return 1
        if sa != trump and sb == trump:
            return 0
        if sa == trump and sb == trump:
            return a > b
    if sa == led and sb == led:
        return a > b
    return 0


cdef int _moves(Ctx* c, int seat, int depth, int* out) nogil:
    """The candidate cards of ``seat`` (one of each run of equivalent cards), ordered; returns the count."""
    cdef uint32_t h = c.hand[seat]
    cdef uint32_t allc = c.hand[0] | c.hand[1] | c.hand[2]
    cdef uint32_t legal, suitmask, below, m
    cdef int i, b, n = 0, led = -1, win = -1, s, k, hb
    cdef int tmp[10]
    cdef int nt = 0
    for i in range(depth):
        allc |= (<uint32_t>1) << c.trick[i]
    if depth == 0:
        legal = h
    else:
        led = c.trick[0] >> 3
        legal = h & ((<uint32_t>0xFF) << (led * 8))
        if legal == 0 and c.trump >= 0:
            legal = h & ((<uint32_t>0xFF) << (c.trump * 8))
        if legal == 0:
            legal = h
        win = c.trick[0]
        for i in range(1, depth):
            if _wins(c.trick[i], win, led, c.trump):
                win = c.trick[i]
    # one card of each run of equivalent cards: b is skipped when the next lower card still in play is ours
    m = legal
    while m:
        b = __builtin_ctz(m)
        m &= m - 1
        s = b >> 3
        suitmask = (<uint32_t>0xFF) << (s * 8)
        below = allc & suitmask & (((<uint32_t>1) << b) - 1)
        if below and _use_eq:
            hb = _highest(below)
            if (legal >> hb) & 1:
                continue
        tmp[nt] = b
        nt += 1
    # ordering
    cdef int maximizer = (seat == c.declarer) != c.misere
    cdef int wants_win
    cdef int win_seat
    if depth == 0:
        # lead: the declarer's side high first (normal), the misère declarer low first
        if c.misere and seat == c.declarer:
            for i in range(nt):
                out[n] = tmp[i]
                n += 1
        else:
            for i in range(nt - 1, -1, -1):
                out[n] = tmp[i]
                n += 1
        return n
    win_seat = (c.leader + 0) % 3
    for i in range(1, depth):
        if c.trick[i] == win:
            win_seat = (c.leader + i) % 3
    if c.misere:
        wants_win = 0
    elif seat == c.declarer:
        wants_win = 1
    else:
        wants_win = win_seat == c.declarer
    if wants_win:
        for i in range(nt):  # the cheapest winning cards first
            if _wins(tmp[i], win, led, c.trump):
                out[n] = tmp[i]
                n += 1
        for i in range(nt):
            if not _wins(tmp[i], win, led, c.trump):
                out[n] = tmp[i]
                n += 1
    else:
        for i in range(nt - 1, -1, -1):  # the highest losing cards first
            if not _wins(tmp[i], win, led, c.trump):
                out[n] = tmp[i]
                n += 1
        for i in range(nt):
            if _wins(tmp[i], win, led, c.trump):
                out[n] = tmp[i]
                n += 1
    return n


cdef uint8_t _compress[256][256]  # _compress[mask][bits]: the bits of ``bits`` under ``mask``, packed low


cdef void _init_compress() noexcept nogil:
    cdef int m, x, b, k, out
    for m in range(256):
        for x in range(256):
            out = 0
            k = 0
            for b in range(8):
                if (m >> b) & 1:
                    if (x >> b) & 1:
                        out |= 1 << k
                    k += 1
            _compress[m][x] = <uint8_t>out


_init_compress()


cdef inline void _key(Ctx* c, uint64_t* k1, uint64_t* k2) noexcept nogil:
    """The position up to rank equivalence: per suit, which of the cards still in play (in rank order)
    seats 0 and 1 hold, and how many there are (seat 2 holds the rest), with the contract and leader.

    The value depends only on the order of the cards still in play, so positions that differ only in
    which (already played) cards are gone share one entry."""
    cdef uint32_t h0 = c.hand[0], h1 = c.hand[1], allc = c.hand[0] | c.hand[1] | c.hand[2]
    cdef uint64_t a = 0, b = ((<uint64_t>(c.trump + 1) * 4 + <uint64_t>c.declarer) * 2 + <uint64_t>c.misere) * 4 \
        + <uint64_t>c.leader
    cdef uint32_t m
    cdef int s
    for s in range(4):
        m = (allc >> (s * 8)) & 0xFF
        b = (b << 4) | <uint64_t>__builtin_popcount(m)
        a = (a << 16) | (<uint64_t>_compress[m][(h0 >> (s * 8)) & 0xFF] << 8) \
            | <uint64_t>_compress[m][(h1 >> (s * 8)) & 0xFF]
    k1[0] = a
    k2[0] = b


cdef inline int _quick(Ctx* c) noexcept nogil:
    """Tricks the leader takes for sure by cashing his top cards (at a trick boundary): per suit, his
    unbroken run from the highest card still in play; only where nobody else can trump: no trump, he holds
    every trump left, or he is the declarer and his run of top trumps is at least as long as either
    defender's trumps (he draws them first). Else 0; never at misère."""
    cdef uint32_t allc = c.hand[0] | c.hand[1] | c.hand[2], mine = c.hand[c.leader], m, x, inv
    cdef int s, cnt, q = 0, d0, d1
    if c.misere:
        return 0
    if c.trump >= 0 and ((allc & ~mine) >> (c.trump * 8)) & 0xFF:
        if c.leader != c.declarer:
            return 0
        m = (allc >> (c.trump * 8)) & 0xFF
        x = _compress[m][(mine >> (c.trump * 8)) & 0xFF]
        cnt = __builtin_popcount(m)
        inv = ~x & ((<uint32_t>1 << cnt) - 1)
        q = cnt if inv == 0 else cnt - 1 - _highest(inv)  # his top trumps
        d0 = __builtin_popcount((c.hand[(c.leader + 1) % 3] >> (c.trump * 8)) & 0xFF)
        d1 = __builtin_popcount((c.hand[(c.leader + 2) % 3] >> (c.trump * 8)) & 0xFF)
        if q < d0 or q < d1:
            return 0
        q = 0  # the trumps' run is counted below with the other suits
    for s in range(4):
        m = (allc >> (s * 8)) & 0xFF
        if m == 0:
            continue
        x = _compress[m][(mine >> (s * 8)) & 0xFF]
        cnt = __builtin_popcount(m)
        inv = ~x & ((<uint32_t>1 << cnt) - 1)
        q += cnt if inv == 0 else cnt - 1 - _highest(inv)
    return q


cdef int _search(Ctx* c, int depth, int alpha, int beta) nogil:
    """The declarer's tricks from here (the trick in progress has ``depth`` cards), fail-soft alpha-beta."""
    cdef Entry* e = NULL
    cdef uint64_t k1 = 0, k2 = 0, h
    cdef int lo = 0, hi = 0, a0, b0, q
    cdef int seat, n, i, card, v, best, maximizer, w, led, win, wi, saved_leader, t0, t1
    cdef int moves[10]
    c.nodes += 1
    if depth == 0:
        if c.remaining == 0:
            return 0
        _key(c, &k1, &k2)
        h = _mix(k1 ^ (k2 * <uint64_t>0x9E3779B97F4A7C15)) & (TT_SIZE - 1)
        e = &_tt[h]
        lo, hi = 0, c.remaining
        if _use_tt and e.gen == c.gen and e.k1 == k1 and e.k2 == <uint32_t>k2:
            lo, hi = e.lo, e.hi
        elif _use_eq:
            q = _quick(c)
            if q > 0:
                if q > c.remaining:
                    q = c.remaining
                if c.leader == c.declarer:
                    lo = q
                else:
                    hi = c.remaining - q
        # the bounds (0..remaining, or the table's) may settle it; the window must never come out empty
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if alpha < lo:
            alpha = lo
        if beta > hi:
            beta = hi
    a0, b0 = alpha, beta
    seat = (c.leader + depth) % 3
    maximizer = (seat == c.declarer) != c.misere
    n = _moves(c, seat, depth, moves)
    best = -1 if maximizer else 99
    for i in range(n):
        card = moves[i]
        c.hand[seat] &= ~((<uint32_t>1) << card)
        c.trick[depth] = card
        if depth == 2:
            led = c.trick[0] >> 3
            win = c.trick[0]
            wi = 0
            if _wins(c.trick[1], win, led, c.trump):
                win = c.trick[1]
                wi = 1
            if _wins(c.trick[2], win, led, c.trump):
                wi = 2
            w = (c.leader + wi) % 3
            saved_leader = c.leader
            c.leader = w
            c.remaining -= 1
            v = (w == c.declarer)
            t0, t1 = c.trick[0], c.trick[1]  # the next trick overwrites them
            v = v + _search(c, 0, alpha - v, beta - v)
            c.trick[0], c.trick[1] = t0, t1
            c.remaining += 1
            c.leader = saved_leader
        else:
            v = _search(c, depth + 1, alpha, beta)
        c.hand[seat] |= (<uint32_t>1) << card
        if maximizer:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    if depth == 0:
        if e.gen != c.gen or e.k1 != k1 or e.k2 != <uint32_t>k2:
            e.gen, e.k1, e.k2 = c.gen, k1, <uint32_t>k2
            e.lo, e.hi = 0, c.remaining
        if best <= a0:
            if best < e.hi:
                e.hi = best
        elif best >= b0:
            if best > e.lo:
                e.lo = best
        else:
            e.lo = best
            e.hi = best
    return best


cdef uint32_t _bit(int card_id) except 0xFFFFFFFF:
    cdef int r = (card_id >> 2) - 5
    if r < 0 or r > 7:
        raise ValueError(f"card id {card_id} is not in the 32-card deck")
    return <uint32_t>((card_id & 3) * 8 + r)


_last_nodes = 0


cdef int _setup(Ctx* c, hands, int trump, int declarer, int leader, bint misere, trick) except -1:
    """Fill ``c`` from Python arguments (the table allocated on first use); returns the depth."""
    global _tt, _gen
    cdef int s, k, depth
    if _tt == NULL:
        _tt = <Entry*>calloc(TT_SIZE, sizeof(Entry))
        if _tt == NULL:
            raise MemoryError()
        _gen = 1
    for s in range(3):
        c.hand[s] = 0
        for k in hands[s]:
            c.hand[s] |= (<uint32_t>1) << _bit(k)
    depth = len(trick)
    for k in range(depth):
        c.trick[k] = _bit(trick[k])
    c.leader = leader
    c.declarer = declarer
    c.trump = trump
    c.misere = misere
    c.gen = _gen
    c.nodes = 0
    # tricks not yet completed: the trick in progress counts (its leader has played already)
    c.remaining = __builtin_popcount(c.hand[leader]) + (1 if depth > 0 else 0)
    return depth


def clear():
    """Forget the transposition table (tests: a solve from an empty table)."""
    global _gen
    _gen += 1
    if _gen == 0:
        _gen = 1


def solve(hands, int trump, int declarer, int leader, bint misere, trick=(), int guess=-1):
    """The declarer's tricks under optimal play from this position.

    ``hands``: three lists of core card ids (seats 0, 1, 2 clockwise); ``trump``: core suit id or -1;
    ``trick``: cards already played to the trick in progress, led by ``leader``; ``guess``: where the
    MTD(f) searches start (-1: the middle); it changes the work, never the answer.
    """
    global _last_nodes
    cdef Ctx c
    cdef int depth = _setup(&c, hands, trump, declarer, leader, misere, trick)
    if c.remaining == 0:
        return 0
    # MTD(f): null-window searches around a guess, the table keeping the bounds between them
    cdef int lower = 0, upper = c.remaining, b
    cdef int g = (c.remaining + 1) // 2 if guess < 0 else min(guess, c.remaining)
    while lower < upper:
        b = g + 1 if g == lower else g
        g = _search(&c, depth, b - 1, b)
        if g < b:
            upper = g
        else:
            lower = g
    _last_nodes = c.nodes
    return lower


def probe(hands, int trump, int declarer, int leader, bint misere, trick, int gamma):
    """One null-window search: does the declarer take at least ``gamma`` tricks from this position?

    Fail-soft: a result ``r >= gamma`` means he takes at least ``r``; ``r < gamma``, at most ``r``."""
    global _last_nodes
    cdef Ctx c
    cdef int depth = _setup(&c, hands, trump, declarer, leader, misere, trick)
    if c.remaining == 0:
        return 0
    cdef int r = _search(&c, depth, gamma - 1, gamma)
    _last_nodes = c.nodes
    return r


def last_nodes():
    """Nodes searched by the last ``solve`` or ``probe`` (for benchmarks)."""
    return _last_nodes
