"""The montecarlo play-outs' searches (``games/order_poker/fast/_rollout.pyx``) on the inputs play does
not reach: a robot rank other than the robot's own and a ``continue_prob`` above 1 (the general scan of
``opponent_target``), and the bidding's sampled hands with equal keys (``one_swap_reach``'s pick of
the five smallest, ties by position). Each answers as ``_plans``' readable kernels do."""

from __future__ import annotations

import numpy as np

from games.order_poker.fast import _plans
from games.order_poker.fast import _rollout as r
from games.order_poker.hands import combination


def test_opponent_target_answers_as_the_plans_kernel_off_the_play_path() -> None:
    rng = np.random.default_rng(31)
    deck = list(range(16, 52))
    found = 0
    for _ in range(3000):
        cards = [int(c) for c in rng.permutation(deck)[:10]]
        hand, robot = cards[:5], cards[5:]
        order = int(rng.integers(1, 9))
        rc = int(rng.integers(0, 9)) if rng.random() < 0.7 else combination(robot)
        cont = float(rng.choice([0.0, 0.6, 1.0, 1.5]))
        stake = int(rng.integers(1, 9))
        against = bool(rng.random() < 0.5)
        v_own, v_match = stake * (1.0 if against else 0.7), float((stake + 1) // 2) if against else -1.0
        half_min = int(rng.integers(1, 5))
        want = _plans.opponent_target(hand, robot, order, rc, v_own, v_match, half_min, cont)
        assert r._check_opponent_target(hand, robot, order, v_own, v_match, half_min, cont, rc) == want
        found += want is not None
    assert found > 300


def test_one_swap_reach_picks_as_the_plans_kernel_with_ties() -> None:
    rng = np.random.default_rng(32)
    deck = list(range(16, 52))
    for t in range(2000):
        cards = [int(c) for c in rng.permutation(deck)]
        robot, n = cards[:5], int(rng.integers(5, 27))
        unknown = cards[5:5 + n]
        samples = int(rng.integers(1, 40))
        if t % 3 == 0:
            keys = rng.random((samples, n))
        elif t % 3 == 1:  # many equal keys: the first of equals is taken
            keys = rng.integers(0, 4, (samples, n)) / 4.0
        else:  # few keys under the narrowing threshold
            keys = 0.3 + 0.7 * rng.random((samples, n))
        want = np.empty(9)
        _plans.one_swap_reach(np.asarray(unknown, dtype=np.uint8), robot, np.ascontiguousarray(keys), want)
        assert r._check_one_swap_reach(unknown, robot, keys.tolist()) == want.tolist()
