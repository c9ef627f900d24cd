"""Quintet's compiled play-out (games/quintet/fast): ``play_rows`` gives exactly the row functions' values
of the readable game, rotation by rotation, for every bot it plays (records, draws and legal spaces:
``tests/test_fast_paths.py``); blotto's fixed slots and greedy against greedy too."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.quintet.fast.playout import FAST
from games.quintet.rules import Rules
from games.quintet.state import State
from games.quintet.tables import TABLES
from sims.run import play_deal
from tests.test_fast_paths import check_parity

ENTRY = registry.game("quintet")
PAIRS: list[list[tuple[str, dict[str, Any]]]] = [
    [("quintet/random", {}), ("quintet/random", {})],
    [("quintet/greedy", {}), ("quintet/greedy", {})],
    [("quintet/blotto", {}), ("quintet/greedy", {})],
    [("quintet/blotto", {"sacrifice": 1}), ("quintet/blotto", {"sacrifice": "random"})],
    [("quintet/random", {}), ("quintet/blotto", {"sacrifice": 3})],
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: "+".join(f"{n.split('/')[1]}{dict(a)}" for n, a in p))
def test_play_rows_are_the_row_functions_of_the_engine(pair: list[tuple[str, dict[str, Any]]]) -> None:
    rules = Rules(points=(1, 2, 3, 5, 8))
    bots = [registry.make(n, dict(a)) for n, a in pair]
    rotations = [bots, bots[::-1]]
    for d in range(40):
        dealt = State.deal(rules, 2, d % 2, np.random.default_rng(d))
        seeds = [1000 * d, 1000 * d + 1]
        got = FAST.play_rows(dealt, TABLES, rotations, lambda r, seeds=seeds: np.random.default_rng(seeds[r]))
        for r, seat_bots in enumerate(rotations):
            st = dealt.copy()
            play_deal(st, seat_bots, np.random.default_rng(seeds[r]))  # the readable loop
            assert got[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"


@pytest.mark.parametrize("pair", PAIRS[1:], ids=lambda p: "+".join(f"{n.split('/')[1]}{dict(a)}" for n, a in p))
def test_every_bot_pair_plays_as_the_engine(pair: list[tuple[str, dict[str, Any]]]) -> None:
    check_parity(ENTRY, FAST, Rules(), pair, deals=40)
