"""Preferans's compiled play-out (games/preferans/fast/_match.pyx, issue 30) against the readable engine.

tests/test_fast_paths.py checks whole records, the generator's state and every legal list of the
``sochi`` and ``classic`` presets; here the rows ``play_rows`` writes are checked against the row
functions (games/preferans/tables.py) on the engine's finished match, with random, heuristic and mixed
tables, under every option the kernel plays (PF-4.1 ladders, PF-4.4 hold rules, PF-6.5, PF-7.1,
PF-7.6, PF-7.7 no_check, PF-8.3 - PF-8.9, PF-9.2 - PF-9.3, PF-10.4, PF-11.2 - PF-11.5), and what
``supports`` refuses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.preferans.entry import ENTRY
from games.preferans.fast.playout import FAST, token
from games.preferans.rules import CLASSIC, SOCHI, Rules
from games.preferans.tables import TABLES

#: Option sets beyond the presets (a pulka of 10 keeps each match to tens of deals: 120 cases, ``make test``'s time).
VARIANTS: list[dict[str, Any]] = [
    {},
    {"ladder": "modern", "hold_rule": "senior"},
    {"hold_rule": "off", "lone_whist": "open_only", "opening_lead": "declarer"},
    {"lone_whist": "closed_only", "whist_without_play": False, "misere_defence": "closed"},
    {"ten_check": "no_check", "consolation": "dealer_only", "whist_split": "per_half"},
    {"consolation": "none", "whists_on_failure": False, "talon_bonus_3p": True},
    {"writeoff": "mountain_first", "closing_whist_rate": 0.1},
    {"writeoff": "declarer_choice", "raspasy_trick_value": 10},
    {"razboinik": True, "preliminary_raspasy": True, "razboinik_made": "off_mountain", "raspasy_talon": "unused"},
    {"max_deals": 5, "whist_price": "1/3"},
]


TABLES_OF = {"random": ["preferans/random"] * 4, "heuristic": ["preferans/heuristic"] * 4,
             "mixed": ["preferans/random", "preferans/heuristic"] * 2}


def _engine_rows(state: Any, bots: list[Any], rng: np.random.Generator) -> tuple[list[Any], list[Any]]:
    while not state.is_over():
        seat = state.to_act()
        state.apply(bots[seat].act(state.view(seat), state.legal_actions(), rng))
    return list(TABLES.deal_rows(state)), [tuple(r) for r in TABLES.seat_rows(state)]


@pytest.mark.parametrize("table", list(TABLES_OF))
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("base", [SOCHI, CLASSIC], ids=["sochi", "classic"])
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v) or "preset")
def test_play_rows_equal_the_row_functions(variant: dict[str, Any], base: Rules, players: int, table: str) -> None:
    rules = dataclasses.replace(base, pulka=10, **variant)
    names = TABLES_OF[table][:players]
    bots = [registry.make(name, {}) for name in names]
    assert FAST.supports(rules, bots)
    deal_rng = np.random.default_rng(101 + players)
    for m in range(2 if table == "random" else 1):
        dealt = ENTRY.deal(rules, players, 0, deal_rng)
        fresh = dealt.copy()
        def stream(r: int, m: int = m) -> np.random.Generator:
            return np.random.default_rng([m, r])

        (deals, seats), = FAST.play_rows(dealt, TABLES, [bots], stream)
        want_deals, want_seats = _engine_rows(fresh, [registry.make(name, {}) for name in names],
                                              np.random.default_rng([m, 0]))
        assert list(deals) == want_deals
        assert [tuple(s) for s in seats] == want_seats
        assert sum(s[0] for s in seats) == 0  # PF-11.6.3: the balances sum to 0
        assert all(s[7] == len(deals) for s in seats)


def test_a_pulka_of_random_bots_has_hundreds_of_deals() -> None:
    """PF-11.5: the default pulka of 100 closes after about 240 random deals; every seat row counts them."""
    bots = [registry.make("preferans/random", {}) for _ in range(3)]
    dealt = ENTRY.deal(SOCHI, 3, 0, np.random.default_rng(7))
    (deals, seats), = FAST.play_rows(dealt, TABLES, [bots], lambda r: np.random.default_rng(8))
    assert 50 < len(deals) <= SOCHI.max_deals
    assert [s[7] for s in seats] == [len(deals)] * 3
    assert {row[0] for _, row in deals} == {"main"}
    assert [dealer for dealer, _ in deals[:4]] == [0, 1, 2, 0]  # PF-2.2: the deal passes clockwise


def test_supports_random_and_heuristic_bots_and_not_the_solved_ten() -> None:
    random3 = [registry.make("preferans/random", {}) for _ in range(3)]
    heuristic = [registry.make("preferans/heuristic", {}), *random3[1:]]
    pimc = [registry.make("preferans/pimc", {}), *random3[1:]]
    assert FAST.supports(SOCHI, random3) and FAST.supports(CLASSIC, random3) and FAST.supports(SOCHI, heuristic)
    assert not FAST.supports(SOCHI, pimc)
    assert not FAST.supports(dataclasses.replace(SOCHI, ten_check="solve"), random3)  # PF-7.7: the engine's solver
    assert ENTRY.fast_path(SOCHI, heuristic) is FAST
    assert ENTRY.fast_path(SOCHI, pimc) is None


def test_tokens_are_pf_15_1() -> None:
    assert [token(c) for c in (0, 1, 2, 2 + 24, 2 + 25, 2 + 27)] == ["pass", "hold", "bid:6s", "bid:10nt",
                                                                         "bid:9wt", "bid:misere"]
    assert token(100 + 32 * 0 + 31) == "discard:7s,Ah"  # canonical positions: 7s first, Ah last (PF-1.4)
    assert token(2100 + 20) == "declare:10s/wt"
    assert [token(c) for c in (3000, 3001, 3002, 4007, 5000 + 8)] == ["whist", "pass", "no_play", "writeoff:7",
                                                                       "play:7c"]
