# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Random play of whole Raspisnoy deals in C: every seat ``raspisnoy/random``.

The legal actions are built in exactly the order of the readable engine (``Deal.legal``: ``look``
then the dark bids, or the open bids, ascending; plays ordered by card, then mode ``high`` < ``low``
< ``plain``, then call), and the choice is ``RandomBot.act``'s: no draw when one action is legal,
else ``int(Generator.random() * m)``, and ``Generator.random()`` is ``next_double`` of the bit
generator. So a deal played here makes the same choices and leaves the generator in the same state
as one played action by action in Python (``tests/games/raspisnoy/test_rasp_playout.py``).
Cards are 0..35 (core id − 16). Used by the benchmark against OpenSpiel (benchmarks/).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t

from ext.npdraw cimport bitgen_t, random_index
from games.raspisnoy.fast.tricks cimport bid_values_of, engine_moves, led_of, trick_trump_of, winner_index


DEF MAXP = 6
DEF MAXL = 80


cdef struct Opt:
    int n
    int k
    int dealer
    int kind_dark
    int bidding
    int look_phase
    int dark_lo
    int restriction
    int max_passes  # -1: none
    int trump
    int rotating
    int must_trump
    int joker_plain
    int joker_low
    int leads_any
    uint64_t jokers


cdef struct Game:
    uint64_t hands[MAXP]
    int bids[MAXP]
    int looked[MAXP]
    int runs[MAXP]
    int taken[MAXP]
    int tcount
    int tseat[MAXP]
    int tcard[MAXP]
    int tmode[MAXP]
    int tcall[MAXP]
    int leader
    int tricks


cdef inline int bid_values(Opt* o, Game* g, int seat, int lo, int* out) noexcept nogil:
    """``Deal.bid_values`` (R-3.1, R-3.3, R-3.4, R-3.8; tricks.pxd, shared with ``_match.pyx``)."""
    return bid_values_of(o.n, o.k, o.dealer, o.restriction, o.max_passes, g.bids, g.runs, seat, lo, out)


cdef int play_moves(Opt* o, Game* g, int seat, int* moves) noexcept nogil:
    """R-4.6 in the readable engine's order (``tricks.pxd``, shared with ``_match.pyx`` and ``_dd.pyx``)."""
    cdef int lead_mode = 0, L = -1, T = -1
    if g.tcount:
        lead_mode = g.tmode[0]
        L = led_of(lead_mode, g.tcard[0], g.tcall[0])
        T = trick_trump_of(o.rotating, o.trump, L)
    return engine_moves(g.hands[seat], o.jokers, g.tcount, lead_mode, L, T, o.trump, o.rotating, o.must_trump,
                        o.joker_plain, o.joker_low, o.leads_any, moves)


cdef int winner(Opt* o, Game* g) noexcept nogil:
    """R-4.7: the seat taking the full trick."""
    return g.tseat[winner_index(o.n, g.tmode, g.tcard, g.tcall, o.rotating, o.trump)]


cdef inline int choose(int m, bitgen_t* bg) noexcept nogil:
    """``RandomBot.act``: no draw for one action, else ``int(random() * m)`` (ext/npdraw.pxd)."""
    return random_index(bg, m)


cdef int play(Opt* o, Game* g, bitgen_t* bg, int* trace) noexcept nogil:
    """Play the deal in ``g`` to its end; ``trace`` gets (count, choice) per decision; the decisions."""
    cdef int vals[40]
    cdef int moves[MAXL]
    cdef int pos, seat, m, i, d = 0, mv, w, j
    for pos in range(o.n if o.bidding else 0):
        seat = (o.dealer + 1 + pos) % o.n
        if o.kind_dark:
            m = bid_values(o, g, seat, o.dark_lo, vals)
            i = choose(m, bg)
            trace[2 * d] = m
            trace[2 * d + 1] = i
            d += 1
            g.bids[seat] = vals[i]
        elif o.look_phase:
            m = bid_values(o, g, seat, o.dark_lo, vals)
            i = choose(m + 1, bg)
            trace[2 * d] = m + 1
            trace[2 * d + 1] = i
            d += 1
            if i > 0:
                g.bids[seat] = vals[i - 1]
            else:
                m = bid_values(o, g, seat, 0, vals)
                i = choose(m, bg)
                trace[2 * d] = m
                trace[2 * d + 1] = i
                d += 1
                g.bids[seat] = vals[i]
        else:
            m = bid_values(o, g, seat, 0, vals)
            i = choose(m, bg)
            trace[2 * d] = m
            trace[2 * d + 1] = i
            d += 1
            g.bids[seat] = vals[i]
    g.leader = (o.dealer + 1) % o.n
    while g.tricks < o.k:
        seat = (g.leader + g.tcount) % o.n
        m = play_moves(o, g, seat, moves)
        i = choose(m, bg)
        trace[2 * d] = m
        trace[2 * d + 1] = i
        d += 1
        mv = moves[i]
        g.hands[seat] &= ~((<uint64_t>1) << (mv & 63))
        g.tseat[g.tcount] = seat
        g.tcard[g.tcount] = mv & 63
        g.tmode[g.tcount] = (mv >> 6) & 3
        j = (mv >> 8) & 7
        g.tcall[g.tcount] = -1 if j == 7 else j
        g.tcount += 1
        if g.tcount == o.n:
            w = winner(o, g)
            g.taken[w] += 1
            g.leader = w
            g.tcount = 0
            g.tricks += 1
    return d


cdef void setup(Opt* o, Game* g, deck, int n, int k, int dealer, str kind, int trump, rules, runs) except *:
    cdef int s, i
    o.n = n
    o.k = k
    o.dealer = dealer
    o.kind_dark = kind == "dark"
    o.bidding = kind in ("normal", "no_trump", "dark")
    o.look_phase = bool(rules.voluntary_dark) and kind in ("normal", "no_trump")
    o.dark_lo = 0 if rules.dark_pass else 1
    o.restriction = bool(rules.dealer_restriction)
    o.max_passes = -1 if rules.max_passes_in_row is None else rules.max_passes_in_row
    o.trump = trump
    o.rotating = bool(rules.rotating_trumps)
    o.must_trump = bool(rules.must_trump)
    o.joker_plain = bool(rules.joker_plain)
    o.joker_low = bool(rules.joker_low)
    o.leads_any = rules.joker_leads == "any"
    o.jokers = 0
    for j in rules.joker_set():
        o.jokers |= (<uint64_t>1) << (j - 16)
    for s in range(n):
        g.hands[s] = 0
        for i in range(s * k, (s + 1) * k):
            g.hands[s] |= (<uint64_t>1) << (deck[i] - 16)
        g.bids[s] = -1
        g.looked[s] = 0
        g.runs[s] = runs[s]
        g.taken[s] = 0
    g.tcount = 0
    g.tricks = 0


def random_deal(deck, int players, int cards, int dealer, str kind, int trump, rules, runs, rng):
    """One deal (deck order of core ids, R-1.10) played by random bots: (trace, bids, taken), where
    trace lists (number of legal actions, index chosen) per decision."""
    cdef Opt o
    cdef Game g
    cdef int trace[400]
    cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    setup(&o, &g, deck, players, cards, dealer, kind, trump, rules, runs)
    d = play(&o, &g, bg, trace)
    return ([(trace[2 * i], trace[2 * i + 1]) for i in range(d)], [g.bids[s] if o.bidding else None
                                                                   for s in range(players)],
            [g.taken[s] for s in range(players)])


def random_deals(decks, int players, int cards, int dealer, str kind, int trump, rules, rng):
    """Play every deck of ``decks`` (count x 36 core ids, C-contiguous int64) as ``random_deal``;
    the tricks taken by seat 0 summed (a benchmark loop with no Python per deal)."""
    cdef Opt o
    cdef Game g
    cdef int trace[400]
    cdef long long total = 0
    cdef long long[:, ::1] dk = decks
    cdef Py_ssize_t r, i
    cdef int s
    cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    runs = [0] * players
    setup(&o, &g, list(dk[0]), players, cards, dealer, kind, trump, rules, runs)
    for r in range(dk.shape[0]):
        with nogil:
            for s in range(players):
                g.hands[s] = 0
                for i in range(s * cards, (s + 1) * cards):
                    g.hands[s] |= (<uint64_t>1) << (dk[r, i] - 16)
                g.bids[s] = -1
                g.taken[s] = 0
            g.tcount = 0
            g.tricks = 0
            play(&o, &g, bg, trace)
            total += g.taken[0]
    return total
