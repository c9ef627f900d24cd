# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Double-dummy solver for Preferans (3 hands, trump / no-trump / misère), compiled.

Fail-soft alpha-beta over single cards, the value being the declarer's tricks from now on, one function
per card of a trick (lead, second, third). At a trick boundary the cheapest bounds come first: the
window against 0..remaining, the last trick played out, the leader's quick tricks (the top cards he
cashes where nobody can trump), then a transposition table keyed on the three hands and the leader that
keeps lower and upper bounds. Equivalent cards (a run of one hand's cards with no card of another hand,
or of the trick in progress, between them) are searched once; moves are ordered (cheapest winning card,
else the highest losing one for the side that wants to lose). The declarer maximises; at misère the two
defenders maximise his tricks and he minimises them. PF-7.2 (follow suit, else trump, else any) and
PF-7.3 (highest trump, else highest of the led suit) are the rules of play.

The table is kept between solves: its key holds the contract (trump, declarer, misère) with the
position, so a bound stored by one solve is true in any later one, and pimc's samples and candidate
cards share what they have in common. ``probe`` is one null-window search (a bound, for callers that
need only a comparison); ``best_card`` is pimc's choice of a card over its samples, probes and all.

Cards inside are bits ``suit * 8 + rank`` (rank 0..7 for 7..A, suit as games.core.cards: c d h s).
games/preferans/reference.py is the plain minimax this is tested against.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

cdef extern from *:
    int __builtin_clz(unsigned int x) nogil
    int __builtin_ctz(unsigned int x) nogil
    int __builtin_popcount(unsigned int x) nogil

cdef enum:
    # 2^16 entries, 1 MB: it stays in the core's cache. A table of 2^20 (16 MB) saves about 4% of the
    # nodes of pimc's searches, but a search then waits on memory at most trick boundaries.
    TT_BITS = 16
    TT_SIZE = 1 << TT_BITS

ctypedef struct Entry:  # 16 bytes; an empty one is all zero (a stored key's k2 is never 0)
    uint64_t k1
    uint32_t k2
    uint8_t lo
    uint8_t hi
    uint16_t pad

ctypedef struct Ctx:
    uint32_t hand[3]
    uint32_t live  # the cards in the hands and in the trick in progress
    int trick[3]
    int leader
    int declarer
    int trump  # -1: none
    int misere
    int remaining  # tricks not yet completed
    long nodes

cdef Entry* _tt = NULL
cdef int _use_tt = 1
cdef int _use_eq = 1


def _debug_switches(int tt, int eq):
    """Turn the table, or the equivalent-card pruning and the quick tricks, off (tests of the search only)."""
    global _use_tt, _use_eq
    _use_tt, _use_eq = tt, eq


cdef inline int _highest(uint32_t x) noexcept nogil:
    return 31 - __builtin_clz(x)

cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 33
    x *= <uint64_t>0xff51afd7ed558ccd
    x ^= x >> 33
    x *= <uint64_t>0xc4ceb9fe1a85ec53
    x ^= x >> 33
    return x


cdef inline uint32_t _legal(Ctx* c, int seat, int depth) noexcept nogil:
    """PF-7.2: follow the led suit, else trump, else any card."""
    cdef uint32_t h = c.hand[seat], legal
    if depth == 0:
        return h
    legal = h & ((<uint32_t>0xFF) << ((c.trick[0] >> 3) * 8))
    if legal == 0 and c.trump >= 0:
        legal = h & ((<uint32_t>0xFF) << (c.trump * 8))
    if legal == 0:
        legal = h
    return legal


cdef uint8_t _compress[256][256]  # _compress[mask][bits]: the bits of ``bits`` under ``mask``, packed low
cdef uint8_t _expand[256][256]  # _expand[mask][packed]: the inverse, the low bits put on ``mask``'s


cdef void _init_compress() noexcept nogil:
    cdef int m, x, b, k, out, dep
    for m in range(256):
        for x in range(256):
            out = 0
            dep = 0
            k = 0
            for b in range(8):
                if (m >> b) & 1:
                    if (x >> b) & 1:
                        out |= 1 << k
                    if (x >> k) & 1:
                        dep |= 1 << b
                    k += 1
            _compress[m][x] = <uint8_t>out
            _expand[m][x] = <uint8_t>dep


_init_compress()


cdef inline uint32_t _reps(Ctx* c, uint32_t legal) noexcept nogil:
    """One card of each run of equivalent cards of ``legal``: the lowest (a card whose next lower card
    still in play is ours too is skipped)."""
    cdef uint32_t out = 0, l, a, x
    cdef int s
    if not _use_eq:
        return legal
    for s in range(4):
        l = (legal >> (s * 8)) & 0xFF
        if l:
            a = (c.live >> (s * 8)) & 0xFF
            x = _compress[a][l]
            out |= (<uint32_t>_expand[a][x & ~(x << 1) & 0xFF]) << (s * 8)
    return out


cdef inline uint32_t _beats(int win, int trump) noexcept nogil:
    """The cards that beat card bit ``win``, winning a trick so far (PF-7.3): higher ones of its suit, and
    every trump if it is none."""
    cdef int s = win >> 3
    cdef uint32_t m = ((<uint32_t>0xFF) << (s * 8)) & ~(((<uint32_t>2) << win) - 1)
    if trump >= 0 and s != trump:
        m |= (<uint32_t>0xFF) << (trump * 8)
    return m


cdef inline int _follow_order(uint32_t reps, uint32_t wins, int wants_win, int* out) noexcept nogil:
    """A follower's cards: the cheapest winning cards first when his side wants the trick, else the
    highest losing cards first; returns the count."""
    cdef uint32_t m
    cdef int n = 0, b
    if wants_win:
        m = reps & wins
        while m:
            out[n] = __builtin_ctz(m)
            m &= m - 1
            n += 1
        m = reps & ~wins
        while m:
            out[n] = __builtin_ctz(m)
            m &= m - 1
            n += 1
    else:
        m = reps & ~wins
        while m:
            b = _highest(m)
            out[n] = b
            m &= ~((<uint32_t>1) << b)
            n += 1
        m = reps & wins
        while m:
            out[n] = __builtin_ctz(m)
            m &= m - 1
            n += 1
    return n


cdef inline void _key(Ctx* c, uint64_t* k1, uint64_t* k2) noexcept nogil:
    """The position up to rank equivalence: per suit, which of the cards still in play (in rank order)
    seats 0 and 1 hold, and how many there are (seat 2 holds the rest), with the contract and leader.

    The value depends only on the order of the cards still in play, so positions that differ only in
    which (already played) cards are gone share one entry."""
    cdef uint32_t h0 = c.hand[0], h1 = c.hand[1], allc = c.live
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


cdef inline int _run(uint32_t mine, uint32_t others) noexcept nogil:
    """The leader's cards of one suit above every other card of it still in play (8-bit masks)."""
    if others == 0:
        return __builtin_popcount(mine)
    return __builtin_popcount(mine >> (_highest(others) + 1))


cdef inline int _quick(Ctx* c) noexcept nogil:
    """Tricks the leader takes for sure by cashing his top cards (at a trick boundary): per suit, his
    unbroken run from the highest card still in play; only where nobody else can trump: no trump, he holds
    every trump left, or he is the declarer and his run of top trumps is at least as long as either
    defender's trumps (he draws them first). Else 0; never at misère."""
    cdef uint32_t mine = c.hand[c.leader], others = c.live & ~mine
    cdef int s, q = 0, d0, d1, l1, l2
    if c.misere:
        return 0
    if c.trump >= 0 and (others >> (c.trump * 8)) & 0xFF:
        if c.leader != c.declarer:
            return 0
        l1 = c.leader + 1
        if l1 == 3:
            l1 = 0
        l2 = l1 + 1
        if l2 == 3:
            l2 = 0
        q = _run((mine >> (c.trump * 8)) & 0xFF, (others >> (c.trump * 8)) & 0xFF)  # his top trumps
        d0 = __builtin_popcount((c.hand[l1] >> (c.trump * 8)) & 0xFF)
        d1 = __builtin_popcount((c.hand[l2] >> (c.trump * 8)) & 0xFF)
        if q < d0 or q < d1:
            return 0
        q = 0  # the trumps' run is counted below with the other suits
    for s in range(4):
        q += _run((mine >> (s * 8)) & 0xFF, (others >> (s * 8)) & 0xFF)
    return q


cdef inline int _last(Ctx* c) noexcept nogil:
    """The declarer's tricks (0 or 1) from the last trick, each hand holding one card."""
    cdef int l = c.leader, l1 = l + 1, l2, w = l, win
    if l1 == 3:
        l1 = 0
    l2 = l1 + 1
    if l2 == 3:
        l2 = 0
    win = _highest(c.hand[l])
    if c.hand[l1] & _beats(win, c.trump):
        w, win = l1, _highest(c.hand[l1])
    if c.hand[l2] & _beats(win, c.trump):
        w = l2
    return w == c.declarer


cdef inline bint _take(int maximizer, int v, int* best, int* alpha, int* beta) noexcept nogil:
    """Fail-soft alpha-beta at one move of the side to play: ``v`` into the best value and the window
    (the maximiser raises alpha, the minimiser lowers beta); True when the window has closed (a cut)."""
    if maximizer:
        if v > best[0]:
            best[0] = v
            if v > alpha[0]:
                alpha[0] = v
    elif v < best[0]:
        best[0] = v
        if v < beta[0]:
            beta[0] = v
    return alpha[0] >= beta[0]


cdef int _lead(Ctx* c, int alpha, int beta) noexcept nogil:
    """The declarer's tricks from a trick boundary (fail-soft alpha-beta; the table's positions)."""
    cdef Entry* e
    cdef uint64_t k1, k2
    cdef int lo, hi, a0, b0, q, n, i, card, v, best, maximizer, seat = c.leader
    cdef int moves[10]
    cdef uint32_t bit
    c.nodes += 1
    # cheapest first: the window against 0..remaining, the last trick, the leader's quick tricks, the table
    if c.remaining == 0 or beta <= 0:
        return 0
    if alpha >= c.remaining:
        return c.remaining
    if c.remaining == 1:
        return _last(c)
    lo, hi = 0, c.remaining
    if _use_eq:
        q = _quick(c)
        if q > 0:
            if q > c.remaining:
                q = c.remaining
            if seat == c.declarer:
                lo = q
                if lo >= beta:
                    return lo
            else:
                hi = c.remaining - q
                if hi <= alpha:
                    return hi
    _key(c, &k1, &k2)
    e = &_tt[_mix(k1 ^ (k2 * <uint64_t>0x9E3779B97F4A7C15)) & (TT_SIZE - 1)]
    if _use_tt and e.k1 == k1 and e.k2 == <uint32_t>k2:
        if e.lo > lo:
            lo = e.lo
        if e.hi < hi:
            hi = e.hi
    # the bounds may settle it; the window must never come out empty
    if lo == hi or lo >= beta:
        return lo
    if hi <= alpha:
        return hi
    if alpha < lo:
        alpha = lo
    if beta > hi:
        beta = hi
    a0, b0 = alpha, beta
    maximizer = (seat == c.declarer) != c.misere
    # the declarer's side leads high first, the misère declarer low first
    n = _follow_order(_reps(c, c.hand[seat]), 0, 0, moves) if not (c.misere and seat == c.declarer) \
        else _follow_order(_reps(c, c.hand[seat]), 0xFFFFFFFF, 1, moves)
    best = -1 if maximizer else 99
    for i in range(n):
        card = moves[i]
        bit = (<uint32_t>1) << card
        c.hand[seat] &= ~bit
        c.trick[0] = card
        v = _second(c, alpha, beta)
        c.hand[seat] |= bit
        if _take(maximizer, v, &best, &alpha, &beta):
            break
    if e.k1 != k1 or e.k2 != <uint32_t>k2:  # (a deeper position may have taken the entry meanwhile)
        e.k1, e.k2 = k1, <uint32_t>k2
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


cdef int _second(Ctx* c, int alpha, int beta) noexcept nogil:
    """The declarer's tricks after the lead (fail-soft alpha-beta)."""
    cdef int seat = c.leader + 1, n, i, card, v, best, maximizer, wants_win
    cdef int moves[10]
    cdef uint32_t bit
    c.nodes += 1
    if seat == 3:
        seat = 0
    maximizer = (seat == c.declarer) != c.misere
    wants_win = 0 if c.misere else (1 if seat == c.declarer else c.leader == c.declarer)
    n = _follow_order(_reps(c, _legal(c, seat, 1)), _beats(c.trick[0], c.trump), wants_win, moves)
    best = -1 if maximizer else 99
    for i in range(n):
        card = moves[i]
        bit = (<uint32_t>1) << card
        c.hand[seat] &= ~bit
        c.trick[1] = card
        v = _third(c, alpha, beta)
        c.hand[seat] |= bit
        if _take(maximizer, v, &best, &alpha, &beta):
            break
    return best


cdef int _third(Ctx* c, int alpha, int beta) noexcept nogil:
    """The declarer's tricks after the trick's second card (fail-soft alpha-beta): each card completes
    the trick, whose winner leads the next."""
    cdef int leader = c.leader, seat = c.leader + 2, n, i, card, v, best, maximizer, wants_win
    cdef int t0 = c.trick[0], t1 = c.trick[1], win_seat, w
    cdef int moves[10]
    cdef uint32_t bit, live = c.live, wins = _beats(t0, c.trump)
    c.nodes += 1
    if seat >= 3:
        seat -= 3
    win_seat = leader
    if wins & ((<uint32_t>1) << t1):
        win_seat = leader + 1
        if win_seat == 3:
            win_seat = 0
        wins = _beats(t1, c.trump)
    maximizer = (seat == c.declarer) != c.misere
    wants_win = 0 if c.misere else (1 if seat == c.declarer else win_seat == c.declarer)
    n = _follow_order(_reps(c, _legal(c, seat, 2)), wins, wants_win, moves)
    best = -1 if maximizer else 99
    c.remaining -= 1
    for i in range(n):
        card = moves[i]
        bit = (<uint32_t>1) << card
        w = seat if wins & bit else win_seat
        v = (w == c.declarer)
        c.hand[seat] &= ~bit
        c.live = live & ~(bit | ((<uint32_t>1) << t0) | ((<uint32_t>1) << t1))
        c.leader = w
        v = v + _lead(c, alpha - v, beta - v)
        c.hand[seat] |= bit
        if _take(maximizer, v, &best, &alpha, &beta):
            break
    c.remaining += 1
    c.leader = leader
    c.live = live
    c.trick[0], c.trick[1] = t0, t1  # (the next tricks overwrote them)
    return best


cdef int _search(Ctx* c, int depth, int alpha, int beta) noexcept nogil:
    """The declarer's tricks from here (the trick in progress has ``depth`` cards), fail-soft alpha-beta."""
    if depth == 0:
        return _lead(c, alpha, beta)
    if depth == 1:
        return _second(c, alpha, beta)
    return _third(c, alpha, beta)


cdef uint32_t _bit(int card_id) except 0xFFFFFFFF:
    cdef int r = (card_id >> 2) - 5
    if r < 0 or r > 7:
        raise ValueError(f"card id {card_id} is not in the 32-card deck")
    return <uint32_t>((card_id & 3) * 8 + r)


_last_nodes = 0


cdef int _setup(Ctx* c, hands, int trump, int declarer, int leader, bint misere, trick) except -1:
    """Fill ``c`` from Python arguments (the table allocated on first use); returns the depth."""
    global _tt
    cdef int s, k, depth
    if _tt == NULL:
        _tt = <Entry*>calloc(TT_SIZE, sizeof(Entry))
        if _tt == NULL:
            raise MemoryError()
    for s in range(3):
        c.hand[s] = 0
        for k in hands[s]:
            c.hand[s] |= (<uint32_t>1) << _bit(k)
    depth = len(trick)
    for k in range(depth):
        c.trick[k] = _bit(trick[k])
    c.live = c.hand[0] | c.hand[1] | c.hand[2]
    for k in range(depth):
        c.live |= (<uint32_t>1) << c.trick[k]
    c.leader = leader
    c.declarer = declarer
    c.trump = trump
    c.misere = misere
    c.nodes = 0
    # tricks not yet completed: the trick in progress counts (its leader has played already)
    c.remaining = __builtin_popcount(c.hand[leader]) + (1 if depth > 0 else 0)
    return depth


def clear():
    """Forget the transposition table (tests: a solve from an empty table)."""
    if _tt != NULL:
        memset(_tt, 0, TT_SIZE * sizeof(Entry))


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


ctypedef struct Point:  # best_card: one sample after one candidate card
    uint32_t hand[3]
    int trick[3]
    int depth
    int leader
    int base  # the declarer's tricks decided by the card (he won the trick it completed)
    int lo  # bounds of the declarer's tricks from the card on, base included
    int hi


def best_card(samples, cards, int mover, on_table, int trump, int declarer, bint misere, bint want_max):
    """The card of ``cards`` with the best total over ``samples`` of the declarer's tricks after it
    (the first on a tie; the highest if ``want_max``, else the lowest), and that total.

    ``samples``: per sample the three hands (lists of core card ids) of the seats in the order of play
    of the trick in progress (its leader first) before ``mover`` (a position in that order) plays one of
    ``cards``; ``on_table``: the cards the trick holds already; ``declarer``: his position.

    Every (sample, card) keeps a low and a high of its value, narrowed by null-window searches only for
    the card leading on its summed bounds (the highs when maximising, else the lows), its widest sample
    first (the first on a tie), until that card is exact in every sample: its exact total then beats
    every other card's bound, so the answer (and the total) is the one of solving every card of every
    sample exactly."""
    global _tt, _last_nodes
    cdef int ns = len(samples), nc = len(cards), nt = len(on_table), i, j, k, best, wi, width, gamma, r, was
    cdef int side = 1 if want_max else 0, win, w
    cdef uint32_t hand[3]
    cdef int table[3]
    cdef long nodes = 0, total
    cdef Point* p
    cdef Ctx c
    if ns == 0 or nc == 0:
        raise ValueError("best_card needs samples and cards")
    if nt > 2 or mover != nt or not 0 <= declarer < 3:
        raise ValueError("best_card: the mover plays the trick's next card (at most the third); positions are 0..2")
    if _tt == NULL:
        _tt = <Entry*>calloc(TT_SIZE, sizeof(Entry))
        if _tt == NULL:
            raise MemoryError()
    cdef Point* pts = <Point*>malloc(ns * nc * sizeof(Point))
    cdef long* sums = <long*>malloc(nc * sizeof(long))
    if pts == NULL or sums == NULL:
        free(pts)
        free(sums)
        raise MemoryError()
    try:
        table[0] = table[1] = table[2] = 0
        for k in range(nt):
            table[k] = _bit(on_table[k])
        for j in range(nc):
            sums[j] = 0
        for i in range(ns):
            hs = samples[i]
            for k in range(3):
                hand[k] = 0
                for x in hs[k]:
                    hand[k] |= (<uint32_t>1) << _bit(x)
            for j in range(nc):
                p = &pts[i * nc + j]
                p.hand[0], p.hand[1], p.hand[2] = hand[0], hand[1], hand[2]
                p.trick[0], p.trick[1] = table[0], table[1]
                k = _bit(cards[j])
                p.hand[mover] &= ~((<uint32_t>1) << k)
                p.trick[nt] = k
                if nt == 2:  # the card completes the trick: its winner leads the next
                    win, w = p.trick[0], 0
                    if _beats(win, trump) & ((<uint32_t>1) << p.trick[1]):
                        win, w = p.trick[1], 1
                    if _beats(win, trump) & ((<uint32_t>1) << p.trick[2]):
                        w = 2
                    p.depth, p.leader, p.base = 0, w, int(w == declarer)
                    p.lo, p.hi = p.base, p.base + __builtin_popcount(p.hand[w])
                else:
                    p.depth, p.leader, p.base = nt + 1, 0, 0
                    p.lo, p.hi = 0, __builtin_popcount(p.hand[0]) + 1
                sums[j] += p.hi if side else p.lo
        c.declarer, c.trump, c.misere = declarer, trump, misere
        while True:
            best = 0
            for j in range(1, nc):
                if (sums[j] > sums[best]) if want_max else (sums[j] < sums[best]):
                    best = j
            wi, width = -1, 0
            for i in range(ns):
                p = &pts[i * nc + best]
                if p.hi - p.lo > width:
                    wi, width = i, p.hi - p.lo
            if wi < 0:
                break
            p = &pts[wi * nc + best]
            gamma = p.hi if want_max else p.lo + 1  # does it reach the bound the choice rests on?
            c.hand[0], c.hand[1], c.hand[2] = p.hand[0], p.hand[1], p.hand[2]
            c.trick[0], c.trick[1], c.trick[2] = p.trick[0], p.trick[1], p.trick[2]
            c.live = p.hand[0] | p.hand[1] | p.hand[2]
            for k in range(p.depth):
                c.live |= (<uint32_t>1) << p.trick[k]
            c.leader, c.nodes = p.leader, 0
            c.remaining = __builtin_popcount(p.hand[p.leader]) + (1 if p.depth > 0 else 0)
            r = p.base + _search(&c, p.depth, gamma - p.base - 1, gamma - p.base)
            nodes += c.nodes
            was = p.hi if side else p.lo
            if r >= gamma:
                p.lo = r
            else:
                p.hi = r
            sums[best] += (p.hi if side else p.lo) - was
        total = 0
        for i in range(ns):
            total += pts[i * nc + best].lo
        _last_nodes = nodes
        return best, total
    finally:
        free(pts)
        free(sums)


def last_nodes():
    """Nodes searched by the last ``solve`` or ``probe`` (for benchmarks)."""
    return _last_nodes
