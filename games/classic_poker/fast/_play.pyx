# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One classic-poker deal of ``classic-poker/random`` and ``classic-poker/rules`` seats in C (docs/rules/classic-poker.md).

The deal is the readable engine's (games/classic_poker/state.py): the deck order (and in draw the
reshuffle order) drawn up front and read from the top (CP-1.8, CP-11.2); antes (CP-6.2) and the
spread-limit betting of ``games.core.betting`` (CP-6.3 to CP-6.7: ``min_bet``..``limit``, a bet and
``max_raises`` raises, a full raise re-opening the raising); five-card draw (CP-7.1, CP-7.2, the draw
of CP-7.4 with ``max_draw`` 5, 3 or ``3_or_4_with_ace``, the new stock of CP-7.5 from the discards
and folded hands in the reshuffle order, CP-7.6), five-card stud (CP-8.1) and seven-card stud
(CP-8.2, the common card of CP-8.6); the first bettor of a stud interval by the best showing hand of
CP-8.3 (``showing_of``: high with CP-8.7's four-flush with ``four_flush=on``, or in a low pot low, ``low_showing``; a
face-up wild card counts as wild, CP-3.8: in a high hand it joins the largest group of the highest rank, the bug an
ace, in a low one it takes the lowest rank lacking, CP-5.5), the compulsory first bet of CP-8.4, or under
``stud_opening=bring_in`` (``Opts.bring_in``, CP-8.8) the bring-in of the lowest door card (``bring_in_seat``), the
fixed limits of ``betting.FixedLimit`` (the small bet twice, then the big bet; the completion of the bring-in the
interval's first bet, the bring-in no bet) and no fold unless facing a bet.
Openers (CP-7.3, ``openers=jacks``): until someone opens, a seat whose five do not hold jacks or better (or a
four-flush with ``four_flush_opens``, wild cards counted, CP-4.4) may only check or fold; nobody opening passes
the deal out (``result``'s last field); the opener keeps his opening cards (CP-11.1) aside when he throws them,
out of a new stock (CP-7.5), and bets first after the draw (CP-7.6). Whether five cards open and whether the
opener shows all five come from the caller's table (``Opts.tab``, bits 3 and 4: playout._rules_table, from the
engine's evaluator, wild cards included, and ``state._jacks_threshold``). Hands are not evaluated here: the showdown's
values come from ``ext.handeval`` afterwards, over the final hands this returns (they decide nothing during
play).

A seat's bot (``Game.kind``) is ``bots.RandomBot``: one ``Generator.integers(n)`` per decision over the
engine's legal list (fold left out when a check is legal), numpy's buffered Lemire draw on ``next_uint32``,
nothing drawn when one action is legal (as games/dice_poker/fast/_play.pyx); or ``bots.RulesBot``, which
draws nothing (its one draw is the dealer's choice, CP-9.2, not played here): its strength reads the
caller's table of five-card hands (``rules_strength``; with wild cards, ``Opts.wild``, keyed by ``hand_key``),
its discards are ``bots.standard_discard`` (``rules_draw``: wild cards kept, natural ranks and suits counted).
Under openers both bots choose from the engine's legal list, which leaves out the raises of a seat that may not
open (CP-7.3): the random bot then checks (drawing nothing), the rules bot checks where it would have raised.

Action codes: 0 fold, 1 check, 2 call, ``RAISE`` + a a raise of a; ``DRAW`` + m a discard of the hand
positions of mask m; ``ACE`` + i a draw of four keeping (and showing) the ace at position i. A decision's legal
list (``Game.lg``): bit 0 a check, 1 a call, 2 a raise; under ``bring_in`` also bit 3 (the bring-in and the
completion) and the (largest) raise from bit 4 up, a fold listed only with a call.
"""

from cpython.bytes cimport PyBytes_AS_STRING
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint32_t, uint64_t

from ext.npdraw cimport bitgen_t, bounded

DEF MAXP = 10
DEF MAXC = 64       # card ids (jokers 52, 53)
DEF MAXH = 8        # cards in a hand (seven-card stud holds 7)
DEF MAXA = 4096     # decisions of a deal (max_raises is bounded by the play-out's supports)
DEF MAXE = 64       # cards dealt during play (draw: at most 5 per player; stud7: 4 per player and a common)

DEF RAISE = 16
DEF DRAW = 256
DEF ACE = 512
CODES = {"raise": RAISE, "draw": DRAW, "ace": ACE}
MAX_RAISES = 60
# the rules bot's table (hand_key): five natural cards (five_key), then the natural cards of hands holding
# 1, 2, .. 5 wild cards, each part 3 * 13 ** (naturals) entries from its offset (WILD_OFFSETS)
DEF TABLE_SIZE = (13 ** 5 + 13 ** 4 + 13 ** 3 + 13 ** 2 + 13 + 1) * 3
RULES_TABLE_SIZE = TABLE_SIZE
cdef int WILD_OFF[6]


def _init_offsets():
    cdef int w, j, part, at = 0
    for w in range(6):
        WILD_OFF[w] = at
        part = 3
        for j in range(5 - w):
            part *= 13
        at += part
    return tuple(WILD_OFF[w] for w in range(6))


WILD_OFFSETS = _init_offsets()

# the draws of CP-7.4 in the engine's order: discards of 0, 1, .. 5 of the five positions, each size
# in itertools.combinations' (lexicographic) order
cdef int DRAW_MASKS[32]
cdef int DRAW_COUNT[6]   # options with at most k cards thrown


def _init_masks():
    import itertools
    cdef int i = 0, k
    for k in range(6):
        for combo in itertools.combinations(range(5), k):
            DRAW_MASKS[i] = sum(1 << p for p in combo)
            i += 1
        DRAW_COUNT[k] = i


_init_masks()


ctypedef struct Opts:
    int form            # 0 draw, 1 stud5, 2 stud7
    int min_bet
    int limit
    int max_raises
    int max_draw        # 5, 3, or 4 for 3_or_4_with_ace
    bint four_flush     # CP-8.7 in the showing hand
    bint low_pot        # pot=low (the rules bot's strength and discards, CP-5)
    bint openers        # openers=jacks (CP-7.3)
    bint ff_opens       # four_flush_opens=on (CP-7.3)
    unsigned long long wild   # bit c: card c is wild (hands.wild_ids, CP-3.1)
    int bring_in        # stud_opening=bring_in (CP-8.8): the bring-in's chips and fixed limits; 0 otherwise
    bint ace_low        # low_ranking ace_either or ace_to_five: the ace low in a low showing hand (CP-8.3)
    bint bug            # the jokers are bugs (joker=bug, CP-3.5): an ace in a high showing hand (CP-3.8)
    const unsigned char *tab   # the table of five-card hands (playout._rules_table), or NULL


ctypedef struct Game:
    int n
    int dealer
    int pos[MAXP]
    int kind[MAXP]          # each seat's bot: 0 bots.RandomBot, 1 bots.RulesBot
    int deck[MAXC]
    int ndeck
    int ptr
    int re[MAXC]
    int nre
    int stock[MAXC]
    int nstock
    int shead
    bint has_stock
    int cards[MAXP][MAXH]
    bint up[MAXP][MAXH]
    int ncards[MAXP]
    int common
    bint pooled[MAXC]       # in the discards or the folded hands (CP-7.5)
    bint restocked[MAXC]
    # betting
    int committed[MAXP]
    int ante0[MAXP]         # the antes (carried ones included) each rotation starts from
    bint folded[MAXP]
    int bets[MAXP]
    bint acted[MAXP]
    bint can_raise[MAXP]
    int raises
    int to_act
    bint may_check
    int bring_in            # the interval opened by a bring-in of that many chips (CP-8.8), else 0
    int street
    int fold_street[MAXP]
    # the phase: 0 bet, 1 draw, 2 over
    int phase
    int queue[MAXP]
    int nqueue
    int qhead
    bint showdown
    bint passed_out         # nobody opened (CP-7.3)
    int opener              # the first raiser of interval 1 (CP-7.3), -1 before
    int open_mask           # the opener's opening cards: positions in his dealt five (CP-7.3, CP-11.1)
    # the log
    int nact
    int codes[MAXA]
    int seats[MAXA]
    int lg[MAXA]            # legal list: bit 0 may check, bit 1 call, bit 2 raise; a draw: top | ace << 3
    # the chance log (State.chance_log): every card dealt after the first cards, the deal just before it
    bint logging            # on once the first cards are dealt, when the caller asks for the log
    bint want_log
    int nev
    int ev_seat[MAXE]       # -1: the common card of CP-8.6
    int ev_card[MAXE]
    int ev_ptr[MAXE]        # -1: from a new stock (CP-7.5)
    int ev_pot[MAXE]
    int ev_common[MAXE]
    bint ev_folded[MAXE][MAXP]
    int ev_n[MAXE][MAXP]
    int ev_cards[MAXE][MAXP][MAXH]


cdef inline int current_bet(Game *g) noexcept nogil:
    cdef int s, m = 0
    for s in range(g.n):
        if g.bets[s] > m:
            m = g.bets[s]
    return m


cdef inline int n_in(Game *g) noexcept nogil:
    cdef int s, k = 0
    for s in range(g.n):
        if not g.folded[s]:
            k += 1
    return k


cdef int next_to_act(Game *g, int after) noexcept nogil:
    """betting._next_to_act without stacks: the next seat clockwise that must act, or -1 (CP-6.7)."""
    cdef int k, s, cur
    if n_in(g) <= 1:
        return -1
    cur = current_bet(g)
    for k in range(1, g.n + 1):
        s = (after + k) % g.n
        if not g.folded[s] and (not g.acted[s] or g.bets[s] < cur):
            return s
    return -1


cdef void interval(Game *g, int first, bint may_check, int bring_in=0) noexcept nogil:
    """betting.start_interval (CP-6.3): no blinds; ``may_check`` False before stud's first bet (CP-8.4);
    ``bring_in`` the chips of CP-8.8's bring-in opening the interval (0: none)."""
    cdef int s
    for s in range(g.n):
        g.bets[s] = 0
        g.acted[s] = False
        g.can_raise[s] = True
    g.raises = 0
    g.may_check = may_check
    g.bring_in = bring_in
    g.phase = 0
    g.to_act = next_to_act(g, (first - 1 + g.n) % g.n)


cdef void log_card(Game *g, int seat, int c, int ptr) noexcept nogil:
    """State._next_card's ``Dealt``: the card, its deck position and the deal just before it."""
    cdef int e = g.nev, p, j, pot = 0
    if e >= MAXE:  # cannot happen under supports (MAXE covers every draw and street); the caller checks nev
        g.nev += 1
        return
    g.ev_seat[e] = seat
    g.ev_card[e] = c
    g.ev_ptr[e] = ptr
    g.ev_common[e] = g.common
    for p in range(g.n):
        pot += g.committed[p]
        g.ev_folded[e][p] = g.folded[p]
        g.ev_n[e][p] = g.ncards[p]
        for j in range(g.ncards[p]):
            g.ev_cards[e][p][j] = g.cards[p][j]
    g.ev_pot[e] = pot
    g.nev += 1


cdef inline void give(Game *g, int seat, bint up) noexcept nogil:
    cdef int c
    if g.has_stock:
        c = g.stock[g.shead]
        if g.logging:
            log_card(g, seat, c, -1)
        g.shead += 1
    else:
        c = g.deck[g.ptr]
        if g.logging:
            log_card(g, seat, c, g.ptr)
        g.ptr += 1
    g.cards[seat][g.ncards[seat]] = c
    g.up[seat][g.ncards[seat]] = up
    g.ncards[seat] += 1


cdef inline bint is_wild(const Opts *o, int c) noexcept nogil:
    return (o.wild >> c) & 1


cdef inline int showing_category(int shape0, int shape1, const int *cards, int n, bint four_flush,
                                 unsigned long long wild) noexcept nogil:
    """CP-8.3's category of a showing hand of ``n`` cards whose two largest rank counts (the wild cards counted in,
    CP-3.8) are ``shape0`` and ``shape1``: high card 0, pair 1, four-flush 2 (four cards whose natural ones, those
    not in ``wild``, are of one suit, with ``four_flush``, CP-8.7, CP-4.6), two pair 3, three of a kind 4, four of a
    kind 5 (hands.showing_key)."""
    cdef int cat, i, suit = -1
    if shape0 >= 4:
        cat = 5
    elif shape0 == 3:
        cat = 4
    elif shape0 == 2:
        cat = 3 if shape1 == 2 else 1
    else:
        cat = 0
    if four_flush and n == 4 and cat < 3:
        for i in range(4):
            if (wild >> cards[i]) & 1:
                continue
            if suit < 0:
                suit = cards[i] & 3
            elif cards[i] & 3 != suit:
                return cat
        cat = 2
    return cat


cdef inline int rank_groups(int *counts, int hi, int *ranks, int *sizes) noexcept nogil:
    """The ranks 0..``hi`` of ``counts`` (at most four non-empty; emptied here) grouped by (count, rank)
    descending, as ``hands.showing_key`` orders them: ``ranks[k]``, ``sizes[k]``; returns the number of groups."""
    cdef int k = 0, r, best_r, best_c
    while True:
        best_r = -1
        best_c = 0
        for r in range(hi, -1, -1):
            if counts[r] > best_c:
                best_c = counts[r]
                best_r = r
        if best_r < 0:
            return k
        ranks[k] = best_r
        sizes[k] = best_c
        counts[best_r] = 0
        k += 1


cdef int low_showing(const int *cards, int n, bint ace_low, unsigned long long wild, int *top) noexcept nogil:
    """hands.showing_key of ``n`` <= 4 cards in a low pot (CP-8.3, CP-5.2: the ace low under ``ace_either`` and
    ``ace_to_five``; a wild card, in ``wild``, takes the lowest rank the hand lacks, CP-3.8, CP-5.5), packed so that
    integers compare as the engine's tuples (larger is the better low showing hand): 5 - the category, then per group
    by (count, rank) descending 13 - the rank (the ace low ranks -1). ``top``: the rank of the first group (the
    highest rank of a hand without a pair)."""
    cdef int counts[14]   # rank + 1
    cdef int ranks[4]
    cdef int sizes[4]
    cdef int i, r, key = 0, k, ng, w = 0
    for r in range(14):
        counts[r] = 0
    for i in range(n):
        if (wild >> cards[i]) & 1:
            w += 1
            continue
        r = cards[i] >> 2
        counts[(-1 if ace_low and r == 12 else r) + 1] += 1
    for k in range(w):  # the lowest rank lacking: from the ace (low) or the 2 up
        r = 0 if ace_low else 1
        while counts[r]:
            r += 1
        counts[r] += 1
    ng = rank_groups(counts, 13, ranks, sizes)
    top[0] = ranks[0] - 1 if ng else -2
    for k in range(4):
        key = key << 5 | (13 - (ranks[k] - 1) if k < ng else 0)
    return (5 - showing_category(sizes[0] if ng else 0, sizes[1] if ng > 1 else 0, cards, n, False, 0)) << 20 | key


cdef int showing_of(const Opts *o, const int *up, int nup, int *top) noexcept nogil:
    """hands.showing_key of ``nup`` <= 4 cards (CP-8.3, CP-8.7): high, the category, then the ranks by (count, rank)
    descending, packed so that integers compare as the engine's tuples; a wild card counts as wild (CP-3.8): it joins
    the largest group of the highest rank, or the aces for the bug (CP-3.5) or a hand of wild cards only. In a low pot
    ``low_showing`` (``top`` its first group's rank)."""
    cdef int counts[13]
    cdef int ranks[4]
    cdef int sizes[4]
    cdef int i, r, key = 0, k, ng, w = 0, target = -1
    if o.low_pot:
        return low_showing(up, nup, o.ace_low, o.wild, top)
    for r in range(13):
        counts[r] = 0
    for i in range(nup):
        if is_wild(o, up[i]):
            w += 1
        else:
            counts[up[i] >> 2] += 1
    if w:
        if o.bug or w == nup:
            target = 12
        else:  # max(counts, key=(count, rank))
            for r in range(13):
                if counts[r] and (target < 0 or counts[r] >= counts[target]):
                    target = r
        counts[target] += w
    ng = rank_groups(counts, 12, ranks, sizes)
    for k in range(4):
        key = key << 5 | (ranks[k] + 1 if k < ng else 0)
    return showing_category(sizes[0] if ng else 0, sizes[1] if ng > 1 else 0, up, nup, o.four_flush,
                            o.wild) << 20 | key


cdef int showing_key(Game *g, const Opts *o, int p) noexcept nogil:
    """hands.showing_key of the seat's up cards (``showing_of``): the first four (after the seventh card all of
    them: still four in stud)."""
    cdef int up[4]
    cdef int nup = 0, i, top
    for i in range(g.ncards[p]):
        if g.up[p][i] and nup < 4:
            up[nup] = g.cards[p][i]
            nup += 1
    return showing_of(o, up, nup, &top)


cdef int best_showing(Game *g, const Opts *o) noexcept nogil:
    """CP-8.3: the player still in with the best showing hand, the first in turn among equals."""
    cdef int i, p, k, best = -1, who = -1
    for i in range(g.n):
        p = g.pos[i]
        if g.folded[p]:
            continue
        k = showing_key(g, o, p)
        if who < 0 or k > best:
            best = k
            who = p
    return who


cdef void finish(Game *g, bint showdown) noexcept nogil:
    g.phase = 2
    g.showdown = showdown


cdef void advance(Game *g, const Opts *o) noexcept nogil:
    """State._advance: the end of an interval, the draw, the next stud street, the end."""
    cdef int i, p, first_in = -1, dealt, nin
    nin = n_in(g)
    if nin == 1:
        finish(g, False)
        return
    if g.to_act >= 0:
        return
    if o.form == 0:
        if g.street == 0:
            if o.openers and g.opener < 0:  # CP-7.3: nobody opened, the deal passes out (scores 0)
                g.phase = 2
                g.passed_out = True
                return
            g.phase = 1
            g.nqueue = 0
            g.qhead = 0
            for i in range(g.n):
                p = g.pos[i]
                if not g.folded[p]:
                    g.queue[g.nqueue] = p
                    g.nqueue += 1
            return
        finish(g, True)
        return
    for i in range(g.n):
        if not g.folded[g.pos[i]]:
            first_in = g.pos[i]
            break
    dealt = g.ncards[first_in] + (1 if g.common >= 0 else 0)
    if (o.form == 1 and dealt >= 5) or (o.form == 2 and dealt >= 7):
        finish(g, True)
        return
    g.street += 1
    if o.form == 2 and dealt == 6:
        if g.ndeck - g.ptr < nin:
            if g.logging:
                log_card(g, -1, g.deck[g.ptr], g.ptr)
            g.common = g.deck[g.ptr]  # CP-8.6
            g.ptr += 1
        else:
            for i in range(g.n):
                if not g.folded[g.pos[i]]:
                    give(g, g.pos[i], False)
    else:
        for i in range(g.n):
            if not g.folded[g.pos[i]]:
                give(g, g.pos[i], True)
    interval(g, best_showing(g, o), True)


cdef int bring_in_seat(Game *g, const Opts *o) noexcept nogil:
    """State.bring_in_seat (CP-8.8): the player still in whose door card (his one up card) is the lowest, ranks
    2 to A, suits clubs, diamonds, hearts, spades from the lowest; with ``pot=low`` the highest, the ace lowest."""
    cdef int i, j, p, door, r, key, best = 0, who = -1
    for i in range(g.n):
        p = g.pos[i]
        if g.folded[p]:
            continue
        door = -1
        for j in range(g.ncards[p]):
            if g.up[p][j]:
                door = g.cards[p][j]
                break
        r = door >> 2
        if o.low_pot:
            key = ((-1 if r == 12 else r) + 1) * 4 + (door & 3)
        else:
            key = -(r * 4 + (door & 3))
        if who < 0 or key > best:
            best = key
            who = p
    return who


# ---- bots.RulesBot (classic-poker/rules) -------------------------------------------------------------------
#
# Its decisions read the hand's strength (bots._strength: 0, 0.5, 1, 2, here doubled: 0, 1, 2, 4). From five
# cards on, the made hand's category comes from ``Opts.tab``, a table of every five natural cards by their
# ranks and suit shape (``five_key``) that playout._rules_table fills from the engine's own evaluator
# (hands.high_mode / low_mode, handeval.describe): in a high pot the class of the category (0 high card,
# 1 pair, 2 four-flush, 3 two pair or better, in every ranking's order) and bit 2 for a made hand that a
# draw keeps whole (straight, flush, full house, four, straight flush); in a low pot (draw) the strength
# itself (bits 3 and 4 are the openers' under ``openers=jacks``: ``may_open``). Six and seven cards take the
# best class of their five-card subsets (values order by category first). Below five cards (stud's early
# streets) it is hands.showing_key over the first cards of the hand (``showing_of``, wild cards counted, CP-3.8).
# With wild cards or jokers (``Opts.wild``, CP-3) five cards are keyed by ``hand_key``: their natural cards and
# how many wild cards they hold (and in stud under ``four_flush`` whether they make four of a suit, CP-4.6), the
# table's values from the wild evaluator (CP-3.3 to CP-3.5: all wild cards of a rules set are of one kind, fully
# wild or bugs, and which ones a hand holds does not change its value);
# ``bots._pair_rank`` and ``standard_discard`` count natural ranks and suits only, the wild cards always kept
# (CP-7.4).

cdef inline int five_key(const int *c) noexcept nogil:
    """Index into ``Opts.tab`` of five natural cards: their ranks ascending in base 13, then 0 (no four of
    a suit), 1 (four of a suit) or 2 (a flush)."""
    cdef int r[5]
    cdef int ns[4]
    cdef int i, j, t, k = 0, sc = 0
    for i in range(4):
        ns[i] = 0
    for i in range(5):
        r[i] = c[i] >> 2
        ns[c[i] & 3] += 1
    for i in range(1, 5):
        t = r[i]
        j = i
        while j > 0 and r[j - 1] > t:
            r[j] = r[j - 1]
            j -= 1
        r[j] = t
    for i in range(5):
        k = k * 13 + r[i]
    for i in range(4):
        if ns[i] == 5:
            sc = 2
        elif ns[i] == 4:
            sc = 1
    return k * 3 + sc


cdef int hand_key(const Opts *o, const int *c) noexcept nogil:
    """Index into ``Opts.tab`` of five cards: ``five_key`` without a wild card, else from ``WILD_OFF[w]`` (w wild
    cards) the natural ranks ascending in base 13, then 2 when the naturals are all of one suit (a flush with the
    wild cards, CP-3.3; one natural card or none too), 1 with stud's ``four_flush`` when the wild cards make four of
    a suit with the naturals (CP-4.6, CP-8.7), else 0."""
    cdef int r[5]
    cdef int ns[4]
    cdef int i, j, t, n = 0, k = 0, suit = -1, most = 0
    cdef bint one_suit = True
    if o.wild == 0:
        return five_key(c)
    ns[0] = ns[1] = ns[2] = ns[3] = 0
    for i in range(5):
        if not is_wild(o, c[i]):
            r[n] = c[i] >> 2
            ns[c[i] & 3] += 1
            if suit < 0:
                suit = c[i] & 3
            elif suit != (c[i] & 3):
                one_suit = False
            n += 1
    if n == 5:
        return five_key(c)
    for i in range(1, n):
        t = r[i]
        j = i
        while j > 0 and r[j - 1] > t:
            r[j] = r[j - 1]
            j -= 1
        r[j] = t
    for i in range(n):
        k = k * 13 + r[i]
    if one_suit:  # no natural card: 2
        return WILD_OFF[5 - n] + k * 3 + 2
    if o.four_flush:
        for i in range(4):
            if ns[i] > most:
                most = ns[i]
        if most + 5 - n >= 4:
            return WILD_OFF[5 - n] + k * 3 + 1
    return WILD_OFF[5 - n] + k * 3


cdef inline bint five_without(const int *cards, int n, int a, int b, int *sub) noexcept nogil:
    """Five of six or seven ``cards`` into ``sub``: six leave out ``a`` (``b == n``), seven ``a`` and ``b < n``;
    False (``sub`` untouched) for a pair ``(a, b)`` that is not such a choice."""
    cdef int j, k = 0
    if (n == 6) != (b == n):
        return False
    for j in range(n):
        if j != a and j != b:
            sub[k] = cards[j]
            k += 1
    return True


cdef int rules_strength(Game *g, const Opts *o, int seat) noexcept nogil:
    """bots._strength of the seat's hand (with stud's common card), doubled."""
    cdef int cards[MAXH]
    cdef int sub[5]
    cdef int counts[13]
    cdef int n = g.ncards[seat], i, a, b, cls = 0, c, pr = -1, top = -1, best = -1
    for i in range(n):
        cards[i] = g.cards[seat][i]
    if g.common >= 0:
        cards[n] = g.common
        n += 1
    if n >= 5:
        if n == 5:
            c = o.tab[hand_key(o, cards)]
            if o.low_pot:
                return c & 7  # bits 3 and 4: the openers' (may_open); in stud the low's class (below)
            cls = c & 3
        elif o.low_pot:  # stud: the strength of the five of the best class (bits 3 to 7, ordered as the lows)
            for a in range(n):
                for b in range(a + 1, n + 1):
                    if not five_without(cards, n, a, b, sub):
                        continue
                    c = o.tab[hand_key(o, sub)]
                    if c >> 3 > best:
                        best = c >> 3
                        cls = c & 7
            return cls
        else:  # the best five of six or seven: leave out one or two cards
            for a in range(n):
                for b in range(a + 1, n + 1):  # six cards: leave out a (b = n); seven: a and b < n
                    if not five_without(cards, n, a, b, sub):
                        continue
                    c = o.tab[hand_key(o, sub)] & 3
                    if c > cls:
                        cls = c
        if cls == 3:
            return 4
        if cls == 2:
            return 1
        if cls == 1:  # bots._pair_rank: the highest natural rank held twice, else the ace (a wild card's pair)
            for i in range(13):
                counts[i] = 0
            for i in range(n):
                if not is_wild(o, cards[i]):
                    counts[cards[i] >> 2] += 1
            for i in range(13):
                if counts[i] >= 2:
                    pr = i
            if pr < 0:
                pr = 12
            return 2 if pr >= 9 else 1
        return 0
    # hands.showing_key of the first four cards (CP-8.3, CP-8.7; wild cards counted as wild, CP-3.8)
    if n > 4:
        n = 4
    if o.low_pot:  # no pair: 8 or lower fair (the ace low under ace_either, ace_to_five), else marginal
        if showing_of(o, cards, n, &top) >> 20 == 5:
            return 2 if top <= 6 else 1
        return 0
    cls = showing_of(o, cards, n, &top) >> 20
    top = -1
    for i in range(n):  # max(c >> 2 for c in cards): wild cards and jokers (13) by their own rank
        if cards[i] >> 2 > top:
            top = cards[i] >> 2
    if cls >= 3:
        return 4
    if cls >= 1:
        return 2
    return 1 if top >= 10 else 0


cdef int rules_bet(Game *g, const Opts *o, int seat, int owe, bint can_check, bint raise_ok, int rmin, int rmax,
                   bint has_fold) noexcept nogil:
    """bots.RulesBot's bet: the largest raise (``rmax``) with a strong hand, call (or check, or the smallest raise,
    ``rmin``) a fair one, or a marginal one late (the dealer, or nothing to call), else check or fold, or with
    neither (the bring-in seat, CP-8.8) the first action listed: the bring-in (bots._bets)."""
    cdef int s = rules_strength(g, o, seat)
    cdef bint late = seat == g.dealer or owe == 0
    if s >= 4 and raise_ok:
        return RAISE + rmax
    if s >= 2 or (late and s >= 1):
        if owe > 0:
            return 2
        if can_check:
            return 1
        if raise_ok:
            return RAISE + rmin
        return 0
    if can_check:
        return 1
    if has_fold or not raise_ok:
        return 0
    return RAISE + rmin


cdef inline int popcount5(int m) noexcept nogil:
    return (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1) + (m >> 4 & 1)


cdef int rules_draw(Game *g, const Opts *o, int seat, int nopt, bint ace_ok) noexcept nogil:
    """bots.standard_discard (CP-7.4): the code of the legal draw closest to the plan. Wild cards (and jokers,
    rank 13) are always kept; the plan counts natural ranks and suits only."""
    cdef int *h = g.cards[seat]
    cdef int keep = 0, want, i, k, r, key, s, n, best_s = 0, best_n = 0, mask, code = -1, score, bscore = -1
    cdef int wmask = 0
    cdef int counts[14]
    cdef int suits[4]
    cdef bint seen[14]
    for i in range(5):
        if is_wild(o, h[i]):
            wmask |= 1 << i
    if o.low_pot:  # keep the wild cards and one card of each rank 8 or lower (the ace low), lowest first
        for i in range(14):
            seen[i] = False
        for key in range(-1, 14):
            for i in range(5):
                r = h[i] >> 2
                if (-1 if r == 12 else r) == key and (wmask >> i & 1 or (not seen[r] and (r <= 6 or r == 12))):
                    keep |= 1 << i
                    seen[r] = True
    elif o.tab[hand_key(o, h)] & 4:  # a straight or better: stand pat
        keep = 31
    else:
        for i in range(13):
            counts[i] = 0
        for i in range(5):
            if not wmask >> i & 1:
                counts[h[i] >> 2] += 1
        keep = wmask
        for i in range(5):
            if not wmask >> i & 1 and counts[h[i] >> 2] >= 2:
                keep |= 1 << i
        if keep == wmask:  # no natural card kept
            for i in range(4):
                suits[i] = 0
            for i in range(5):
                if not wmask >> i & 1:
                    suits[h[i] & 3] += 1
            for i in range(5):  # Counter.most_common(1): the first suit seen among the most frequent
                if not wmask >> i & 1 and suits[h[i] & 3] > best_n:
                    best_n = suits[h[i] & 3]
                    best_s = h[i] & 3
            if best_n + popcount5(wmask) >= 4:
                for i in range(5):
                    if not wmask >> i & 1 and h[i] & 3 == best_s:
                        keep |= 1 << i
            else:
                k = -1
                for i in range(5):  # max(..., key=rank): the first natural card of the highest rank
                    if not wmask >> i & 1 and (k < 0 or h[i] >> 2 > h[k] >> 2):
                        k = i
                if k >= 0:
                    keep |= 1 << k
    want = 31 & ~keep
    # the legal draws in the engine's order: DRAW_MASKS[0:nopt], then a draw of four keeping each ace;
    # the one discarding exactly the plan, else the most planned cards with the fewest cards (the first)
    for k in range(nopt):
        mask = DRAW_MASKS[k]
        if mask == want:
            return DRAW + mask
        score = popcount5(mask & want) * 8 + (7 - popcount5(mask))
        if score > bscore:
            bscore = score
            code = DRAW + mask
    if ace_ok:
        for i in range(5):
            if h[i] >> 2 == 12 and h[i] < 52:
                mask = 31 & ~(1 << i)
                if mask == want:
                    return ACE + i
                score = popcount5(mask & want) * 8 + (7 - popcount5(mask))
                if score > bscore:
                    bscore = score
                    code = ACE + i
    return code


# ---- openers (CP-7.3) ------------------------------------------------------------------------------------------
#
# ``Opts.tab`` bit 3: the five natural cards hold jacks or better (hands.high_value >= state._jacks_threshold);
# bit 4: their high category is a straight, flush, full house or straight flush, which the opener shows whole
# (State._opening_cards). Both from the engine's evaluator (playout._rules_table).

cdef bint may_open(Game *g, const Opts *o, int seat) noexcept nogil:
    """State._may_open (CP-7.3): jacks or better (the wild evaluator's, ``hand_key``), or with
    ``four_flush_opens`` four cards of a suit, wild cards counted (CP-4.4)."""
    cdef int ns[4]
    cdef int i, w = 0, top = 0
    if o.tab[hand_key(o, g.cards[seat])] & 8:
        return True
    if o.ff_opens:
        for i in range(4):
            ns[i] = 0
        for i in range(5):
            if is_wild(o, g.cards[seat][i]):
                w += 1
            else:
                ns[g.cards[seat][i] & 3] += 1
        for i in range(4):
            if ns[i] > top:
                top = ns[i]
        return top + w >= 4
    return False


cdef int opening_mask(Game *g, const Opts *o, int seat) noexcept nogil:
    """State._opening_cards of the seat's dealt five (CP-7.3, CP-11.1) as positions: all five for a straight
    or better but four of a kind, the wild cards and the natural cards of ranks held twice or more for jacks or
    better, else the first four of the wild cards and the natural cards of its four-flush's suit."""
    cdef int *h = g.cards[seat]
    cdef int counts[13]
    cdef int ns[4]
    cdef int i, c = o.tab[hand_key(o, h)], mask = 0, top = 0, k = 0
    if c & 16:
        return 31
    if c & 8:
        for i in range(13):
            counts[i] = 0
        for i in range(5):
            if not is_wild(o, h[i]):
                counts[h[i] >> 2] += 1
        for i in range(5):
            if is_wild(o, h[i]) or counts[h[i] >> 2] >= 2:
                mask |= 1 << i
        return mask
    for i in range(4):
        ns[i] = 0
    for i in range(5):
        if not is_wild(o, h[i]):
            ns[h[i] & 3] += 1
    for i in range(1, 4):  # max(range(4), key=suits.count): the first suit of the largest count
        if ns[i] > ns[top]:
            top = i
    for i in range(5):
        if (is_wild(o, h[i]) or h[i] & 3 == top) and k < 4:
            mask |= 1 << i
            k += 1
    return mask


cdef int note(Game *g, int seat, int code, int lg) noexcept nogil:
    if g.nact >= MAXA:
        return -1
    g.codes[g.nact] = code
    g.seats[g.nact] = seat
    g.lg[g.nact] = lg
    g.nact += 1
    return 0


cdef int bet_step(Game *g, const Opts *o, bitgen_t *bg) noexcept nogil:
    """One betting decision (betting.legal_actions, bots.RandomBot or bots.RulesBot, betting.apply)."""
    cdef int seat = g.to_act, cur = current_bet(g), owe, k, nr, i, code, amount, size = 0, rmin, rmax, lg
    cdef bint can_check, raise_ok, has_fold = True, opening = False
    owe = cur - g.bets[seat]
    can_check = owe == 0 and (g.may_check or cur > 0)
    raise_ok = g.can_raise[seat] and g.raises <= o.max_raises
    if raise_ok and o.openers and g.street == 0 and cur == 0 and not may_open(g, o, seat):
        raise_ok = False  # CP-7.3: only check or fold until someone opens
    if o.bring_in:  # CP-8.8: fixed limits (the small bet twice, then the big bet), no fold unless facing a bet
        size = o.min_bet if g.street < 2 else o.limit
        has_fold = owe > 0
        opening = raise_ok and g.bring_in and cur == 0  # the bring-in or the completion
        rmin = g.bring_in if opening else (size - cur if g.bring_in and cur < size else size)
        rmax = size if opening else rmin
        nr = (2 if opening else 1) if raise_ok else 0
    else:
        rmin = o.min_bet
        rmax = o.limit
        nr = (o.limit - o.min_bet + 1) if raise_ok else 0
    if g.kind[seat] == 1:
        code = rules_bet(g, o, seat, owe, can_check, raise_ok, rmin, rmax, has_fold)
    elif can_check:  # [check, raises...]: the fold is left out
        k = <int> bounded(bg, 1 + nr)
        code = 1 if k == 0 else RAISE + (rmax if opening and k == 2 else rmin + k - 1)
    else:  # [fold?, call?, raises...]
        k = <int> bounded(bg, (1 if has_fold else 0) + (1 if owe > 0 else 0) + nr)
        if has_fold and k == 0:
            code = 0
        else:
            k -= 1 if has_fold else 0
            if owe > 0 and k == 0:
                code = 2
            else:
                k -= 1 if owe > 0 else 0
                code = RAISE + (rmax if opening and k == 1 else rmin + k)
    lg = (1 if can_check else 0) | (2 if owe > 0 else 0) | (4 if raise_ok else 0)
    if o.bring_in:
        lg |= (8 if opening else 0) | rmax << 4
    if note(g, seat, code, lg) < 0:
        return -1
    g.acted[seat] = True
    g.can_raise[seat] = False
    if code == 0:
        g.folded[seat] = True
        g.fold_street[seat] = g.street
        for i in range(g.ncards[seat]):
            g.pooled[g.cards[seat][i]] = True
    elif code == 2:
        g.committed[seat] += owe
        g.bets[seat] += owe
    elif code >= RAISE:
        amount = code - RAISE
        if o.openers and g.opener < 0 and g.street == 0:  # CP-7.3: the first raise of interval 1 opens
            g.opener = seat
            g.open_mask = opening_mask(g, o, seat)
        g.committed[seat] += owe + amount
        g.bets[seat] += owe + amount
        if o.bring_in and g.bring_in and g.bets[seat] < size:
            pass  # CP-8.8: the bring-in is no bet: it counts for no raise and re-opens nothing
        else:
            # spread limit: every raise is full (amount >= min_bet) and re-opens the raising; fixed limit:
            # every raise is the size, and the completion of a bring-in is the interval's first bet (CP-8.8)
            for i in range(g.n):
                g.can_raise[i] = i != seat
            if o.bring_in and g.bring_in and cur < size:
                g.raises = 1
            else:
                g.raises += 1
    g.to_act = next_to_act(g, seat)
    advance(g, o)
    return 0


cdef int replaceable(Game *g) noexcept nogil:
    """State._replaceable (CP-7.5): the stock left and the cards a new stock would hold."""
    cdef int c, k = (g.nstock - g.shead) if g.has_stock else (g.ndeck - g.ptr)
    for c in range(MAXC):
        if g.pooled[c] and not g.restocked[c]:
            k += 1
    return k


cdef void rebuild_stock(Game *g) noexcept nogil:
    """State._rebuild_stock (CP-7.5): the discards and folded hands not yet restocked, in reshuffle order."""
    cdef int i, c
    cdef bint eligible[MAXC]
    for c in range(MAXC):
        eligible[c] = g.pooled[c] and not g.restocked[c]
    g.nstock = 0
    g.shead = 0
    for i in range(g.nre):
        c = g.re[i]
        if eligible[c]:
            g.stock[g.nstock] = c
            g.nstock += 1
    for c in range(MAXC):
        if eligible[c]:
            g.restocked[c] = True
    g.has_stock = True


cdef int draw_step(Game *g, const Opts *o, bitgen_t *bg) noexcept nogil:
    """One draw (State._draw_options, bots.RandomBot or bots.standard_discard, State._apply_draw; CP-7.4, CP-7.5)."""
    cdef int seat = g.queue[g.qhead], room, top, nopt, k, mask, i, j, code, ace_at = -1, naces = 0
    cdef int thrown[5]
    cdef int nthrown = 0
    cdef int kept[5]
    cdef int nkept = 0
    cdef int aside = 0
    cdef bint ace_ok
    room = replaceable(g)
    top = (5 if o.max_draw == 5 else 3)
    if room < top:
        top = room
    nopt = DRAW_COUNT[top]
    ace_ok = o.max_draw == 4 and room >= 4
    if ace_ok:
        for i in range(g.ncards[seat]):
            if g.cards[seat][i] >> 2 == 12 and g.cards[seat][i] < 52:
                naces += 1
    if g.kind[seat] == 1:
        code = rules_draw(g, o, seat, nopt, ace_ok)
        if code >= ACE:
            ace_at = code - ACE
            mask = 31 & ~(1 << ace_at)
        else:
            mask = code - DRAW
    else:
        k = <int> bounded(bg, nopt + naces)
        if k < nopt:
            mask = DRAW_MASKS[k]
            code = DRAW + mask
        else:
            j = k - nopt
            for i in range(g.ncards[seat]):
                if g.cards[seat][i] >> 2 == 12 and g.cards[seat][i] < 52:
                    if j == 0:
                        ace_at = i
                        break
                    j -= 1
            mask = 31 & ~(1 << ace_at)
            code = ACE + ace_at
    if note(g, seat, code, top | ((1 if ace_ok else 0) << 3)) < 0:
        return -1
    g.qhead += 1
    if o.openers and seat == g.opener:
        aside = mask & g.open_mask  # CP-7.3 / CP-7.5: the opening cards he throws are kept aside (CP-11.1)
    for i in range(g.ncards[seat]):
        if mask >> i & 1:
            thrown[nthrown] = g.cards[seat][i]
            nthrown += 1
        else:
            kept[nkept] = g.cards[seat][i]
            nkept += 1
    for i in range(nkept):
        g.cards[seat][i] = kept[i]
        g.up[seat][i] = False
    g.ncards[seat] = nkept
    for i in range(nthrown):
        if (not g.has_stock and g.ptr >= g.ndeck) or (g.has_stock and g.shead >= g.nstock):
            rebuild_stock(g)
        give(g, seat, False)
    j = 0
    for i in range(5):
        if mask >> i & 1:
            if not aside >> i & 1:  # every other discard may go into a new stock
                g.pooled[thrown[j]] = True
            j += 1
    if g.qhead >= g.nqueue:
        g.street = 1
        # CP-7.6: the opener acts first if still in, else the first player still in left of the dealer
        interval(g, g.opener if o.openers and g.opener >= 0 and not g.folded[g.opener] else g.pos[0], True)
    return 0


cdef int run(Game *g, const Opts *o, bitgen_t *bg) noexcept nogil:
    """The deal from its first cards to the end (State._start, then every decision)."""
    cdef int i, p, r, rounds
    if o.form == 0:
        for r in range(5):  # CP-7.1 / CP-11.3
            for i in range(g.n):
                give(g, g.pos[i], False)
        interval(g, g.pos[0], True)  # CP-7.2
        g.logging = g.want_log
    else:
        rounds = 2 if o.form == 1 else 3
        for r in range(rounds):  # CP-8.1, CP-8.2: the last of them face up
            for i in range(g.n):
                give(g, g.pos[i], r == rounds - 1)
        g.logging = g.want_log  # before the interval: its first bet deals nothing
        if o.bring_in:  # CP-8.8: the lowest door card brings in
            interval(g, bring_in_seat(g, o), False, o.bring_in)
        else:
            interval(g, best_showing(g, o), False)  # CP-8.4
    while g.phase != 2:
        if g.phase == 0:
            if bet_step(g, o, bg) < 0:
                return -1
        else:
            if draw_step(g, o, bg) < 0:
                return -1
    return 0


cdef int load(Game *g, Opts *o, deck, reshuffle, int players, int dealer, carried, int ante, tuple opts,
              tab=None) except -1:
    cdef int i, c
    (o.form, o.min_bet, o.limit, o.max_raises, o.max_draw, o.four_flush, o.low_pot, o.openers, o.ff_opens, o.wild,
     o.bring_in, o.ace_low, o.bug) = opts
    if tab is None:
        o.tab = NULL
    else:
        if type(tab) is not bytes or len(tab) != TABLE_SIZE:
            raise ValueError(f"the rules table is bytes of length {TABLE_SIZE}")
        o.tab = <const unsigned char *> PyBytes_AS_STRING(tab)  # the caller's argument: alive while it plays
    if o.openers and (o.tab == NULL or o.form != 0):
        raise ValueError("openers (CP-7.3) are draw's and need the table of five-card hands")
    if o.bring_in and (o.form != 2 or not 0 < o.bring_in < o.min_bet):
        raise ValueError("a bring-in (CP-8.8) is seven-card stud's, below the small bet")
    if not 2 <= players <= MAXP or len(deck) > MAXC or len(reshuffle) > MAXC:
        raise ValueError(f"the kernel plays 2..{MAXP} players and decks of at most {MAXC} cards")
    g.n = players
    g.dealer = dealer
    for i in range(players):
        g.pos[i] = (dealer + 1 + i) % players
    g.ndeck = len(deck)
    for i in range(g.ndeck):
        g.deck[i] = deck[i]
    g.nre = len(reshuffle)
    for i in range(g.nre):
        g.re[i] = reshuffle[i]
    for i in range(players):
        g.ante0[i] = ante + carried[i]
    return 0


cdef int seat_kinds(Game *g, const Opts *o, kinds) except -1:
    """Each seat's bot (0 random, 1 rules) from ``kinds`` (None: every seat random)."""
    cdef int i
    for i in range(g.n):
        g.kind[i] = 0 if kinds is None else kinds[i]
        if not 0 <= g.kind[i] <= 1:
            raise ValueError(f"unknown bot code {g.kind[i]}")
        if g.kind[i] == 1 and o.tab == NULL:
            raise ValueError("a rules seat needs the rules table")
    return 0


cdef inline void reset(Game *g, const Game *fresh) noexcept nogil:
    cdef int i, c
    g.n = fresh.n
    g.ptr = 0
    g.nstock = 0
    g.shead = 0
    g.has_stock = False
    g.common = -1
    for c in range(MAXC):
        g.pooled[c] = False
        g.restocked[c] = False
    for i in range(fresh.n):
        g.ncards[i] = 0
        g.folded[i] = False
        g.fold_street[i] = -1
        g.committed[i] = fresh.ante0[i]
        g.bets[i] = 0
    g.street = 0
    g.phase = 0
    g.nqueue = 0
    g.qhead = 0
    g.showdown = False
    g.passed_out = False
    g.opener = -1
    g.open_mask = 0
    g.nact = 0
    g.logging = False
    g.nev = 0


cdef int play_one(Game *g, const Opts *o, rng) except -1:
    cdef int rc
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    with rng.bit_generator.lock:
        rc = run(g, o, bg)
    if rc < 0:
        raise RuntimeError("more decisions than the kernel keeps")
    return 0


cdef object result(Game *g):
    """(showdown, committed, fold streets, the live seats in turn order, their hands with the common card, passed
    out: nobody opened, CP-7.3)."""
    cdef int i, j, p
    live = []
    held = []
    for i in range(g.n):
        p = g.pos[i]
        if not g.folded[p]:
            live.append(p)
            hand = [g.cards[p][j] for j in range(g.ncards[p])]
            if g.common >= 0:
                hand.append(g.common)
            held.append(hand)
    return (g.showdown, [g.committed[i] for i in range(g.n)], [g.fold_street[i] for i in range(g.n)], live, held,
            g.passed_out)


def play(rng, deck, reshuffle, int players, int dealer, carried, int ante, tuple opts, bint trace=False,
         kinds=None, tab=None):
    """Play the deal of ``deck`` (and ``reshuffle``), random seats drawing from ``rng``; ``kinds`` the bot of
    each seat (0 random, 1 rules, which reads ``tab``; None: all random). Returns (codes, seats, legal per
    decision when ``trace`` else None, ``result``)."""
    cdef Opts o
    cdef Game g
    cdef Game *gp = &g
    cdef int i
    load(gp, &o, deck, reshuffle, players, dealer, carried, ante, opts, tab)
    seat_kinds(gp, &o, kinds)
    g.want_log = False
    reset(gp, gp)
    play_one(gp, &o, rng)
    codes = [g.codes[i] for i in range(g.nact)]
    seats = [g.seats[i] for i in range(g.nact)]
    legal = [g.lg[i] for i in range(g.nact)] if trace else None
    return codes, seats, legal, result(gp)


def openers_of(hand, tuple opts, tab):
    """(``may_open``, ``opening_mask``) of five natural cards under ``opts`` and the table (CP-7.3, CP-11.1): what
    the kernel decides of a seat's dealt five under openers, for tests against ``State._may_open`` and
    ``State._opening_cards``."""
    cdef Opts o
    cdef Game g
    cdef int i
    load(&g, &o, (), (), 2, 0, (0, 0), 0, opts, tab)
    if len(hand) != 5:
        raise ValueError("five cards")
    for i in range(5):
        g.cards[0][i] = hand[i]
    g.ncards[0] = 5
    return bool(may_open(&g, &o, 0)), opening_mask(&g, &o, 0)


def rules_of(hand, tuple opts, tab, int top=5, bint ace_ok=False):
    """(``bots._strength`` doubled, the code of ``bots.standard_discard``'s draw among the discards of at most
    ``top`` cards and, with ``ace_ok``, the draws of four keeping an ace) of a draw seat's five cards, as the
    kernel's rules seat decides them: for tests against ``bots.RulesBot``."""
    cdef Opts o
    cdef Game g
    cdef int i
    load(&g, &o, (), (), 2, 0, (0, 0), 0, opts, tab)
    if len(hand) != 5 or o.tab == NULL or o.form != 0 or not 0 <= top <= 5:
        raise ValueError("five cards of a draw hand and the rules table")
    for i in range(5):
        g.cards[0][i] = hand[i]
    g.ncards[0] = 5
    g.common = -1
    return rules_strength(&g, &o, 0), rules_draw(&g, &o, 0, DRAW_COUNT[top], ace_ok)


def stud_of(hand, tuple opts, tab):
    """(``bots._strength`` doubled of a stud seat's 1 to 7 cards, the common card among them, as the kernel's rules
    seat computes it; the packed ``showing_key`` of the hand's first four cards taken as its up cards, CP-8.3, wild
    cards counted as wild, CP-3.8): for tests against ``bots.RulesBot`` and ``hands.showing_key``."""
    cdef Opts o
    cdef Game g
    cdef int i
    load(&g, &o, (), (), 2, 0, (0, 0), 0, opts, tab)
    if not 1 <= len(hand) <= 7 or o.tab == NULL or o.form == 0:
        raise ValueError("1 to 7 cards of a stud hand and the rules table")
    for i in range(len(hand)):
        g.cards[0][i] = hand[i]
        g.up[0][i] = True
    g.ncards[0] = len(hand)
    g.common = -1
    return rules_strength(&g, &o, 0), showing_key(&g, &o, 0)


def results(rng_at, deck, reshuffle, int players, int dealer, carried, int ante, tuple opts, int rotations,
            kinds=None, tab=None):
    """``result`` of the deal played once per rotation r, drawing from ``rng_at(r)``, the seats' bots
    ``kinds[r]`` (as ``play``; None: all random)."""
    cdef Opts o
    cdef Game g
    cdef Game *gp = &g
    cdef int r
    load(gp, &o, deck, reshuffle, players, dealer, carried, ante, opts, tab)
    g.want_log = False
    out = []
    for r in range(rotations):
        seat_kinds(gp, &o, None if kinds is None else kinds[r])
        reset(gp, gp)
        play_one(gp, &o, rng_at(r))
        out.append(result(gp))
    return out


cdef object chance_log(Game *g):
    """The deal's cards dealt during play as ``State.chance_log`` notes them: per card (seat or None for
    the common card, card, deck position or -1, pot, folded per seat, every seat's cards, common or None)."""
    cdef int e, p, j
    if g.nev > MAXE:
        raise RuntimeError("more cards dealt during play than the kernel logs")
    out = []
    for e in range(g.nev):
        out.append((None if g.ev_seat[e] < 0 else g.ev_seat[e], g.ev_card[e], g.ev_ptr[e], g.ev_pot[e],
                    tuple([bool(g.ev_folded[e][p]) for p in range(g.n)]),
                    tuple([tuple([g.ev_cards[e][p][j] for j in range(g.ev_n[e][p])]) for p in range(g.n)]),
                    None if g.ev_common[e] < 0 else g.ev_common[e]))
    return out


def logged_results(rng_at, deck, reshuffle, int players, int dealer, carried, int ante, tuple opts, int rotations,
                   kinds=None, tab=None):
    """``results``, each rotation's ``result`` paired with its ``chance_log`` (the luck estimator's input)."""
    cdef Opts o
    cdef Game g
    cdef Game *gp = &g
    cdef int r
    load(gp, &o, deck, reshuffle, players, dealer, carried, ante, opts, tab)
    g.want_log = True
    out = []
    for r in range(rotations):
        seat_kinds(gp, &o, None if kinds is None else kinds[r])
        reset(gp, gp)
        play_one(gp, &o, rng_at(r))
        out.append((result(gp), chance_log(gp)))
    return out


# ---- the luck estimator's terms (games/classic_poker/luck.py) from the kernel's chance log ----------------------
#
# ``luck.logged_corrections`` builds, per card dealt during play, every final hand its EQ looks at (numpy layouts),
# evaluates them and sums each seat's shares; most of its time went to building small arrays per card. Here the
# kernel writes the same hands (the same cards, in the same rows and order) straight into one buffer per deal,
# ``playout.py`` evaluates them with ``luck._values`` (the estimator's own evaluator call), and ``luck_terms`` sums
# the shares in numpy's order (``pairwise``: np.add.reduce over a contiguous axis), so the corrections are the same
# floats as ``luck.unit_corrections`` of the finished states.

import numpy as _np

DEF MAXN = 64       # undealt cards of an event
DEF EVW = 40        # fields of an event's row in ``meta``: see ``event_rows``

cdef dict _ORDERS_C = {}


cdef object orders_of(int n1, int k, object orders):
    """``luck._orders(n1, k, SAMPLES)`` as a C-contiguous int64 array, kept per (n1, k)."""
    key = n1 * 256 + k
    out = _ORDERS_C.get(key)
    if out is None:
        out = _ORDERS_C[key] = _np.ascontiguousarray(orders(n1, k), dtype=_np.int64)
    return out


cdef inline double pairwise(const double *a, int n) noexcept nogil:
    """numpy's pairwise_sum of ``n`` <= 128 doubles (np.add.reduce over a contiguous axis): a plain sum below
    8, else eight accumulators in blocks of 8, combined as a tree, then the rest."""
    cdef double r[8]
    cdef double res
    cdef int i, j
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[i]
        return res
    for j in range(8):
        r[j] = a[j]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[i]
        i += 1
    return res


cdef int event_rows(Game *g, int e, int rot, int final, bint draw, long long *row, int *held_n,
                    int held[MAXP][MAXH], int *unseen) noexcept nogil:
    """``luck._event_hands`` of event ``e``: 0 when its term is left out, else 1 with ``row`` filled:
    rot, pot, v (varying seats), f (fixed), n (undealt cards), index of the card in them, total cards
    missing, then per live seat in the estimator's order (varying, then fixed) seat, gets, missing; ``held``
    every seat's hand (the common card appended to live hands), ``unseen`` the undealt cards sorted."""
    cdef int p, j, c, n = 0, nlive = 0, total = 0, v = 0, f = 0, idx = -1, need, got
    cdef bint present[MAXC]
    cdef int needs[MAXP]
    cdef bint gets[MAXP]
    if g.ev_ptr[e] < 0:  # a new stock's card (CP-7.5): left out
        return 0
    for p in range(g.n):
        if not g.ev_folded[e][p]:
            nlive += 1
    if nlive < 2:
        return 0
    for c in range(MAXC):
        present[c] = False
    for j in range(g.ev_ptr[e], g.ndeck):
        present[g.deck[j]] = True
    for c in range(MAXC):
        if present[c]:
            if c == g.ev_card[e]:
                idx = n
            unseen[n] = c
            n += 1
    for p in range(g.n):
        held_n[p] = g.ev_n[e][p]
        for j in range(held_n[p]):
            held[p][j] = g.ev_cards[e][p][j]
        if g.ev_common[e] >= 0 and not g.ev_folded[e][p]:
            held[p][held_n[p]] = g.ev_common[e]
            held_n[p] += 1
    for p in range(g.n):
        if g.ev_folded[e][p]:
            continue
        got = g.ev_seat[e] < 0 or g.ev_seat[e] == p
        need = final - held_n[p] - (1 if got else 0)
        if draw and p != g.ev_seat[e]:
            need = 0
        if need < 0:
            return 0
        gets[p] = got
        needs[p] = need
        total += need
    if total > n - 1:
        return 0
    row[0] = rot
    row[1] = g.ev_pot[e]
    row[4] = n
    row[5] = idx
    row[6] = total
    j = 7
    for p in range(g.n):  # the varying seats, then the fixed ones, each in seat order
        if not g.ev_folded[e][p] and (gets[p] or needs[p] > 0):
            row[j] = p
            row[j + 1] = gets[p]
            row[j + 2] = needs[p]
            j += 3
            v += 1
    for p in range(g.n):
        if not g.ev_folded[e][p] and not (gets[p] or needs[p] > 0):
            row[j] = p
            row[j + 1] = 0
            row[j + 2] = 0
            j += 3
            f += 1
    row[2] = v
    row[3] = f
    return 1


cdef class _Hands:
    """The hands of a unit's terms (``luck._event_hands``' rows) and one ``meta`` row per term, growing.

    ``luck._event_hands``' rows are *logical*: ``index`` maps each to the physical row of ``hands`` that holds
    its cards. A varying seat that does not get the candidate card holds, for candidate i and completion mi,
    its known cards and ``unseen[p + (p >= i)]`` for the completion's positions p; for candidate i - 1 the
    same cards unless some p equals i - 1. Such a row is not written again: its index is the earlier row's
    (the same cards, so the same values and shares)."""

    cdef object hands
    cdef object meta
    cdef object index
    cdef unsigned char[:, ::1] hv
    cdef long long[:, ::1] mv
    cdef int[::1] iv
    cdef int rows
    cdef int nlog
    cdef int repeats
    cdef int nmeta
    cdef int final
    cdef bint draw
    cdef object orders

    def __init__(self, int final, bint draw, orders, int events):
        if final > MAXH:
            raise ValueError("hands of at most 8 cards")
        self.final = final
        self.draw = draw
        self.orders = orders
        self.hands = _np.empty((16384, final), dtype=_np.uint8)
        self.index = _np.empty(16384, dtype=_np.intc)
        self.meta = _np.empty((max(events, 1), EVW), dtype=_np.int64)
        self.hv = self.hands
        self.iv = self.index
        self.mv = self.meta
        self.rows = 0
        self.nlog = 0
        self.repeats = 0
        self.nmeta = 0

    cdef int add(self, Game *g, int r) except -1:
        """Every term of ``g``'s chance log (rotation ``r``): its hands, their index and its ``meta`` row."""
        cdef int e, i, j, k, t, mi, p, s, n, v, f, m, at, total, gets, missing, rows, lg
        cdef unsigned long long used[MAXN]
        cdef int *ixp
        cdef unsigned char *hp
        cdef long long row[EVW]
        cdef int held_n[MAXP]
        cdef int held[MAXP][MAXH]
        cdef int unseen[MAXN]
        cdef long long[:, ::1] od
        cdef unsigned char *out
        if g.nev > MAXE:
            raise RuntimeError("more cards dealt during play than the kernel logs")
        if self.nmeta + g.nev > self.mv.shape[0]:
            bigger = _np.empty((2 * (self.nmeta + g.nev), EVW), dtype=_np.int64)
            bigger[:self.nmeta] = self.meta[:self.nmeta]
            self.meta = bigger
            self.mv = bigger
        for e in range(g.nev):
            if not event_rows(g, e, r, self.final, self.draw, row, held_n, held, unseen):
                continue
            n = <int> row[4]
            v = <int> row[2]
            f = <int> row[3]
            total = <int> row[6]
            od = orders_of(n - 1, total, self.orders)
            m = od.shape[0]
            if m > MAXN:
                raise RuntimeError("an event larger than the estimator's kernel keeps")
            rows = self.rows
            lg = self.nlog
            if rows + v * n * m + f > self.hv.shape[0]:
                bigger = _np.empty((2 * (rows + v * n * m + f), self.final), dtype=_np.uint8)
                bigger[:rows] = self.hands[:rows]
                self.hands = bigger
                self.hv = bigger
            if lg + v * n * m + f > self.iv.shape[0]:
                bigger = _np.empty(2 * (lg + v * n * m + f), dtype=_np.intc)
                bigger[:lg] = self.index[:lg]
                self.index = bigger
                self.iv = bigger
            row[EVW - 2] = m
            row[EVW - 1] = lg
            for j in range(EVW):
                self.mv[self.nmeta, j] = row[j]
            self.nmeta += 1
            at = 0
            hp = &self.hv[0, 0]
            ixp = &self.iv[0]
            for j in range(v):
                s = <int> row[7 + 3 * j]
                gets = <int> row[8 + 3 * j]
                missing = <int> row[9 + 3 * j]
                k = held_n[s]
                if not gets:  # per completion, the positions it draws (each < n - 1 <= MAXN - 1)
                    for mi in range(m):
                        used[mi] = 0
                        for t in range(missing):
                            used[mi] |= 1ULL << od[mi, at + t]
                for i in range(n):
                    for mi in range(m):
                        if not gets and i > 0 and not ((used[mi] >> (i - 1)) & 1):
                            ixp[lg] = ixp[lg - m]  # candidate i - 1's row: the same cards
                            lg += 1
                            self.repeats += 1
                            continue
                        out = hp + rows * self.final
                        for t in range(k):
                            out[t] = held[s][t]
                        if gets:
                            out[k] = unseen[i]
                        for t in range(missing):
                            p = <int> od[mi, at + t]
                            out[k + gets + t] = unseen[p + (1 if p >= i else 0)]
                        ixp[lg] = rows
                        rows += 1
                        lg += 1
                at += missing
            for j in range(v, v + f):
                s = <int> row[7 + 3 * j]
                out = hp + rows * self.final
                for t in range(self.final):
                    out[t] = held[s][t]
                ixp[lg] = rows
                rows += 1
                lg += 1
            self.rows = rows
            self.nlog = lg
        return 0

    def done(self):
        """(hands, meta, index); index None when no row repeats (logical row x is ``hands[x]``)."""
        return self.hands[:self.rows], self.meta[:self.nmeta], self.index[:self.nlog] if self.repeats else None


def corrected_results(rng_at, deck, reshuffle, int players, int dealer, carried, int ante, tuple opts,
                      int rotations, int final, bint draw, orders, kinds=None, tab=None):
    """``results`` of every rotation, with every final hand the luck estimator's terms look at: returns
    (results, hands, meta, index). ``hands`` (rows of ``final`` cards) are ``luck._event_hands``' for every card
    dealt during play whose term is not left out, rotation by rotation and card by card: per varying seat,
    candidate and completion (its known cards, the candidate when it gets it, the completion's cards drawn
    by ``orders(n - 1, total)``, i.e. ``luck._orders``, from the undealt cards less the candidate), then the
    fixed seats' hands, each written once where it repeats the previous candidate's (``_Hands``): logical row
    x is ``hands[index[x]]`` (``hands[x]`` when ``index`` is None: no row repeats, as in draw); ``meta`` one
    row per such card (``event_rows``, then m and its first logical row)."""
    cdef Opts o
    cdef Game g
    cdef Game *gp = &g
    cdef int r
    cdef _Hands buf = _Hands(final, draw, orders, rotations * 16)
    if players > MAXP:
        raise ValueError("at most 10 players")
    load(gp, &o, deck, reshuffle, players, dealer, carried, ante, opts, tab)
    g.want_log = True
    played = []
    for r in range(rotations):
        seat_kinds(gp, &o, None if kinds is None else kinds[r])
        reset(gp, gp)
        play_one(gp, &o, rng_at(r))
        played.append(result(gp))
        buf.add(gp, r)
    hands, meta, index = buf.done()
    return played, hands, meta, index


def logged_hands(units, int players, int final, bint draw, orders):
    """``corrected_results``' (hands, meta, index) of finished deals' chance logs (``State.chance_log``, or the
    kernel's tuples in the same field order): ``units`` holds per deal its deck order and its log; the
    deals are numbered in that order (``luck_terms``' rotations). None when a deal is larger than the
    kernel keeps (the caller computes those terms in numpy)."""
    cdef Game g
    cdef Game *gp = &g
    cdef int r = 0, e, p, j, c
    cdef _Hands buf = _Hands(final, draw, orders, 16 * len(units))
    if players > MAXP or final > MAXH:
        return None
    g.n = players
    for deck, log in units:
        if len(deck) > MAXC or len(log) > MAXE:
            return None
        g.ndeck = len(deck)
        for j in range(g.ndeck):
            c = deck[j]
            if not 0 <= c < MAXC:
                return None
            g.deck[j] = c
        g.nev = len(log)
        e = 0
        for seat, card, ptr, pot, folded, held_before, common in log:
            g.ev_seat[e] = -1 if seat is None else seat
            g.ev_card[e] = card
            g.ev_ptr[e] = ptr
            g.ev_pot[e] = pot
            g.ev_common[e] = -1 if common is None else common
            for p in range(players):
                g.ev_folded[e][p] = folded[p]
                h = held_before[p]
                if len(h) > MAXH - 1:
                    return None
                g.ev_n[e][p] = len(h)
                for j in range(len(h)):
                    g.ev_cards[e][p][j] = h[j]
            e += 1
        buf.add(gp, r)
        r += 1
    return buf.done()


def luck_terms(meta, index, high, low, double weight, int rotations, int players):
    """Each rotation's corrections per seat from ``corrected_results``' ``meta`` and ``index`` and the values of
    its hands (``luck._values``: ``high``, and ``low`` with -1 for a low that does not qualify, or None; logical
    row x's values at ``index[x]``, at x when ``index`` is None): per card and
    live seat, ``luck._terms``' share of the pot per completion (ties split; in a high-low pot half to the
    high, half to the qualifying low, the high scooping without one), summed over the completions and the
    candidates in numpy's order, the seat's term ``weight * pot / m * (EQ[card] - sum / n)``, added up per
    seat in the order of the cards (``luck.logged_corrections``)."""
    cdef long long[:, ::1] mv = meta
    cdef int[::1] ix
    cdef bint has_ix = index is not None
    cdef int r
    cdef long long[::1] hi = high
    cdef long long[::1] lo
    cdef bint has_low = low is not None
    cdef int e, i, j, mi, v, f, n, m, live, idx, base, cnt, lcnt
    cdef long long best, lbest, x
    cdef double c, w
    cdef double sh[MAXP][MAXN]
    cdef double eq[MAXP][MAXN]
    cdef double hs[MAXP]
    cdef double corr[MAXP]
    cdef long long val[MAXP]
    cdef long long lval[MAXP]
    cdef bint anyq
    if has_low:
        lo = low
    if has_ix:
        ix = index
    out = [[0.0] * players for _ in range(rotations)]
    for e in range(mv.shape[0]):
        v = <int> mv[e, 2]
        f = <int> mv[e, 3]
        n = <int> mv[e, 4]
        idx = <int> mv[e, 5]
        m = <int> mv[e, EVW - 2]
        base = <int> mv[e, EVW - 1]
        live = v + f
        if n > MAXN or m > MAXN:
            raise RuntimeError("an event larger than the estimator's kernel keeps")
        for i in range(n):
            for mi in range(m):
                best = 0
                for j in range(live):
                    r = base + (j * n + i) * m + mi if j < v else base + v * n * m + j - v
                    x = hi[ix[r] if has_ix else r]
                    val[j] = x
                    if j == 0 or x > best:
                        best = x
                cnt = 0
                for j in range(live):
                    if val[j] == best:
                        cnt += 1
                for j in range(live):
                    hs[j] = (1.0 / cnt) if val[j] == best else 0.0
                if has_low:
                    anyq = False
                    lbest = 0
                    for j in range(live):
                        r = base + (j * n + i) * m + mi if j < v else base + v * n * m + j - v
                        x = lo[ix[r] if has_ix else r]
                        lval[j] = x
                        if j == 0 or x > lbest:
                            lbest = x
                        if x >= 0:
                            anyq = True
                    if anyq:
                        lcnt = 0
                        for j in range(live):
                            if lval[j] == lbest:
                                lcnt += 1
                        for j in range(live):
                            hs[j] = 0.5 * hs[j] + 0.5 * ((1.0 / lcnt) if lval[j] == lbest and lval[j] >= 0 else 0.0)
                for j in range(live):
                    sh[j][mi] = hs[j]
            for j in range(live):
                eq[j][i] = pairwise(sh[j], m)
        c = weight * <double> mv[e, 1] / <double> m
        row = out[mv[e, 0]]
        for j in range(live):
            w = c * (eq[j][idx] - pairwise(eq[j], n) / <double> n)
            row[mv[e, 7 + 3 * j]] += w
    return out
