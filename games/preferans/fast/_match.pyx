# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole Preferans matches (pulkas, PF-11) in C with ``preferans/random`` and ``preferans/heuristic`` at the seats.

The readable engine is the spec: ``games/preferans/state.py`` (the match, PF-11), ``deal.py`` (one deal,
PF-3 - PF-10, PF-11.2 - PF-11.3), ``auction.py`` (PF-4) and ``scoring.py`` (PF-8, PF-9, PF-11.6). This
plays the same match with the same choices and draws:

* every decision's legal actions are built in the engine's order (``Auction.legal``: ``pass``, the bids
  up the ladder, ``hold``; discards as ``combinations`` of the canonical hand; declarations up the
  ladder from the bought call; ``whist``/``pass``; the lone whister's ``no_play``/``open``/``closed``;
  ``accept``/``refuse``; ``writeoff:0..m``; plays in canonical order, PF-1.4), as integer codes that
  ``playout.py`` turns into the PF-15.1 tokens;
* ``random`` is ``RandomBot``: ``Generator.integers(len(legal))``, which numpy draws for a range below
  2**32 by Lemire's method on the bit generator's ``next_uint32`` (``ext.npdraw.bounded``; nothing drawn when one
  action is legal), the same draw as games/dice_poker/fast/_play.pyx;
* ``heuristic`` is ``HeuristicBot`` step for step (it draws nothing): its trick estimates kept in
  quarters (every term is a multiple of 1/4, so the sums are exact), ``int(est + 0.75)`` as
  ``(4 est + 3) // 4``, its sorts stable (ties in canonical order) and its ``min``/``max`` the first in
  legal order; the seat asked is ``Deal.to_act`` (an open lone whister plays the passer's cards);
* the sheet is kept exactly (PF-11.6 ruling): pulkas and mountains in points, whists in units of
  1/S whist with S = ``State.score_unit`` (n, or 10n with ``closing_whist_rate: 0.1``), so every
  balance and the settlement are integers and the seat scores are ``State.scores()``.

Cards are positions in the canonical order of PF-1.4 (suits s c d h, ranks 7..A: 8 * suit + rank),
hands are 32-bit masks over them, so ascending bits are the canonical order. ``ten_check: solve``
(PF-7.7, the double-dummy check) is not played here: ``playout.supports`` refuses it.
``Match.play_into`` writes a pulka's rows into the C buffers of a ``Shard`` instead of Python rows (a whole
shard's columns, ``play_shard``; ``tests/test_match_shards.py``); the decks may be given as ``State.deal``'s
int64 array.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint32_t

import numpy as np

from ext.colbuf cimport Buf, buf_columns, bufs_free, bufs_init, put8, put16, put64, putf
from ext.npdraw cimport bitgen_t, bounded

cdef extern from *:
    int __builtin_popcount(unsigned int) nogil

DEF MAXL = 72  # the most legal actions of one decision: 66 discards

# action codes (playout.TOKENS names them)
DEF A_PASS = 0
DEF A_HOLD = 1
DEF A_BID = 2          # + call id
DEF A_DISCARD = 100    # + 32 * a + b (a < b canonical positions)
DEF A_DECLARE = 2000   # + call id
DEF A_DECLARE_WT = 2100  # + call id, "/wt"
DEF A_WHIST = 3000
DEF A_RPASS = 3001
DEF A_NOPLAY = 3002
DEF A_OPEN = 3003
DEF A_CLOSED = 3004
DEF A_ACCEPT = 3005
DEF A_REFUSE = 3006
DEF A_WRITEOFF = 4000  # + m
DEF A_PLAY = 5000      # + canonical position

# call ids: (level - 6) * 5 + strain (s c d h nt) for 6s..10nt, then 9wt, 10wt, misere
DEF WT9 = 25
DEF WT10 = 26
DEF MIS = 27

# steps (Deal.step)
DEF S_AUCTION = 0
DEF S_DISCARD = 1
DEF S_DECLARE = 2
DEF S_RESPOND = 3
DEF S_LONE = 4
DEF S_CONSENT = 5
DEF S_PLAY = 6
DEF S_WRITEOFF = 7
DEF S_RESULT = 8
DEF S_OVER = 9

# phases, kinds, modes
DEF P_RAZB = 0
DEF P_PRELIM = 1
DEF P_MAIN = 2
DEF K_NONE = -1
DEF K_CONTRACT = 0
DEF K_MISERE = 1
DEF K_RASPASY = 2
DEF K_PASSED = 3
DEF K_NOPLAY = 4
DEF K_TEN_CONCEDED = 5
DEF M_NONE = -1
DEF M_OPEN = 0
DEF M_CLOSED = 1

PHASES = ("razboinik", "prelim_raspasy", "main")
KINDS = ("contract", "misere", "raspasy", "passed", "no_play", "ten_conceded")
MODES = ("open", "closed")

# PF-8: v, w, h, o by level (index: level; 11 is misère)
cdef int VAL_V[12]
cdef int VAL_W[12]
cdef int VAL_H[12]
cdef int VAL_O[12]
VAL_V[:] = [0, 0, 0, 0, 0, 0, 10, 20, 30, 40, 50, 50]
VAL_W[:] = [0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 5]
VAL_H[:] = [0, 0, 0, 0, 0, 0, 5, 10, 15, 20, 0, 0]
VAL_O[:] = [0, 0, 0, 0, 0, 0, 4, 2, 1, 1, 0, 0]


cdef struct Opt:
    int n
    int razb
    int prelim
    int pulka
    int rtv          # PF-8.8 raspasy trick value
    int source       # PF-4.1 ladder: 1 source, 0 modern
    int ladder[32]
    int nl
    int hold         # PF-4.4: 0 after_pass, 1 senior, 2 off
    int wwp          # PF-6.5 whist_without_play
    int lone         # PF-6.5: 0 choice, 1 open_only, 2 closed_only
    int lead_decl    # PF-7.1 opening_lead: declarer
    int open_late    # PF-6.5 open_at: declarer_first_card
    int misere_open  # PF-7.6
    int ten_concede  # PF-7.7: 0 play_open, 1 no_check
    int consol       # PF-8.5: 0 all, 1 dealer_only, 2 none
    int wof          # PF-8.3 whists_on_failure
    int per_half     # PF-8.6 whist_split
    int tb3          # PF-8.9 talon_bonus_3p
    int writeoff     # PF-9.2: 0 pulka_first, 1 mountain_first, 2 declarer_choice
    int64_t close_w  # PF-9.3: whist units (1/S) per point closed on a partner's pulka
    int razb_off     # PF-11.2 razboinik_made: off_mountain
    int talon_lead   # PF-10.4
    int max_deals    # PF-11.5
    int64_t S        # whist units per whist (State.score_unit)
    int total_decks


cdef struct G:
    # the match (State)
    int dealer0
    int k            # deal index
    int64_t P[4]
    int64_t M[4]
    int64_t W[4][4]  # in units of 1/S whist
    int main_deals
    int end          # 0 running, 1 closed, 2 max_deals
    # the deal (Deal)
    int phase
    int round_level
    int dealer
    int active[3]
    uint32_t hands[4]
    int talon[2]
    int step
    # auction (positions 0..2 in ``active``)
    int turn
    int passed
    int spoke
    int standing
    int owner
    int hold_right
    int misere_bidder
    # after the auction
    int declarer     # seat or -1
    int dpos         # its position
    int bought       # call id or -1
    int contract     # call id or -1
    int contract_wt
    int level
    int trump        # canonical suit or -1
    int wt
    int nresp
    int resp_seat[2]
    int resp_whist[2]
    int nwhist
    int whisters[2]
    int passer
    int mode
    int refused
    int kind
    int made         # -1 None
    int order[3]
    int nplays       # cards in the trick, the table's card included
    int trick_seat[4]
    int trick_card[4]
    int trick_no
    int tricks[4]
    int nobody
    int declarer_played
    int opened       # PF-6.5: the whister plays the passer's cards
    int shown
    int last_bid     # the last call bid in this deal (bots.standing_call), -1 none
    int writeoff_m   # -1 None
    int mountain_now
    # tables.seat_rows's counts
    int st_played[4]
    int st_made[4]
    int st_misere[4]
    int st_whists[4]
    int st_rasp[4]
    # this deal's writing (Delta)
    int64_t dP[4]
    int64_t dM[4]
    int64_t dW[4][4]


cdef inline int call_level(int c) noexcept nogil:
    if c == MIS:
        return 11
    if c == WT9:
        return 9
    if c == WT10:
        return 10
    return 6 + c // 5


cdef inline int seat_pos(G *g, int seat) noexcept nogil:
    if g.active[0] == seat:
        return 0
    if g.active[1] == seat:
        return 1
    return 2


# ---------------------------------------------------------------------- the auction (PF-4, auction.py)
cdef inline int can_hold(Opt *o, G *g, int p) noexcept nogil:
    if g.standing < 0 or g.owner < 0 or g.owner == p:
        return 0
    if o.ladder[g.standing] == MIS:
        return 0  # PF-4.5
    if o.hold == 2:
        return 0
    if o.hold == 0:
        return g.hold_right == p
    return p < g.owner  # senior: first turn earlier (positions are the speaking order)


cdef int auction_legal(Opt *o, G *g, int *out) noexcept nogil:
    cdef int p = g.turn, m = 1, rank, start
    out[0] = A_PASS
    if p == g.misere_bidder:
        return m
    start = 0 if g.standing < 0 else g.standing + 1
    for rank in range(start, o.nl):
        if o.ladder[rank] == MIS and (g.spoke >> p & 1):
            continue  # PF-4.5: misère only as the first call
        out[m] = A_BID + o.ladder[rank]
        m += 1
    if can_hold(o, g, p):
        out[m] = A_HOLD
        m += 1
    return m


cdef void auction_apply(Opt *o, G *g, int code) noexcept nogil:
    cdef int p = g.turn, call, rank, left, nleft, q, step
    g.spoke |= 1 << p
    if code == A_PASS:
        g.passed |= 1 << p
        if g.hold_right < 0 and o.hold == 0:
            g.hold_right = (p + 1) % 3  # PF-4.4
    elif code == A_HOLD:
        g.owner = p
    else:
        call = code - A_BID
        for rank in range(o.nl):
            if o.ladder[rank] == call:
                g.standing = rank
                break
        g.owner = p
        if call == MIS:
            g.misere_bidder = p
            if o.source:  # PF-4.5: nothing ranks above it
                g.step = -1  # over
                g.passed = 7 & ~(1 << p)
                return
    nleft = 0
    left = -1
    for q in range(3):
        if not (g.passed >> q & 1):
            nleft += 1
            left = q
    if nleft == 0 or (nleft == 1 and g.standing >= 0 and g.owner == left):
        g.step = -1  # PF-4.6
        return
    for step in range(1, 4):
        q = (p + step) % 3
        if not (g.passed >> q & 1) and q != g.owner:
            g.turn = q
            return
    for step in range(1, 4):
        q = (p + step) % 3
        if not (g.passed >> q & 1):
            g.turn = q
            return
    g.turn = p


# ---------------------------------------------------------------------- the deal (deal.py)
cdef void start_raspasy(Opt *o, G *g) noexcept nogil:
    """PF-10: no trump; the talon cards lead tricks 1 and 2 (``raspasy_talon: lead``)."""
    g.kind = K_RASPASY
    g.trump = -1
    g.step = S_PLAY
    g.order[0], g.order[1], g.order[2] = g.active[0], g.active[1], g.active[2]
    g.nplays = 0
    if o.talon_lead:
        g.trick_seat[0] = -1
        g.trick_card[0] = g.talon[0]
        g.nplays = 1


cdef void take_talon(G *g) noexcept nogil:
    g.hands[g.declarer] |= (1u << g.talon[0]) | (1u << g.talon[1])
    g.step = S_DISCARD


cdef void play_order(Opt *o, G *g, int lead) noexcept nogil:
    cdef int i = 0, k, s
    for k in range(o.n):
        s = (lead + k) % o.n
        if o.n == 4 and s == g.dealer:
            continue
        g.order[i] = s
        i += 1


cdef void start_play(Opt *o, G *g) noexcept nogil:
    """PF-7.1: the first hand (or the declarer) leads trick 1."""
    g.kind = K_MISERE if g.level == 11 else K_CONTRACT
    g.step = S_PLAY
    play_order(o, g, g.declarer if o.lead_decl else g.active[0])
    g.nplays = 0


cdef void set_contract(Opt *o, G *g, int call, int wt) noexcept nogil:
    g.contract = call
    g.contract_wt = wt
    if call == MIS:
        g.level = 11
        g.trump = -1
    else:
        g.level = call_level(call)
        g.trump = -1 if call % 5 == 4 else call % 5
    if g.phase == P_RAZB:
        g.mode = M_CLOSED  # PF-11.2
        start_play(o, g)
    elif g.level == 11:
        g.mode = M_OPEN if o.misere_open else M_CLOSED  # PF-6.2, PF-7.6
        start_play(o, g)
    elif g.level == 10:  # PF-7.7
        if o.ten_concede:
            g.kind = K_TEN_CONCEDED
            g.made = 1
            g.step = S_RESULT
        else:
            g.mode = M_OPEN
            start_play(o, g)
    else:
        g.step = S_RESPOND


cdef inline int next_card_seat(G *g) noexcept nogil:
    return g.order[g.nplays - (1 if g.nplays and g.trick_seat[0] < 0 else 0)]


cdef int deal_legal(Opt *o, G *g, int *out) noexcept nogil:
    cdef int m = 0, i, j, lv, s, floor, c, seat, led
    cdef uint32_t hand, pick
    cdef int cards[12]
    cdef int nc
    if g.step == S_AUCTION:
        return auction_legal(o, g, out)
    if g.step == S_DISCARD:
        hand = g.hands[g.declarer]
        nc = 0
        for i in range(32):
            if hand >> i & 1:
                cards[nc] = i
                nc += 1
        for i in range(nc):
            for j in range(i + 1, nc):
                out[m] = A_DISCARD + 32 * cards[i] + cards[j]
                m += 1
        return m
    if g.step == S_DECLARE:
        if g.phase == P_RAZB:
            for s in range(5):
                out[s] = A_DECLARE + (g.level - 6) * 5 + s
            return 5
        if g.bought == WT9 or g.bought == WT10:
            for lv in range(9 if g.bought == WT9 else 10, 11):
                for s in range(5):
                    out[m] = A_DECLARE_WT + (lv - 6) * 5 + s
                    m += 1
            return m
        floor = 0
        for i in range(o.nl):
            if o.ladder[i] == g.bought:
                floor = i
                break
        for i in range(floor, o.nl):
            c = o.ladder[i]
            if c != MIS and c != WT9 and c != WT10:
                out[m] = A_DECLARE + c
                m += 1
        return m
    if g.step == S_RESPOND:
        out[0] = A_WHIST
        out[1] = A_RPASS
        return 2
    if g.step == S_LONE:
        if o.wwp and g.level <= 7 and not g.refused:
            out[m] = A_NOPLAY
            m += 1
        if o.lone != 2:
            out[m] = A_OPEN
            m += 1
        if o.lone != 1:
            out[m] = A_CLOSED
            m += 1
        return m
    if g.step == S_CONSENT:
        out[0] = A_ACCEPT
        out[1] = A_REFUSE
        return 2
    if g.step == S_WRITEOFF:
        lv = VAL_V[g.level] if VAL_V[g.level] < g.mountain_now else g.mountain_now
        for i in range(lv + 1):
            out[i] = A_WRITEOFF + i
        return lv + 1
    # S_PLAY, PF-7.2: follow suit, else a trump, else any card
    seat = next_card_seat(g)
    hand = g.hands[seat]
    pick = hand
    if g.nplays:
        led = g.trick_card[0] >> 3
        pick = hand & (0xFFu << (8 * led))
        if not pick:
            pick = hand & (0xFFu << (8 * g.trump)) if g.trump >= 0 else 0
            if not pick:
                pick = hand
    for i in range(32):
        if pick >> i & 1:
            out[m] = A_PLAY + i
            m += 1
    return m


cdef void finish_play(G *g) noexcept nogil:
    cdef int t
    g.nplays = 0
    g.step = S_RESULT
    if g.kind == K_RASPASY:
        return
    t = g.tricks[g.declarer]
    g.made = (t == 0) if g.level == 11 else (t >= g.level)


cdef void play_card(Opt *o, G *g, int card) noexcept nogil:
    cdef int seat = next_card_seat(g), cards, i, led, best = -1, key, bkey = -1, su, winner
    g.hands[seat] &= ~(1u << card)
    if seat == g.declarer:
        g.declarer_played = 1
    if g.mode == M_OPEN and not g.opened and not g.shown:  # Deal._open_if_due
        if g.kind == K_CONTRACT and g.passer >= 0:
            if g.declarer_played or not o.open_late:
                g.opened = g.shown = 1
        else:
            g.shown = 1
    g.trick_seat[g.nplays] = seat
    g.trick_card[g.nplays] = card
    g.nplays += 1
    cards = g.nplays - (1 if g.trick_seat[0] < 0 else 0)
    if cards < 3:
        return
    led = g.trick_card[0] >> 3
    for i in range(g.nplays):  # PF-7.3 (games.core.tricks.trick_winner); the table's card never wins
        if g.trick_seat[i] < 0:
            continue
        su = g.trick_card[i] >> 3
        if g.trump >= 0 and su == g.trump:
            key = 16 + (g.trick_card[i] & 7)
        elif su == led:
            key = 8 + (g.trick_card[i] & 7)
        else:
            continue
        if key > bkey:
            bkey = key
            best = i
    if best < 0:
        winner = -1
        g.nobody += 1  # PF-10.2
    else:
        winner = g.trick_seat[best]
        g.tricks[winner] += 1
    g.trick_no += 1
    if g.trick_no == 10:
        finish_play(g)
        return
    g.nplays = 0
    if g.kind == K_RASPASY and o.talon_lead and g.trick_no < 2:
        g.trick_seat[0] = -1
        g.trick_card[0] = g.talon[1]
        g.nplays = 1
        g.order[0], g.order[1], g.order[2] = g.active[0], g.active[1], g.active[2]
    elif g.kind == K_RASPASY and o.talon_lead and g.trick_no == 2:
        g.order[0], g.order[1], g.order[2] = g.active[0], g.active[1], g.active[2]  # PF-10.3
    else:
        play_order(o, g, winner)


cdef void deal_apply(Opt *o, G *g, int code) noexcept nogil:
    cdef int a, b, seat, i
    if g.step == S_AUCTION:
        if code >= A_BID:
            g.last_bid = code - A_BID
        auction_apply(o, g, code)
        if g.step != -1:
            return
        g.step = S_AUCTION
        if g.standing < 0:
            start_raspasy(o, g)  # PF-4.6, PF-10
            return
        g.dpos = g.owner
        g.declarer = g.active[g.owner]
        g.bought = o.ladder[g.standing]
        if g.bought == WT9 or g.bought == WT10:
            g.wt = 1
            g.step = S_DECLARE  # PF-5.5
        else:
            take_talon(g)
    elif g.step == S_DISCARD:
        a = (code - A_DISCARD) >> 5
        b = (code - A_DISCARD) & 31
        g.hands[g.declarer] &= ~((1u << a) | (1u << b))
        if (g.phase == P_RAZB and g.level == 11) or g.bought == MIS:
            set_contract(o, g, MIS, 0)
        else:
            g.step = S_DECLARE
    elif g.step == S_DECLARE:
        if code >= A_DECLARE_WT:
            set_contract(o, g, code - A_DECLARE_WT, 1)
        else:
            set_contract(o, g, code - A_DECLARE, 0)
    elif g.step == S_RESPOND:
        seat = g.active[(g.dpos + 1 + g.nresp) % 3]
        g.resp_seat[g.nresp] = seat
        g.resp_whist[g.nresp] = code == A_WHIST
        g.nresp += 1
        if g.nresp == 2:  # PF-6.3 - PF-6.5
            g.nwhist = 0
            for i in range(2):
                if g.resp_whist[i]:
                    g.whisters[g.nwhist] = g.resp_seat[i]
                    g.nwhist += 1
            if g.nwhist == 0:
                g.kind = K_PASSED
                g.made = 1
                g.step = S_RESULT
            elif g.nwhist == 2:
                g.mode = M_CLOSED
                start_play(o, g)
            else:
                g.passer = g.resp_seat[0] if not g.resp_whist[0] else g.resp_seat[1]
                g.step = S_LONE
    elif g.step == S_LONE:
        if code == A_NOPLAY:
            g.step = S_CONSENT
        else:
            g.mode = M_OPEN if code == A_OPEN else M_CLOSED
            start_play(o, g)
    elif g.step == S_CONSENT:
        if code == A_ACCEPT:
            g.kind = K_NOPLAY
            g.made = 1
            g.step = S_RESULT
        else:
            g.refused = 1
            g.step = S_LONE
    elif g.step == S_WRITEOFF:
        g.writeoff_m = code - A_WRITEOFF
        g.step = S_OVER
    else:
        play_card(o, g, code - A_PLAY)


cdef void start_deal(Opt *o, G *g, object deck, const int64_t *row) except *:
    """Deal.start: PF-3.4's hands and talon from the deck (core card ids: the sequence ``deck``, or the 32
    ids at ``row`` when ``deck`` is None), the phase's first decision."""
    cdef int i, s, c, n = o.n, k = g.k, pos
    cdef int cards[32]
    for i in range(32):
        c = <int>row[i] if deck is None else deck[i]
        cards[i] = (((c & 3) + 1) & 3) * 8 + (c >> 2) - 5
    g.dealer = (g.dealer0 + k) % n
    if n == 3:
        g.active[0], g.active[1], g.active[2] = (g.dealer + 1) % 3, (g.dealer + 2) % 3, g.dealer
    else:
        g.active[0], g.active[1], g.active[2] = (g.dealer + 1) % 4, (g.dealer + 2) % 4, (g.dealer + 3) % 4
    for s in range(4):
        g.hands[s] = 0
        g.tricks[s] = 0
        g.dP[s] = g.dM[s] = 0
        for i in range(4):
            g.dW[s][i] = 0
    for pos in range(3):
        for i in range(10):
            g.hands[g.active[pos]] |= 1u << cards[10 * pos + i]
    g.talon[0], g.talon[1] = cards[30], cards[31]
    # PF-11.1
    g.round_level = 0
    if o.razb and k < 6 * n:
        g.phase = P_RAZB
        g.round_level = 6 + k // n  # RAZBOINIK_LEVELS: 6..10, then 11 (misère)
    elif o.prelim and k - (6 * n if o.razb else 0) < 2 * n:
        g.phase = P_PRELIM
    else:
        g.phase = P_MAIN
    g.turn = 0
    g.passed = g.spoke = 0
    g.standing = g.owner = g.hold_right = g.misere_bidder = -1
    g.declarer = g.dpos = g.bought = g.contract = -1
    g.contract_wt = g.level = g.wt = 0
    g.trump = -1
    g.nresp = g.nwhist = 0
    g.passer = -1
    g.mode = M_NONE
    g.refused = 0
    g.kind = K_NONE
    g.made = -1
    g.nplays = g.trick_no = g.nobody = 0
    g.declarer_played = g.opened = g.shown = 0
    g.last_bid = -1
    g.writeoff_m = -1
    g.mountain_now = 0
    if g.phase == P_MAIN:
        g.step = S_AUCTION
    elif g.phase == P_PRELIM:
        start_raspasy(o, g)
    else:  # PF-11.2: the first hand declares at the round's level with the talon
        g.declarer = g.active[0]
        g.dpos = 0
        g.level = g.round_level
        take_talon(g)


# ---------------------------------------------------------------------- scoring (scoring.py, in 1/S whists)
cdef inline void whist(G *g, int writer, int on, int64_t amount) noexcept nogil:
    if amount and writer != on:
        g.dW[writer][on] += amount


cdef inline int64_t take_mountain(G *g, int seat, int64_t limit) noexcept nogil:
    cdef int64_t m = g.M[seat] + g.dM[seat]
    cdef int64_t take = limit if limit < m else m
    g.dM[seat] -= take
    return take


cdef void write_off(Opt *o, G *g, int seat, int64_t points, int mode, int from_mountain) noexcept nogil:
    """PF-9.2 / PF-9.3 (scoring.write_off); ``from_mountain`` -1 stands for None."""
    cdef int64_t left = points, own, take, p, bp
    cdef int n = o.n, j, bj, bd, dist
    if mode == 1:
        left -= take_mountain(g, seat, left)
    elif mode == 2 and from_mountain > 0:
        left -= take_mountain(g, seat, from_mountain)
    own = g.P[seat] + g.dP[seat]
    take = left if left < own else own
    g.dP[seat] -= take
    left -= take
    while left > 0:
        bj = -1
        bp = 0
        bd = 0
        for j in range(n):  # the smallest open pulka, ties: first clockwise from ``seat``
            if j == seat:
                continue
            p = g.P[j] + g.dP[j]
            if p <= 0:
                continue
            dist = (j - seat + n) % n
            if bj < 0 or p < bp or (p == bp and dist < bd):
                bj, bp, bd = j, p, dist
        if bj < 0:
            break
        take = left if left < bp else bp
        g.dP[bj] -= take
        whist(g, seat, bj, take * o.close_w)
        left -= take
    if left > 0:
        left -= take_mountain(g, seat, left)


cdef int talon_bonus(G *g) noexcept nogil:
    """PF-8.9: 3 for two aces, 1 for one ace or a marriage (K and Q of one suit)."""
    cdef int a = g.talon[0], b = g.talon[1], aces
    aces = ((a & 7) == 7) + ((b & 7) == 7)
    if aces == 2:
        return 3
    if aces == 1:
        return 1
    if (a >> 3) == (b >> 3) and (((a & 7) == 5 and (b & 7) == 6) or ((a & 7) == 6 and (b & 7) == 5)):
        return 1
    return 0


cdef void score_contract(Opt *o, G *g) noexcept nogil:
    """PF-8.1 - PF-8.7, PF-8.9 (scoring.score_contract)."""
    cdef int n = o.n, lv = g.level, decl = g.declarer, short, s, t, half, kk, total, missing, bonus_seat
    cdef int64_t S = o.S
    if g.kind == K_PASSED or g.kind == K_NOPLAY or g.kind == K_TEN_CONCEDED:
        short = 0
    elif lv == 11:
        short = g.tricks[decl]
    else:
        short = lv - g.tricks[decl] if lv > g.tricks[decl] else 0
    if short == 0:
        write_off(o, g, decl, VAL_V[lv], o.writeoff, g.writeoff_m)
    else:
        g.dM[decl] += VAL_V[lv] * short
        if o.consol == 0:
            for s in range(n):
                whist(g, s, decl, VAL_W[lv] * short * S)
        elif o.consol == 1 and n == 4:
            whist(g, g.dealer, decl, VAL_W[lv] * short * S)
    if g.kind == K_NOPLAY:
        whist(g, g.whisters[0], decl, 2 * S)
    if g.kind == K_CONTRACT and lv <= 9 and g.nwhist and (short == 0 or o.wof):
        for kk in range(g.nwhist):
            s = g.whisters[kk]
            t = g.tricks[s]
            if g.nwhist == 1 and g.passer >= 0:
                t += g.tricks[g.passer]
            whist(g, s, decl, VAL_W[lv] * t * S)
    if g.kind == K_CONTRACT and lv <= 9 and g.nwhist:  # PF-8.6
        total = 0
        for kk in range(3):
            if g.active[kk] != decl:
                total += g.tricks[g.active[kk]]
        if total < VAL_O[lv]:
            missing = VAL_O[lv] - total
            if g.nwhist == 1:
                g.dM[g.whisters[0]] += VAL_H[lv] * missing
            elif lv <= 7:
                half = VAL_O[lv] // 2
                for kk in range(2):
                    s = g.whisters[kk]
                    t = g.tricks[s]
                    if t < half:
                        t = half - t if o.per_half or half - t < missing else missing
                        g.dM[s] += VAL_H[lv] * t
            else:
                g.dM[g.whisters[1]] += VAL_H[lv]
    bonus_seat = g.dealer if (n == 4 or (o.tb3 and g.dealer != decl)) else -1
    if not g.wt and bonus_seat >= 0:
        whist(g, bonus_seat, decl, VAL_W[lv] * talon_bonus(g) * S)


cdef void score_deal(Opt *o, G *g) noexcept nogil:
    """State._score: the deal's Delta."""
    cdef int s, pos, t, short
    if g.phase == P_PRELIM:  # PF-11.3
        for s in range(o.n):
            if o.n == 4 and s == g.dealer:
                continue
            t = g.tricks[s]
            if t:
                g.dM[s] += 10 * t
            else:
                write_off(o, g, s, 10, 0, -1)
    elif g.phase == P_RAZB:  # PF-11.2
        t = g.tricks[g.declarer]
        short = t if g.level == 11 else (g.level - t if g.level > t else 0)
        if short:
            g.dM[g.declarer] += VAL_V[g.level] * short
        elif o.razb_off:
            g.dM[g.declarer] -= VAL_V[g.level] if VAL_V[g.level] < g.M[g.declarer] else g.M[g.declarer]
    elif g.kind == K_RASPASY:  # PF-8.8
        for pos in range(3):
            g.dM[g.active[pos]] += o.rtv * g.tricks[g.active[pos]]
    else:
        score_contract(o, g)


cdef void add_delta(Opt *o, G *g) noexcept nogil:
    cdef int i, j
    for i in range(o.n):
        g.P[i] += g.dP[i]
        g.M[i] += g.dM[i]
        for j in range(o.n):
            g.W[i][j] += g.dW[i][j]


cdef void settle(Opt *o, G *g, int64_t *scores) noexcept nogil:
    """PF-11.5 (every unclosed pulka onto its owner's mountain) and PF-11.6.1-3, in 1/S whists."""
    cdef int n = o.n, i, j
    cdef int64_t low
    cdef int64_t w[4][4]
    for i in range(n):
        g.M[i] += g.P[i]
        g.P[i] = 0
    low = g.M[0]
    for i in range(1, n):
        if g.M[i] < low:
            low = g.M[i]
    for i in range(n):
        for j in range(n):
            w[i][j] = g.W[i][j]
    for j in range(n):  # owner j: each other seat writes (M_j - low) / n on j, i.e. (M_j - low) S / n units
        for i in range(n):
            if i != j:
                w[i][j] += (g.M[j] - low) * (o.S // n)
    for i in range(n):
        scores[i] = 0
        for j in range(n):
            scores[i] += w[i][j] - w[j][i]


# ---------------------------------------------------------------------- the heuristic bot (bots.HeuristicBot)
RANDOM = 0
HEURISTIC = 1


cdef int to_act(G *g) noexcept nogil:
    """Deal.to_act: the seat whose decision it is (the bot asked)."""
    cdef int seat
    if g.step == S_AUCTION:
        return g.active[g.turn]
    if g.step == S_DISCARD or g.step == S_DECLARE or g.step == S_CONSENT or g.step == S_WRITEOFF:
        return g.declarer
    if g.step == S_RESPOND:
        return g.active[(g.dpos + 1 + g.nresp) % 3]
    if g.step == S_LONE:
        return g.whisters[0]
    seat = next_card_seat(g)
    if g.opened and seat == g.passer:
        return g.whisters[0]
    return seat


cdef int suit_tricks4(uint32_t hand, int su, int trump) noexcept nogil:
    """bots.suit_tricks x 4 (every term is a multiple of 1/4, so the sums are exact)."""
    cdef uint32_t ranks = (hand >> (8 * su)) & 0xFF
    cdef int n = __builtin_popcount(ranks), t = 0
    cdef int a = ranks >> 7 & 1, k = ranks >> 6 & 1, q = ranks >> 5 & 1
    if a:
        t += 4
    if k and n >= 2:
        t += 4 if a else 2
    if q and n >= 3:
        t += 4 if (a and k) else 1
    if trump and n >= 4:
        t += 4 * (n - 3)
    elif n >= 5:
        t += 2 * (n - 4)
    return t


cdef int estimate4(uint32_t hand, int strain) noexcept nogil:
    cdef int su, t = 0
    for su in range(4):
        t += suit_tricks4(hand, su, su == strain)
    return t


cdef int best_strain(uint32_t hand, int *est4) noexcept nogil:
    """bots.best_strain: the first strain (s c d h nt) of the highest estimate."""
    cdef int st, e, best = 0, be = -1
    for st in range(5):
        e = estimate4(hand, st)
        if e > be:
            be = e
            best = st
    est4[0] = be
    return best


cdef int misere_clean(uint32_t hand) noexcept nogil:
    cdef int su, r, k
    for su in range(4):
        k = 0
        for r in range(8):
            if hand >> (8 * su + r) & 1:
                if r > 2 * k:  # core rank r + 5 > 5 + 2k
                    return 0
                k += 1
    return 1


cdef inline int affordable(int call, int level, int strain) noexcept nogil:
    if call == MIS or call == WT9 or call == WT10:
        return 0
    return call_level(call) < level or (call_level(call) == level and call % 5 == strain)


cdef inline int beat_key(int card, int led, int trump) noexcept nogil:
    """bots._beats's key: 2 trump, 1 the led suit, 0 other; then the rank."""
    cdef int su = card >> 3
    if trump >= 0 and su == trump:
        return 16 + (card & 7)
    if su == led:
        return 8 + (card & 7)
    return card & 7


cdef inline int beats(int card, int cur, int led, int trump) noexcept nogil:
    cdef int kc
    if cur < 0:
        return 1
    kc = beat_key(card, led, trump)
    return kc > beat_key(cur, led, trump) and kc >= 8


cdef inline int lowest(const int *legal, int m) noexcept nogil:
    cdef int i, best = 0
    for i in range(1, m):
        if ((legal[i] - A_PLAY) & 7) < ((legal[best] - A_PLAY) & 7):
            best = i
    return best


cdef int heuristic(Opt *o, G *g, const int *legal, int m, int me) noexcept nogil:
    """The index in ``legal`` that HeuristicBot.act returns (it draws nothing)."""
    cdef uint32_t hand = g.hands[me]
    cdef int i, e4, strain, level, c, su, r, best, bk, key, n1, n2, k1, k2, trump, led, win_seat, win_card
    cdef int avoid, partner, l1, l2
    cdef int cnt[4]
    if g.step == S_AUCTION:
        for i in range(m):
            if legal[i] == A_BID + MIS and misere_clean(hand):
                return i
        strain = best_strain(hand, &e4)
        level = (e4 + 3) // 4  # int(est + 0.75)
        if g.last_bid >= 0 and affordable(g.last_bid, level, strain):
            for i in range(m):
                if legal[i] == A_HOLD:
                    return i
        for i in range(m):
            if legal[i] >= A_BID and legal[i] < A_DISCARD and affordable(legal[i] - A_BID, level, strain):
                return i
        return 0  # pass
    if g.step == S_DISCARD:
        n1 = n2 = -1
        if g.bought == MIS or g.round_level == 11:  # the two highest by (rank, canonical order)
            k1 = k2 = -1
            for c in range(32):
                if hand >> c & 1:
                    key = (c & 7) * 4 + (c >> 3)
                    if key > k1:
                        k2, n2 = k1, n1
                        k1, n1 = key, c
                    elif key > k2:
                        k2, n2 = key, c
        else:
            strain = best_strain(hand, &e4)
            trump = strain if strain < 4 else -1
            for su in range(4):
                cnt[su] = __builtin_popcount((hand >> (8 * su)) & 0xFF)
            # candidates: not trump, not an ace, by (suit length, rank), ties in canonical order
            k1 = k2 = 1 << 20
            for c in range(32):
                if hand >> c & 1 and (c >> 3) != trump and (c & 7) != 7:
                    key = (cnt[c >> 3] * 8 + (c & 7)) * 32 + c
                    if key < k1:
                        k2, n2 = k1, n1
                        k1, n1 = key, c
                    elif key < k2:
                        k2, n2 = key, c
            if n2 < 0:  # fewer than two: then the lowest cards by rank (a stable sort: canonical order)
                l1 = l2 = -1
                k1 = k2 = 1 << 20
                for c in range(32):
                    if hand >> c & 1:
                        key = (c & 7) * 32 + c
                        if key < k1:
                            k2, l2 = k1, l1
                            k1, l1 = key, c
                        elif key < k2:
                            k2, l2 = key, c
                if n1 < 0 or n1 == l1:
                    n1, n2 = l1, l2
                else:
                    n2 = l1
        if n1 > n2:
            n1, n2 = n2, n1
        key = A_DISCARD + 32 * n1 + n2
        for i in range(m):
            if legal[i] == key:
                return i
        return 0
    if g.step == S_DECLARE:
        strain = best_strain(hand, &e4)
        for i in range(m):
            c = legal[i] - (A_DECLARE_WT if legal[i] >= A_DECLARE_WT else A_DECLARE)
            if c % 5 == strain:
                return i
        return 0
    if g.step == S_RESPOND:
        e4 = 0
        for su in range(4):
            e4 += suit_tricks4(hand, su, su == g.trump)
        return 0 if e4 >= (4 * VAL_O[g.level] // 2 if g.level <= 7 else 4) else 1
    if g.step == S_LONE:
        for i in range(m):
            if legal[i] == A_OPEN:
                return i
        return m - 1
    if g.step == S_CONSENT:
        return 0
    if g.step == S_WRITEOFF:
        return m - 1
    # play (HeuristicBot._play)
    trump = g.trump
    avoid = g.kind == K_RASPASY or (g.kind == K_MISERE and me == g.declarer)
    led = g.trick_card[0] >> 3 if g.nplays else -1
    win_seat = win_card = -1
    bk = 0
    for i in range(g.nplays):  # bots._winning
        if g.trick_seat[i] < 0:
            continue
        key = beat_key(g.trick_card[i], led, trump)
        if key >= 8 and (win_card < 0 or key > bk):
            bk, win_seat, win_card = key, g.trick_seat[i], g.trick_card[i]
    if avoid:
        if not g.nplays:
            return lowest(legal, m)
        best = -1
        for i in range(m):  # the highest card that loses, else the lowest
            c = legal[i] - A_PLAY
            if not beats(c, win_card, led, trump) and (best < 0 or (c & 7) > ((legal[best] - A_PLAY) & 7)):
                best = i
        return best if best >= 0 else lowest(legal, m)
    if g.kind == K_MISERE:
        return lowest(legal, m)
    partner = win_card >= 0 and g.declarer >= 0 and win_seat != g.declarer and me != g.declarer
    if not g.nplays:
        best = 0
        for i in range(1, m):
            if ((legal[i] - A_PLAY) & 7) > ((legal[best] - A_PLAY) & 7):
                best = i
        return best
    if partner:
        return lowest(legal, m)
    best = -1
    for i in range(m):  # the cheapest card that wins, else the lowest
        c = legal[i] - A_PLAY
        if beats(c, win_card, led, trump) and (best < 0 or (c & 7) < ((legal[best] - A_PLAY) & 7)):
            best = i
    return best if best >= 0 else lowest(legal, m)



# ---------------------------------------------------------------- a shard's columns (issue 30)

# The buffers of ``Shard`` (name, numpy dtype): per deal row (a ``has_*`` mask beside each nullable column;
# ``contract`` codes a call id and /wt as 2 * id + wt), its ``tricks`` (n a row), then per seat row.
_BUFS = (("dealer", "i1"), ("deal_no", "i2"), ("phase", "i1"), ("kind", "i1"), ("bought", "i1"),
         ("has_bought", "?"), ("contract", "i1"), ("played_out", "?"), ("declarer", "i1"), ("whisters", "i1"),
         ("mode", "i1"), ("has_mode", "?"), ("declarer_tricks", "i1"), ("has_tricks", "?"), ("made", "?"),
         ("points", "i2"), ("tricks", "i1"),
         ("score", "i8"), ("balance", "f8"), ("played", "i2"), ("s_made", "i2"), ("misere", "i2"),
         ("whists", "i2"), ("raspasy_tricks", "i2"), ("deals", "i2"))
DEF NBUF = 25
DEF B_DEALER = 0
DEF B_DEALNO = 1
DEF B_PHASE = 2
DEF B_KIND = 3
DEF B_BOUGHT = 4
DEF B_HASBOUGHT = 5
DEF B_CONTRACT = 6
DEF B_NOTRASP = 7
DEF B_DECL = 8
DEF B_WHISTERS = 9
DEF B_MODE = 10
DEF B_HASMODE = 11
DEF B_DTRICKS = 12
DEF B_HASDT = 13
DEF B_MADE = 14
DEF B_POINTS = 15
DEF B_TRICKS = 16
DEF B_SCORE = 17
DEF B_BALANCE = 18
DEF B_PLAYED = 19
DEF B_SMADE = 20
DEF B_MISERE = 21
DEF B_WHISTS = 22
DEF B_RASP = 23
DEF B_DEALS = 24


cdef class Shard:
    """The rows of many matches (``Match.play_into``) as growable typed C buffers, one per column, with a
    validity mask per nullable column (``_BUFS``); ``columns`` copies them into numpy arrays."""

    cdef Buf bufs[NBUF]
    cdef readonly int players
    cdef int deal_no  # the next deal row's number within its match

    def __cinit__(self, int players):
        bufs_init(self.bufs, NBUF)
        self.players = players
        self.deal_no = 0

    def __dealloc__(self):
        bufs_free(self.bufs, NBUF)

    def columns(self):
        """Every buffer as a numpy array (a copy) by name (``_BUFS``)."""
        return buf_columns(self.bufs, _BUFS)


cdef class Match:
    """A fresh match of ``games.preferans.state.State``: its options, seats, first dealer and decks."""

    cdef Opt o
    cdef int dealer0
    cdef object decks
    cdef object deck_rows  # the decks when given as an int64 array (``decks`` None then) ...
    cdef const int64_t *rowp  # ... and its first card
    cdef object names     # call id -> name (rules.CALLS)
    cdef Shard _out       # during ``play_into``: the builder every deal's row is written into
    cdef int nnames

    def __init__(self, dict opts, list ladder, int players, int dealer, decks, names):
        cdef int i
        self.o.n = players
        self.o.razb = opts["razb"]
        self.o.prelim = opts["prelim"]
        self.o.pulka = opts["pulka"]
        self.o.rtv = opts["rtv"]
        self.o.source = opts["source"]
        self.o.hold = opts["hold"]
        self.o.wwp = opts["wwp"]
        self.o.lone = opts["lone"]
        self.o.lead_decl = opts["lead_decl"]
        self.o.open_late = opts["open_late"]
        self.o.misere_open = opts["misere_open"]
        self.o.ten_concede = opts["ten_concede"]
        self.o.consol = opts["consol"]
        self.o.wof = opts["wof"]
        self.o.per_half = opts["per_half"]
        self.o.tb3 = opts["tb3"]
        self.o.writeoff = opts["writeoff"]
        self.o.razb_off = opts["razb_off"]
        self.o.talon_lead = opts["talon_lead"]
        self.o.max_deals = opts["max_deals"]
        self.o.S = opts["S"]
        self.o.close_w = opts["close_w"]
        if len(ladder) > 32:
            raise ValueError("a ladder of at most 32 calls")
        self.o.nl = len(ladder)
        for i in range(self.o.nl):
            self.o.ladder[i] = ladder[i]
        self.o.total_decks = len(decks)
        self.dealer0 = dealer
        if isinstance(decks, np.ndarray):  # State.deal's permuted decks as drawn: no list of ints
            if decks.ndim != 2 or decks.shape[1] != 32:
                raise ValueError(f"decks of shape {decks.shape}")
            self.deck_rows = np.ascontiguousarray(decks, dtype=np.int64)
            self._point()
            self.decks = None
        else:
            self.decks = decks
        self.names = names
        self.nnames = len(names)

    cdef void _point(self):
        cdef const int64_t[:, ::1] mv = self.deck_rows
        self.rowp = &mv[0, 0] if mv.shape[0] else NULL

    cdef int _play(self, G *g, const int *kinds, bitgen_t *bg, list codes, list legal, list rows) except -1:
        """The whole match: every decision drawn by the random bot, the deals scored on the sheet."""
        cdef Opt *o = &self.o
        cdef int buf[MAXL]
        cdef int m, code, i, s, closed, n = o.n
        g.dealer0 = self.dealer0
        g.k = 0
        g.main_deals = 0
        g.end = 0
        for s in range(4):
            g.P[s] = o.pulka
            g.M[s] = 0
            g.st_played[s] = g.st_made[s] = g.st_misere[s] = g.st_whists[s] = g.st_rasp[s] = 0
            for i in range(4):
                g.W[s][i] = 0
        while True:
            if g.k >= o.total_decks:
                raise ValueError(f"the match needs more than {o.total_decks} decks")
            if self.decks is None:
                start_deal(o, g, None, self.rowp + 32 * g.k)
            else:
                start_deal(o, g, self.decks[g.k], NULL)
            dl = [] if codes is not None else None
            ll = [] if legal is not None else None
            while True:
                m = deal_legal(o, g, buf)
                s = to_act(g)
                code = buf[heuristic(o, g, buf, m, s) if kinds[s] == HEURISTIC else bounded(bg, m)]
                if dl is not None:
                    dl.append(code)
                if ll is not None:
                    ll.append([buf[i] for i in range(m)])
                deal_apply(o, g, code)
                if g.step == S_RESULT:  # State._result: PF-9.2 declarer_choice waits for the writeoff
                    if (g.phase == P_MAIN and g.kind != K_RASPASY and g.made == 1 and o.writeoff == 2
                            and g.declarer >= 0 and g.M[g.declarer] > 0):
                        g.mountain_now = <int> g.M[g.declarer]
                        g.step = S_WRITEOFF
                    else:
                        g.step = S_OVER
                if g.step == S_OVER:
                    break
            if dl is not None:
                codes.append(dl)
            if ll is not None:
                legal.append(ll)
            score_deal(o, g)
            if g.phase == P_MAIN and g.kind != K_RASPASY:
                g.st_played[g.declarer] += 1
                g.st_made[g.declarer] += g.made == 1
                g.st_misere[g.declarer] += g.contract == MIS
            for i in range(g.nresp):
                g.st_whists[g.resp_seat[i]] += g.resp_whist[i]
            if g.kind == K_RASPASY:
                for i in range(3):
                    g.st_rasp[g.active[i]] += g.tricks[g.active[i]]
            if rows is not None:
                rows.append((g.dealer, self._row(g)))
            elif self._out is not None:
                self._put(g, self._out)
            add_delta(o, g)
            if g.phase == P_MAIN:
                g.main_deals += 1
                closed = 0
                for s in range(n):
                    closed += g.P[s] <= 0
                if closed >= n - 1:
                    g.end = 1
                    break
                if g.main_deals >= o.max_deals:
                    g.end = 2
                    break
            g.k += 1
        return 0

    cdef tuple _row(self, G *g):
        """tables.deal_rows's values of the finished deal (its Delta not yet on the sheet)."""
        cdef int n = self.o.n, s, nw = 0, played, decl
        cdef int64_t points = 0
        for s in range(n):
            points += (g.dP[s] if g.dP[s] >= 0 else -g.dP[s]) + (g.dM[s] if g.dM[s] >= 0 else -g.dM[s])
        for s in range(g.nresp):
            nw += g.resp_whist[s]
        played = g.kind == K_CONTRACT or g.kind == K_MISERE or g.kind == K_RASPASY
        if played:
            tricks = [-1] * n
            for s in range(3):
                tricks[g.active[s]] = g.tricks[g.active[s]]
        else:
            tricks = [-1] * n
        kind = KINDS[g.kind]
        if g.kind == K_RASPASY:
            return (PHASES[g.phase], kind, None, None, None, nw, None, None, None, <int> points, tricks)
        decl = g.declarer
        contract = self.names[g.contract] + ("/wt" if g.contract_wt else "")
        return (PHASES[g.phase], kind,
                self.names[g.bought] if g.phase == P_MAIN and g.bought >= 0 else None,
                contract, decl, nw,
                MODES[g.mode] if (g.kind == K_CONTRACT or g.kind == K_MISERE) and g.mode >= 0 else None,
                g.tricks[decl] if played else None,
                bool(g.made) if played else True, <int> points, tricks)

    cdef int _put(self, G *g, Shard out) except -1:
        """``_row``'s values written into ``out``'s buffers (``_BUFS``: its masks for the nulls)."""
        cdef int n = self.o.n, s, nw = 0, played, rasp = g.kind == K_RASPASY, has
        cdef int64_t points = 0
        cdef Buf *b = out.bufs
        for s in range(n):
            points += (g.dP[s] if g.dP[s] >= 0 else -g.dP[s]) + (g.dM[s] if g.dM[s] >= 0 else -g.dM[s])
        for s in range(g.nresp):
            nw += g.resp_whist[s]
        played = g.kind == K_CONTRACT or g.kind == K_MISERE or g.kind == K_RASPASY
        put8(&b[B_DEALER], g.dealer)
        put16(&b[B_DEALNO], out.deal_no)
        out.deal_no += 1
        put8(&b[B_PHASE], g.phase)
        put8(&b[B_KIND], g.kind)
        has = not rasp and g.phase == P_MAIN and g.bought >= 0
        put8(&b[B_BOUGHT], g.bought if has else 0)
        put8(&b[B_HASBOUGHT], has)
        # ``_row``'s names[contract] (Python's index: -1 the last name)
        put8(&b[B_CONTRACT], 0 if rasp else 2 * (g.contract if g.contract >= 0 else self.nnames - 1)
             + (g.contract_wt != 0))
        put8(&b[B_NOTRASP], not rasp)
        put8(&b[B_DECL], 0 if rasp else g.declarer)
        put8(&b[B_WHISTERS], nw)
        has = not rasp and (g.kind == K_CONTRACT or g.kind == K_MISERE) and g.mode >= 0
        put8(&b[B_MODE], g.mode if has else 0)
        put8(&b[B_HASMODE], has)
        has = not rasp and played
        put8(&b[B_DTRICKS], g.tricks[g.declarer] if has else 0)
        put8(&b[B_HASDT], has)
        put8(&b[B_MADE], (g.made != 0) if played else 1)
        put16(&b[B_POINTS], <int> points)
        for s in range(n):
            put8(&b[B_TRICKS], -1)
        if played:
            for s in range(3):
                (<signed char*>(b[B_TRICKS].p + b[B_TRICKS].n - n + g.active[s]))[0] = \
                    <signed char>g.tricks[g.active[s]]
        return 0

    def play_into(self, Shard out, bots, rng):
        """``rows`` written into ``out``'s buffers instead of Python rows: per deal its row, then per seat."""
        cdef G g
        cdef int64_t scores[4]
        cdef int n = self.o.n, s
        cdef int kinds[4]
        cdef Buf *b = out.bufs
        if out.players != n:
            raise ValueError(f"a shard of {out.players} players, a match of {n}")
        for s in range(n):
            kinds[s] = bots[s]
        cdef double unit = <double> self.o.S
        cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        out.deal_no = 0
        self._out = out
        try:
            with rng.bit_generator.lock:
                self._play(&g, kinds, bg, None, None, None)
        finally:
            self._out = None
        settle(&self.o, &g, scores)
        for s in range(n):
            put64(&b[B_SCORE], scores[s])
            putf(&b[B_BALANCE], scores[s] / unit)
            put16(&b[B_PLAYED], g.st_played[s])
            put16(&b[B_SMADE], g.st_made[s])
            put16(&b[B_MISERE], g.st_misere[s])
            put16(&b[B_WHISTS], g.st_whists[s])
            put16(&b[B_RASP], g.st_rasp[s])
            put16(&b[B_DEALS], g.k + 1)

    def actions(self, bots, rng, bint trace=False):
        """Play the match with ``bots`` (RANDOM or HEURISTIC per seat) drawing from ``rng``: the action codes
        per deal (and each decision's legal codes)."""
        cdef G g
        cdef int kinds[4]
        cdef int s
        for s in range(self.o.n):
            kinds[s] = bots[s]
        cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        codes = []
        legal = [] if trace else None
        with rng.bit_generator.lock:
            self._play(&g, kinds, bg, codes, legal, None)
        return (codes, legal) if trace else codes

    def rows(self, bots, rng):
        """Play the match with ``bots``; the values of ``tables.deal_rows`` and ``tables.seat_rows`` directly."""
        cdef G g
        cdef int64_t scores[4]
        cdef int n = self.o.n, s
        cdef int kinds[4]
        for s in range(n):
            kinds[s] = bots[s]
        cdef double unit = <double> self.o.S
        cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        deal_rows = []
        with rng.bit_generator.lock:
            self._play(&g, kinds, bg, None, None, deal_rows)
        settle(&self.o, &g, scores)
        return deal_rows, [(scores[s], scores[s] / unit, g.st_played[s], g.st_made[s], g.st_misere[s],
                            g.st_whists[s], g.st_rasp[s], g.k + 1) for s in range(n)]

