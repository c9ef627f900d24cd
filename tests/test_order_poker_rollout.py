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
