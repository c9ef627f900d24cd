"""``preferans/pimc`` makes the decisions it made before it got faster (issue 30 item 3).

``data/pimc_decisions.json`` holds the action and the estimate of ``preferans/pimc`` (8 samples) at every
decision with a choice, of every seat, in the first 6 deals of two seeded Sochi pulkas of heuristic bots:
314 decisions (bids, discards, contracts, whists, cards), recorded with the code of commit 0d9b5ce, which
solved every sample exactly with a fresh table per solve
(``benchmarks/bench_preferans_pimc.py --pulkas 2 --deals 6 --before 0d9b5ce --record ...``). The bot now
decides from bounds of the same samples' values (null-window probes, a table kept across solves, quick
tricks), which settle the same comparisons, so the decisions and the estimates are the same; the
samples come from the same seeded generator.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from games.core import registry
from games.preferans import cards as pc
from games.preferans.fast import _dd
from games.preferans.pimc import PimcBot, declarer_balance
from games.preferans.rules import MISERE_LEVEL, SOCHI
from games.preferans.state import State

RECORDED = json.loads((Path(__file__).parent / "data" / "pimc_decisions.json").read_text())


def test_pimc_decides_as_recorded() -> None:
    heur = registry.make("preferans/heuristic", {})
    got = []
    for m in range(2):
        rng = np.random.default_rng(m)
        st = State.deal(SOCHI, 3, 0, rng)
        bot = PimcBot(8)
        step = 0
        while not st.is_over() and st.deal_no < 6:
            s, la = st.to_act(), st.legal_actions()
            v = st.view(s)
            if len(la) > 1:
                a = bot.act(v, la, np.random.default_rng(m * 1000 + step))
                got.append({"pulka": m, "step": step, "action": a, "estimate": bot.estimate()})
            st.apply(heur.act(v, la, rng))
            step += 1
    assert len(RECORDED) == 314
    assert {r["kind"] for r in RECORDED} >= {"bid", "discard", "contract", "whist", "card"}
    assert [(g["pulka"], g["step"]) for g in got] == [(r["pulka"], r["step"]) for r in RECORDED]
    assert [g["action"] for g in got] == [r["action"] for r in RECORDED]
    assert [g["estimate"] for g in got] == [r["estimate"] for r in RECORDED]


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("consolation", ["all", "dealer_only", "none"])
@pytest.mark.parametrize("whists_on_failure", [True, False])
def test_declarer_balance_is_monotone_in_tricks(players: int, consolation: str, whists_on_failure: bool) -> None:
    """The bounds of a mean balance come from the bounds of the tricks: a balance never falls with more
    tricks (never rises at misère)."""
    for level in (6, 7, 8, 9, 10, MISERE_LEVEL):
        bal = [declarer_balance(level, t, players, consolation, whists_on_failure) for t in range(11)]
        steps = [b - a for a, b in itertools.pairwise(bal)]
        assert all(s <= 0 for s in steps) if level == MISERE_LEVEL else all(s >= 0 for s in steps)


def test_probe_bounds_the_exact_value_from_any_table() -> None:
    """``probe`` is fail-soft: r >= gamma means value >= r, r < gamma means value <= r, with a fresh table
    and with one left by other solves; ``solve`` from any guess gives the value."""
    rng = np.random.default_rng(7)
    deck = np.asarray(pc.DECK)
    for i in range(40):
        k = int(rng.integers(3, 9))
        cards = [int(c) for c in rng.permutation(deck)[:3 * k]]
        hands = [cards[:k], cards[k:2 * k], cards[2 * k:]]
        misere = i % 5 == 0
        trump = -1 if misere else int(rng.integers(-1, 4))
        decl, lead = int(rng.integers(3)), int(rng.integers(3))
        _dd.clear()
        value = _dd.solve(hands, trump, decl, lead, misere)
        for gamma in range(k + 2):
            if i % 2:
                _dd.clear()
            r = _dd.probe(hands, trump, decl, lead, misere, (), gamma)
            assert (value >= r >= gamma) if r >= gamma else (value <= r < gamma)
        assert [_dd.solve(hands, trump, decl, lead, misere, (), g) for g in range(k + 1)] == [value] * (k + 1)
