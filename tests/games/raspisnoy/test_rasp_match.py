"""The compiled match play-out (games/raspisnoy/fast/_match.pyx, the game's declared fast path) against the
readable engine under options the presets do not set: records, generator states and every legal list
(the generic parity check of tests/test_fast_paths.py), and the rows ``play_rows`` writes without a
``State`` equal to the row functions of the engine-played match (half points of R-5.5 included)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from test_fast_paths import check_parity

from games.core import registry
from games.raspisnoy.fast.playout import FAST, token
from games.raspisnoy.rules import CLASSIC, ODESSA, Rules
from games.raspisnoy.tables import TABLES

ENTRY = registry.game("raspisnoy")
VARIANTS = [
    ("odessa-2j-halves", dataclasses.replace(ODESSA, jokers=2, special_factor=1.5), 3),
    ("odessa-specials", dataclasses.replace(ODESSA, specials_each=1, special_size="top", cap=6), 4),
    ("classic-rot-restr", dataclasses.replace(CLASSIC, rotating_trumps=True, dealer_restriction=True,
                                              max_passes_in_row=1), 4),
    ("classic-turned-nomust", dataclasses.replace(CLASSIC, trump="turned", must_trump=False, joker_low=True,
                                                  all_tricks_factor=3, dark_factor=3), 3),
    ("odessa-dark", dataclasses.replace(ODESSA, voluntary_dark=True, dark_pass=False, joker_plain=True), 5),
    ("classic-0j", dataclasses.replace(CLASSIC, jokers=0, top_repeats=1, dark_pass=True), 2),
    ("odessa-6", ODESSA, 6),
]
TABLES_OF_BOTS = [("random", ["raspisnoy/random"]), ("heuristic", ["raspisnoy/heuristic"]),
                  ("mixed", ["raspisnoy/heuristic", "raspisnoy/random"])]


def _rng(m: int, r: int) -> np.random.Generator:
    return np.random.default_rng([m, r])


def _table(names: list[str], players: int) -> list[tuple[str, dict[str, object]]]:
    return [(names[s % len(names)], {}) for s in range(players)]


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize(("bots_name", "names"), TABLES_OF_BOTS, ids=[t[0] for t in TABLES_OF_BOTS])
def test_kernel_plays_as_the_engine(name: str, rules: Rules, players: int, bots_name: str, names: list[str]) -> None:
    check_parity(ENTRY, FAST, rules, _table(names, players), deals=4, seed=len(name))


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_rows_equal_the_row_functions(name: str, rules: Rules, players: int) -> None:
    """``play_rows`` (kernel rows, no State) == ``play_out`` then ``deal_rows``/``seat_rows``, every rotation."""
    halves = 0
    for m in range(4):
        fresh = ENTRY.deal(rules, players, 0, np.random.default_rng([m, players]))
        rotations = [[registry.make(n, {}) for n, _ in _table(["raspisnoy/heuristic", "raspisnoy/random"],
                                                                 players)][r:] +
                     [registry.make(n, {}) for n, _ in _table(["raspisnoy/heuristic", "raspisnoy/random"],
                                                                 players)][:r] for r in range(players)]
        fast = FAST.play_rows(fresh, TABLES, rotations, functools.partial(_rng, m))
        for r, bots in enumerate(rotations):
            st = fresh.copy()
            rng = np.random.default_rng([m, r])
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
            want = (TABLES.deal_rows(st), TABLES.seat_rows(st))
            assert fast[r] == want, f"match {m}, rotation {r}"
            for (_, a), (_, b) in zip(fast[r][0], want[0], strict=True):
                assert [type(x) for x in a] == [type(x) for x in b]
            halves += sum(row[8] is None for _, row in want[0])
    if rules.special_factor == 1.5:
        assert halves, "no deal with half points was played"


def test_tokens() -> None:
    assert [token(c) for c in (4095, 4096 + 3, 8192, 35 | 7 << 8, 7 | 1 << 6 | 1 << 8, 7 | 2 << 6 | 7 << 8,
                               3 | 3 << 6 | 7 << 8)] == \
        ["look", "bid:3", "dark:0", "play:As", "play:7s:high:d", "play:7s:low", "play:6s:plain"]
