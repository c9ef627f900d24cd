"""Full-deal ``raspisnoy/pimc`` makes the decisions it made before its solver got faster (issue 30 item 3).

``data/pimc_decisions.json`` holds the action and the sampled estimate of ``raspisnoy/pimc`` with
``samples: 12, dd_cards: 9`` (every decision solved exactly) at every decision of seat 0, with a choice,
in deals of at most 5 cards of two seeded classic matches at 3 and at 4 players, recorded with the
solver before its two-slot table, table move ordering, ducking order and kept table
(``benchmarks/bench_pimc.py --record``, run against commit c11a4ebbac). The solver's values are exact,
so the same samples give the same decisions and the same estimates; the samples come from the same
seeded generator. The points are those of ``bench_pimc.decision_points``: heuristic bots play every
seat, pimc decides from ``default_rng(match * 1000 + step)`` (R-7: from its view only).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.raspisnoy.dd import Solver, options_of
from games.raspisnoy.pimc import PimcBot
from games.raspisnoy.rules import CLASSIC
from games.raspisnoy.simple_bots import HeuristicBot
from games.raspisnoy.state import State

RECORDED = json.loads((Path(__file__).parent / "data" / "pimc_decisions.json").read_text())


def decision_points(players: int, matches: int, max_cards: int) -> Iterator[tuple[int, int, Any, list[str]]]:
    """As ``benchmarks/bench_pimc.py``: seat 0's choices in heuristic-played classic matches."""
    for m in range(matches):
        rng = np.random.default_rng(m)
        st = State.deal(CLASSIC, players, rng)
        bot = HeuristicBot()
        step = 0
        while not st.is_over():
            la = st.legal_actions()
            s = st.to_act()
            if s == 0 and len(la) > 1 and la[0] != "look" and st.current.k <= max_cards:
                yield m, step, st.view(0), la
            st.apply(bot.act(st.view(s), la, rng))
            step += 1


@pytest.mark.parametrize("players", [3, 4])
def test_full_deal_pimc_decides_as_recorded(players: int) -> None:
    want = [r for r in RECORDED if r["players"] == players]
    assert len(want) > 30  # bids and cards of the 1..5-card deals
    bot = PimcBot(samples=12, dd_cards=9)
    got = []
    for m, step, view, la in decision_points(players, 2, 5):
        a = bot.act(view, la, np.random.default_rng(m * 1000 + step))
        got.append({"players": players, "match": m, "step": step, "action": a, "estimate": bot.estimate()})
    assert [(g["match"], g["step"]) for g in got] == [(w["match"], w["step"]) for w in want]
    assert [g["action"] for g in got] == [w["action"] for w in want]
    assert [g["estimate"] for g in got] == pytest.approx([w["estimate"] for w in want], abs=1e-12)


def test_kept_table_gives_fresh_table_values() -> None:
    """One solver solving many positions in a row (its table kept while the payoff is the same) gives
    every value a fresh solver gives: 4 hands of 6 cards, the deal's leader, max and min tricks."""
    kept = Solver(12)  # a small table: replacements happen
    positions = []
    for seed in range(12):
        st = State.deal(CLASSIC, 4, np.random.default_rng(seed))
        while st.current.k != 6 or st.current.bidding_open:
            la = st.legal_actions()
            st.apply("look" if la[0] == "look" else la[0])
        d = st.current
        positions.append(([sorted(h) for h in d.hands], d.to_act(), -1 if d.trump is None else d.trump))
    opts = options_of(CLASSIC)
    for payoff in ([*range(7)], [-t for t in range(7)], [10, 0, -10, -20, -30, -40, -50]):
        for hands, leader, trump in positions:  # consecutive solves under one payoff share the table
            fresh = Solver(16).solve(hands, [], leader, trump, opts, 0, payoff, 0)
            assert kept.solve(hands, [], leader, trump, opts, 0, payoff, 0) == fresh


@pytest.mark.parametrize("players", [3, 4])
def test_bounded_decisions_equal_exact_ones(players: int) -> None:
    """Without a time limit pimc decides from bounds narrowed by null-window tests (``_play_bounded``,
    ``_bid_bounded``); with one (never reached here) it solves every move of every sample exactly as
    before. Both give the same action and the same estimate at every decision of deals of 6 and 7 cards
    of a seeded match, the samples drawn from the same seeded generator."""
    bounded = PimcBot(samples=12, dd_cards=9)
    exact = PimcBot(samples=12, dd_cards=9, time_limit=1e9)
    seen = 0
    for m, step, view, la in decision_points(players, 1, 7):
        if view["cards"] < 6:
            continue
        rng_a, rng_b = np.random.default_rng(m * 1000 + step), np.random.default_rng(m * 1000 + step)
        assert bounded.act(view, la, rng_a) == exact.act(view, la, rng_b)
        assert bounded.estimate() == exact.estimate()
        seen += 1
    assert seen > 10
