"""Dice Poker's compiled play-out (games/dice_poker/fast) against the readable engine, for every option.

``tests/test_fast_paths.py`` covers every preset at its defaults; here every option value of DP-9 is
played (records, generator states and legal lists through the same ``check_parity``), and
``play_rows`` gives exactly the row functions' values of the readable game, rotation by rotation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.dice_poker.fast.playout import FAST
from games.dice_poker.rules import Rules
from games.dice_poker.state import State
from games.dice_poker.tables import TABLES
from sims.run import play_deal
from tests.test_fast_paths import check_parity

ENTRY = registry.game("dice-poker")
OPTIONS: list[dict[str, Any]] = [
    {"preset": "simple", "reroll_rule": "free"},
    {"preset": "simple", "kickers": False},
    {"preset": "simple", "tie_rule": "rethrow"},
    {"preset": "simple", "tie_rule": "rethrow", "max_rethrows": 0},
    {"preset": "simple", "tie_rule": "rethrow", "kickers": False, "max_rethrows": 2},
    {"preset": "simple", "payout": "pairwise", "kickers": False},
    {"preset": "full", "reroll_rule": "free"},
    {"preset": "full", "first_throw_double": "except_chance", "poker_bonus": 0},
    {"preset": "full", "first_throw_double": "none", "school_bonus": "both"},
    {"preset": "full", "school_bonus": "minus", "school_order": "fixed"},
    {"preset": "full", "school_bonus": "none", "payout": "pairwise"},
    {"preset": "mixed", "reroll_rule": "free", "first_throw_double": "except_chance"},
    {"preset": "mixed", "poker_bonus": 100, "school_bonus": "both", "payout": "pairwise"},
]
TABLES_OF_BOTS = [["dice-poker/random"], ["dice-poker/greedy"], ["dice-poker/greedy", "dice-poker/random"]]


def _table(names: list[str], players: int) -> list[tuple[str, dict[str, Any]]]:
    return [(names[s % len(names)], {}) for s in range(players)]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("names", TABLES_OF_BOTS, ids=lambda n: "+".join(x.split("/")[1] for x in n))
def test_every_option_plays_as_the_engine(opts: dict[str, Any], names: list[str]) -> None:
    rules = Rules.from_dict(opts)
    for players in ((2, 3, 5) if rules.simple else (1, 2, 4)):
        check_parity(ENTRY, FAST, rules, _table(names, players), deals=30, seed=players)


@pytest.mark.parametrize("opts", [{"preset": "simple", "tie_rule": "rethrow", "kickers": False},
                                  {"preset": "simple", "payout": "pairwise"},
                                  {"preset": "full"}, {"preset": "mixed", "payout": "pairwise"}],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_play_rows_are_the_row_functions_of_the_engine(opts: dict[str, Any]) -> None:
    rules = Rules.from_dict(opts)
    players = 3
    bots = [registry.make(n, {}) for n in ("dice-poker/greedy", "dice-poker/random", "dice-poker/random")]
    rotations = [[bots[(s + r) % players] for s in range(players)] for r in range(players)]
    for d in range(60):
        dealt = State.deal(rules, players, d % players, np.random.default_rng(d))
        seeds = [1000 * d + r for r in range(players)]
        got = FAST.play_rows(dealt, TABLES, rotations, lambda r, seeds=seeds: np.random.default_rng(seeds[r]))
        for r, seat_bots in enumerate(rotations):
            st = dealt.copy()
            play_deal(st, seat_bots, np.random.default_rng(seeds[r]))  # the readable loop
            assert got[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"
