# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, language_level=3
"""Double-dummy solver of a Raspisnoy deal ending, in C (alpha-beta with a transposition table).

Every hand is known. The searching seat (``root``) maximises ``payoff[t]``, t being the tricks it
takes in the whole deal (``taken`` so far plus those still to come); every other seat minimises it
(the "paranoid" reduction of a many-player game to two sides). The moves are exactly the legal plays
of ``games.core.tricks.legal_plays`` (R-4.6), the joker's modes and lead calls included: a joker is
one card with several moves (``high``/``low``/``plain``, and on a lead a called suit, R-4.4, R-4.5).
The trick goes as ``trick_winner`` (R-4.7, R-4.8). Tests compare this with a brute-force minimax
over the readable ``games.core.tricks`` on every 3- and 4-card ending of random deals.

Cards are 0..35 here (core id - 16): suit = c & 3 (c d h s), rank = c >> 2 (6 .. A). A move is
``card | mode << 6 | call << 8`` with mode 0 real, 1 high, 2 low, 3 plain and call 0..3, or 7 for none.
Two real cards of one suit in one hand with no other card of the suit between them, in any hand or on
the table, are equivalent, and only the lower one is searched (the usual sequence reduction). The
table stores bounds at trick boundaries, keyed by every hand, the leader and the root's tricks, in
buckets of two (one kept for the position with more cards left, one always replaced), with the best
lead found there, searched first when the position comes back; a value is found by null-window searches
bisecting the payoff's range (MTD-style), the table kept. The table outlives a solve while the game's
options, trump, root and payoff stay the same (the samples and candidate moves of one pimc decision,
the later decisions of the deal): its entries are proven bounds of exact positions, so the values are
the same as with a fresh table, only found sooner.
"""

from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t
from libc.stdlib cimport calloc, free

from games.raspisnoy.fast.tricks cimport (joker_moves, led_of, plain_allowed, play_key, real_base, trick_trump_of,
                                          winner_index)


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

DEF MAXP = 6
DEF MAXMOVES = 64
DEF NOCALL = 7
DEF INF = 1000000000

cdef struct Entry:
    uint64_t h[MAXP]
    int32_t lo
    int32_t hi
    int32_t used  # the generation that wrote the entry; 0: never
    int8_t leader
    int8_t taken
    int16_t move  # the best (or cutting) lead found there: searched first when the position comes back


cdef struct Ctx:
    int n
    int trump
    int rotating
    int must_trump
    int joker_plain
    int joker_low
    int leads_any
    uint64_t jokers
    int root
    int duck  # the root wants no more tricks than it has (its payoff is highest now): low plays first
    int npay
    int pay_lo[64][64]  # [taken][w]: the lowest and highest payoff[taken .. taken + w] (within the table)
    int pay_hi[64][64]
    int payoff[64]
    uint64_t hands[MAXP]
    int tcount
    int tseat[MAXP]
    int tcard[MAXP]
    int tmode[MAXP]
    int tcall[MAXP]
    int leader
    int taken
    Entry* tt
    uint64_t ttmask
    int32_t gen
    long long nodes


cdef inline int c_suit(int c) noexcept nogil:
    return c & 3


cdef inline int c_rank(int c) noexcept nogil:
    return c >> 2


cdef inline int led_suit(Ctx* c) noexcept nogil:
    return led_of(c.tmode[0], c.tcard[0], c.tcall[0])  # tricks.pxd, shared with the play-outs


cdef inline int trick_trump(Ctx* c, int led) noexcept nogil:
    return trick_trump_of(c.rotating, c.trump, led)  # R-2.3


cdef int gen_moves(Ctx* c, int seat, int* moves) noexcept nogil:
    """R-4.6: the legal moves of ``seat`` (in the order: real cards ascending, then joker modes)."""
    cdef uint64_t hand = c.hands[seat]
    cdef uint64_t real = hand & ~c.jokers
    cdef uint64_t jok = hand & c.jokers
    cdef uint64_t base, present, sb
    cdef int m = 0, card, s, L = -1, T = -1, prev, lead_mode = 0, plain = 0
    cdef int i
    if c.tcount == 0:
        base = real
    else:
        L = led_suit(c)
        T = trick_trump(c, L)
        lead_mode = c.tmode[0]
        base = real_base(real, lead_mode, L, T, c.must_trump, c.leads_any)  # tricks.pxd
        plain = c.joker_plain and plain_allowed(lead_mode, L, T, real, c.must_trump)
    # real cards, with the sequence reduction: a card is skipped when the previous listed card of its
    # suit has no card of the suit present between them
    present = 0
    for i in range(c.n):
        present |= c.hands[i]
    for i in range(c.tcount):
        present |= (<uint64_t>1) << c.tcard[i]
    for s in range(4):
        sb = base & (<uint64_t>0x111111111 << s)
        prev = -1
        while sb:
            card = __builtin_ctzll(sb)
            sb &= sb - 1
            if prev >= 0 and not (present & ((((<uint64_t>1) << card) - 1) & ~(((<uint64_t>2) << prev) - 1))
                                  & (<uint64_t>0x111111111 << s)):
                prev = card
                continue
            moves[m] = card | (NOCALL << 8)
            m += 1
            prev = card
    # jokers (R-4.4, R-4.5)
    while jok:
        card = __builtin_ctzll(jok)
        jok &= jok - 1
        m += joker_moves(card, c.tcount, c.leads_any, c.rotating, c.trump, c.joker_low, c.joker_plain, plain,
                         moves + m)  # tricks.pxd, shared with the play-outs
    order_moves(c, moves, m)
    return m


cdef inline int move_key(Ctx* c, int mv) noexcept nogil:
    """A lead's search order: strong plays first (a high joker, then high ranks, any suit), a low joker last;
    the reverse when the root wants no more tricks (``duck``: misère, the fewest tricks, a bid made)."""
    cdef int card = mv & 63, mode = (mv >> 6) & 3, k
    if mode == 1:
        k = 100
    elif mode == 2:
        k = -1
    else:
        k = c_rank(card)
    return -k if c.duck else k


cdef inline int follow_key(Ctx* c, int mv, int L, int T, int cur, int mine, int is_root) noexcept nogil:
    """A follower's search order (higher first): where its side wants the trick and does not hold it, the
    cheapest winning play first, then the lowest others; where its side holds it, the lowest plays first;
    the root ducking (``duck``) dumps its highest losing plays first; the others then play low."""
    cdef int card = mv & 63, mode = (mv >> 6) & 3
    cdef int k = play_key(c.tcount, mode, card, L, T)
    cdef int strength = k if k >= 0 else c_rank(card)
    cdef int wins = k > cur
    if c.duck:
        if is_root:
            return strength if not wins else -1000 + strength
        return -strength
    if mine:
        return -strength
    if wins:
        return 1000 - strength
    return -strength


cdef void order_moves(Ctx* c, int* moves, int m) noexcept nogil:
    """Moves sorted by ``move_key`` (a lead) or ``follow_key`` (a follower), best first."""
    cdef int keys[MAXMOVES]
    cdef int i, j, mv, k, L, T, wi, cur, seat, mine
    if c.tcount == 0:
        for i in range(m):
            keys[i] = move_key(c, moves[i])
    else:
        L = led_suit(c)
        T = trick_trump(c, L)
        wi = winner_index(c.tcount, c.tmode, c.tcard, c.tcall, c.rotating, c.trump)
        cur = play_key(wi, c.tmode[wi], c.tcard[wi], L, T)
        seat = (c.leader + c.tcount) % c.n
        mine = (c.tseat[wi] == c.root) == (seat == c.root)  # the seat's side holds the trick
        for i in range(m):
            keys[i] = follow_key(c, moves[i], L, T, cur, mine, seat == c.root)
    for i in range(1, m):
        mv = moves[i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            moves[j + 1] = moves[j]
            keys[j + 1] = keys[j]
            j -= 1
        moves[j + 1] = mv
        keys[j + 1] = k


cdef int trick_winner_seat(Ctx* c) noexcept nogil:
    """R-4.7: the seat that takes the full trick on the table."""
    return c.tseat[winner_index(c.tcount, c.tmode, c.tcard, c.tcall, c.rotating, c.trump)]  # tricks.pxd


cdef inline uint64_t mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline int same_hands(Ctx* c, Entry* e) noexcept nogil:
    cdef int i
    for i in range(c.n):
        if e.h[i] != c.hands[i]:
            return 0
    return 1


cdef inline int cards_left(Ctx* c) noexcept nogil:
    cdef int i, k = 0
    for i in range(c.n):
        k += __builtin_popcountll(c.hands[i])
    return k


cdef inline Entry* probe(Ctx* c, uint64_t key) noexcept nogil:
    """The entry of the current trick-boundary position in its bucket of two, or NULL."""
    cdef Entry* e = &c.tt[key & c.ttmask & ~(<uint64_t>1)]
    cdef int k
    for k in range(2):
        if e[k].used == c.gen and e[k].leader == c.leader and e[k].taken == c.taken and same_hands(c, &e[k]):
            return &e[k]
    return NULL


cdef inline Entry* slot_for(Ctx* c, uint64_t key) noexcept nogil:
    """Where to store the position: its own entry if present, else the bucket's first slot when it is
    stale or holds no more cards than this position (it keeps the bigger subtrees), else the second."""
    cdef Entry* e = probe(c, key)
    cdef Entry* b
    cdef int i, k = 0, have = 0
    if e != NULL:
        return e
    b = &c.tt[key & c.ttmask & ~(<uint64_t>1)]
    if b[0].used != c.gen:
        return &b[0]
    k = cards_left(c)
    for i in range(c.n):
        have += __builtin_popcountll(b[0].h[i])
    if have <= k:
        b[1] = b[0]  # the displaced entry takes the always-replaced slot
        return &b[0]
    return &b[1]


cdef int search(Ctx* c, int alpha, int beta) noexcept nogil:
    cdef int seat, m, i, v, best, w, mv, card, mode, call, j
    cdef int moves[MAXMOVES]
    cdef int a0 = alpha, b0 = beta
    cdef int boundary = c.tcount == 0
    cdef uint64_t key = 0
    cdef Entry* e = NULL
    cdef int s_seat[MAXP]
    cdef int s_card[MAXP]
    cdef int s_mode[MAXP]
    cdef int s_call[MAXP]
    cdef int s_leader, s_taken, maximize, lo_pay, hi_pay, ttmove = -1, bestmv = -1
    c.nodes += 1
    if boundary:
        if c.hands[c.leader] == 0:
            return c.payoff[c.taken]
        key = <uint64_t>(c.leader * 64 + c.taken)
        for i in range(c.n):
            key = mix(key ^ c.hands[i])
        e = probe(c, key)
        if e != NULL:
            ttmove = e.move
            if True:
                if e.lo >= beta:
                    return e.lo
                if e.hi <= alpha:
                    return e.hi
                if e.lo == e.hi:
                    return e.lo
                if e.lo > alpha:
                    alpha = e.lo
                if e.hi < beta:
                    beta = e.hi
                a0 = alpha  # the bounds stored below are relative to the narrowed window
                b0 = beta
    # The root ends with between taken and taken + (tricks left) tricks: the payoff over that range
    # bounds the value (a fail-soft bound, so it may be returned as is).
    w = __builtin_popcountll(c.hands[c.leader]) + (c.tcount > 0)
    lo_pay = c.pay_lo[c.taken][w]
    hi_pay = c.pay_hi[c.taken][w]
    if hi_pay <= alpha or lo_pay == hi_pay:
        return hi_pay
    if lo_pay >= beta:
        return lo_pay
    seat = (c.leader + c.tcount) % c.n
    maximize = seat == c.root
    c.duck = c.payoff[c.taken] >= hi_pay  # no more tricks wanted from here: low plays first
    m = gen_moves(c, seat, moves)
    if ttmove >= 0:
        # the table's best lead first, the others in their order
        for i in range(m):
            if moves[i] == ttmove:
                for j in range(i, 0, -1):
                    moves[j] = moves[j - 1]
                moves[0] = ttmove
                break
    best = -INF if maximize else INF
    for i in range(m):
        mv = moves[i]
        card = mv & 63
        mode = (mv >> 6) & 3
        call = (mv >> 8) & 7
        c.hands[seat] &= ~((<uint64_t>1) << card)
        c.tseat[c.tcount] = seat
        c.tcard[c.tcount] = card
        c.tmode[c.tcount] = mode
        c.tcall[c.tcount] = call if call != NOCALL else -1
        c.tcount += 1
        if c.tcount == c.n:
            w = trick_winner_seat(c)
            for j in range(c.n):
                s_seat[j] = c.tseat[j]
                s_card[j] = c.tcard[j]
                s_mode[j] = c.tmode[j]
                s_call[j] = c.tcall[j]
            s_leader = c.leader
            s_taken = c.taken
            c.leader = w
            c.taken += w == c.root
            c.tcount = 0
            v = search(c, alpha, beta)
            c.leader = s_leader
            c.taken = s_taken
            for j in range(c.n):
                c.tseat[j] = s_seat[j]
                c.tcard[j] = s_card[j]
                c.tmode[j] = s_mode[j]
                c.tcall[j] = s_call[j]
            c.tcount = c.n
        else:
            v = search(c, alpha, beta)
        c.tcount -= 1
        c.hands[seat] |= (<uint64_t>1) << card
        if maximize:
            if v > best:
                best = v
                bestmv = mv
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                bestmv = mv
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    if boundary:
        e = slot_for(c, key)
        if e.used != c.gen or e.leader != c.leader or e.taken != c.taken or not same_hands(c, e):
            e.used = c.gen
            e.leader = c.leader
            e.taken = c.taken
            for i in range(c.n):
                e.h[i] = c.hands[i]
        e.move = bestmv
        e.lo = -INF
        e.hi = INF
        if best <= a0:
            e.hi = best
        elif best >= b0:
            e.lo = best
        else:
            e.lo = best
            e.hi = best
    return best


cdef int mtd(Ctx* c) noexcept nogil:
    """The exact value by null-window searches (MTD-style bisection over the payoff's range), the
    table kept between them: it stores proven bounds, so every answer stays exact."""
    cdef int lo = INF, hi = -INF, mid, v, i
    for i in range(c.taken, c.npay):
        if c.payoff[i] < lo:
            lo = c.payoff[i]
        if c.payoff[i] > hi:
            hi = c.payoff[i]
    while lo < hi:
        mid = lo + (hi - lo + 1) // 2
        v = search(c, mid - 1, mid)
        if v >= mid:
            lo = v
        else:
            hi = v
    return lo


cdef class Solver:
    """A reusable solver (the transposition table is allocated once, cleared per solve)."""

    cdef Ctx c
    cdef public long long nodes
    cdef object context  # what the table's values depend on besides the position (_setup)

    def __cinit__(self, int table_bits=18):
        self.c.tt = <Entry*>calloc((<size_t>1) << table_bits, sizeof(Entry))
        if self.c.tt == NULL:
            raise MemoryError()
        self.c.ttmask = ((<uint64_t>1) << table_bits) - 1

    def __dealloc__(self):
        if self.c.tt != NULL:
            free(self.c.tt)

    def reset(self):
        """Forget every stored position (the next solve starts from an empty table)."""
        self.context = None

    cdef void _clear(self):
        # A new generation empties the table at no cost; clearing every entry (tens of MB) cost more
        # than the search itself in small solves. Only when the counter would wrap is it wiped.
        cdef uint64_t i
        if self.c.gen >= 0x3FFFFFFF or self.c.gen <= 0:
            for i in range(self.c.ttmask + 1):
                self.c.tt[i].used = 0
            self.c.gen = 0
        self.c.gen += 1

    cdef void _setup(self, hands, trick, int leader, int trump, tuple options, int root, payoff, int taken) except *:
        cdef int i
        rotating, must_trump, joker_plain, joker_low, leads_any, jokers = options
        self.c.n = len(hands)
        if not 2 <= self.c.n <= MAXP:
            raise ValueError("2..6 hands")
        self.c.trump = trump
        self.c.rotating = rotating
        self.c.must_trump = must_trump
        self.c.joker_plain = joker_plain
        self.c.joker_low = joker_low
        self.c.leads_any = leads_any
        self.c.jokers = 0
        for j in jokers:
            self.c.jokers |= (<uint64_t>1) << (j - 16)
        self.c.root = root
        if len(payoff) > 64:
            raise ValueError("payoff has at most 64 entries")
        for i in range(len(payoff)):
            self.c.payoff[i] = payoff[i]
        self.c.npay = len(payoff)
        cdef int t, w, lo, hi
        for t in range(self.c.npay):
            lo = INF
            hi = -INF
            for w in range(64):
                if t + w < self.c.npay:
                    lo = min(lo, self.c.payoff[t + w])
                    hi = max(hi, self.c.payoff[t + w])
                self.c.pay_lo[t][w] = lo
                self.c.pay_hi[t][w] = hi
        self.c.duck = 1
        for i in range(taken + 1, len(payoff)):
            if self.c.payoff[i] > self.c.payoff[taken]:
                self.c.duck = 0
        for i in range(self.c.n):
            self.c.hands[i] = 0
            for card in hands[i]:
                self.c.hands[i] |= (<uint64_t>1) << (card - 16)
        self.c.tcount = len(trick)
        for i, (seat, card, mode, call) in enumerate(trick):
            self.c.tseat[i] = seat
            self.c.tcard[i] = card - 16
            self.c.tmode[i] = mode
            self.c.tcall[i] = call
        self.c.leader = leader
        self.c.taken = taken
        self.c.nodes = 0
        context = (self.c.n, trump, options, root, tuple(payoff))
        if context != self.context:
            self.context = context
            self._clear()

    def solve(self, hands, trick, int leader, int trump, tuple options, int root, payoff, int taken=0):
        """The value of the position for ``root``: max over his moves, min over the others' of
        ``payoff[tricks root takes in the deal]``.

        ``hands``: per seat the core card ids held; ``trick``: the plays on the table as
        ``(seat, card id, mode, call)`` (mode 0 real, 1 high, 2 low, 3 plain; call -1 or a suit);
        ``trump``: the deal's trump suit or -1; ``options``: (rotating_trumps, must_trump,
        joker_plain, joker_low, joker_leads == "any", joker card ids).
        """
        self._setup(hands, trick, leader, trump, options, root, payoff, taken)
        cdef int v
        with nogil:
            v = mtd(&self.c)
        self.nodes = self.c.nodes
        return v

    def moves(self, hands, trick, int leader, int trump, tuple options, int root, payoff, int taken=0):
        """Every legal move of the seat to act (which must be ``root``) with its exact value:
        a list of ``(card id, mode, call, value)``; the sequence reduction applies, so of two
        equivalent cards only the lower is listed."""
        self._setup(hands, trick, leader, trump, options, root, payoff, taken)
        cdef int moves[MAXMOVES]
        cdef int m, i, seat, v, mv
        seat = (self.c.leader + self.c.tcount) % self.c.n
        if seat != root:
            raise ValueError(f"seat {seat} is to act, not the root {root}")
        m = gen_moves(&self.c, seat, moves)
        out = []
        cdef long long nodes = 0
        for i in range(m):
            mv = moves[i]
            v = self._after(seat, mv, 0, 0)
            out.append(((mv & 63) + 16, (mv >> 6) & 3, -1 if ((mv >> 8) & 7) == NOCALL else (mv >> 8) & 7, v))
            nodes += self.c.nodes
        self.nodes = nodes
        return out

    def root_moves(self, hands, trick, int leader, int trump, tuple options, int root, payoff, int taken=0):
        """The searched moves of the seat to act (which must be ``root``), unsolved: a list of
        ``(card id, mode, call, code)``, ``code`` to pass to ``probe`` (the sequence reduction applies)."""
        self._setup(hands, trick, leader, trump, options, root, payoff, taken)
        cdef int moves[MAXMOVES]
        cdef int m, i, seat, mv
        seat = (self.c.leader + self.c.tcount) % self.c.n
        if seat != root:
            raise ValueError(f"seat {seat} is to act, not the root {root}")
        m = gen_moves(&self.c, seat, moves)
        out = []
        for i in range(m):
            mv = moves[i]
            out.append(((mv & 63) + 16, (mv >> 6) & 3, -1 if ((mv >> 8) & 7) == NOCALL else (mv >> 8) & 7, mv))
        return out

    def probe(self, hands, trick, int leader, int trump, tuple options, int root, payoff, int taken, int code,
              int gamma):
        """One null-window search of the position after the root's move ``code`` (from ``root_moves``; -1:
        the position itself) at ``gamma``: a value ``v >= gamma`` is a lower bound of the exact value, a
        value ``v < gamma`` an upper bound (fail-soft). The table is kept as in ``solve``: bounds are exact."""
        self._setup(hands, trick, leader, trump, options, root, payoff, taken)
        cdef int seat = (self.c.leader + self.c.tcount) % self.c.n
        cdef int v
        if code < 0:
            with nogil:
                v = search(&self.c, gamma - 1, gamma)
        else:
            if seat != root:
                raise ValueError(f"seat {seat} is to act, not the root {root}")
            v = self._after(seat, code, gamma, 1)
        self.nodes = self.c.nodes
        return v

    cdef int _after(self, int seat, int mv, int gamma, int window) except? -999999:
        """The exact value after ``seat`` plays move ``mv`` (the table is kept: values are exact); with
        ``window`` the fail-soft value of one null-window search at ``gamma`` instead."""
        cdef Ctx* c = &self.c
        cdef int card = mv & 63, mode = (mv >> 6) & 3, call = (mv >> 8) & 7, w, v, j
        cdef int s_seat[MAXP]
        cdef int s_card[MAXP]
        cdef int s_mode[MAXP]
        cdef int s_call[MAXP]
        cdef int s_leader = c.leader, s_taken = c.taken, s_count = c.tcount
        for j in range(c.tcount):
            s_seat[j] = c.tseat[j]
            s_card[j] = c.tcard[j]
            s_mode[j] = c.tmode[j]
            s_call[j] = c.tcall[j]
        c.nodes = 0
        c.hands[seat] &= ~((<uint64_t>1) << card)
        c.tseat[c.tcount] = seat
        c.tcard[c.tcount] = card
        c.tmode[c.tcount] = mode
        c.tcall[c.tcount] = call if call != NOCALL else -1
        c.tcount += 1
        if c.tcount == c.n:
            w = trick_winner_seat(c)
            c.leader = w
            c.taken += w == c.root
            c.tcount = 0
        with nogil:
            if window:
                v = search(c, gamma - 1, gamma)
            else:
                v = mtd(c)
        c.hands[seat] |= (<uint64_t>1) << card
        c.leader = s_leader
        c.taken = s_taken
        c.tcount = s_count
        for j in range(s_count):
            c.tseat[j] = s_seat[j]
            c.tcard[j] = s_card[j]
            c.tmode[j] = s_mode[j]
            c.tcall[j] = s_call[j]
        return v
