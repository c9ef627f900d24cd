"""Liar's poker's compiled match play-out (games/liars_poker/fast/_play.pyx, the game's declared fast path)
against the readable engine under options no preset sets and matches of many rounds: records, generator
states and legal lists (the generic parity check of tests/test_fast_paths.py), and the rows ``play_rows``
writes without a ``State`` equal to the row functions of the engine-played match, with the job's Philox
streams as well as PCG64."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
from test_fast_paths import check_parity

from games.core import registry
from games.core.streams import Streams
from games.liars_poker.fast.playout import FAST
from games.liars_poker.rules import PRESETS, Rules
from games.liars_poker.tables import TABLES

ENTRY = registry.game("liars-poker")
VARIANTS = [
    ("classic-5r", dataclasses.replace(PRESETS["classic"], rounds=5), 3),
    ("trading-floor-last-bidder", dataclasses.replace(PRESETS["trading-floor"], rounds=6, next_opener="last_bidder",
                                                      stake=3), 4),
    ("openspiel-2p", dataclasses.replace(PRESETS["openspiel"], rounds=4), 2),
    ("small-notes", Rules(digits_per_note=1, digit_values=2, rebid="once", rounds=8), 2),
    ("d6-us", dataclasses.replace(PRESETS["us"], digit_values=6, digits_per_note=3, rounds=5), 5),
    ("long-chain", Rules(digits_per_note=20, digit_values=10, digit_order="ace_high", rebid="once", rebid_stake=2,
                         rounds=1), 10),  # truthful rounds of 10 seats are long in the engine: few matches
]
Table = list[tuple[str, Mapping[str, Any]]]
TABLES_OF_BOTS: dict[str, Callable[[int], Table]] = {
    "random": lambda n: [("liars-poker/random", {})] * n,
    "truthful": lambda n: [("liars-poker/truthful", {"threshold": [0.5, 0.2, 0.8, 0.0, 1.0][s % 5]})
                           for s in range(n)],
    "mixed": lambda n: [("liars-poker/random", {}) if s % 2 else ("liars-poker/truthful", {}) for s in range(n)],
}


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("table", sorted(TABLES_OF_BOTS))
def test_kernel_plays_as_the_engine(name: str, rules: Rules, players: int, table: str) -> None:
    check_parity(ENTRY, FAST, rules, TABLES_OF_BOTS[table](players), deals=3 if players == 10 else 30, seed=len(name))


def _at(streams: Streams, deal: int, r: int) -> np.random.Generator:
    return streams.at(deal, r + 1)


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_rows_equal_the_row_functions(name: str, rules: Rules, players: int) -> None:
    """``play_rows`` (kernel rows, no State) == the engine's play then ``deal_rows``/``seat_rows``, each
    rotation drawing from the job's Philox streams (``games.core.streams``)."""
    streams = Streams(np.random.SeedSequence(12345))
    for deal in range(4 if players == 10 else 20):
        fresh = ENTRY.deal(rules, players, 0, streams.at(deal, 0))
        table = TABLES_OF_BOTS["mixed"](players)
        rotations = [[registry.make(*table[(s + r) % players]) for s in range(players)] for r in range(players)]
        fast = FAST.play_rows(fresh, TABLES, rotations, functools.partial(_at, streams, deal))
        for r, bots in enumerate(rotations):
            st = fresh.copy()
            rng = streams.at(deal, r + 1)
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
            want = (TABLES.deal_rows(st), TABLES.seat_rows(st))
            assert fast[r] == want, f"match {deal}, rotation {r}"
            for (_, a), (_, b) in zip(fast[r][0], want[0], strict=True):
                assert [type(x) for x in a] == [type(x) for x in b]


@pytest.mark.parametrize("gen", [np.random.PCG64, np.random.Philox, np.random.SFC64, np.random.MT19937])
def test_random_draws_as_numpy_integers(gen: type) -> None:
    """The kernel's bounded draw is ``Generator.integers(n)`` (Lemire on ``next_uint32``), bit generators'
    buffered half words included: a match of random bots leaves the generator as the engine's does."""
    rules = Rules(digits_per_note=20, digit_values=10, rounds=50)
    for seed in range(3):
        a, b = np.random.Generator(gen(seed)), np.random.Generator(gen(seed))
        a.random(), b.random()
        fresh = ENTRY.deal(rules, 10, 0, np.random.default_rng(seed))
        bots = [registry.make("liars-poker/random", {}) for _ in range(10)]
        loop = fresh.copy()
        FAST.play_out(fresh, bots, a)
        while not loop.is_over():
            seat = loop.to_act()
            loop.apply(bots[seat].act(loop.view(seat), loop.legal_actions(), b))
        assert fresh.record() == loop.record()
        assert [a.integers(7), a.random(), a.integers(1 << 40)] == [b.integers(7), b.random(), b.integers(1 << 40)]
