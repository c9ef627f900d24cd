"""``order-poker/montecarlo``'s C play-outs decide as its readable play-outs (issue 30 item 3).

``MonteCarloBot`` plays its candidates out in C (``games/order_poker/fast/_rollout.pyx``: the
heuristic policy over the rules kernel, OP-3 to OP-7); ``MonteCarloBot(readable=True)`` plays them
through ``State`` and ``HeuristicBot``. Both bots are asked every decision of whole deals, each with
its own generator in the same state: the chosen actions and the generators afterwards must be equal
(the same draws, in the same order), and so must the bots' per-seat bidding caches, which carry over
from one decision to the next.
"""

from __future__ import annotations

import numpy as np
import pytest

from games.order_poker import Rules, State
from games.order_poker.bots import RandomBot
from games.order_poker.fast._rollout import Rollouts
from games.order_poker.heuristic import HeuristicBot
from games.order_poker.montecarlo import MonteCarloBot, encode


def _compare(players: int, rules: Rules, deals: int, seed: int, samples: int, candidates: int,
             seed_in_c: bool = True) -> int:
    fast = MonteCarloBot(samples=samples, candidates=candidates)
    if not seed_in_c:  # numpy's own play-out generators, sampled in Python: the fallback path
        p = fast._playout_bots[0]
        fast._rollouts = Rollouts(p.loss, p.cont, p.p_ord, p.spite, p.threshold, p.samples, seed_in_c=False)
    assert fast._rollouts.direct_seeding == seed_in_c
    ref = MonteCarloBot(samples=samples, candidates=candidates, readable=True)
    others: list[HeuristicBot | RandomBot] = [HeuristicBot(), RandomBot()]
    rng = np.random.default_rng(seed)
    decisions = 0
    for d in range(deals):
        st = State.deal(rules, players, d % players, rng)
        mc_seat = d % players  # the bot under test plays every seat in turn
        while not st.is_over():
            s = st.to_act()
            view, legal = st.view(s), st.legal_actions()
            if s == mc_seat or (s + 2) % players == mc_seat:  # two seats of the table: both caches used
                r1 = np.random.default_rng(seed * 1000 + len(st.actions) + 7 * d)
                r2 = np.random.default_rng(seed * 1000 + len(st.actions) + 7 * d)
                a_ref = ref.act(view, legal, r1)
                a_fast = fast.act(st.view(s), legal, r2)
                assert a_fast == a_ref, (d, len(st.actions))
                assert r1.bit_generator.state == r2.bit_generator.state
                decisions += len(legal) > 1
                a = a_ref
            else:
                a = others[s % 2].act(view, legal, rng)
            st.apply(a)
    return decisions


@pytest.mark.parametrize("players,rules,seed", [
    (4, Rules(), 1),
    (3, Rules(max_exchange_rounds=3), 2),
    (5, Rules(against_half_min="two_pair"), 3),
    (6, Rules(max_exchange_rounds=2), 4),
])
def test_same_decisions_as_the_readable_playouts(players: int, rules: Rules, seed: int) -> None:
    assert _compare(players, rules, deals=6, seed=seed, samples=3, candidates=5) >= 20


def test_same_decisions_without_seeding_in_c() -> None:
    """Where numpy's PCG64 layout is not the one ``_rollout`` knows, generators come from numpy: same
    decisions too (forced here)."""
    assert _compare(4, Rules(), deals=4, seed=5, samples=3, candidates=4, seed_in_c=False) >= 10


def test_same_decisions_default_parameters() -> None:
    """The registry's defaults (12 samples, 4 candidates), many decisions of one table."""
    assert _compare(4, Rules(), deals=4, seed=11, samples=12, candidates=4) >= 10


def test_encode_codes() -> None:
    """The kernel's codes (kernel.pxd): pass 0, an order its OP-2 rank, for 9, against 10, keep 11,
    stop 12, a swap 13 with its cards, source (-1: the robot) and seat."""
    from games.order_poker.actions import SIMPLE, swap

    acts = [SIMPLE[13 * 2 + k] for k in range(13)] + [swap(1, 16, 20), swap(3, 17, 21, 0)]
    out = encode(acts).reshape(-1, 5).tolist()
    assert [r[0] for r in out] == [*range(13), 13, 13]
    assert all(r[4] == 2 for r in out[:13])
    assert out[13] == [13, 16, 20, -1, 1] and out[14] == [13, 17, 21, 0, 3]


def test_rollouts_refuse_actions_of_another_deal() -> None:
    """A public action that cannot apply to the sampled cards is an error, not a silent play-out."""
    from games.order_poker.actions import SIMPLE

    r = Rollouts(1.0, 0.6, 0.7, 0.25, 0.1, 32)
    hands = [[16 + 5 * i + k for k in range(5)] for i in range(4)]
    robot = [36, 37, 38, 39, 40]
    wrong_seat = encode([SIMPLE[13 * 3]])  # seat 3 passes, but seat 1 bids first (dealer 0, OP-3.1)
    with pytest.raises(ValueError, match="public actions do not apply"):
        r.add_totals(1, hands, robot, 0, 12, 1, wrong_seat, encode([SIMPLE[13]]), 1, np.zeros(1))
    with pytest.raises(ValueError, match="public actions do not apply"):
        r.sample_totals(np.random.default_rng(1), 2, hands, [], [41, 42], robot, 0, 12, 1, wrong_seat,
                        encode([SIMPLE[13]]), 1, np.zeros(1))


def test_a_pickled_bot_decides_as_the_original() -> None:
    """A copy (pickle, deepcopy) carries each seat's bidding cache: the copy and the original go on
    making the same decisions with the same draws."""
    import copy
    import pickle

    bot = MonteCarloBot(samples=3, candidates=4)
    rng = np.random.default_rng(8)
    st = State.deal(Rules(), 4, 0, rng)
    others = HeuristicBot()
    copies: list[MonteCarloBot] = []
    while not st.is_over():
        s = st.to_act()
        legal = st.legal_actions()
        if s == 1:
            if not copies and len(st.actions) >= 4:  # after a few decisions: the caches hold something
                copies = [pickle.loads(pickle.dumps(bot)), copy.deepcopy(bot)]
            seeds = np.random.default_rng(len(st.actions)).integers(1 << 30, size=3).tolist()
            a = bot.act(st.view(s), legal, np.random.default_rng(seeds[0]))
            for c in copies:
                assert c.act(st.view(s), legal, np.random.default_rng(seeds[0])) == a
        else:
            a = others.act(st.view(s), legal, rng)
        st.apply(a)


def _pools(rng: np.random.Generator, n: int) -> list[list[int]]:
    """``n`` sets of 15 distinct cards of the 36-card deck: a third uniform, a third rich in one suit
    (flushes, straight flushes), a third rich in six consecutive ranks (straights)."""
    deck = list(range(16, 52))
    out = []
    for t in range(n):
        if t % 3 == 0:
            favoured = deck
        elif t % 3 == 1:
            suit = int(rng.integers(4))
            favoured = [c for c in deck if c % 4 == suit or rng.random() < 0.3]
        else:
            lo = int(rng.integers(4, 9))
            favoured = [c for c in deck if lo <= c // 4 <= lo + 5 or rng.random() < 0.2]
        cards = [int(c) for c in rng.permutation(favoured)[:15]]
        rest = [c for c in deck if c not in cards]
        cards += [int(c) for c in rng.permutation(rest)[:15 - len(cards)]]
        out.append(cards)
    return out


def test_plan_searches_answer_as_the_plans_kernel() -> None:
    """The play-outs' plan searches take shortcuts (cheapest price first, pools that lack the order's
    cards, only the splits that can beat keeping, the kept cards counted once); on random pools they
    answer exactly as ``_plans``' full scans (the readable ``HeuristicBot``'s kernels), ties included."""
    from games.order_poker.fast import _plans
    from games.order_poker.fast import _rollout as r
    from games.order_poker.hands import combination

    rng = np.random.default_rng(30)
    found = {"plan": 0, "target": 0}
    for cards in _pools(rng, 3000):
        hand, robot, open_hand = cards[:5], cards[5:10], cards[10:]
        order = int(rng.integers(1, 9))
        for other in (robot, robot + open_hand):
            want = _plans.cheapest_plan(hand, other, order)
            assert r._check_cheapest_plan(hand, other, order) == want, (hand, other, order)
            found["plan"] += want is not None
        rc = combination(robot)
        for against in (False, True):
            stake = int(rng.integers(1, 9))
            v_own, v_match = stake * (1.0 if against else 0.7), float((stake + 1) // 2) if against else -1.0
            half_min = int(rng.integers(1, 5))
            want_t = _plans.opponent_target(hand, robot, order, rc, v_own, v_match, half_min, 0.6)
            assert r._check_opponent_target(hand, robot, order, v_own, v_match, half_min, 0.6) == want_t
            found["target"] += want_t is not None
        for rcut in (0, rc):
            own, match = _plans.split_costs(hand, robot, rcut)
            assert r._check_split_costs(hand, robot, rcut) == (list(own), list(match))
        reach = 1 << combination(hand)
        for i in range(5):
            for j in range(5):
                reach |= 1 << combination([*hand[:i], robot[j], *hand[i + 1:]])
        assert r._check_reach_bits(hand, robot) == reach
    assert found["plan"] > 1000 and found["target"] > 300  # both answers are exercised
