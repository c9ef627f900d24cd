# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Quintet deals of ``quintet/random``, ``quintet/greedy`` and ``quintet/blotto`` seats in C.

The deal is the readable engine's (games/quintet/state.py, docs/rules/quintet.md): seat 0 lays out,
then seat 1, from the same 25 held cards; the packets' values are ``ext.handeval``'s ``quintet``
ranking (Q-2), looked up here in a table of every 5-card hand of the 32-card deck (by its colex rank,
filled once by ``ext.handeval.evaluate``); the comparisons score as Q-1.4 says. The bots:

* random: ``LayoutSpace.sample``: ``Generator.permutation(25)`` (Fisher-Yates from the top index down,
  each index by numpy's ``random_interval``, a masked 32-bit draw) cut into five packets;
* greedy: ``construct.partition`` with ``top = 1`` (the strongest hand of the cards left, the lowest
  card-id sum among equal values, the first in ``itertools.combinations`` order among those), packets
  ordered strongest first (a stable sort) and laid strongest-last; no draw;
* blotto: greedy's packets with the weakest in the sacrificed slot (``construct.sacrifice``); with
  ``sacrifice: random`` the slot is ``Generator.integers(1, 6)`` (Lemire's bounded 32-bit draw).

The greedy partition depends only on the held cards, so one deal computes it once for every seat and
rotation.

``play_shard`` deals and plays whole shards of a summary job (``FastPath.play_shard``): each deal dealt here
from the job's Philox stream (d, 0) as ``State.deal`` deals it (``deal_cards``: ``permutation(32)[:7]``,
Q-1.2), every rotation from (d, r + 1) through the C copy of numpy's Philox (``ext.npphilox.np_stream``), the
values ``rows`` gives written into numpy columns (``deal_play``, ``score`` and ``luck_terms`` are ``rows``'
own steps).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int32_t, uint64_t

from ext.npdraw cimport bitgen_t, bounded, interval, permute
from ext.npphilox cimport np_stream, np_stream_at, stream_bitgen, stream_key

import numpy as np

DEF NCOMB = 201376   # C(32, 5)
DEF LOW = 20         # card id of the deck's position 0 (7c)

cdef int BINOM[33][6]
cdef int32_t[::1] VALUES  # VALUES[colex rank of five deck positions]: the ext.handeval quintet value
cdef bint READY = False
_TABLE = None


cdef void _binomials() noexcept:
    cdef int n, k
    for n in range(33):
        BINOM[n][0] = 1
        for k in range(1, 6):
            BINOM[n][k] = 0 if n == 0 else BINOM[n - 1][k - 1] + BINOM[n - 1][k]


cdef int _ready() except -1:
    """Fill the value table (once per process, a few milliseconds)."""
    global VALUES, READY, _TABLE
    if READY:
        return 0
    from ext.handeval import evaluate
    _binomials()
    hands = np.empty((NCOMB, 5), dtype=np.uint8)
    cdef unsigned char[:, ::1] h = hands
    cdef int a, b, c, d, e, i = 0
    for e in range(4, 32):  # colex order: the rank of (a < b < c < d < e) is C(a,1)+C(b,2)+...+C(e,5)
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        h[i, 0] = a + LOW
                        h[i, 1] = b + LOW
                        h[i, 2] = c + LOW
                        h[i, 3] = d + LOW
                        h[i, 4] = e + LOW
                        i += 1
    _TABLE = np.ascontiguousarray(evaluate(hands, "quintet"), dtype=np.int32)
    VALUES = _TABLE
    READY = True
    return 0


def value_table():
    """The quintet value of every five deck positions, by their colex rank (int32; built once per process).
    ``games.quintet.fast._equilibrium`` reads the same table."""
    _ready()
    return _TABLE


cdef inline int32_t value5(const int *pos) noexcept nogil:
    """The value of five deck positions, ascending."""
    return VALUES[BINOM[pos[0]][1] + BINOM[pos[1]][2] + BINOM[pos[2]][3] + BINOM[pos[3]][4] + BINOM[pos[4]][5]]


cdef void sort5(int *p) noexcept nogil:
    cdef int i, j, t
    for i in range(1, 5):
        t = p[i]
        j = i - 1
        while j >= 0 and p[j] > t:
            p[j + 1] = p[j]
            j -= 1
        p[j + 1] = t


cdef void random_layout(bitgen_t *bg, const int *held, int *lay, int32_t *vals) noexcept nogil:
    """``LayoutSpace.sample``: packet p of the layout is cards perm[5p..5p+4], ascending."""
    cdef int perm[25]
    cdef int i, j, t, p
    for i in range(25):
        perm[i] = i
    for i in range(24, 0, -1):
        j = <int> interval(bg, i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    for p in range(5):
        for i in range(5):
            lay[5 * p + i] = held[perm[5 * p + i]]  # held ascending: positions and cards sort alike
        sort5(&lay[5 * p])
        vals[p] = value5(&lay[5 * p])


cdef void partition(const int *held, int *packets, int32_t *vals) noexcept nogil:
    """``construct.partition(cards)``: five packets (deck positions, ascending), strongest first."""
    cdef int left[25]
    cdef int pk[25]
    cdef int32_t pv[5]
    cdef int order[5]
    cdef int n = 25, step, a, b, c, d, e, i, j, k, s, best_sum
    cdef int hand[5]
    cdef int best[5]
    cdef int32_t v, best_v
    for i in range(25):
        left[i] = held[i]
    for step in range(4):
        best_v = -1
        best_sum = 1 << 30
        for a in range(n - 4):  # itertools.combinations order
            hand[0] = left[a]
            for b in range(a + 1, n - 3):
                hand[1] = left[b]
                for c in range(b + 1, n - 2):
                    hand[2] = left[c]
                    for d in range(c + 1, n - 1):
                        hand[3] = left[d]
                        for e in range(d + 1, n):
                            hand[4] = left[e]
                            v = value5(hand)
                            if v > best_v:
                                best_v = v
                                best_sum = hand[0] + hand[1] + hand[2] + hand[3] + hand[4]
                                best[0], best[1], best[2], best[3], best[4] = a, b, c, d, e
                            elif v == best_v:
                                s = hand[0] + hand[1] + hand[2] + hand[3] + hand[4]
                                if s < best_sum:  # Q-2 ignores some kickers: spend the lowest cards
                                    best_sum = s
                                    best[0], best[1], best[2], best[3], best[4] = a, b, c, d, e
        for i in range(5):
            pk[5 * step + i] = left[best[i]]
        pv[step] = best_v
        k = 0
        j = 0
        for i in range(n):
            if j < 5 and best[j] == i:
                j += 1
            else:
                left[k] = left[i]
                k += 1
        n = k
    for i in range(5):
        pk[20 + i] = left[i]
    pv[4] = value5(&pk[20])
    for i in range(5):  # sorted(range(5), key=-value): stable
        order[i] = i
    for i in range(1, 5):
        k = order[i]
        j = i - 1
        while j >= 0 and pv[order[j]] < pv[k]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = k
    for i in range(5):
        vals[i] = pv[order[i]]
        for j in range(5):
            packets[5 * i + j] = pk[5 * order[i] + j]


cdef void in_slots(const int *packets, const int32_t *pvals, const int *slots, int *lay, int32_t *vals) noexcept nogil:
    """``construct.in_slots``: packet k (strongest first) into slot ``slots[k]``."""
    cdef int k, j
    for k in range(5):
        vals[slots[k]] = pvals[k]
        for j in range(5):
            lay[5 * slots[k] + j] = packets[5 * k + j]


cdef void sacrifice_slots(int slot, int *slots) noexcept nogil:
    """``construct.sacrifice``'s slots: the weakest packet into ``slot`` (1..5), the others strongest-last."""
    cdef int k = 0, s
    for s in range(4, -1, -1):
        if s != slot - 1:
            slots[k] = s
            k += 1
    slots[4] = slot - 1


cdef void bot_layout(int bot, int slot, bitgen_t *bg, const int *held, const int *packets, const int32_t *pvals,
                     int *lay, int32_t *vals, int *drawn) noexcept nogil:
    """Bot 0 random, 1 greedy, 2 blotto with ``slot`` (1..5, or 0: random); ``drawn``: the slot blotto drew
    (0 for the others)."""
    cdef int slots[5]
    cdef int k
    drawn[0] = 0
    if bot == 0:
        random_layout(bg, held, lay, vals)
        return
    if bot == 1:
        for k in range(5):
            slots[k] = 4 - k
    else:
        if slot == 0:
            slot = 1 + <int> bounded(bg, 5)
            drawn[0] = slot
        sacrifice_slots(slot, slots)
    in_slots(packets, pvals, slots, lay, vals)


cdef void blotto_terms(int seat, const int32_t *pvals, const int32_t *vals, const int *pts, const int *sc,
                       double *corr) noexcept nogil:
    """games/quintet/luck.py's terms of a blotto seat that drew its slot (1/5 each; the other seat's layout
    as laid, ``vals[5 * other:]``) added to ``corr``: the same products summed in the same order (slots
    1..5), so the same floats as ``luck.policy_terms``."""
    cdef int slots[5]
    cdef int32_t cv[5]
    cdef int j, k, i, v_own, v_opp
    cdef int other = 1 - seat
    cdef double e_own = 0.0, e_opp = 0.0
    for j in range(5):
        sacrifice_slots(j + 1, slots)
        for k in range(5):
            cv[slots[k]] = pvals[k]
        v_own = v_opp = 0
        for i in range(5):
            if cv[i] > vals[5 * other + i]:
                v_own += pts[i]
            elif cv[i] < vals[5 * other + i]:
                v_opp += pts[i]
        e_own += 0.2 * <double> v_own
        e_opp += 0.2 * <double> v_opp
    corr[seat] = corr[seat] + (<double> sc[seat] - e_own)
    corr[other] = corr[other] + (<double> sc[other] - e_opp)


# ------------------------------------------------------------------ Python side

cdef str RANKS = "23456789TJQKA"
cdef str SUITS = "cdhs"
_CARD = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(52))


cdef str layout_str(const int *lay):
    """``" | ".join(" ".join(card_str(c) for c in p) for p in layout)``."""
    return " | ".join([" ".join([_CARD[lay[5 * p + i] + LOW] for i in range(5)]) for p in range(5)])


cdef tuple layout_ids(const int *lay):
    return tuple([tuple([lay[5 * p + i] + LOW for i in range(5)]) for p in range(5)])


cdef int load_held(held, int *h) except -1:
    cdef int i, prev = -1
    if len(held) != 25:
        raise ValueError("25 held cards")
    for i in range(25):
        h[i] = <int> held[i] - LOW
        if not prev < h[i] < 32:
            raise ValueError("held cards must be ascending card ids of the 32-card deck")
        prev = h[i]
    return 0


ctypedef struct DealC:
    # one deal's held cards (deck positions, ascending) and, once a greedy or blotto seat asks, its greedy
    # partition (``Deal``'s, and ``play_shard``'s for each deal of a shard)
    int held[25]
    int packets[25]
    int32_t pvals[5]
    bint parted


cdef void deal_play(DealC *dc, bitgen_t *bg, const int *bots, const int *slots, int *lays, int32_t *vals,
                    int *drawn) noexcept nogil:
    """Both seats lay out (seat 0 first, Q-1.3), drawing from ``bg``; the partition computed once a deal."""
    cdef int s
    if not dc.parted and (bots[0] != 0 or bots[1] != 0):
        partition(dc.held, dc.packets, dc.pvals)
        dc.parted = True
    for s in range(2):
        bot_layout(bots[s], slots[s], bg, dc.held, dc.packets, dc.pvals, &lays[25 * s], &vals[5 * s], &drawn[s])


cdef int score(const int32_t *vals, const int *pts, int *sc, int *won, signed char *winners) noexcept nogil:
    """Q-1.4: each seat's points and comparisons won, ``winners[i]`` the seat winning comparison i + 1 or -1
    for a tie (which scores nothing); returns the ties."""
    cdef int i, ties = 0
    sc[0] = sc[1] = won[0] = won[1] = 0
    for i in range(5):
        if vals[i] == vals[5 + i]:
            winners[i] = -1
            ties += 1
        elif vals[i] > vals[5 + i]:
            winners[i] = 0
            sc[0] += pts[i]
            won[0] += 1
        else:
            winners[i] = 1
            sc[1] += pts[i]
            won[1] += 1
    return ties


cdef void luck_terms(const DealC *dc, const int32_t *vals, const int *drawn, const int *pts, const int *sc,
                     double *corr) noexcept nogil:
    """Each seat's correction (games/quintet/luck.py): the terms of the blotto seats that drew their slot,
    seat 0's first; 0 for the others."""
    cdef int i
    corr[0] = corr[1] = 0.0
    for i in range(2):
        if drawn[i] != 0:
            blotto_terms(i, dc.pvals, vals, pts, sc, corr)


cdef class Deal:
    """One deal's held cards and, once a greedy or blotto seat asks, its greedy partition."""

    cdef DealC c

    def __init__(self, held):
        _ready()
        load_held(held, self.c.held)
        self.c.parted = False

    cdef void play(self, bitgen_t *bg, const int *bots, const int *slots, int *lays, int32_t *vals,
                   int *drawn) noexcept:
        deal_play(&self.c, bg, bots, slots, lays, vals, drawn)


cdef void bots_of(bots, int *b, int *slots) except *:
    cdef int s
    for s in range(2):
        b[s], slots[s] = bots[s]


def play(rng, held, bots):
    """The two layouts (tuples of card ids, seat 0 first) the ``bots`` (per seat ``(kind, slot)``: kind 0
    random, 1 greedy, 2 blotto, slot 1..5 or 0 for random) lay out from ``held`` drawing from ``rng``."""
    cdef Deal deal = Deal(held)
    cdef int b[2]
    cdef int slots[2]
    cdef int lays[50]
    cdef int32_t vals[10]
    cdef int drawn[2]
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    bots_of(bots, b, slots)
    with rng.bit_generator.lock:
        deal.play(bg, b, slots, lays, vals, drawn)
    return layout_ids(&lays[0]), layout_ids(&lays[25])


def rows(rng_at, held, int dealer, removed, points, rotations, categories, bint luck=False):
    """Per rotation r (its bots ``rotations[r]`` as for ``play``, drawing from ``rng_at(r)``): the values
    of ``tables.deal_rows`` and ``tables.seat_rows`` for the finished deal of ``held`` (ascending) and
    ``removed`` (card ids, as dealt), Q-1.4's scores with ``points``; ``categories``: Q-2's names. With
    ``luck``: ``(rows, corrections)``, per rotation each seat's games/quintet/luck.py correction (the terms
    of the blotto seats that drew their slot, seat 0's first; 0 for the others)."""
    cdef Deal deal = Deal(held)
    cdef int b[2]
    cdef int slots[2]
    cdef int lays[50]
    cdef int32_t vals[10]
    cdef int drawn[2]
    cdef double corr[2]
    cdef int pts[5]
    cdef int sc[2]
    cdef int won[2]
    cdef int r, i, ties
    cdef signed char wins[5]
    cdef bitgen_t *bg
    for i in range(5):
        pts[i] = points[i]
    removed_str = " ".join([_CARD[c] for c in removed])
    out = []
    corrections = []
    for r in range(len(rotations)):
        bots_of(rotations[r], b, slots)
        rng = rng_at(r)
        bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        with rng.bit_generator.lock:
            deal.play(bg, b, slots, lays, vals, drawn)
        ties = score(vals, pts, sc, won, wins)
        winners = [None if wins[i] < 0 else wins[i] for i in range(5)]
        seat_rows = [(sc[s], sc[s] - sc[1 - s], won[s], [categories[vals[5 * s + i] >> 20] for i in range(5)],
                      layout_str(&lays[25 * s])) for s in range(2)]
        out.append(([(dealer, (removed_str, winners, ties))], seat_rows))
        if luck:
            luck_terms(&deal.c, vals, drawn, pts, sc, corr)
            corrections.append([corr[0], corr[1]])
    return (out, corrections) if luck else out


# ------------------------------------------------------------------ whole shards
cdef void deal_cards(bitgen_t *bg, int *removed, DealC *dc) noexcept nogil:
    """``State.deal`` (Q-1.2): ``permutation(32)[:7]`` of the 32-card deck (deck positions), the dealer's
    seven cards as dealt, and the 25 held ascending."""
    cdef int perm[32]
    cdef bint out[32]
    cdef int i, k = 0
    permute(bg, perm, 32)
    for i in range(32):
        out[i] = False
    for i in range(7):
        removed[i] = perm[i]
        out[perm[i]] = True
    for i in range(32):
        if not out[i]:
            dc.held[k] = i
            k += 1
    dc.parted = False


cdef const char *RANK_CH = b"23456789TJQKA"
cdef const char *SUIT_CH = b"cdhs"


cdef inline void card_chars(int pos, char *at) noexcept nogil:
    """``card_str`` of deck position ``pos``: rank then suit (games.core.cards)."""
    cdef int c = pos + LOW
    at[0] = RANK_CH[c >> 2]
    at[1] = SUIT_CH[c & 3]


DEF REMOVED_W = 20  # "8h 7h 9d Ts 7s Qc Jc"
DEF LAYOUT_W = 82   # five packets of "9s 9c 8s 8c 7c", " | " between


cdef void removed_text(const int *removed, char *at) noexcept nogil:
    """``tables.deal_rows``' ``removed``: the seven cards as dealt, space-separated."""
    cdef int i
    for i in range(7):
        card_chars(removed[i], &at[3 * i])
        if i < 6:
            at[3 * i + 2] = b' '


cdef void layout_text(const int *lay, char *at) noexcept nogil:
    """``layout_str``'s text into 82 bytes."""
    cdef int p, i, k = 0
    for p in range(5):
        if p:
            at[k] = b' '
            at[k + 1] = b'|'
            at[k + 2] = b' '
            k += 3
        for i in range(5):
            if i:
                at[k] = b' '
                k += 1
            card_chars(lay[5 * p + i], &at[k])
            k += 2


def deal_removed(bits, long item):
    """The seven card ids ``play_shard`` deals from the stream (``item``, 0) of ``bits``' key (tests:
    ``State.deal(rules, 2, dealer, Streams.at(item, 0)).removed``)."""
    cdef np_stream ph
    cdef bitgen_t bg
    cdef DealC dc
    cdef int removed[7]
    stream_key(bits, &ph)
    stream_bitgen(&ph, &bg)
    np_stream_at(&ph, item, 0)
    deal_cards(&bg, removed, &dc)
    return tuple([removed[i] + LOW for i in range(7)])


def play_shard(bits, long start, long stop, const long[::1] dealers, points, const int[:, ::1] bots,
               bint luck=False):
    """Every rotation of the deals ``start .. stop - 1`` of a summary job, dealt and played here.

    ``bits`` is the job's ``Streams`` Philox bit generator (its key the job's; numpy's state is not moved):
    deal d is dealt from the stream (d, 0) as ``State.deal`` deals it (``deal_cards``), its dealer
    ``dealers[d - start]``; rotation r lays out from the stream (d, r + 1) with the seats' (kind, slot)
    ``bots[r]`` (as ``play``'s, flat: kind 0, slot 0, kind 1, slot 1). Q-1.4's scores with ``points``.

    Returns the columns ``rows`` gives as numpy arrays: per unit (deal-major, then rotation) ``dealer``,
    ``removed`` (S20), ``winners`` [unit, 5] (-1 for a tie), ``ties``; per seat (unit-major, then seat)
    ``score``, ``margin``, ``won``, ``category`` [seat, 5] (the Q-2 category's index), ``layout`` (S82) and,
    with ``luck``, ``correction`` (``rows``' floats)."""
    cdef np_stream ph
    cdef bitgen_t bg
    cdef DealC dc
    cdef int R = bots.shape[0]
    cdef long deals = stop - start
    cdef long units = deals * R, d, u = 0, q = 0
    cdef int b[64]
    cdef int pts[5]
    cdef int removed[7]
    cdef int lays[50]
    cdef int32_t vals[10]
    cdef int drawn[2]
    cdef double corr[2]
    cdef int sc[2]
    cdef int won[2]
    cdef int r, s, i, ties
    if deals < 0 or dealers.shape[0] != deals or bots.shape[1] != 4 or not 0 < R <= 16:
        raise ValueError("one dealer per deal, 1..16 rotations of two seats' (kind, slot)")
    if len(points) != 5:
        raise ValueError("five points")
    for i in range(5):
        pts[i] = points[i]
    for r in range(R):
        for s in range(2):
            b[4 * r + s] = bots[r, 2 * s]
            b[4 * r + 2 + s] = bots[r, 2 * s + 1]
            if not 0 <= b[4 * r + s] <= 2 or not 0 <= b[4 * r + 2 + s] <= 5:
                raise ValueError(f"rotation {r}, seat {s}: kind 0..2, slot 0..5")
    for d in range(deals):
        if not 0 <= dealers[d] < 2:
            raise ValueError("a dealer outside the seats")
    _ready()
    stream_key(bits, &ph)
    stream_bitgen(&ph, &bg)
    a_dealer = np.empty(units, dtype=np.int8)
    a_removed = np.zeros((deals, REMOVED_W), dtype=np.uint8)
    a_win = np.empty((units, 5), dtype=np.int8)
    a_ties = np.empty(units, dtype=np.int8)
    a_score = np.empty(units * 2, dtype=np.int32)
    a_margin = np.empty(units * 2, dtype=np.int32)
    a_won = np.empty(units * 2, dtype=np.int8)
    a_cat = np.empty((units * 2, 5), dtype=np.int8)
    a_layout = np.zeros((units * 2, LAYOUT_W), dtype=np.uint8)
    a_corr = np.zeros(units * 2, dtype=np.float64)
    cdef signed char[::1] o_dealer = a_dealer, o_ties = a_ties, o_won = a_won
    cdef signed char[:, ::1] o_win = a_win, o_cat = a_cat
    cdef int[::1] o_score = a_score, o_margin = a_margin
    cdef unsigned char[:, ::1] o_removed = a_removed, o_layout = a_layout
    cdef double[::1] o_corr = a_corr
    with nogil:
        for d in range(deals):
            np_stream_at(&ph, start + d, 0)
            deal_cards(&bg, removed, &dc)
            removed_text(removed, <char *> &o_removed[d, 0])
            for r in range(R):
                np_stream_at(&ph, start + d, r + 1)
                deal_play(&dc, &bg, &b[4 * r], &b[4 * r + 2], lays, vals, drawn)
                ties = score(vals, pts, sc, won, <signed char *> &o_win[u, 0])
                o_dealer[u] = <signed char> dealers[d]
                o_ties[u] = ties
                for s in range(2):
                    o_score[q] = sc[s]
                    o_margin[q] = sc[s] - sc[1 - s]
                    o_won[q] = won[s]
                    for i in range(5):
                        o_cat[q, i] = vals[5 * s + i] >> 20
                    layout_text(&lays[25 * s], <char *> &o_layout[q, 0])
                    q += 1
                if luck:
                    luck_terms(&dc, vals, drawn, pts, sc, corr)
                    o_corr[q - 2] = corr[0]
                    o_corr[q - 1] = corr[1]
                u += 1
    return {"dealer": a_dealer, "removed": np.repeat(a_removed.view(f"S{REMOVED_W}").ravel(), R),
            "winners": a_win, "ties": a_ties, "score": a_score, "margin": a_margin, "won": a_won,
            "category": a_cat, "layout": a_layout.view(f"S{LAYOUT_W}").ravel(), "correction": a_corr}
