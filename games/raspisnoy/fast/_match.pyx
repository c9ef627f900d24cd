# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole Raspisnoy matches in C with ``raspisnoy/random`` and ``raspisnoy/heuristic`` at the seats.

The readable engine is ``games/raspisnoy/state.py`` (the spec) and the bots are
``games/raspisnoy/simple_bots.py``; this plays the same match (R-1.3/R-1.4's schedule, R-3 bids with
the pass duty carried from deal to deal, R-4 tricks through ``tricks.pxd``, R-5 points) and makes
the same choices:

* legal actions are built in the engine's order (``Deal.legal``: ``look`` then the dark bids, or the
  bids ascending; plays by card, then mode high < low < plain, then call);
* ``random`` picks ``int(Generator.random() * m)`` (no draw when one action is legal), and
  ``Generator.random()`` is the bit generator's ``next_double``;
* ``heuristic`` is ``HeuristicBot`` step for step, its floats computed in the same order (the
  per-card chances summed over the sorted hand, ``0.93 ** (players - 2)`` given by the caller from
  Python's own ``**``), its ties broken as Python's ``min``/``max`` do (the first in legal order).

``tests/test_fast_paths.py`` checks whole records, the generator's state and every legal list
against the engine; ``tests/games/raspisnoy/test_rasp_match.py`` the rows. ``Match.play_into`` writes a
match's rows into the C buffers of a ``Shard`` instead (a whole shard's columns, ``play_shard``), and
``Match.dealt`` copies a match with another deal's stubs (``tests/test_match_shards.py``). Points are kept in half
points (R-5.5: a factor of 1.5 can make halves), so they are exact integers here.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport fabs
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

from ext.colbuf cimport Buf, buf_columns, bufs_free, bufs_init, put8, put16, put32, put64
from ext.npdraw cimport bitgen_t, random_index
from games.raspisnoy.fast.tricks cimport bid_values_of, engine_moves, led_of, trick_trump_of, winner_index


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

DEF MAXP = 6
DEF MAXL = 80
DEF MAXDEC = 64  # decisions of one deal: at most 2 per seat bidding, 36 plays

# kinds (R-1.5)
DEF NORMAL = 0
DEF DARK = 1
DEF GOLDEN = 2
DEF NO_TRUMP = 3
DEF MISERE = 4
KINDS = ("normal", "dark", "golden", "no_trump", "misere")

# action codes besides the play moves (tricks.pxd): look, bid:v, dark:v
DEF LOOK = 4095
DEF BID = 4096
DEF DARKBID = 8192

RANDOM = 0
HEURISTIC = 1


cdef struct Opt:
    int n
    int dark_lo
    int restriction
    int max_passes  # -1: none
    int rotating
    int must_trump
    int joker_plain
    int joker_low
    int leads_any
    int voluntary_dark
    uint64_t jokers
    # R-5 in half points
    int dark_factor
    int all_factor
    int odessa
    int fnum  # the special factor fnum / fden (1, 2 or 3/2)
    int fden
    int golden_trick
    int misere_trick
    int misere_zero
    double decay  # 0.93 ** max(0, players - 2), the heuristic's discount for more opponents


cdef struct Game:
    int k
    int kind
    int dealer
    int trump  # the deal's trump, -1 none (R-2)
    int bidding
    int look_phase
    uint64_t hands[MAXP]
    int bids[MAXP]  # -1: none yet
    int dark[MAXP]
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


cdef inline int choose(int m, bitgen_t* bg) noexcept nogil:
    """``RandomBot.act``: no draw for one action, else ``int(random() * m)`` (ext/npdraw.pxd)."""
    return random_index(bg, m)


cdef inline int bid_values(Opt* o, Game* g, int seat, int lo, int* out) noexcept nogil:
    """``Deal.bid_values`` (R-3.1, R-3.3, R-3.4, R-3.8; tricks.pxd, shared with ``_playout.pyx``)."""
    return bid_values_of(o.n, g.k, g.dealer, o.restriction, o.max_passes, g.bids, g.runs, seat, lo, out)


cdef double card_strength(Opt* o, int c, uint64_t hand, int trump) noexcept nogil:
    """``simple_bots.card_strength`` (the same float operations)."""
    cdef int r, s, x, above
    cdef double v
    if (o.jokers >> c) & 1:
        return 1.0
    r = c >> 2
    s = c & 3
    above = 8 - r
    for x in range(36):
        if (hand >> x) & 1 and not (o.jokers >> x) & 1 and (x & 3) == s and (x >> 2) > r:
            above -= 1
    if trump >= 0 and s == trump:
        v = 0.95 - 0.22 * above
        return 0.15 if 0.15 >= v else v  # max(0.15, v): the first of equals
    if above == 0:
        v = 0.85
    elif above == 1:
        v = 0.45
    elif above == 2:
        v = 0.2
    else:
        v = 0.05
    return v * o.decay


cdef int nearest(int* vals, int m, double want) noexcept nogil:
    """``simple_bots._nearest``: the index of the value closest to ``want``, the lower of two equally close."""
    cdef int i, bi = 0
    cdef double d, best = fabs(vals[0] - want)
    for i in range(1, m):
        d = fabs(vals[i] - want)
        if d < best:
            best = d
            bi = i
    return bi


cdef inline int cost(Game* g, int mv) noexcept nogil:
    """``HeuristicBot``'s cost of a play as one int (cheap first): a low joker, real non-trumps by rank,
    trumps, then a high joker; a plain joker counts as its printed card."""
    cdef int card = mv & 63, mode = (mv >> 6) & 3
    if mode == 1:
        return 50000
    if mode == 2:
        return 0
    return (2 + (g.trump >= 0 and (card & 3) == g.trump)) * 10000 + (card >> 2) * 100 + card


cdef int pick_max(Game* g, int* moves, int m, int only_real) noexcept nogil:
    """The first move of highest cost (``max``), among real cards only when ``only_real``; -1: none."""
    cdef int i, bi = -1, c, best = -1
    for i in range(m):
        if only_real and (moves[i] >> 6) & 3:
            continue
        c = cost(g, moves[i])
        if c > best:
            best = c
            bi = i
    return bi


cdef int heuristic_play(Opt* o, Game* g, int seat, int* moves, int m) noexcept nogil:
    """``HeuristicBot._play``: the index of its move (module docstring of ``simple_bots``)."""
    cdef int want_win, i, bi, c, best, need, win, nw = 0, nl = 0
    cdef int winning[MAXL]
    cdef int losing[MAXL]
    if g.kind == GOLDEN:
        want_win = 1
    elif g.kind == MISERE:
        want_win = 0
    else:
        want_win = g.taken[seat] < (g.bids[seat] if g.bids[seat] > 0 else 0)
    if g.tcount == 0:
        if want_win:
            bi = pick_max(g, moves, m, 1)
            if bi < 0:
                bi = pick_max(g, moves, m, 0)
            need = (g.bids[seat] if g.bids[seat] > 0 else g.k) - g.taken[seat]
            if __builtin_popcountll(g.hands[seat]) <= need:
                bi = pick_max(g, moves, m, 0)  # every remaining trick is needed: the joker too
            return bi
        return min_of(g, moves, m, NULL, m)
    for i in range(m):
        g.tseat[g.tcount] = seat
        g.tcard[g.tcount] = moves[i] & 63
        g.tmode[g.tcount] = (moves[i] >> 6) & 3
        g.tcall[g.tcount] = -1
        if winner_index(g.tcount + 1, g.tmode, g.tcard, g.tcall, o.rotating, g.trump) == g.tcount:
            winning[nw] = i
            nw += 1
        else:
            losing[nl] = i
            nl += 1
    if want_win and nw:
        return min_of(g, moves, m, winning, nw)
    if want_win:
        return min_of(g, moves, m, NULL, m)
    if nl:
        best = -1
        bi = -1
        for i in range(nl):
            c = cost(g, moves[losing[i]])
            if c > best:
                best = c
                bi = losing[i]
        return bi
    return min_of(g, moves, m, NULL, m)


cdef int min_of(Game* g, int* moves, int m, int* among, int na) noexcept nogil:
    """The first move of lowest cost (``min``) among the indices ``among`` (NULL: all ``m``)."""
    cdef int i, j, bi = -1, c, best = 1 << 30
    for j in range(na):
        i = among[j] if among != NULL else j
        c = cost(g, moves[i])
        if c < best:
            best = c
            bi = i
    return bi


cdef int heuristic_bid(Opt* o, Game* g, int seat, int* vals, int m, int dark) noexcept nogil:
    """``HeuristicBot._bid``: the index of the bid nearest its expected tricks (dark: cards / players)."""
    cdef double est = 0.0
    cdef int c
    if dark:
        return nearest(vals, m, <double>g.k / o.n)
    for c in range(36):  # the sorted hand, summed in order as Python's sum does
        if (g.hands[seat] >> c) & 1:
            est += card_strength(o, c, g.hands[seat], g.trump)
    return nearest(vals, m, est)


cdef inline void note(int* trace, int* lens, int d, int* codes, int m) noexcept nogil:
    cdef int i
    if trace == NULL:
        return
    lens[d] = m
    for i in range(m):
        trace[d * MAXL + i] = codes[i]


cdef int play_deal(Opt* o, Game* g, int* bots, bitgen_t* bg, int* acts, int* trace, int* lens) noexcept nogil:
    """Play the deal in ``g`` to its end (bids, tricks); ``acts`` gets each decision's action code,
    ``trace`` (optional) each decision's legal codes; returns the number of decisions."""
    cdef int vals[40]
    cdef int codes[MAXL]
    cdef int moves[MAXL]
    cdef int pos, seat, m, i, d = 0, mv, w, j, L, T, lead_mode
    for pos in range(o.n if g.bidding else 0):
        seat = (g.dealer + 1 + pos) % o.n
        if g.kind == DARK:  # R-3.2: every bid of a dark deal is dark
            m = bid_values(o, g, seat, o.dark_lo, vals)
            for j in range(m):
                codes[j] = DARKBID + vals[j]
            note(trace, lens, d, codes, m)
            i = heuristic_bid(o, g, seat, vals, m, 1) if bots[seat] else choose(m, bg)
            acts[d] = codes[i]
            d += 1
            g.bids[seat] = vals[i]
            g.dark[seat] = 1
            continue
        if g.look_phase:  # R-3.7: look, or bid dark before looking
            m = bid_values(o, g, seat, o.dark_lo, vals)
            codes[0] = LOOK
            for j in range(m):
                codes[j + 1] = DARKBID + vals[j]
            note(trace, lens, d, codes, m + 1)
            i = 0 if bots[seat] else choose(m + 1, bg)  # the heuristic always looks
            acts[d] = codes[i]
            d += 1
            if i > 0:
                g.bids[seat] = vals[i - 1]
                g.dark[seat] = 1
                continue
            g.looked[seat] = 1
        m = bid_values(o, g, seat, 0, vals)
        for j in range(m):
            codes[j] = BID + vals[j]
        note(trace, lens, d, codes, m)
        i = heuristic_bid(o, g, seat, vals, m, 0) if bots[seat] else choose(m, bg)
        acts[d] = codes[i]
        d += 1
        g.bids[seat] = vals[i]
    g.leader = (g.dealer + 1) % o.n  # R-1.6, R-4.1
    while g.tricks < g.k:
        seat = (g.leader + g.tcount) % o.n
        if g.tcount:
            lead_mode = g.tmode[0]
            L = led_of(lead_mode, g.tcard[0], g.tcall[0])
            T = trick_trump_of(o.rotating, g.trump, L)
        else:
            lead_mode, L, T = 0, -1, -1
        m = engine_moves(g.hands[seat], o.jokers, g.tcount, lead_mode, L, T, g.trump, o.rotating, o.must_trump,
                         o.joker_plain, o.joker_low, o.leads_any, moves)
        note(trace, lens, d, moves, m)
        i = heuristic_play(o, g, seat, moves, m) if bots[seat] else choose(m, bg)
        mv = moves[i]
        acts[d] = mv
        d += 1
        g.hands[seat] &= ~((<uint64_t>1) << (mv & 63))
        g.tseat[g.tcount] = seat
        g.tcard[g.tcount] = mv & 63
        g.tmode[g.tcount] = (mv >> 6) & 3
        j = (mv >> 8) & 7
        g.tcall[g.tcount] = -1 if j == 7 else j
        g.tcount += 1
        if g.tcount == o.n:
            w = g.tseat[winner_index(o.n, g.tmode, g.tcard, g.tcall, o.rotating, g.trump)]  # R-4.7
            g.taken[w] += 1
            g.leader = w  # R-4.1
            g.tcount = 0
            g.tricks += 1
    return d


cdef inline int row_half(int bid, int taken) noexcept nogil:
    """R-5.1's row in half points."""
    if bid == 0 and taken == 0:
        return 10
    if taken == bid:
        return 20 * bid
    if taken < bid:
        return -20 * (bid - taken)
    return 2 * taken


cdef int points_half(Opt* o, Game* g, int s) noexcept nogil:
    """``scoring.seat_points`` in half points (R-5.1 - R-5.5)."""
    cdef int p
    if g.kind == GOLDEN:
        return 2 * o.golden_trick * g.taken[s]  # R-5.4: no factor
    if g.kind == MISERE:
        if g.taken[s] == 0:
            return 2 * o.misere_zero
        return o.misere_trick * g.taken[s] * o.fnum * (2 // o.fden)
    p = row_half(g.bids[s], g.taken[s])
    if g.dark[s]:
        p *= o.dark_factor  # R-5.2
    if g.bids[s] == g.k and g.k >= 2:
        p *= o.all_factor  # R-5.3
    if (g.kind == NO_TRUMP or g.kind == DARK) and o.odessa:
        p = p * o.fnum // o.fden  # R-5.4 (p is even, so a 3/2 factor is exact)
    return p


# A match's running totals per seat (its seat rows, R-8.2): points in halves, tricks, bids made, dark bids,
# passes; ``kinds`` the seats' bot codes, ``runs`` the kernel's per-seat run counters.
cdef struct Tally:
    int kinds[MAXP]
    int runs[MAXP]
    long long totals[MAXP]
    int tricks[MAXP]
    int made[MAXP]
    int darks[MAXP]
    int passes[MAXP]


cdef void tally_start(Tally* t, int n, bots) except *:
    """Zero ``t`` for a match of ``n`` seats whose bot codes are ``bots``."""
    cdef int s
    for s in range(n):
        t.kinds[s] = bots[s]
        t.runs[s] = 0
        t.totals[s] = 0
        t.made[s] = t.darks[s] = t.passes[s] = t.tricks[s] = 0


cdef int tally(Opt* o, Game* g, int* pts, Tally* t, int* bid_sum, int* nmade) noexcept nogil:
    """A played deal's points in halves per seat (R-5.5) into ``pts``, added to the match's running totals ``t``,
    and the deal's bid sum and bids made (with bids, R-3.5); returns 1 when a half point occurs."""
    cdef int s, halves = 0
    bid_sum[0] = nmade[0] = 0
    for s in range(o.n):
        pts[s] = points_half(o, g, s)
        t.totals[s] += pts[s]
        halves |= pts[s] & 1
        t.tricks[s] += g.taken[s]
        if g.bidding:
            bid_sum[0] += g.bids[s]
            nmade[0] += g.bids[s] == g.taken[s]
            t.made[s] += g.bids[s] == g.taken[s]
            t.darks[s] += g.dark[s]
            t.passes[s] += g.bids[s] == 0
    return halves


cdef long long tally_top(Tally* t, int n) noexcept nogil:
    """The highest total of the match (its winners, R-8.2)."""
    cdef long long top = t.totals[0]
    cdef int s
    for s in range(1, n):
        if t.totals[s] > top:
            top = t.totals[s]
    return top


cdef inline object half_json(long long p):
    """``scoring.as_json`` of a number of half points: an int, or a float ending in .5."""
    if p % 2 == 0:
        return p // 2
    return p / 2.0


# ---------------------------------------------------------------- a shard's columns (issue 30)

#: The trump sources of ``state.trump_of`` (R-8.2), as ``Coded`` names; the trump is its suit (0-3) or 4, none.
SOURCES = ("fixed", "turned", "drawn", "none", "rotating")
DEF TURNED = 1
DEF DRAWN = 2
#: The suits' names (``state.SUIT_NAMES``, R-2), by the suit of a card (its id & 3).
SUITS = "cdhs"

# The buffers of ``Shard``: per deal row, its list values, per seat row (name, numpy dtype).
_BUFS = (("dealer", "i1"), ("deal_number", "i2"), ("kind", "i1"), ("cards", "i1"), ("trump", "i1"),
         ("trump_source", "i1"), ("bidding", "?"), ("has_points", "?"), ("bid_sum", "i2"),
         ("bids_equal_tricks", "?"), ("made", "i1"),
         ("bids", "i1"), ("dark", "i1"), ("taken", "i1"), ("points", "i4"),
         ("score_halves", "i8"), ("won", "?"), ("deals_made", "i2"), ("dark_bids", "i2"), ("passes", "i2"),
         ("tricks", "i2"))
DEF NBUF = 21
DEF B_DEALER = 0
DEF B_NUMBER = 1
DEF B_KIND = 2
DEF B_CARDS = 3
DEF B_TRUMP = 4
DEF B_SOURCE = 5
DEF B_BIDDING = 6
DEF B_HASPTS = 7
DEF B_BIDSUM = 8
DEF B_EQUAL = 9
DEF B_MADE = 10
DEF B_BIDS = 11
DEF B_DARK = 12
DEF B_TAKEN = 13
DEF B_POINTS = 14
DEF B_SCORE = 15
DEF B_WON = 16
DEF B_SMADE = 17
DEF B_SDARK = 18
DEF B_PASSES = 19
DEF B_TRICKS = 20


cdef class Shard:
    """The rows of many matches (``Match.play_into``) as growable typed C buffers, one per column: the deal
    rows' values (``bids`` only for deals with bids, ``points`` only where no half point occurs, so that
    ``columns`` gives their offsets from the masks ``bidding`` and ``has_points``) and the seat rows'."""

    cdef Buf bufs[NBUF]
    cdef readonly int players

    def __cinit__(self, int players):
        bufs_init(self.bufs, NBUF)
        self.players = players

    def __dealloc__(self):
        bufs_free(self.bufs, NBUF)

    def columns(self):
        """Every buffer as a numpy array (a copy) by name (``_BUFS``)."""
        return buf_columns(self.bufs, _BUFS)


cdef class Match:
    """One fresh match (its schedule and chance stubs) ready to be played under any seating of bots."""

    cdef Opt o
    cdef int m
    cdef int* decks  # m x 36 cards 0..35
    cdef int* kinds
    cdef int* sizes
    cdef int* dealers
    cdef int* trumps
    cdef int* sources  # SOURCES index of each deal's trump source

    def __cinit__(self):
        self.decks = NULL
        self.kinds = NULL

    def __init__(self, rules, int players, plan, stubs, deal_trumps, double decay):
        """``plan``: (kind, cards) per deal; ``stubs``: each deal's deck order (core ids); ``deal_trumps``:
        (dealer, trump suit or None, trump name, trump source) per deal (``state.trump_of``)."""
        cdef int i, j
        cdef object deck
        if not 2 <= players <= MAXP:
            raise ValueError(f"{players} players")
        o = &self.o
        o.n = players
        o.dark_lo = 0 if rules.dark_pass else 1
        o.restriction = bool(rules.dealer_restriction)
        o.max_passes = -1 if rules.max_passes_in_row is None else rules.max_passes_in_row
        o.rotating = bool(rules.rotating_trumps)
        o.must_trump = bool(rules.must_trump)
        o.joker_plain = bool(rules.joker_plain)
        o.joker_low = bool(rules.joker_low)
        o.leads_any = rules.joker_leads == "any"
        o.voluntary_dark = bool(rules.voluntary_dark)
        o.jokers = 0
        for j in rules.joker_set():
            o.jokers |= (<uint64_t>1) << (j - 16)
        o.dark_factor = rules.dark_factor
        o.all_factor = rules.all_tricks_factor
        o.odessa = bool(rules.odessa)
        f = rules.factor()
        o.fnum, o.fden = (3, 2) if f not in (1, 2) else (int(f), 1)
        o.golden_trick = rules.golden_trick
        o.misere_trick = rules.misere_trick or 0
        o.misere_zero = rules.misere_zero or 0
        o.decay = decay
        self.m = len(plan)
        self.decks = <int*>malloc(sizeof(int) * (36 * self.m + 5 * self.m + 4))
        if self.decks == NULL:
            raise MemoryError()
        self.kinds = self.decks + 36 * self.m
        self.sizes = self.kinds + self.m
        self.dealers = self.sizes + self.m
        self.trumps = self.dealers + self.m
        self.sources = self.trumps + self.m
        for i in range(self.m):
            kind, k = plan[i]
            deck = stubs[i]
            for j in range(36):
                self.decks[36 * i + j] = deck[j] - 16
            self.kinds[i] = KINDS.index(kind)
            self.sizes[i] = k
            dealer, suit, name, source = deal_trumps[i]
            self.dealers[i] = dealer
            self.trumps[i] = -1 if suit is None else suit
            self.sources[i] = SOURCES.index(source)
            if name != ("none" if suit is None else SUITS[suit]):
                raise ValueError(f"deal {i + 1}: trump {name!r} of suit {suit!r}")

    def __dealloc__(self):
        free(self.decks)

    cdef void _start(self, Game* g, int i, int* runs) noexcept:
        cdef int s, c, k = self.sizes[i]
        g.k = k
        g.kind = self.kinds[i]
        g.dealer = self.dealers[i]
        g.trump = self.trumps[i]
        g.bidding = g.kind == NORMAL or g.kind == NO_TRUMP or g.kind == DARK  # R-3.5
        g.look_phase = self.o.voluntary_dark and (g.kind == NORMAL or g.kind == NO_TRUMP)  # R-3.7
        for s in range(self.o.n):
            g.hands[s] = 0
            for c in range(s * k, (s + 1) * k):
                g.hands[s] |= (<uint64_t>1) << self.decks[36 * i + c]
            g.bids[s] = -1
            g.dark[s] = 0
            g.looked[s] = 0
            g.runs[s] = runs[s]
            g.taken[s] = 0
        g.tcount = 0
        g.tricks = 0

    cdef void _end(self, Game* g, int* runs) noexcept:
        """R-3.4: the pass runs after the deal (unchanged by a deal without bids)."""
        cdef int s
        if g.bidding:
            for s in range(self.o.n):
                runs[s] = runs[s] + 1 if g.bids[s] == 0 else 0

    def dealt(self, const long long[:, ::1] decks, const long long[::1] drawn):
        """A copy of this match (its rules, schedule and dealers) with the stubs of another deal of it: each
        deal's deck order (core ids, ``draw_stubs``' ``permuted`` rows) and drawn card (``integers(36)``, the
        kernel's id), the turned or drawn trumps read from them as ``state.trump_of`` does (R-2.2, R-2.5,
        R-1.10: the card at position n·k, or the drawn card; a joker names no trump)."""
        cdef Match out = Match.__new__(Match)
        cdef int i, j, c, n = self.o.n
        cdef size_t size = sizeof(int) * (36 * self.m + 5 * self.m + 4)
        if decks.shape[0] != self.m or decks.shape[1] != 36 or drawn.shape[0] != self.m:
            raise ValueError(f"stubs of {decks.shape[0]} deals for a match of {self.m}")
        out.o = self.o
        out.m = self.m
        out.decks = <int*>malloc(size)
        if out.decks == NULL:
            raise MemoryError()
        memcpy(out.decks, self.decks, size)
        out.kinds = out.decks + 36 * self.m
        out.sizes = out.kinds + self.m
        out.dealers = out.sizes + self.m
        out.trumps = out.dealers + self.m
        out.sources = out.trumps + self.m
        for i in range(self.m):
            for j in range(36):
                out.decks[36 * i + j] = <int>decks[i, j] - 16
            if out.sources[i] == TURNED or out.sources[i] == DRAWN:
                c = out.decks[36 * i + n * out.sizes[i]] if out.sources[i] == TURNED else <int>drawn[i]
                out.trumps[i] = -1 if (self.o.jokers >> c) & 1 else c & 3
        return out

    def actions(self, bots, rng, bint trace=False):
        """Play the match: per deal the list of action codes (``trace``: also per deal the list of every
        decision's legal codes)."""
        cdef Game g
        cdef int acts[MAXDEC]
        cdef int tr[MAXDEC * MAXL]
        cdef int lens[MAXDEC]
        cdef int runs[MAXP]
        cdef int kinds[MAXP]
        cdef int i, d, s, j
        cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        for s in range(self.o.n):
            kinds[s] = bots[s]
            runs[s] = 0
        out, legal = [], []
        for i in range(self.m):
            self._start(&g, i, runs)
            d = play_deal(&self.o, &g, kinds, bg, acts, tr if trace else NULL, lens)
            out.append([acts[j] for j in range(d)])
            if trace:
                legal.append([[tr[j * MAXL + s] for s in range(lens[j])] for j in range(d)])
            self._end(&g, runs)
        return (out, legal) if trace else out

    def rows(self, bots, rng):
        """Play the match; the rows of ``games.raspisnoy.tables`` (``deal_rows``, ``seat_rows``) directly."""
        cdef Game g
        cdef Tally t
        cdef int acts[MAXDEC]
        cdef int pts[MAXP]
        cdef int i, s, n = self.o.n, halves, bid_sum, nmade
        cdef long long top
        cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        tally_start(&t, n, bots)
        deal_rows = []
        for i in range(self.m):
            self._start(&g, i, t.runs)
            play_deal(&self.o, &g, t.kinds, bg, acts, NULL, NULL)
            self._end(&g, t.runs)
            halves = tally(&self.o, &g, pts, &t, &bid_sum, &nmade)
            number, kind, k = i + 1, KINDS[g.kind], g.k
            name = "none" if g.trump < 0 else SUITS[g.trump]
            source = SOURCES[self.sources[i]]
            if g.bidding:
                row = (number, kind, k, name, source, [g.bids[s] for s in range(n)],
                       [g.dark[s] for s in range(n)], [g.taken[s] for s in range(n)],
                       None if halves else [pts[s] // 2 for s in range(n)], bid_sum, bid_sum == g.k, nmade)
            else:
                row = (number, kind, k, name, source, None, [0] * n, [g.taken[s] for s in range(n)],
                       None if halves else [pts[s] // 2 for s in range(n)], None, None, None)
            deal_rows.append((g.dealer, row))
        top = tally_top(&t, n)
        seat_rows = [(half_json(t.totals[s]), t.totals[s] == top, t.made[s], t.darks[s], t.passes[s], t.tricks[s])
                     for s in range(n)]
        return deal_rows, seat_rows


    def play_into(self, Shard out, bots, rng):
        """``rows`` written into ``out``'s buffers instead of Python rows: per deal its row (the list values
        ``bids`` only when the deal has bids, ``points`` only when no half point occurs), then per seat its
        row, the score in half points (R-5.5)."""
        cdef Game g
        cdef Tally t
        cdef int acts[MAXDEC]
        cdef int pts[MAXP]
        cdef int i, s, n = self.o.n, halves, bid_sum, nmade
        cdef long long top
        cdef Buf* b = out.bufs
        cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        if out.players != n:
            raise ValueError(f"a shard of {out.players} players, a match of {n}")
        tally_start(&t, n, bots)
        for i in range(self.m):
            self._start(&g, i, t.runs)
            play_deal(&self.o, &g, t.kinds, bg, acts, NULL, NULL)
            self._end(&g, t.runs)
            halves = tally(&self.o, &g, pts, &t, &bid_sum, &nmade)
            put8(&b[B_DEALER], g.dealer)
            put16(&b[B_NUMBER], i + 1)
            put8(&b[B_KIND], g.kind)
            put8(&b[B_CARDS], g.k)
            put8(&b[B_TRUMP], 4 if self.trumps[i] < 0 else self.trumps[i])
            put8(&b[B_SOURCE], self.sources[i])
            put8(&b[B_BIDDING], g.bidding != 0)
            put8(&b[B_HASPTS], halves == 0)
            put16(&b[B_BIDSUM], bid_sum if g.bidding else 0)
            put8(&b[B_EQUAL], g.bidding and bid_sum == g.k)
            put8(&b[B_MADE], nmade if g.bidding else 0)
            for s in range(n):
                if g.bidding:
                    put8(&b[B_BIDS], g.bids[s])
                put8(&b[B_DARK], g.dark[s] if g.bidding else 0)
                put8(&b[B_TAKEN], g.taken[s])
                if not halves:
                    put32(&b[B_POINTS], pts[s] // 2)
        top = tally_top(&t, n)
        for s in range(n):
            put64(&b[B_SCORE], t.totals[s])
            put8(&b[B_WON], t.totals[s] == top)
            put16(&b[B_SMADE], t.made[s])
            put16(&b[B_SDARK], t.darks[s])
            put16(&b[B_PASSES], t.passes[s])
            put16(&b[B_TRICKS], t.tricks[s])
