# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One Dice Poker game of ``dice-poker/random`` and ``dice-poker/greedy`` seats in C, every preset and option.

The game is the readable engine's (games/dice_poker/state.py, docs/rules/dice-poker.md): throws from the
game's pre-drawn faces in order (throw 1 takes five, a re-roll the next faces for its positions in
ascending order, DP-2.5), the legal actions of DP-7 (re-roll masks ascending, then ``stand`` or the
writes the round allows in sheet order), the simple game's stages and rethrows (DP-4.4, DP-4.5), the
sheet's scores and bonuses (DP-5) and the settlement (DP-6.4). The bots are ``bots.RandomBot`` (one
``Generator.integers(n)`` per decision: Lemire's bounded 32-bit draw on ``next_uint32``, nothing
drawn when one action is legal) and ``bots.GreedyBot`` (draws nothing), with the same tie-breaks
(the first line in sheet order wins a ``max``). ``play`` returns the actions as codes (1..31 a
re-roll mask, 32 stand, 64 + i a write of line i), with the legal set of each decision when asked
(tests), and what the row functions of games/dice_poker/tables.py read.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t

from ext.npdraw cimport bitgen_t, bounded

DEF MAXP = 8
DEF MAXF = 5000     # faces of a game: the simple game's 41 stages x 8 seats x 15, at most
DEF MAXA = 1400     # decisions of a game: 41 stages x 8 seats x 2 (simple), 15 x 8 x 3 (sheet)
DEF NLINES = 15
DEF STAND = 32
DEF WRITE = 64

# Lines (rules.LINES): 0..5 the classes ones..sixes, then the main lines.
DEF L_PAIR = 6
DEF L_TWO = 7
DEF L_THREE = 8
DEF L_SMALL = 9
DEF L_LARGE = 10
DEF L_FULL = 11
DEF L_FOUR = 12
DEF L_POKER = 13
DEF L_CHANCE = 14


ctypedef struct Opts:
    int preset          # 0 simple, 1 full, 2 mixed
    bint locked         # DP-2.3
    bint kickers        # DP-4.3
    bint rethrow        # DP-4.4 tie_rule
    int max_rethrows
    bint pairwise       # DP-4.5 / DP-6.4
    int ftd             # DP-5.3: 0 all, 1 except_chance, 2 none
    int poker_bonus     # DP-5.4
    int school          # DP-5.5: 0 plus, 1 minus, 2 both, 3 none
    bint fixed          # DP-6.2 school_order


ctypedef struct Game:
    int n
    int first
    # the faces and the cursor
    int faces[MAXF]
    int nfaces
    int cur
    # decisions
    int nact
    int codes[MAXA]
    int seats[MAXA]
    int allowed_log[MAXA]
    int lines_log[MAXA]
    # the sheet game
    int sheet[MAXP][NLINES]
    int filled[MAXP]
    int pbonus[MAXP]
    int sbonus[MAXP]
    int totals[MAXP]
    # the simple game
    int hands[MAXP][5]      # this stage's hands, by seat
    bint has_hand[MAXP]
    int cat0[MAXP]
    int stage
    # both
    int seat_turns[MAXP]
    int seat_throws[MAXP]
    int turns
    int throws
    int scores[MAXP]
    int winners            # bit s: seat s is among the winners


cdef inline int popcount(int x) noexcept nogil:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef inline int nth_submask(int allowed, int k) noexcept nogil:
    """The k-th (0-based) non-empty sub-mask of ``allowed`` in ascending order (bits of k + 1 spread
    over the positions of ``allowed``): ``dice.reroll_masks``'s order."""
    cdef int v = k + 1, out = 0, p
    for p in range(5):
        if allowed >> p & 1:
            if v & 1:
                out |= 1 << p
            v >>= 1
    return out


cdef inline int nth_bit(int bits, int k) noexcept nogil:
    cdef int i
    for i in range(NLINES):
        if bits >> i & 1:
            if k == 0:
                return i
            k -= 1
    return -1


cdef inline void counts_of(const int *dice, int *c) noexcept nogil:
    cdef int i
    for i in range(6):
        c[i] = 0
    for i in range(5):
        c[dice[i] - 1] += 1


# ------------------------------------------------------------------ DP-3, DP-4 (scoring.category, hand_key)

cdef int category(const int *c) noexcept nogil:
    cdef int i, mx = 0, pairs = 0, threes = 0
    for i in range(6):
        if c[i] > mx:
            mx = c[i]
        if c[i] == 2:
            pairs += 1
        elif c[i] == 3:
            threes += 1
    if mx == 5:
        return 7
    if mx == 4:
        return 6
    if threes == 1 and pairs == 1:
        return 5
    if mx == 1:
        return 4 if (c[0] == 0 or c[5] == 0) else 0
    if mx == 3:
        return 3
    return 2 if pairs == 2 else 1


cdef void by_mult(const int *c, int *out) noexcept nogil:
    """The five faces sorted by (count descending, face descending)."""
    cdef int k = 0, cnt, f, j
    for cnt in range(5, 0, -1):
        for f in range(5, -1, -1):
            if c[f] == cnt:
                for j in range(cnt):
                    out[k] = f + 1
                    k += 1


cdef int64_t hand_key(const int *dice, bint kickers) noexcept nogil:
    """``scoring.hand_key`` as one integer of the same order (same category: keys of one length)."""
    cdef int c[6]
    cdef int bm[5]
    cdef int cat, i
    cdef int64_t key
    counts_of(dice, c)
    cat = category(c)
    by_mult(c, bm)
    key = cat
    if kickers or cat == 0:
        for i in range(5):
            key = key * 7 + bm[i]
        return key
    if cat == 5 or cat == 2:
        return ((key * 7 + bm[0]) * 7 + bm[3]) * 343
    return (key * 7 + bm[0]) * 2401


# ------------------------------------------------------------------ DP-5 (scoring.base_score, line_score)

cdef int base_score(int line, const int *c) noexcept nogil:
    cdef int f, total = 0, best = 0, hi = 0, lo = 0, need
    for f in range(6):
        total += c[f] * (f + 1)
    if line < 6:
        return (c[line] - 3) * (line + 1)
    if line == L_CHANCE:
        return total
    if line == L_PAIR or line == L_THREE or line == L_FOUR or line == L_POKER:
        need = 2 if line == L_PAIR else 3 if line == L_THREE else 4 if line == L_FOUR else 5
        for f in range(6):
            if (c[f] == 5 if line == L_POKER else c[f] >= need):
                best = need * (f + 1)
        return best
    if line == L_TWO:
        for f in range(6):
            if c[f] >= 2:
                lo = hi
                hi = f + 1
        return 2 * (hi + lo) if lo else 0
    if line == L_FULL:
        hi = 0
        lo = 0
        for f in range(6):
            if c[f] == 3:
                hi = 1
            elif c[f] == 2:
                lo = 1
        return total if hi and lo else 0
    if line == L_SMALL:
        return 15 if c[0] == 1 and c[1] == 1 and c[2] == 1 and c[3] == 1 and c[4] == 1 else 0
    return 20 if c[1] == 1 and c[2] == 1 and c[3] == 1 and c[4] == 1 and c[5] == 1 else 0  # L_LARGE


cdef inline int line_score(const Opts *o, int line, const int *c, int t) noexcept nogil:
    cdef int b = base_score(line, c)
    if t == 1 and line >= 6 and o.ftd != 2 and not (line == L_CHANCE and o.ftd == 1):
        return 2 * b
    return b


cdef inline int poker_bonus(const Opts *o, int line, const int *c) noexcept nogil:
    cdef int f
    if line != L_POKER:
        return 0
    for f in range(6):
        if c[f] == 5:
            return o.poker_bonus
    return 0


# ------------------------------------------------------------------ greedy (bots.keep_for, simple_keep)

cdef int positions(const int *dice, int face, int limit) noexcept nogil:
    cdef int i, m = 0, k = 0
    for i in range(5):
        if dice[i] == face and k < limit:
            m |= 1 << i
            k += 1
    return m


cdef int keep_for(int line, const int *dice, const int *c) noexcept nogil:
    """The positions (a mask) greedy keeps when it plays for ``line``."""
    cdef int bm[5]
    cdef int f, i, m = 0, lo, f0, f1, p1 = 0, p2 = 0
    if line < 6:
        return positions(dice, line + 1, 5)
    by_mult(c, bm)
    f0 = bm[0]
    if line == L_PAIR or line == L_THREE or line == L_FOUR or line == L_POKER:
        return positions(dice, f0, 5)
    if line == L_TWO:
        for f in range(6, 0, -1):  # the two highest faces shown at least twice
            if c[f - 1] >= 2:
                if p1 == 0:
                    p1 = f
                elif p2 == 0:
                    p2 = f
        if p1 == 0:
            return positions(dice, f0, 5)
        m = positions(dice, p1, 2)
        if p2:
            m |= positions(dice, p2, 2)
        return m
    if line == L_FULL:
        m = positions(dice, f0, 3)
        f1 = bm[c[f0 - 1]] if c[f0 - 1] < 5 else 0  # the second face of the (count, face) order
        if f1:
            m |= positions(dice, f1, 2)
        return m
    if line == L_SMALL or line == L_LARGE:
        lo = 1 if line == L_SMALL else 2
        for f in range(lo, lo + 5):
            if c[f - 1]:
                m |= positions(dice, f, 1)
        return m
    for i in range(5):  # chance
        if dice[i] >= 4:
            m |= 1 << i
    return m


cdef int simple_keep(const int *dice, const int *c) noexcept nogil:
    cdef int cat = category(c), i, m = 0
    cdef int bm[5]
    if cat == 4 or cat == 5 or cat == 7:
        return 31
    if cat == 0:
        for i in range(5):
            if dice[i] != 1:
                m |= 1 << i
        return m
    by_mult(c, bm)
    for i in range(5):
        if c[dice[i] - 1] >= 2 and (cat != 1 or dice[i] == bm[0]):
            m |= 1 << i
    return m


# ------------------------------------------------------------------ the game

cdef inline int take(Game *g, int *dice, int mask) noexcept nogil:
    """Throw the positions of ``mask`` from the faces (ascending positions, DP-2.5); -1 when short."""
    cdef int p
    if g.cur + popcount(mask) > g.nfaces:
        return -1
    for p in range(5):
        if mask >> p & 1:
            dice[p] = g.faces[g.cur]
            g.cur += 1
    return 0


cdef int allowed_lines(const Opts *o, const Game *g, int seat, int rnd) noexcept nogil:
    """``State.allowed_lines`` as a bit set of lines (DP-6.1-6.3)."""
    cdef int empty = ~g.filled[seat] & 0x7FFF
    if o.preset == 1:
        if rnd <= 6:
            if o.fixed:
                return empty & (1 << (rnd - 1))
            return empty & 0x3F
        return empty & 0x7FC0
    return empty


cdef inline int log(Game *g, int seat, int code, int allowed, int lines) noexcept nogil:
    if g.nact >= MAXA:
        return -1
    g.codes[g.nact] = code
    g.seats[g.nact] = seat
    g.allowed_log[g.nact] = allowed
    g.lines_log[g.nact] = lines
    g.nact += 1
    return 0


cdef int greedy_sheet(const Opts *o, const int *dice, int t, int allowed, int lines) noexcept nogil:
    """``GreedyBot.act`` in full and mixed: a code."""
    cdef int c[6]
    cdef int ln, v, best_now = -1, best_v = 0, target = -1, tv = 0, tk = 0, k, mask
    counts_of(dice, c)
    for ln in range(NLINES):
        if lines >> ln & 1:
            v = line_score(o, ln, c, t) + poker_bonus(o, ln, c)
            if best_now < 0 or v > best_v:
                best_now, best_v = ln, v
    if t >= 3 or not allowed:
        return WRITE + best_now
    for ln in range(NLINES):
        if lines >> ln & 1:
            v = base_score(ln, c) + poker_bonus(o, ln, c)
            k = popcount(keep_for(ln, dice, c))
            if target < 0 or v > tv or (v == tv and k > tk):
                target, tv, tk = ln, v, k
    mask = 31 & ~keep_for(target, dice, c) & allowed
    return mask if mask else WRITE + best_now


cdef int sheet_game(const Opts *o, Game *g, const int *bots, bitgen_t *bg) noexcept nogil:
    cdef int rnd, pos, seat, t, mask0, allowed, lines, code, nm, nl, k, s, o2, best
    cdef int dice[5]
    cdef int c[6]
    cdef int ssum
    for rnd in range(1, NLINES + 1):
        for pos in range(g.n):
            seat = (g.first + pos) % g.n
            if take(g, dice, 31) < 0:
                return -1
            t = 1
            mask0 = 0
            while True:
                allowed = 31 if t == 1 else ((mask0 if o.locked else 31) if t == 2 else 0)
                lines = allowed_lines(o, g, seat, rnd)
                if bots[seat] == 0:
                    nm = (1 << popcount(allowed)) - 1
                    nl = popcount(lines)
                    k = <int> bounded(bg, nm + nl)
                    code = nth_submask(allowed, k) if k < nm else WRITE + nth_bit(lines, k - nm)
                else:
                    code = greedy_sheet(o, dice, t, allowed, lines)
                if log(g, seat, code, allowed, lines) < 0:
                    return -2
                if code < STAND:
                    if take(g, dice, code) < 0:
                        return -1
                    if t == 1:
                        mask0 = code
                    t += 1
                    continue
                k = code - WRITE
                counts_of(dice, c)
                g.sheet[seat][k] = line_score(o, k, c, t)
                g.filled[seat] |= 1 << k
                g.pbonus[seat] += poker_bonus(o, k, c)
                break
            g.turns += 1
            g.throws += t
            g.seat_turns[seat] += 1
            g.seat_throws[seat] += t
    best = -1000000
    for s in range(g.n):
        ssum = 0
        for k in range(6):
            ssum += g.sheet[s][k]
        g.sbonus[s] = 0  # DP-5.5
        if ssum > 0 and (o.school == 0 or o.school == 2):
            g.sbonus[s] = 50
        elif ssum < 0 and (o.school == 1 or o.school == 2):
            g.sbonus[s] = -50
        g.totals[s] = g.sbonus[s] + g.pbonus[s]
        for k in range(NLINES):
            g.totals[s] += g.sheet[s][k]
        if g.totals[s] > best:
            best = g.totals[s]
    g.winners = 0
    for s in range(g.n):
        if g.totals[s] == best:
            g.winners |= 1 << s
        if o.pairwise:
            g.scores[s] = 0
            for o2 in range(g.n):
                g.scores[s] += (g.totals[s] > g.totals[o2]) - (g.totals[s] < g.totals[o2])
        else:
            g.scores[s] = g.totals[s]
    return 0


cdef int greedy_simple(const Opts *o, const Game *g, int seat, const int *dice, int allowed, bint last) noexcept nogil:
    cdef int c[6]
    cdef int s, mask
    cdef bint ahead = False
    cdef int64_t mine
    if allowed:
        mine = hand_key(dice, o.kickers)
        for s in range(g.n):
            if s != seat and g.has_hand[s]:
                if hand_key(g.hands[s], o.kickers) >= mine:
                    ahead = False
                    break
                ahead = True
        counts_of(dice, c)
        mask = 31 & ~simple_keep(dice, c) & allowed
        if mask and not (last and ahead):
            return mask
    return STAND


cdef int simple_game(const Opts *o, Game *g, const int *bots, bitgen_t *bg) noexcept nogil:
    cdef int order[MAXP]
    cdef int tied[MAXP]
    cdef int64_t keys[MAXP]
    cdef int norder = g.n, pos, seat, t, mask0, allowed, code, nm, k, s, o2, ntied, i
    cdef int dice[5]
    cdef int c[6]
    cdef int64_t best
    for i in range(g.n):
        order[i] = (g.first + i) % g.n
    g.stage = 0
    while True:
        for s in range(g.n):
            g.has_hand[s] = False
        for pos in range(norder):
            seat = order[pos]
            if take(g, dice, 31) < 0:
                return -1
            t = 1
            mask0 = 0
            while True:
                allowed = 31 if t == 1 else (mask0 if o.locked else 31)
                if bots[seat] == 0:
                    nm = (1 << popcount(allowed)) - 1
                    k = <int> bounded(bg, nm + 1)
                    code = nth_submask(allowed, k) if k < nm else STAND
                else:
                    code = greedy_simple(o, g, seat, dice, allowed, pos == norder - 1)
                if log(g, seat, code, allowed, -1) < 0:
                    return -2
                if code == STAND:
                    break
                if take(g, dice, code) < 0:
                    return -1
                if t == 1:
                    mask0 = code
                t += 1
                if t == 3:  # DP-2.2: the turn ends by itself after throw 3
                    break
            for i in range(5):
                g.hands[seat][i] = dice[i]
            g.has_hand[seat] = True
            g.turns += 1
            g.throws += t
            g.seat_turns[seat] += 1
            g.seat_throws[seat] += t
        # DP-4.4 / DP-4.5: the end of a stage
        best = -1
        for pos in range(norder):
            seat = order[pos]
            keys[seat] = hand_key(g.hands[seat], o.kickers)
            if keys[seat] > best:
                best = keys[seat]
        ntied = 0
        for pos in range(norder):
            if keys[order[pos]] == best:
                tied[ntied] = order[pos]
                ntied += 1
        if g.stage == 0:
            for s in range(g.n):
                counts_of(g.hands[s], c)
                g.cat0[s] = category(c)
        g.winners = 0
        for i in range(ntied):
            g.winners |= 1 << tied[i]
        if o.pairwise:
            for s in range(g.n):
                g.scores[s] = 0
                for o2 in range(g.n):
                    g.scores[s] += (keys[s] > keys[o2]) - (keys[s] < keys[o2])
            return 0
        if ntied == 1 or not o.rethrow or g.stage >= o.max_rethrows:
            for s in range(g.n):
                g.scores[s] = (g.n - ntied) if (g.winners >> s & 1) else -ntied
            return 0
        g.stage += 1
        norder = ntied
        for i in range(ntied):
            order[i] = tied[i]


cdef int run(const Opts *o, Game *g, const int *bots, bitgen_t *bg) noexcept nogil:
    cdef int s, k
    g.cur = 0
    g.nact = 0
    g.turns = 0
    g.throws = 0
    g.stage = 0
    g.winners = 0
    for s in range(g.n):
        g.filled[s] = 0
        g.pbonus[s] = 0
        g.sbonus[s] = 0
        g.totals[s] = 0
        g.seat_turns[s] = 0
        g.seat_throws[s] = 0
        g.scores[s] = 0
        g.cat0[s] = 0
        g.has_hand[s] = False
        for k in range(NLINES):
            g.sheet[s][k] = 0
    if o.preset == 0:
        return simple_game(o, g, bots, bg)
    return sheet_game(o, g, bots, bg)


# ------------------------------------------------------------------ Python side

CATEGORY_NAMES = ("none", "pair", "two_pairs", "three", "straight", "full_house", "four", "poker")  # rules.CATEGORIES
_NO_SHEET = (None,) * (1 + NLINES + 3)  # a simple game's seat row: no total, lines, school sum or bonuses


cdef void opts_of(Opts *o, tuple opts):
    (o.preset, o.locked, o.kickers, o.rethrow, o.max_rethrows, o.pairwise, o.ftd, o.poker_bonus, o.school,
     o.fixed) = opts


cdef int load(Game *g, tuple faces, int players, int first) except -1:
    cdef int i, n = len(faces)
    if not 1 <= players <= MAXP:
        raise ValueError("1..8 players")
    if n > MAXF:
        n = MAXF
    for i in range(n):
        g.faces[i] = faces[i]
    g.nfaces = n
    g.n = players
    g.first = first
    return 0


cdef int play_one(const Opts *o, Game *g, bots, rng) except -1:
    cdef int b[MAXP]
    cdef int s, rc
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    for s in range(g.n):
        b[s] = bots[s]
    with rng.bit_generator.lock:
        rc = run(o, g, b, bg)
    if rc == -1:
        raise RuntimeError("the game's faces ran out (the readable engine cannot go on either, DP-8)")
    if rc == -2:
        raise RuntimeError("more decisions than the kernel keeps")
    return 0


def play(rng, tuple faces, int players, int first, tuple opts, bots, bint trace=False):
    """Play the game of ``faces`` (its whole pre-drawn stream) with ``bots`` (per seat: 0 random, 1 greedy)
    drawing from ``rng``. Returns (codes, seats, legal) where ``legal`` is per decision (allowed re-roll
    mask, allowed lines as bits or -1 for ``stand``) when ``trace``, else None."""
    cdef Opts o
    cdef Game g
    cdef int i
    opts_of(&o, opts)
    load(&g, faces, players, first)
    play_one(&o, &g, bots, rng)
    codes = [g.codes[i] for i in range(g.nact)]
    seats = [g.seats[i] for i in range(g.nact)]
    legal = [(g.allowed_log[i], g.lines_log[i]) for i in range(g.nact)] if trace else None
    return codes, seats, legal


def rows(rng_at, tuple faces, int players, int first, tuple opts, rotations, str preset):
    """Per rotation r (its bots ``rotations[r]``, drawing from ``rng_at(r)``): the values of
    ``tables.deal_rows`` and ``tables.seat_rows`` for the finished one-game match."""
    cdef Opts o
    cdef Game g
    cdef int r, s, k, ssum
    cdef double tpt
    opts_of(&o, opts)
    load(&g, faces, players, first)
    out = []
    for r in range(len(rotations)):
        play_one(&o, &g, rotations[r], rng_at(r))
        winners = [s for s in range(players) if g.winners >> s & 1]
        seat_rows = []
        if o.preset == 0:
            cats = [CATEGORY_NAMES[g.cat0[s]] for s in range(players)]
            deal = (first, (preset, winners, g.turns, g.throws, g.stage, cats, None, None))
            for s in range(players):
                tpt = <double> g.seat_throws[s] / <double> (g.seat_turns[s] if g.seat_turns[s] else 1)
                seat_rows.append((g.scores[s], (g.winners >> s) & 1, tpt, cats[s], *_NO_SHEET))
        else:
            totals = [g.totals[s] for s in range(players)]
            deal = (first, (preset, winners, g.turns, g.throws, None, None, totals, max(totals)))
            for s in range(players):
                tpt = <double> g.seat_throws[s] / <double> (g.seat_turns[s] if g.seat_turns[s] else 1)
                ssum = 0
                for k in range(6):
                    ssum += g.sheet[s][k]
                seat_rows.append((g.scores[s], (g.winners >> s) & 1, tpt, None, g.totals[s],
                                  *[g.sheet[s][k] for k in range(NLINES)], ssum, g.sbonus[s], g.pbonus[s]))
        out.append(([deal], seat_rows))
    return out
