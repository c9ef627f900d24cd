"""The double-dummy solver (games/raspisnoy/fast/_dd.pyx) against brute-force minimax over the readable
trick rules (games.core.tricks, R-4.6, R-4.7) on every 3- and 4-card ending of a few hundred random deals.

The brute force enumerates every legal play of every seat (no pruning, no move reduction); it
memoises only whole positions at trick boundaries, which changes no value. The payoffs are random
integers per trick count (not monotone), so the root's aim to take exactly some number of tricks is
tested as well as taking many or few.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest

from games.core.tricks import Play, TrickRules, legal_plays, trick_winner
from games.raspisnoy.dd import Solver, move_codes, move_values, probe, solve_value
from games.raspisnoy.rules import CLASSIC, ODESSA, Rules
from games.raspisnoy.state import Deal, State


def brute(hands: list[frozenset[int]], trick: tuple[Play, ...], leader: int, trump: int | None, tr: TrickRules,
          root: int, payoff: Sequence[int], taken: int, memo: dict[tuple[object, ...], int]) -> int:
    """Minimax: root maximises payoff[tricks], the others minimise; every legal play tried."""
    n = len(hands)
    if not trick:
        if not hands[leader]:
            return payoff[taken]
        key = (tuple(hands), leader, taken)
        if key in memo:
            return memo[key]
    seat = (leader + len(trick)) % n
    vals = []
    for p in legal_plays(hands[seat], seat, list(trick), trump, tr):
        h2 = list(hands)
        h2[seat] = hands[seat] - {p.card}
        t2 = (*trick, p)
        if len(t2) == n:
            w = t2[trick_winner(t2, trump, tr)].seat  # type: ignore[index]
            vals.append(brute(h2, (), w, trump, tr, root, payoff, taken + (w == root), memo))
        else:
            vals.append(brute(h2, t2, leader, trump, tr, root, payoff, taken, memo))
    v = max(vals) if seat == root else min(vals)
    if not trick:
        memo[(tuple(hands), leader, taken)] = v
    return v


def brute_moves(d: Deal, payoff: Sequence[int]) -> dict[str, int]:
    """The brute-force value of every legal token of the seat to act."""
    root = d.to_act()
    hands = [frozenset(h) for h in d.hands]
    out = {}
    for p in legal_plays(hands[root], root, d.trick, d.trump, d.trules):
        h2 = list(hands)
        h2[root] = hands[root] - {p.card}
        t2 = (*d.trick, p)
        memo: dict[tuple[object, ...], int] = {}
        if len(t2) == d.n:
            w = t2[trick_winner(t2, d.trump, d.trules)].seat  # type: ignore[index]
            v = brute(h2, (), w, d.trump, d.trules, root, payoff, d.taken[root] + (w == root), memo)
        else:
            v = brute(h2, t2, d.leader, d.trump, d.trules, root, payoff, d.taken[root], memo)
        out["play:" + str(p)] = v
    return out


VARIANTS: list[tuple[str, Rules, int]] = [
    ("classic-3", CLASSIC, 3), ("classic-4", CLASSIC, 4), ("odessa-3", ODESSA, 3), ("odessa-4", ODESSA, 4),
    ("odessa-2jokers-3", dataclasses.replace(ODESSA, jokers=2), 3),
    ("classic-rotating-3", dataclasses.replace(CLASSIC, rotating_trumps=True), 3),
    ("classic-nomust-3", dataclasses.replace(CLASSIC, must_trump=False), 3),
    ("odessa-5", ODESSA, 5),
]


def _endings(rules: Rules, players: int, seed: int, deals: int) -> list[tuple[Deal, int]]:
    """Positions of random deals (k >= 4) played at random down to 4 and to 3 cards per hand, at the trick
    boundary and after one or two plays of the trick (ending size 4 only for up to 4 players)."""
    rng = np.random.default_rng(seed)
    out: list[tuple[Deal, int]] = []
    st = State.deal(rules, players, rng)
    while len({id(d) for d, _ in out}) < deals * 2 and not st.is_over():
        d = st.current
        if d.bidding_open or d.k < 4:
            st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
            continue
        left = len(d.hands[d.to_act()]) if not d.trick else -1
        sizes = (3, 4) if players <= 4 else (3,)
        if left in sizes and not d.trick:
            extra = int(rng.integers(0, min(3, players)))
            c = d.copy()
            for _ in range(extra):
                la = c.legal()
                c.try_apply(la[int(rng.integers(len(la)))])
            out.append((c, left))
        st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
    return out


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_solver_equals_brute_force_on_endings(name: str, rules: Rules, players: int) -> None:
    solver = Solver()
    rng = np.random.default_rng(len(name))
    checked = {3: 0, 4: 0}
    seed = 0
    while sum(checked.values()) < 60:
        for d, size in _endings(rules, players, seed, 30):
            root = d.to_act()
            payoff = [int(x) for x in rng.integers(-50, 51, size=d.k + 1)]
            hands = [sorted(h) for h in d.hands]
            memo: dict[tuple[object, ...], int] = {}
            want = brute([frozenset(h) for h in d.hands], tuple(d.trick), d.leader, d.trump, d.trules, root, payoff,
                         d.taken[root], memo)
            assert solve_value(solver, d, hands, root, payoff) == want
            other = (root + 1) % players  # the value for a seat that is not to act
            memo = {}
            want_other = brute([frozenset(h) for h in d.hands], tuple(d.trick), d.leader, d.trump, d.trules, other,
                               payoff, d.taken[other], memo)
            assert solve_value(solver, d, hands, other, payoff) == want_other
            assert move_values(solver, d, hands, payoff) == brute_moves(d, payoff)
            checked[size] += 1
        seed += 1
    assert checked[3] > 0 and (players > 4 or checked[4] > 0)


def test_a_small_known_position() -> None:
    """Two players, classic, trump diamonds: [7s 6h] against [Kd Ah], payoff 10 per trick.
    6h loses to Ah, then the joker beats Kd: 1 trick; joker by-trumps, then 6h to Ah: 1; plain 7s
    (a spade) is trumped by Kd, then Ah takes 6h: 0."""
    from games.core.cards import card_id as c

    s = Solver()
    got = s.moves([[c("7s"), c("6h")], [c("Kd"), c("Ah")]], [], 0, 1, (False, True, True, False, False, [c("7s")]),
                  0, [0, 10, 20])
    assert sorted(got) == sorted([(c("6h"), 0, -1, 10), (c("7s"), 1, 1, 10), (c("7s"), 3, -1, 0)])


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS[:3], ids=[v[0] for v in VARIANTS[:3]])
def test_probe_bounds_the_exact_values(name: str, rules: Rules, players: int) -> None:
    """``probe`` (one fail-soft null-window test) at the brute-force value ``v`` of a move returns at least
    ``v``, at ``v + 1`` at most ``v``; likewise at the position itself (code -1)."""
    solver = Solver()
    rng = np.random.default_rng(len(name) + 7)
    checked = 0
    for d, _ in _endings(rules, players, 3, 30):
        root = d.to_act()
        payoff = [int(x) for x in rng.integers(-50, 51, size=d.k + 1)]
        hands = [sorted(h) for h in d.hands]
        want = brute_moves(d, payoff)
        for tok, code in move_codes(solver, d, hands, payoff).items():
            assert probe(solver, d, hands, root, payoff, code, want[tok]) >= want[tok]
            assert probe(solver, d, hands, root, payoff, code, want[tok] + 1) <= want[tok]
        best = max(want.values())
        assert probe(solver, d, hands, root, payoff, -1, best) >= best
        assert probe(solver, d, hands, root, payoff, -1, best + 1) <= best
        checked += 1
    assert checked > 20
