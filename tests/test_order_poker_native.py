"""The C paths of Order Poker (games/order_poker/fast/) against the readable Python engine and numpy.

* The kernel's OP-2 ranks equal the evaluator's on every hand; the fast path takes only tables of
  the plain random and heuristic bots (its parity with the readable engine: ``tests/test_fast_paths.py``),
  carrying each heuristic bot's bidding cache in and out, so its draws are the bot's whichever path
  played its earlier deals (a bot dealt the same cards again draws nothing, as in duplicate seating).
* The heuristic bot's C plan tables must equal the numpy formulas over ``plans.swap_plans`` /
  ``plans.pool_plans`` (the evaluator's ranks), the sampled reach the argsort formula.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from test_fast_paths import check_parity

from games.core import registry
from games.order_poker import COMBINATIONS, Rules, State
from games.order_poker.bots import RandomBot
from games.order_poker.fast import _plans as k
from games.order_poker.fast._rules import category_of
from games.order_poker.fast.playout import FAST
from games.order_poker.hands import combination
from games.order_poker.heuristic import HeuristicBot
from games.order_poker.plans import pool_plans, swap_plans
from games.order_poker.rules import DECK, NONE, PAIR, TWO_PAIR
from games.order_poker.tables import TABLES


def test_op_2_c_ranks_equal_the_evaluator_on_every_hand() -> None:
    counts: Counter[int] = Counter()
    for hand in combinations(DECK, 5):
        c = category_of(hand)
        assert c == combination(hand), hand
        counts[c] += 1
    # OP-2: the counts of 5-card hands of the 36-card deck, rank by rank.
    assert [counts[i] for i in range(9)] == [123420, 193536, 36288, 16128, 5100, 1728, 484, 288, 20]


def test_the_fast_path_declines_other_bots() -> None:
    """Only tables of plain random and heuristic bots go to the C play-out (heuristic seats: one parameter
    set, one bot each); the others play the readable loop."""

    class Subclass(RandomBot):
        """Not the plain random bot (it always takes the last legal action): no C kernel for it."""

        def act(self, view: Any, legal_actions: Any, rng: np.random.Generator) -> Any:
            return legal_actions[-1]

    entry = registry.game("order-poker")
    assert entry.fast_path(Rules(), [RandomBot()] * 3) is not None
    assert entry.fast_path(Rules(), [Subclass()] * 3) is None
    assert entry.fast_path(Rules(), [registry.make(f"order-poker/{n}") for n in ("heuristic", "random", "random")]) \
        is FAST

    class Stubborn(HeuristicBot):
        """Not the plain heuristic bot: no C kernel for it."""

    h = HeuristicBot()
    assert entry.fast_path(Rules(), [Stubborn(), RandomBot(), RandomBot()]) is None
    assert entry.fast_path(Rules(), [h, h, RandomBot()]) is None  # one cache, two seats: not the kernel's
    assert entry.fast_path(Rules(), [h, HeuristicBot(risk=0.2), RandomBot()]) is None  # two parameter sets
    assert entry.fast_path(Rules(), [h, HeuristicBot(), HeuristicBot()]) is FAST
    assert entry.fast_path(Rules(), [registry.make("order-poker/montecarlo"), h, RandomBot()]) is None
    st = State.deal(Rules(), 3, 0, np.random.default_rng(1))
    st.apply(st.legal_actions()[0])
    with pytest.raises(ValueError, match="fresh deal"):  # a kernel result only loads into a fresh deal
        FAST.play_out(st, [RandomBot()] * 3, np.random.default_rng(2))


def test_c_random_deals_under_other_rules_reach_every_end() -> None:
    """The generic parity check (tests/test_fast_paths.py) under non-default rules, and every way a deal ends."""
    entry = registry.game("order-poker")
    rules = Rules(max_exchange_rounds=3, against_half_min="two_pair")
    table = [("order-poker/random", p) for p in ({"pass_prob": 0.3, "keep_prob": 0.5}, {"pass_prob": 0.9},
                                                 {"keep_prob": 0.1}, {})]
    check_parity(entry, FAST, rules, table, deals=600)
    rng, bots = np.random.default_rng(3), [registry.make(n, dict(p)) for n, p in table]
    ended: Counter[str] = Counter()
    for d in range(600):
        st = State.deal(rules, 4, d % 4, rng)
        FAST.play_out(st, bots, rng)
        ended[st.end_rule] += 1
    assert set(ended) == {"OP-4", "OP-6.1", "OP-6.3", "OP-6.7", "OP-6.8"}


def _loop(st: State, bots: list[Any], rng: np.random.Generator) -> None:
    while not st.is_over():
        seat = st.to_act()
        st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))


def test_heuristic_caches_carry_over_deals_and_paths() -> None:
    """OP-3 bidding prices are cached per bot: a bot dealt the same hand and robot again draws nothing.
    Each deal is played twice with the same cards (as duplicate seating does), and the paths alternate
    (readable, C, C, readable...): records, generator states and the bots' caches stay equal."""
    rules = Rules()
    for players in (3, 5):
        fast_bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(), HeuristicBot()][:players]
        loop_bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(), HeuristicBot()][:players]
        deal_rng = np.random.default_rng(40 + players)
        fast_rng, loop_rng = np.random.default_rng(7), np.random.default_rng(7)
        for d in range(60):
            dealt = State.deal(rules, players, d % players, deal_rng)
            for again in range(2):
                fast, loop = dealt.copy(), dealt.copy()
                if (d + again) % 3:
                    FAST.play_out(fast, fast_bots, fast_rng)
                else:
                    _loop(fast, fast_bots, fast_rng)
                _loop(loop, loop_bots, loop_rng)
                assert fast.record() == loop.record(), (players, d, again)
                assert fast_rng.bit_generator.state == loop_rng.bit_generator.state, (players, d, again)
                for f, g in zip(fast_bots, loop_bots, strict=True):
                    if isinstance(f, HeuristicBot):
                        assert f._bid_key == g._bid_key
                        assert list(f._bid_info[0]) == list(g._bid_info[0])
                        assert np.array_equal(f._bid_info[1], g._bid_info[1])


def test_heuristic_rows_equal_the_readable_rows() -> None:
    """``play_rows`` (the summary kernel) of duplicate rotations with heuristic seats: the rows of the
    readable loop, rotation by rotation, and the same draws (each rotation's generator ends equal)."""
    rules, players = Rules(), 4
    fast_bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(keep_prob=0.3)]
    loop_bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(keep_prob=0.3)]
    # every seating twice in a row: the second time each heuristic bot holds the same cards again
    seatings = [[(r + s) % players for s in range(players)] for r in range(players) for _ in range(2)]
    deal_rng = np.random.default_rng(5)
    for d in range(40):
        dealt = State.deal(rules, players, d % players, deal_rng)
        fast_gens = [np.random.default_rng(1000 * d + r) for r in range(len(seatings))]
        loop_gens = [np.random.default_rng(1000 * d + r) for r in range(len(seatings))]
        rows = FAST.play_rows(dealt, TABLES, [[fast_bots[b] for b in p] for p in seatings], fast_gens.__getitem__)
        for r, p in enumerate(seatings):
            st = dealt.copy()
            _loop(st, [loop_bots[b] for b in p], loop_gens[r])
            assert rows[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), (d, r)
            assert fast_gens[r].bit_generator.state == loop_gens[r].bit_generator.state, (d, r)


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
