"""The C hot paths of Order Poker (ext/_orderpoker) against the readable Python engine and numpy.

* ``State.play_out`` with random bots runs the deal in C: the records and the generator's
  state afterwards must equal the view -> act -> apply loop's, action for action.
* The heuristic bot's C plan tables must equal the numpy formulas over ``plans.swap_plans`` /
  ``plans.pool_plans`` (the evaluator's ranks), the sampled reach the argsort formula.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from ext import _orderpoker as k
from games.core import registry
from games.order_poker import COMBINATIONS, Rules, State
from games.order_poker.bots import RandomBot
from games.order_poker.plans import pool_plans, swap_plans
from games.order_poker.rules import DECK, NONE, PAIR, TWO_PAIR
from games.order_poker.state import combination


def test_op_2_c_ranks_equal_the_evaluator_on_every_hand() -> None:
    counts: Counter[int] = Counter()
    for hand in combinations(DECK, 5):
        c = k.category_of(hand)
        assert c == combination(hand), hand
        counts[c] += 1
    # OP-2: the counts of 5-card hands of the 36-card deck, rank by rank.
    assert [counts[i] for i in range(9)] == [123420, 193536, 36288, 16128, 5100, 1728, 484, 288, 20]


def loop(players: int, deals: int, seed: int, params: list[dict[str, Any]], rules: Rules,
         native: bool) -> tuple[list[dict[str, Any]], float]:
    bots = [registry.make("order-poker/random", p) for p in params]
    rng = np.random.default_rng(seed)
    records = []
    for d in range(deals):
        st = State.deal(rules, players, d % players, rng)
        if native:
            st.play_out(bots, rng)
        else:
            while not st.is_over():
                s = st.to_act()
                st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
        records.append(st.record())
    return records, float(rng.random())  # the next draw: both paths drew the same numbers


@pytest.mark.parametrize("players, params, rules", [
    (3, [{}] * 3, Rules()),
    (4, [{}] * 4, Rules()),
    (5, [{}] * 5, Rules()),
    (6, [{}] * 6, Rules()),
    (4, [{"pass_prob": 0.3, "keep_prob": 0.5}, {"pass_prob": 0.9}, {"keep_prob": 0.1},
         {"pass_prob": 0.0, "keep_prob": 0.0}], Rules(max_exchange_rounds=3, against_half_min="two_pair")),
    (3, [{"pass_prob": 1.0}, {"pass_prob": 1.0}, {"pass_prob": 1.0}], Rules()),  # OP-4 every deal
])
def test_c_random_deals_equal_the_python_loop(players: int, params: list[dict[str, Any]], rules: Rules) -> None:
    python = loop(players, 600, 17 + players, params, rules, native=False)
    native = loop(players, 600, 17 + players, params, rules, native=True)
    assert python == native
    ended = Counter(r["outcome"]["ended_by"] for r in native[0])
    if params[0].get("pass_prob") == 1.0:
        assert ended == {"OP-4": 600}
    else:  # the C path reached every way a deal ends (OP-4 only if every seat may pass)
        assert set(ended) >= {"OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8"}
        assert ("OP-4" in ended) == all(p.get("pass_prob", 0.6) > 0 for p in params)


def test_play_out_leaves_other_bots_to_the_python_loop() -> None:
    class Subclass(RandomBot):
        """Not the plain random bot (it always takes the last legal action): no C kernel for it."""

        def act(self, view: Any, legal_actions: Any, rng: np.random.Generator) -> Any:
            return legal_actions[-1]

    def table(sub: bool) -> list[Any]:  # fresh bots per path: the heuristic caches its bid pricing
        return [Subclass() for _ in range(3)] if sub else \
            [registry.make(f"order-poker/{n}") for n in ("heuristic", "random", "random")]

    for sub in (False, True):
        a, b = np.random.default_rng(5), np.random.default_rng(5)
        bots_a, bots_b = table(sub), table(sub)
        for d in range(30):
            s1 = State.deal(Rules(), 3, d % 3, a)
            s1.play_out(bots_a, a)
            s2 = State.deal(Rules(), 3, d % 3, b)
            while not s2.is_over():
                s = s2.to_act()
                s2.apply(bots_b[s].act(s2.view(s), s2.legal_actions(), b))
            assert s1.record() == s2.record()
    st = State.deal(Rules(), 3, 0, np.random.default_rng(1))
    st.apply(st.legal_actions()[0])
    st.play_out([RandomBot()] * 3, np.random.default_rng(2))  # not fresh: the Python loop finishes it
    assert st.is_over()


# ---------------------------------------------------------------- the heuristic's plan tables
def random_hands(n: int, seed: int) -> list[tuple[list[int], list[int], list[int]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cards = (rng.permutation(36)[:15] + 16).tolist()
        out.append((cards[:5], cards[5:10], cards[10:]))
    return out


def test_split_costs_equal_the_numpy_tables() -> None:
    for hand, robot, _ in random_hands(150, 1):
        p = swap_plans(hand, robot)
        for rc in (NONE, PAIR, TWO_PAIR, combination(robot)):
            ok = (p.robot >= rc) | (rc == NONE)
            own, match = k.split_costs(hand, robot, rc)
            for c in range(9):
                m = ok & (p.mine == c)
                assert own[c] == (int(p.cost[m].min()) if m.any() else 99)
                m &= p.robot == c
                assert match[c] == (int(p.cost[m].min()) if m.any() else 99)


def test_opponent_target_equals_the_numpy_argmax() -> None:
    for i, (hand, robot, _) in enumerate(random_hands(200, 2)):
        order, rc, stake = 2 + i % 7, combination(robot), 1 + i % 8
        against, half_min, cont = i % 2 == 0, PAIR + i % 3 // 2, 0.6
        p = swap_plans(hand, robot)
        ok = (p.robot >= rc) | (rc == NONE)
        value = np.where(p.mine == order, float(stake) * (1.0 if against else 0.7), 0.0)
        if against:
            match = (p.mine != order) & (p.mine == p.robot) & (p.mine >= half_min)
            value = np.where(match, float((stake + 1) // 2), value)
        cost = p.cost.astype(np.float64)
        disc = np.where(cost == 0, 1.0, cont ** np.maximum(cost - 1, 0))
        score = np.where(ok, value * disc, -1.0) - 1e-3 * cost
        best = int(np.argmax(score))
        expected = None if p.cost[best] == 0 or score[best] <= 0 else p.pool[p.subsets[best]].tolist()
        got = k.opponent_target(hand, robot, order, rc, float(stake) * (1.0 if against else 0.7),
                                float((stake + 1) // 2) if against else -1.0, half_min, cont)
        assert got == expected


def test_cheapest_plan_equals_the_numpy_argmin() -> None:
    found = 0
    for i, (hand, robot, open_hand) in enumerate(random_hands(60, 3)):
        for other in (robot, robot + open_hand):
            order = 1 + i % 8
            pool, subs, cats, cost = pool_plans(hand, other)
            hit = np.flatnonzero(cats == order)
            got = k.cheapest_plan(hand, other, order)
            if not len(hit):
                assert got is None
                continue
            total = cost[hit] + 0.01 * (subs[hit] >= 10).sum(axis=1)
            j = int(np.argmin(total))
            assert got == (float(total[j]), pool[subs[hit[j]]].tolist())
            found += 1
    assert found > 30


def test_one_swap_reach_equals_the_argsort_formula() -> None:
    hand, robot, _ = random_hands(1, 4)[0]
    unknown = np.asarray([c for c in DECK if c not in hand + robot], dtype=np.uint8)
    keys = np.random.default_rng(9).random((300, len(unknown)))
    got = np.empty(9)
    k.one_swap_reach(unknown, robot, keys, got)
    picks = np.argsort(keys, axis=1)[:, :5]
    hit = np.zeros((300, 9), dtype=bool)
    for s, row in enumerate(picks):
        h = unknown[row].tolist()
        hit[s, combination(h)] = True
        for i in range(5):
            for j in range(5):
                hit[s, combination([robot[j] if x == i else h[x] for x in range(5)])] = True
    assert got.tolist() == hit.mean(axis=0).tolist()
    assert got[COMBINATIONS.index("pair")] > 0.5
