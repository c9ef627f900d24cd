# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole liar's poker matches in C with ``liars-poker/random`` and ``liars-poker/truthful`` at the seats.

The readable engine is ``games/liars_poker/state.py`` (the spec): LP-4's bidding over the bid chain of
LP-3 (a bid is its rank in the chain), the challenges, the rebid of LP-4.6, LP-5's resolution and
LP-1.5's next opener, every option of ``Rules``. The bots choose as in Python:

* ``random`` is ``Actions.sample``: ``Generator.integers(len)``, which numpy draws for a range below
  2**32 by Lemire's method on the bit generator's ``next_uint32`` (``ext.npdraw.bounded``; no draw for one
  action), so the generator ends in the same state;
* ``truthful`` is ``TruthfulBot.act`` step for step, its probabilities the same floats
  (``odds.tail_float``, given by the caller as a table) compared in the same order.

``tests/test_fast_paths.py`` and ``tests/test_liars_poker_fast.py`` check records, generator states,
legal lists and rows against the engine.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdlib cimport free, malloc

from ext.npdraw cimport bitgen_t, bounded

DEF MAXP = 10
DEF MAXV = 10
DEF MAXPROB = 256  # t = q - own in -20 .. 200 (10 players x 20 digits), shifted by 20
DEF SHIFT = 20

CHALLENGE = -1
ACCEPT = -2
RANDOM = 0
TRUTHFUL = 1


cdef struct Opt:
    int n
    int values  # D
    int length  # L
    int top  # n * L
    int count  # the chain's length
    int rebid  # rebid == once
    int rebid_stake
    int stake
    int last_bidder
    int ranking[MAXV]  # digit at each position
    int pos[10]  # position of each digit, -1: none
    double expect  # (n - 1) * L / D
    double prob[MAXPROB]  # tail_float((n - 1) * L, D, t) at t + SHIFT


cdef struct Round:
    int to_act
    int holder
    int rank
    int is_rebid
    int challenges
    int rebid_turn
    int accepted
    int ended
    int bids  # bids made
    int actions  # actions taken


cdef inline double prob(Opt* o, int q, int own) noexcept nogil:
    return o.prob[q - own + SHIFT]


cdef int truthful(Opt* o, Round* r, int* own, double threshold) noexcept nogil:
    """``TruthfulBot.act``: a bid's rank, or CHALLENGE / ACCEPT."""
    cdef int sq = -1, sd = -1, p, d, t, qmin, rk, have_t = 0, have_l = 0
    cdef int t_own = 0, t_rank = 0, l_rank = 0
    cdef double t_p = 0.0, l_p = 0.0, pr
    if r.rank >= 0:
        sq = r.rank // o.values + 1
        sd = o.ranking[r.rank % o.values]
        if not r.rebid_turn and prob(o, sq, own[sd]) < threshold:
            return -1
    for p in range(o.values):
        d = o.ranking[p]
        t = <int>(own[d] + o.expect)
        if t < 1:
            t = 1
        qmin = 1 if r.rank < 0 else sq + (0 if p > o.pos[sd] else 1)
        if qmin <= t <= o.top:
            pr = prob(o, t, own[d])
            rk = (t - 1) * o.values + p
            # min over (-own, -prob, rank): more own digits, then likelier, then lower
            if not have_t or own[d] > t_own or (own[d] == t_own and (pr > t_p or (pr == t_p and rk < t_rank))):
                have_t, t_own, t_p, t_rank = 1, own[d], pr, rk
        if qmin <= o.top:
            pr = prob(o, qmin, own[d])
            rk = (qmin - 1) * o.values + p
            if not have_l or pr > l_p or (pr == l_p and rk < l_rank):
                have_l, l_p, l_rank = 1, pr, rk
    if r.rebid_turn:
        if prob(o, sq, own[sd]) >= threshold or not have_t:
            return -2
        return t_rank
    if have_t:
        return t_rank
    if have_l and (l_p >= threshold or r.rank < 0):
        return l_rank
    return -1


cdef void apply(Opt* o, Round* r, int action) noexcept nogil:
    """``Round.try_apply`` of a legal action (a bid's rank, CHALLENGE or ACCEPT)."""
    r.actions += 1
    if action == -2:  # LP-4.6
        r.accepted = 1
        r.ended = 1
        return
    if action == -1:  # LP-4.2 - LP-4.4, LP-4.6
        r.challenges += 1
        if r.challenges < o.n - 1:
            r.to_act = (r.to_act + 1) % o.n
        elif o.rebid and not r.is_rebid:
            r.rebid_turn = 1
            r.to_act = r.holder
        else:
            r.ended = 1
        return
    r.bids += 1
    r.is_rebid = r.rebid_turn
    r.rebid_turn = 0
    r.holder = r.to_act
    r.rank = action
    r.challenges = 0  # LP-4.3
    r.to_act = (r.to_act + 1) % o.n


cdef int choose(Opt* o, Round* r, int kind, double threshold, int* own, bitgen_t* bg) noexcept nogil:
    """The bot's action: ``random`` one uniform draw over the legal list, ``truthful`` its rule."""
    cdef int start, nbids, extra
    if kind:
        return truthful(o, r, own, threshold)
    start = 0 if r.rank < 0 else r.rank + 1
    nbids = o.count - start
    if nbids < 0:
        nbids = 0
    extra = 0 if r.rank < 0 else 1
    start = <int>bounded(bg, nbids + extra) - nbids
    if start < 0:
        return r.rank + 1 + start + nbids
    return -2 if r.rebid_turn else -1


cdef class Match:
    """One fresh match (its notes' digit counts) ready to be played under any seating of bots."""

    cdef Opt o
    cdef int rounds
    cdef int first_round
    cdef int dealer
    cdef int* counts  # rounds x n x 10: each seat's count of each digit
    cdef int* totals  # rounds x 10

    def __cinit__(self):
        self.counts = NULL

    def __init__(self, rules, int players, int dealer, int first_round, notes, probs):
        """``notes``: per round the n notes (strings of digits); ``probs``: ``tail_float((n - 1) * L, D, t)``
        for t = -20 .. n * L (index t + 20)."""
        cdef int r, s, i, c
        cdef bytes b
        if not 2 <= players <= MAXP:
            raise ValueError(f"{players} players")
        o = &self.o
        o.n = players
        o.values = rules.digit_values
        o.length = rules.digits_per_note
        o.top = players * o.length
        o.count = o.top * o.values
        o.rebid = rules.rebid == "once"
        o.rebid_stake = rules.rebid_stake
        o.stake = rules.stake
        o.last_bidder = rules.next_opener == "last_bidder"
        for i in range(10):
            o.pos[i] = -1
        for i, d in enumerate(rules.ranking):
            o.ranking[i] = d
            o.pos[d] = i
        o.expect = (players - 1) * o.length / <double>o.values
        for i in range(min(len(probs), MAXPROB)):
            o.prob[i] = probs[i]
        self.rounds = len(notes)
        self.dealer = dealer
        self.first_round = first_round
        self.counts = <int*>malloc(sizeof(int) * (self.rounds * (players + 1) * 10 + 1))
        if self.counts == NULL:
            raise MemoryError()
        self.totals = self.counts + self.rounds * players * 10
        for i in range(self.rounds * (players + 1) * 10):
            self.counts[i] = 0
        for r in range(self.rounds):
            for s in range(players):
                b = notes[r][s].encode("ascii")
                for i in range(len(b)):
                    c = b[i] - 48
                    self.counts[(r * players + s) * 10 + c] += 1
                    self.totals[r * 10 + c] += 1

    def __dealloc__(self):
        free(self.counts)

    cdef int _round(self, int k, Round* r, int opener, int* kinds, double* thr, bitgen_t* bg, list acts,
                    list legal) except -3:
        cdef int a, seat
        r.to_act = opener
        r.holder = -1
        r.rank = -1
        r.is_rebid = r.challenges = r.rebid_turn = r.accepted = r.ended = 0
        r.bids = r.actions = 0
        while not r.ended:
            seat = r.to_act
            if legal is not None:
                legal.append((0 if r.rank < 0 else r.rank + 1,
                              0 if r.rank < 0 else (2 if r.rebid_turn else 1)))
            a = choose(&self.o, r, kinds[seat], thr[seat], self.counts + (k * self.o.n + seat) * 10, bg)
            if acts is not None:
                acts.append((seat, a))
            apply(&self.o, r, a)
        return 0

    def actions(self, kinds, thresholds, rng, bint trace=False):
        """Play the match: per round a list of (seat, action) with action a bid's rank, CHALLENGE or ACCEPT;
        ``trace``: also per action (start, extra) of its legal list (extra 0 none, 1 challenge, 2 accept)."""
        cdef Round r
        cdef int k, opener = self.dealer, s
        cdef int kk[MAXP]
        cdef double thr[MAXP]
        cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        for s in range(self.o.n):
            kk[s] = kinds[s]
            thr[s] = thresholds[s]
        out, legal = [], []
        for k in range(self.rounds):
            if k:
                opener = r.holder if self.o.last_bidder else (self.first_round + k) % self.o.n  # LP-1.5
            acts = []
            lists = [] if trace else None
            self._round(k, &r, opener, kk, thr, bg, acts, lists)
            out.append(acts)
            legal.append(lists)
        return (out, legal) if trace else out

    def rows(self, kinds, thresholds, rng):
        """Play the match; the rows of ``games.liars_poker.tables`` (``deal_rows``, ``seat_rows``) directly."""
        cdef Round r
        cdef int k, opener = self.dealer, s, n = self.o.n, q, d, count, wins, stake, sign, x
        cdef int kk[MAXP]
        cdef double thr[MAXP]
        cdef int score[MAXP]
        cdef int held[MAXP]
        cdef int held_won[MAXP]
        cdef int won[MAXP]
        cdef bitgen_t* bg = <bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        cdef list acts
        for s in range(n):
            kk[s] = kinds[s]
            thr[s] = thresholds[s]
            score[s] = held[s] = held_won[s] = won[s] = 0
        bids = [0] * n
        challenges = [0] * n
        deal_rows = []
        for k in range(self.rounds):
            if k:
                opener = r.holder if self.o.last_bidder else (self.first_round + k) % n  # LP-1.5
            acts = []
            self._round(k, &r, opener, kk, thr, bg, acts, None)
            for seat, a in acts:
                if a >= 0:
                    bids[seat] += 1
                elif a == -1:
                    challenges[seat] += 1
            q = r.rank // self.o.values + 1
            d = self.o.ranking[r.rank % self.o.values]
            count = self.totals[k * 10 + d]  # LP-5.1
            wins = count >= q  # LP-5.2
            stake = self.o.stake * (self.o.rebid_stake if r.is_rebid else 1)  # LP-5.5
            sign = 1 if wins else -1
            for s in range(n):
                x = sign * stake * (n - 1) if s == r.holder else -sign * stake
                score[s] += x
                won[s] += x > 0
            held[r.holder] += 1
            held_won[r.holder] += wins
            deal_rows.append((opener, (self.first_round + k, r.holder, q, d, bool(r.is_rebid), count, bool(wins),
                                       "others" if wins else "holder", stake, r.bids, r.actions)))
        seat_rows = [(score[s], held[s], held_won[s], bids[s], challenges[s], won[s]) for s in range(n)]
        return deal_rows, seat_rows
