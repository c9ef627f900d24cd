"""One turn of the score-sheet game, solved exactly over dice multisets (DP-2, DP-5).

A turn's value depends on the sheet only through the *write values*: ``WV1[ms]`` and ``WV23[ms]``,
the best (score of a line + value of the sheet after writing it) for the final multiset ``ms`` after
throw 1 (doubling, DP-5.3) and after throw 2 or 3. Given them, backward induction over the turn:

* throw 3: ``W3 = WV23``; keeping ``K`` (at most 4 dice) before it is worth
  ``E3[K] = sum_o P(o) W3[K + o]`` over the re-rolled dice's outcomes ``o``;
* throw 2: under ``free`` (DP-2.3) ``W2[ms] = max(WV23[ms], max_{K < ms} E3[K])``; under ``locked``
  the dice kept at the first re-roll (``K1``) stay kept, so the state is ``(K1, N)`` (``N`` the new
  faces) and ``W2[K1, N] = max(WV23[K1 + N], max_{S < N} E3[K1 + S])``; ``E2`` is its expectation;
* throw 1: ``W1[ms] = max(WV1[ms], max_{K < ms} E2[K])`` and the turn is worth ``sum P(ms) W1[ms]``.

(``<`` is "a proper sub-multiset": a re-roll re-rolls at least one die, DP-2.4.) The maxima over
sub-multisets are computed by removing one die at a time (``M[X] = max(E[X], max_d M[X - d])``), so
each entry looks at five others at most. Every array is batched over the rows of many sheet states.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from games.core.dice import FACES, multiset_probability

Ms = tuple[int, ...]
NEG = -1e18


def _sub(ms: Ms, d: int) -> Ms:
    i = ms.index(d)
    return ms[:i] + ms[i + 1:]


def _add(a: Ms, b: Ms) -> Ms:
    return tuple(sorted(a + b))


@dataclass(frozen=True)
class Tables:
    """Index tables over multisets (built once)."""

    ms5: list[Ms]                # the 252 multisets of five dice
    kept: list[Ms]               # the 210 multisets of 0..4 dice (what a re-roll keeps)
    kidx: dict[Ms, int]
    midx: dict[Ms, int]
    counts: np.ndarray           # [252, 6] face counts
    p1: np.ndarray               # [252] throw-1 probabilities
    # E3[K] = sum over (K, o) pairs; pairs sorted by K: ``o_ms`` is the final multiset, ``o_p`` its chance
    o_ms: np.ndarray
    o_p: np.ndarray
    o_start: np.ndarray          # first pair of each K (for np.add.reduceat)
    # submax over kept multisets: by size, ``k_drop[x]`` = x minus one distinct die (pad: the NEG slot 210)
    k_levels: list[np.ndarray]
    k_drop: np.ndarray           # [210, 5]
    ms_drop: np.ndarray          # [252, 5]: ms minus one distinct die, a kept index
    # locked: pairs (K1, X), |K1| + |X| <= 4, and the throw-2 states (K1, N), |K1| + |N| = 5
    pairs: list[tuple[Ms, Ms]]
    pidx: dict[tuple[Ms, Ms], int]
    p_e3: np.ndarray             # [pairs] kept index of K1 + X
    p_levels: list[np.ndarray]   # pairs by |X|
    p_drop: np.ndarray           # [pairs, 5] pair index of (K1, X - d) (pad: NEG slot)
    l_states: list[tuple[Ms, Ms]]
    l_ms: np.ndarray             # [4116] final multiset index of K1 + N
    l_p: np.ndarray              # P(N)
    l_drop: np.ndarray           # [4116, 5] pair index of (K1, N - d) (pad: NEG slot)
    l_start: np.ndarray          # first state of each K1 (states sorted by K1 index)
    l_index: dict[tuple[Ms, Ms], int]


def _drops(x: Ms, index: dict[Ms, int], pad: int) -> list[int]:
    out = [index[_sub(x, d)] for d in sorted(set(x))]
    return out + [pad] * (5 - len(out))


@cache
def tables() -> Tables:
    """The multiset index tables (a fraction of a second, once per process)."""
    faces = range(1, FACES + 1)
    ms5: list[Ms] = list(combinations_with_replacement(faces, 5))
    midx: dict[Ms, int] = {m: i for i, m in enumerate(ms5)}
    kept = [m for k in range(5) for m in combinations_with_replacement(faces, k)]
    kidx = {m: i for i, m in enumerate(kept)}
    nk = len(kept)
    counts = np.array([[m.count(f) for f in faces] for m in ms5], dtype=np.int64)
    p1 = np.array([float(multiset_probability(m)) for m in ms5])
    o_ms: list[int] = []
    o_p: list[float] = []
    o_start: list[int] = []
    for k in kept:
        o_start.append(len(o_ms))
        for o in combinations_with_replacement(faces, 5 - len(k)):
            o_ms.append(midx[_add(k, o)])
            o_p.append(float(multiset_probability(o)))
    k_levels = [np.array([kidx[m] for m in kept if len(m) == s]) for s in range(5)]
    k_drop = np.array([_drops(m, kidx, nk) if m else [nk] * 5 for m in kept])
    ms_drop = np.array([_drops(m, kidx, nk) for m in ms5])
    pairs = [(k1, x) for k1 in kept for s in range(5 - len(k1)) for x in combinations_with_replacement(faces, s)]
    pidx = {p: i for i, p in enumerate(pairs)}
    npairs = len(pairs)
    p_e3 = np.array([kidx[_add(k1, x)] for k1, x in pairs])
    p_levels = [np.array([i for i, (_, x) in enumerate(pairs) if len(x) == s]) for s in range(5)]
    p_drop = np.array([[pidx[(k1, _sub(x, d))] for d in sorted(set(x))] + [npairs] * (5 - len(set(x)))
                       for k1, x in pairs])
    l_states = [(k1, n) for k1 in kept for n in combinations_with_replacement(faces, 5 - len(k1))]
    l_index = {s: i for i, s in enumerate(l_states)}
    l_ms = np.array([midx[_add(k1, n)] for k1, n in l_states])
    l_p = np.array([float(multiset_probability(n)) for _, n in l_states])
    l_drop = np.array([[pidx[(k1, _sub(n, d))] for d in sorted(set(n))] + [npairs] * (5 - len(set(n)))
                       for k1, n in l_states])
    l_start, last = [], None
    for i, (k1, _) in enumerate(l_states):
        if k1 != last:
            l_start.append(i)
            last = k1
    return Tables(ms5, kept, kidx, midx, counts, p1, np.array(o_ms), np.array(o_p), np.array(o_start),
                  k_levels, k_drop, ms_drop, pairs, pidx, p_e3, p_levels, p_drop, l_states, l_ms, l_p, l_drop,
                  np.array(l_start), l_index)


def _pad(a: np.ndarray) -> np.ndarray:
    return np.concatenate([a, np.full((a.shape[0], 1), NEG)], axis=1)


def expect_kept(t: Tables, w: np.ndarray) -> np.ndarray:
    """``E[K] = sum_o P(o) w[K + o]`` for every kept multiset K: [B, 252] -> [B, 210]."""
    out: np.ndarray = np.add.reduceat(w[:, t.o_ms] * t.o_p, t.o_start, axis=1)
    return out


def submax_kept(t: Tables, e: np.ndarray) -> np.ndarray:
    """``M[X] = max over S <= X of e[S]`` for every kept X ([B, 210] -> [B, 211], the last column NEG)."""
    m = _pad(e)
    for level in t.k_levels[1:]:
        m[:, level] = np.maximum(e[:, level], m[:, t.k_drop[level]].max(axis=2))
    return m


def proper_submax(t: Tables, m: np.ndarray) -> np.ndarray:
    """``max over K < ms of e[K]`` for every five-dice multiset, from ``submax_kept``'s M."""
    out: np.ndarray = m[:, t.ms_drop].max(axis=2)
    return out


def locked_w2(t: Tables, wv23: np.ndarray, e3: np.ndarray) -> np.ndarray:
    """``W2[K1, N]`` of every throw-2 state under ``locked`` ([B, 4116])."""
    m = np.concatenate([e3[:, t.p_e3], np.full((e3.shape[0], 1), NEG)], axis=1)
    for level in t.p_levels[1:]:
        m[:, level] = np.maximum(m[:, level], m[:, t.p_drop[level]].max(axis=2))
    out: np.ndarray = np.maximum(wv23[:, t.l_ms], m[:, t.l_drop].max(axis=2))
    return out


@dataclass
class TurnValues:
    """The arrays of one batch of turns (kept for a bot's decisions)."""

    e3: np.ndarray   # [B, 210] keeping K before throw 3
    e2: np.ndarray   # [B, 210] keeping K before throw 2
    value: np.ndarray  # [B] the turn's expected value


def solve_turn(wv1: np.ndarray, wv23: np.ndarray, locked: bool) -> TurnValues:
    """Backward induction over one turn for a batch of write-value rows (module docstring)."""
    t = tables()
    e3 = expect_kept(t, wv23)
    if locked:
        w2 = locked_w2(t, wv23, e3)
        e2 = np.add.reduceat(w2 * t.l_p, t.l_start, axis=1)
    else:
        w2 = np.maximum(wv23, proper_submax(t, submax_kept(t, e3)))
        e2 = expect_kept(t, w2)
    w1 = np.maximum(wv1, proper_submax(t, submax_kept(t, e2)))
    return TurnValues(e3, e2, w1 @ t.p1)


def turn_values(wv1: np.ndarray, wv23: np.ndarray, locked: bool) -> np.ndarray:
    """The expected value of every row's turn (``solve_turn(...).value``), by the compiled kernel
    (games/dice_poker/fast/_turn.pyx) when it is built, else by numpy; the two agree (tested)."""
    try:
        from games.dice_poker.fast._turn import turn_values as kernel
    except ImportError:  # not built (a source checkout without build_ext): the readable numpy path
        return solve_turn(wv1, wv23, locked).value
    t = tables()
    out = np.empty(len(wv1))
    kernel(np.ascontiguousarray(wv1, dtype=np.float64), np.ascontiguousarray(wv23, dtype=np.float64), locked,
           t.o_ms, t.o_p, t.o_start, t.k_drop, t.ms_drop, t.p1, t.p_e3, t.p_drop, t.l_ms, t.l_p, t.l_drop,
           t.l_start, out)
    return out


def turn_keeps(wv1: np.ndarray, wv23: np.ndarray, locked: bool) -> TurnValues:
    """``solve_turn`` by the compiled kernel when it is built (the bot's per-turn arrays)."""
    try:
        from games.dice_poker.fast._turn import turn_values as kernel
    except ImportError:
        return solve_turn(wv1, wv23, locked)
    t = tables()
    out = np.empty(len(wv1))
    e3 = np.empty((len(wv1), len(t.kept)))
    e2 = np.empty_like(e3)
    kernel(np.ascontiguousarray(wv1, dtype=np.float64), np.ascontiguousarray(wv23, dtype=np.float64), locked,
           t.o_ms, t.o_p, t.o_start, t.k_drop, t.ms_drop, t.p1, t.p_e3, t.p_drop, t.l_ms, t.l_p, t.l_drop,
           t.l_start, out, e3, e2)
    return TurnValues(e3, e2, out)
