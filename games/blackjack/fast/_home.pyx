# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole ``home`` and ``ochko`` deals in C from the deal's stub, drawing exactly what the readable engine draws.

One deal is ``games.blackjack.home.HomeState`` (BJ-3, BJ-4, BJ-5.1) or ``games.blackjack.ochko.OchkoState``
(BJ-6, BJ-5.4) played from its ``deck_order`` (and ``reshuffle_order``, BJ-3.4 / BJ-8.1) by the seats'
bots: ``RANDOM`` (``RandomBot``: one ``rng.random()`` per decision, index ``int(random() * len(legal))``,
drawn even when one action is legal), ``DEALER_RULE`` (``DealerRuleBot``, and ``BasicBot`` / ``OptimalBot``
outside casino, which act as it: the smallest bet or stake, no double or redouble, hit / "more" below 17;
draws nothing) and ``HEURISTIC`` (``HomeHeuristicBot`` at home: BJ-2.2 as a policy, BJ-2.4 as a player,
BJ-2.3 as dealer; draws nothing; in ochko it is ``DEALER_RULE``). Every decision is noted as (kind, number
of legal actions, index chosen), the legal list being the engine's (``legal_actions``) in its order.
tests/test_fast_paths.py and tests/test_blackjack_fast.py check records, generator states, legal lists
and rows against the readable engine.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer

from ext.npdraw cimport bitgen_t
from games.blackjack.fast.shoe cimport load, refill

DEF MAXS = 8     # BJ-3.1: at most 8 seats (ochko 6, BJ-6.3)
DEF MAXC = 24    # cards in one hand (a home hand holds at most 11 cards, an ochko hand 9)
DEF MAXD = 512   # decisions in one deal
DEF RANDOM = 0
DEF DEALER_RULE = 1
DEF HEURISTIC = 2
# decision kinds (the legal list each stands for: ``playout.legal_list``)
DEF K_BET = 0       # ("bet", min_bet + i) for i < n (BJ-4.2)
DEF K_DOUBLE = 1    # double, no_double (BJ-4.4, doubling=free)
DEF K_REDOUBLE = 2  # redouble, no_redouble
DEF K_PLAY = 3      # hit, stand[, split] (BJ-4.7, BJ-4.8, BJ-4.10)
DEF K_STAKE = 4     # ("stake", 1 + i) for i < n (BJ-6.4)
DEF K_MORE = 5      # more, enough (BJ-6.4, BJ-6.5)
# options
DEF D_SEED = 0
DEF D_FREE = 1
DEF D_OFF = 2
DEF R_FREE = 0
DEF R_S17 = 1
DEF R_H17 = 2
DEF ACE = 12
DEF GOLDEN = 22     # BJ-6.2: two aces, above every 21


ctypedef struct Deck:
    int stock[52]
    int n
    int pos
    int reshuffle[52]
    bint has_reshuffle
    int discards[52]
    int nd
    bint broken


ctypedef struct Hand:
    int cards[MAXC]
    int n
    int bet
    bint split
    bint done
    bint bust
    bint natural
    bint settled
    bint has_result
    int result


ctypedef struct Opts:
    bint ochko
    int doubling
    int dealer_rule
    bint after_first
    bint ties_push
    bint split_on
    int min_bet
    int max_bet
    bint ace_flex
    int bank


ctypedef struct Game:
    Hand hands[2 * MAXS]  # hand k of seat s: hands[2 s + k]
    int nh[MAXS]
    bint revealed[MAXS]   # home: the face-down first card shown (bust, natural, split; BJ-5.2)
    bint redoubled[MAXS]
    bint sat_out[MAXS]
    bint doubled
    int stood             # "stand" actions logged so far (HomeHeuristicBot counts them, BJ-2.4)
    int bank
    int kinds[MAXD]
    int ns[MAXD]
    int picks[MAXD]
    int nd
    bint overflow


cdef inline int draw(Deck *dk) noexcept nogil:
    """BJ-8.1 / BJ-3.4: the next unread card; the discards in ``reshuffle`` order when the stock runs out
    (``Table.draw``)."""
    cdef int c
    if dk.pos >= dk.n:
        if not dk.has_reshuffle or dk.nd == 0:  # cannot happen under the rules (BJ-3.4, BJ-6.7)
            dk.broken = True
            return 0
        dk.n, dk.pos = refill(dk.stock, dk.reshuffle, dk.discards, dk.nd), 0
        dk.nd = 0
    c = dk.stock[dk.pos]
    dk.pos += 1
    return c


cdef inline void discard(Deck *dk, Hand *h) noexcept nogil:
    """A hand settled during the deal: its cards to the discard pile (BJ-3.4)."""
    cdef int i
    h.settled = True
    for i in range(h.n):
        if dk.nd < 52:
            dk.discards[dk.nd] = h.cards[i]
            dk.nd += 1


cdef inline void take(Deck *dk, Hand *h) noexcept nogil:
    if h.n < MAXC:
        h.cards[h.n] = draw(dk)
        h.n += 1
    else:
        dk.broken = True


cdef inline int points(int card) noexcept nogil:
    """BJ-3.2: 2-10 their number, J Q K 10, the ace 1 (made 11 by ``total``)."""
    cdef int r = card >> 2
    return 1 if r == ACE else (10 if r >= 8 else r + 2)


cdef inline int total(const Hand *h, bint *soft) noexcept nogil:
    """BJ-3.2 (``rules.total``): the best total; one ace counts 11 when that stays <= 21."""
    cdef int i, hard = 0
    cdef bint ace = False
    for i in range(h.n):
        hard += points(h.cards[i])
        ace = ace or (h.cards[i] >> 2) == ACE
    soft[0] = ace and hard + 10 <= 21
    return hard + 10 if soft[0] else hard


cdef inline int best(const Hand *h) noexcept nogil:
    cdef bint soft
    return total(h, &soft)


cdef inline bint natural(const Hand *h) noexcept nogil:
    """BJ-3.2: an ace and a ten-valued card as the first two cards (``rules.is_natural``)."""
    return h.n == 2 and best(h) == 21


cdef inline int opoints(int card) noexcept nogil:
    """BJ-6.1: 6-10 their number, J 2, Q 3, K 4, A 11."""
    cdef int r = card >> 2
    if r == ACE:
        return 11
    return r + 2 if r <= 8 else r - 7


cdef inline bint golden(const Hand *h) noexcept nogil:
    """BJ-6.2: exactly two cards, both aces."""
    return h.n == 2 and (h.cards[0] >> 2) == ACE and (h.cards[1] >> 2) == ACE


cdef inline int ototal(const Hand *h, bint flex) noexcept nogil:
    """BJ-6.1 / BJ-6.2 (``ochko.ochko_total``): the points; two aces ``GOLDEN``; ``ace=1_or_11``: aces 1
    where 11 would bust."""
    cdef int i, t = 0, aces = 0
    if golden(h):
        return GOLDEN
    for i in range(h.n):
        t += opoints(h.cards[i])
        aces += (h.cards[i] >> 2) == ACE
    if flex:
        while t > 21 and aces:
            t -= 10
            aces -= 1
    return t


cdef inline bint obusts(const Hand *h, bint flex) noexcept nogil:
    """BJ-6.2 (``ochko.busts``): above 21, except two aces."""
    return ototal(h, flex) > 21 and not golden(h)


cdef inline int seen_total(const Hand *h, bint hidden) noexcept nogil:
    """``simple_bots.hand_total`` of a hand as a seat sees it: a face-down first card counted 7
    (``HIDDEN_MEAN``) and never as an ace."""
    cdef int i, t = 0
    cdef bint ace = False
    for i in range(h.n):
        if i == 0 and hidden:
            t += 7
        else:
            t += points(h.cards[i])
            ace = ace or (h.cards[i] >> 2) == ACE
    return t + 10 if ace and t + 10 <= 21 else t


cdef inline int note(Game *g, int kind, int n, int pick) noexcept nogil:
    if g.nd < MAXD:
        g.kinds[g.nd], g.ns[g.nd], g.picks[g.nd] = kind, n, pick
        g.nd += 1
    else:
        g.overflow = True
    return pick


cdef bint dealer_hits(Game *g, const int *turn, int np, int t) noexcept nogil:
    """``HomeHeuristicBot._dealer_hits`` (BJ-2.3): draw below 12; below 18 while standing loses more chips than
    it wins against the standing players (``view["standing"]``: a hand neither bust nor settled), every hand of
    such a seat weighed by the seat's whole bet, its face-down first card counted 7 unless shown."""
    cdef int i, s, k, bet, net = 0
    cdef bint stands
    if t < 12:
        return True
    for i in range(np):
        s = turn[i]
        stands = False
        bet = 0
        for k in range(g.nh[s]):
            stands = stands or (not g.hands[2 * s + k].bust and not g.hands[2 * s + k].settled)
            bet += g.hands[2 * s + k].bet
        if not stands:
            continue
        for k in range(g.nh[s]):
            net += bet if seen_total(&g.hands[2 * s + k], not g.revealed[s]) <= t else -bet
    return net < 0 and t < 18


cdef int decide(bitgen_t *bg, Game *g, const int *bots, int seat, int dealer, int kind, int n, Hand *h,
                const int *turn, int np) noexcept nogil:
    """The seat's bot's index among the ``n`` legal actions of ``kind`` on hand ``h`` (BJ-5.1, BJ-5.4)."""
    cdef int code = bots[seat], t, k
    if code == RANDOM:  # RandomBot: one random() per decision, whatever n
        return note(g, kind, n, <int> (bg.next_double(bg.state) * n))
    if kind == K_BET or kind == K_STAKE:  # the smallest bet or stake (``simple_bots.smallest``)
        return note(g, kind, n, 0)
    if kind == K_MORE:  # DealerRuleBot in ochko: more below 17 points, aces 11 (``ochko_points``)
        t = 0
        for k in range(h.n):
            t += opoints(h.cards[k])
        return note(g, kind, n, 0 if t < 17 else 1)
    if code == DEALER_RULE:
        if kind == K_DOUBLE or kind == K_REDOUBLE:  # no_double, no_redouble
            return note(g, kind, n, 1)
        return note(g, kind, n, 0 if best(h) < 17 else 1)  # hit below 17 (BJ-7.6's rule)
    # HomeHeuristicBot (home only)
    if kind == K_DOUBLE:  # BJ-2.2 as a policy: double on J, Q, K, A
        return note(g, kind, n, 0 if (h.cards[0] >> 2) >= 9 else 1)
    if kind == K_REDOUBLE:  # redouble on an ace
        return note(g, kind, n, 0 if (h.cards[0] >> 2) == ACE else 1)
    t = best(h)
    if seat == dealer:
        return note(g, kind, n, 0 if dealer_hits(g, turn, np, t) else 1)
    if g.stood >= 2 and (t == 12 or t == 13):  # BJ-2.4: several before him stood
        return note(g, kind, n, 1)
    return note(g, kind, n, 0 if t < 17 else 1)


cdef inline void reset(Hand *h) noexcept nogil:
    h.n = 0
    h.bet = 0
    h.split = h.done = h.bust = h.natural = h.settled = h.has_result = False
    h.result = 0


cdef void dealer_hit(Deck *dk, Hand *h) noexcept nogil:
    """BJ-4.8 (``HomeState._dealer_hit``): one card; a bust or 21 ends his turn."""
    cdef int t
    take(dk, h)
    t = best(h)
    if t > 21:
        h.bust = h.done = True
    elif t == 21:
        h.done = True


cdef void bets(bitgen_t *bg, Game *g, const int *bots, const int *turn, int np, int dealer,
               const Opts *o) noexcept nogil:
    """BJ-4.2: each player from the dealer's left bets min_bet..max_bet."""
    cdef int i, s
    for i in range(np):
        s = turn[i]
        g.hands[2 * s].bet = o.min_bet + decide(bg, g, bots, s, dealer, K_BET, o.max_bet - o.min_bet + 1,
                                                &g.hands[2 * s], turn, np)


cdef inline void start(Game *g, int *turn, int n, int d) noexcept nogil:
    """A deal's start, home and ochko alike: the players in turn order from the dealer's left (BJ-4.3,
    BJ-6.4), one empty hand a seat, nothing shown, doubled or sat out."""
    cdef int i, s
    for i in range(n - 1):
        turn[i] = (d + 1 + i) % n
    for s in range(n):
        g.nh[s] = 1
        reset(&g.hands[2 * s])
        g.revealed[s] = g.redoubled[s] = g.sat_out[s] = False
    g.doubled = False


cdef void play_home(bitgen_t *bg, Deck *dk, Game *g, int n, int d, const int *bots, const Opts *o) noexcept nogil:
    """``HomeState`` from its stub to the end (BJ-4; order of the cards BJ-8.1)."""
    cdef int turn[MAXS]
    cdef int np = n - 1, i, s, k, c, t, a, b
    cdef bint dbl, soft, standing, can_split
    cdef Hand *h
    cdef Hand *h2
    cdef Hand *dh = &g.hands[2 * d]
    start(g, turn, n, d)
    if not o.after_first:  # BJ-4.2 bet_timing=before_deal
        bets(bg, g, bots, turn, np, d, o)
    for i in range(np):  # BJ-4.3: one card face down each, the dealer last
        take(dk, &g.hands[2 * turn[i]])
    take(dk, dh)
    if o.after_first:  # BJ-4.2 bet_timing=after_first_card
        bets(bg, g, bots, turn, np, d, o)
    # BJ-4.4 / BJ-2.5: the dealer's double, the players' redoubles
    if o.doubling == D_OFF:
        dbl = False
    elif o.doubling == D_FREE:
        dbl = decide(bg, g, bots, d, d, K_DOUBLE, 2, dh, turn, np) == 0
    else:
        dbl = (dh.cards[0] >> 2) >= 9  # BJ-2.2: J, Q, K or A forces the double
    if dbl:
        g.doubled = True
        for i in range(np):
            g.hands[2 * turn[i]].bet *= 2
        for i in range(np):
            s = turn[i]
            h = &g.hands[2 * s]
            if o.doubling == D_FREE:
                a = decide(bg, g, bots, s, d, K_REDOUBLE, 2, h, turn, np) == 0
            else:
                a = (h.cards[0] >> 2) == ACE  # BJ-2.2: a player must redouble on an ace
            if a:
                g.redoubled[s] = True
                h.bet *= 2
    for i in range(np):  # BJ-4.5: one card face up each, the dealer last
        take(dk, &g.hands[2 * turn[i]])
    take(dk, dh)
    # BJ-4.6: naturals
    if natural(dh):
        dh.natural = True
        g.revealed[d] = True
        for i in range(np):
            s = turn[i]
            h = &g.hands[2 * s]
            h.natural = natural(h)
            h.has_result = True
            h.result = 0 if h.natural else -2 * h.bet
            g.revealed[s] = g.revealed[s] or h.natural
        return
    for i in range(np):
        s = turn[i]
        h = &g.hands[2 * s]
        if natural(h):
            h.natural = h.done = h.has_result = True
            h.result = 2 * h.bet
            g.revealed[s] = True
            discard(dk, h)
    # BJ-4.7 / BJ-4.10: the players' turns, hand by hand
    for i in range(np):
        s = turn[i]
        if g.hands[2 * s].done:
            continue
        k = 0
        while k < g.nh[s]:
            h = &g.hands[2 * s + k]
            while True:
                if h.n == 1:  # BJ-4.10: a split hand gets its second card when its turn comes
                    take(dk, h)
                    if (h.cards[0] >> 2) == ACE:
                        h.done = True
                if not h.done and best(h) == 21:
                    h.done = True  # BJ-4.7: a player at 21 stands automatically
                if h.done or dk.broken:
                    break
                can_split = o.split_on and g.nh[s] == 1 and h.n == 2 and (h.cards[0] >> 2) == (h.cards[1] >> 2)
                c = decide(bg, g, bots, s, d, K_PLAY, 2 + can_split, h, turn, np)
                if c == 2:  # split: two hands of the bet as it stands, the face-down card turned up
                    a, b = h.cards[0], h.cards[1]
                    h2 = &g.hands[2 * s + 1]
                    reset(h2)
                    g.nh[s] = 2
                    h.n = 1
                    h2.cards[0] = b
                    h2.n = 1
                    h2.bet = h.bet
                    h.split = h2.split = True
                    g.revealed[s] = True
                    if (a >> 2) == ACE:  # split aces: one card each, the first hand's then the second's
                        take(dk, h)
                        h.done = True
                        take(dk, h2)
                        h2.done = True
                elif c == 0:  # hit
                    take(dk, h)
                    if best(h) > 21:  # BJ-3.3 / BJ-4.7: a bust pays at once
                        h.bust = h.done = h.has_result = True
                        h.result = -h.bet
                        g.revealed[s] = True
                        discard(dk, h)
                else:
                    h.done = True
                    g.stood += 1
            k += 1
    # BJ-4.8: the dealer's turn, when a hand still stands
    g.revealed[d] = True
    standing = False
    for i in range(np):
        for k in range(g.nh[turn[i]]):
            h = &g.hands[2 * turn[i] + k]
            standing = standing or (not h.bust and not h.settled)
    while standing and not dh.done and not dk.broken:
        t = total(dh, &soft)
        if t >= 21:
            dh.done = True
        elif o.dealer_rule == R_FREE:
            if decide(bg, g, bots, d, d, K_PLAY, 2, dh, turn, np) == 0:
                dealer_hit(dk, dh)
            else:
                dh.done = True
                g.stood += 1
        elif t < 17 or (t == 17 and soft and o.dealer_rule == R_H17):
            dealer_hit(dk, dh)
        else:
            dh.done = True
    # BJ-4.9: the settlement of every hand still standing
    t = best(dh)
    for i in range(np):
        s = turn[i]
        g.revealed[s] = True
        for k in range(g.nh[s]):
            h = &g.hands[2 * s + k]
            if h.has_result:
                continue
            c = best(h)
            h.has_result = True
            if dh.bust or c > t:
                h.result = h.bet
            elif c < t or not o.ties_push:
                h.result = -h.bet
            else:
                h.result = 0


cdef void play_ochko(bitgen_t *bg, Deck *dk, Game *g, int n, int d, const int *bots, const Opts *o) noexcept nogil:
    """``OchkoState`` from its stub to the end (BJ-6; order of the cards BJ-8.1)."""
    cdef int turn[MAXS]
    cdef int np = n - 1, i, j, s, t, uncovered
    cdef bint standing
    cdef Hand *h
    cdef Hand *bh = &g.hands[2 * d]
    start(g, turn, n, d)
    g.bank = o.bank
    for i in range(np):  # BJ-6.4: one card face down each, the banker last
        take(dk, &g.hands[2 * turn[i]])
    take(dk, bh)
    for i in range(np):
        s = turn[i]
        h = &g.hands[2 * s]
        # BJ-6.4: the bank (with the stakes it collected) less the stakes of the players still standing
        uncovered = g.bank
        for j in range(n):
            if j != d and not g.hands[2 * j].settled:
                uncovered -= g.hands[2 * j].bet
        if uncovered < 1:  # he cannot stake: he sits the deal out
            g.sat_out[s] = True
            continue
        h.bet = 1 + decide(bg, g, bots, s, d, K_STAKE, uncovered, h, turn, np)
        while not dk.broken:
            t = ototal(h, o.ace_flex)
            if t == 21 or t == GOLDEN:  # BJ-6.4: he stops automatically
                h.done = True
            if h.done:
                break
            if decide(bg, g, bots, s, d, K_MORE, 2, h, turn, np) == 1:
                h.done = True
            else:
                take(dk, h)
                if obusts(h, o.ace_flex):  # his stake goes into the bank at once
                    h.bust = h.done = h.has_result = True
                    h.result = -h.bet
                    g.bank += h.bet
                    discard(dk, h)
    # BJ-6.5: the banker draws while a player stands
    standing = False
    for i in range(np):
        standing = standing or (not g.sat_out[turn[i]] and not g.hands[2 * turn[i]].settled)
    while standing and not bh.done and not bh.bust and not dk.broken:
        t = ototal(bh, o.ace_flex)
        if t == 21 or t == GOLDEN:
            break
        if decide(bg, g, bots, d, d, K_MORE, 2, bh, turn, np) == 1:
            bh.done = True
        else:
            take(dk, bh)
            if obusts(bh, o.ace_flex):
                bh.bust = bh.done = True
    t = ototal(bh, o.ace_flex)
    for i in range(np):
        s = turn[i]
        h = &g.hands[2 * s]
        if g.sat_out[s] or h.has_result:
            continue
        h.has_result = True
        h.result = h.bet if bh.bust or ototal(h, o.ace_flex) > t else -h.bet
        g.bank -= h.result


cdef int run(rng, order, reshuffle, int players, int dealer, bots, opts, Game *g) except -1:
    """Play the stub into ``g`` (the generator held while it draws)."""
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    cdef Deck dk
    cdef Opts o
    cdef int codes[MAXS]
    cdef int i
    o.ochko, o.doubling, o.dealer_rule, o.after_first, o.ties_push, o.split_on, o.min_bet, o.max_bet, \
        o.ace_flex, o.bank = opts
    if not 2 <= players <= MAXS or not 0 <= dealer < players or len(bots) != players:
        raise ValueError("2..8 seats, a dealer seat and one bot code per seat")
    if len(order) != (36 if o.ochko else 52) or (reshuffle is not None and len(reshuffle) != 52):
        raise ValueError("a 52-card (home) or 36-card (ochko) stub")
    for i in range(players):
        codes[i] = bots[i]
    dk.n = load(dk.stock, dk.reshuffle, order, reshuffle)
    dk.has_reshuffle = reshuffle is not None
    dk.pos = dk.nd = 0
    dk.broken = False
    g.nd = 0
    g.overflow = False
    g.stood = 0
    g.bank = 0
    with rng.bit_generator.lock:
        with nogil:
            if o.ochko:
                play_ochko(bg, &dk, g, players, dealer, codes, &o)
            else:
                play_home(bg, &dk, g, players, dealer, codes, &o)
    if dk.broken:
        raise RuntimeError("the stock ran out with no discards")
    if g.overflow:
        raise RuntimeError(f"more than {MAXD} decisions in one deal")
    return 0


def play_stub(rng, order, reshuffle, int players, int dealer, bots, opts):
    """Play the deal of ``order`` (``reshuffle``: home's ``reshuffle_order``, ochko None) dealt by ``dealer``,
    seat s by bot code ``bots[s]`` (0 random, 1 dealer-rule, 2 home heuristic), drawing from ``rng``; ``opts``
    (ochko, doubling 0 seed 1 free 2 off, dealer_rule 0 free 1 s17 2 h17, after_first_card, ties push,
    split_pairs, min_bet, max_bet, ace 1_or_11, bank). Returns every decision as (kind, legal actions,
    index chosen), in the record's order."""
    cdef Game g
    run(rng, order, reshuffle, players, dealer, bots, opts, &g)
    return [(g.kinds[i], g.ns[i], g.picks[i]) for i in range(g.nd)]


def play_rows(rng, order, reshuffle, int players, int dealer, bots, opts, cards):
    """The deal as ``play_stub`` plays it, as the rows of ``games.blackjack.tables`` (``deal_rows``,
    ``seat_rows``); ``cards``: the card names by id (``card_str``)."""
    cdef Game g
    cdef int s, k, t, sc, dsum = 0, nhands = 0, redoubles = 0, bet, net
    cdef bint ochko = opts[0], flex = opts[8], nat, allbust
    cdef Hand *h
    cdef Hand *dh
    run(rng, order, reshuffle, players, dealer, bots, opts, &g)
    seat_rows = []
    for s in range(players):
        if s == dealer:
            seat_rows.append(None)
            continue
        sc, bet, nat, allbust = 0, 0, False, True
        totals = []
        for k in range(g.nh[s]):
            h = &g.hands[2 * s + k]
            sc += h.result
            bet += h.bet
            nat = nat or (h.natural and h.result > 0)
            allbust = allbust and h.bust
            totals.append(ototal(h, flex) if ochko else best(h))
        nhands += g.nh[s]
        redoubles += g.redoubled[s]
        dsum += sc
        if ochko and g.sat_out[s]:
            result = "out"
        else:  # ``tables._result``
            result = "natural" if nat else "bust" if allbust else "win" if sc > 0 else "loss" if sc < 0 else "push"
        seat_rows.append((sc, False, bet, g.nh[s], totals, result))
    dh = &g.hands[2 * dealer]
    t = ototal(dh, flex) if ochko else best(dh)
    seat_rows[dealer] = (-dsum, True, 0, 1, [t], "dealer")
    deal_row = ([cards[dh.cards[k]] for k in range(dh.n)], t, cards[dh.cards[0]][0], bool(dh.bust),
                bool(dh.natural), bool(g.doubled), redoubles, nhands)
    return [(dealer, deal_row)], seat_rows
