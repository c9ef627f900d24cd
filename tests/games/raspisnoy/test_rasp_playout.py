"""The compiled random play-out (games/raspisnoy/fast/_playout.pyx) against the readable engine: the
same legal-list lengths and choices at every decision, the same bids and tricks, the same generator
state afterwards, for every deal of random matches in both presets and several variants."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from games.raspisnoy.fast._playout import random_deal

from games.raspisnoy.bots import RandomBot
from games.raspisnoy.rules import CLASSIC, ODESSA, Rules
from games.raspisnoy.state import Deal, State

VARIANTS = [("classic", CLASSIC, 3), ("classic", CLASSIC, 5), ("odessa", ODESSA, 4), ("odessa", ODESSA, 6),
            ("odessa-2j", dataclasses.replace(ODESSA, jokers=2), 3),
            ("classic-rot", dataclasses.replace(CLASSIC, rotating_trumps=True, dealer_restriction=True), 4),
            ("odessa-nomust", dataclasses.replace(ODESSA, must_trump=False, voluntary_dark=True), 3)]


def _python_deal(d: Deal, rng: np.random.Generator) -> list[tuple[int, int]]:
    bot = RandomBot()
    trace = []
    while not d.over:
        la = d.legal()
        tok = bot.act({}, la, rng)
        trace.append((len(la), la.index(tok)))
        assert d.try_apply(tok)
    return trace


@pytest.mark.parametrize(("name", "rules", "players"), VARIANTS, ids=[f"{v[0]}-{v[2]}" for v in VARIANTS])
def test_compiled_random_deals_equal_the_engine(name: str, rules: Rules, players: int) -> None:
    st = State.deal(rules, players, np.random.default_rng(players))
    deals = 0
    runs_rng = np.random.default_rng(99)
    for i, (kind, k) in enumerate(st.plan):
        runs = tuple(int(x) for x in runs_rng.integers(0, 3, size=players))  # the pass duty of too
        d = Deal(rules, rules.trick_rules(), players, i, kind, k, st.stubs[i], runs)
        deck = list(d.stub.deck)
        a, b = np.random.default_rng([i, 1]), np.random.default_rng([i, 1])
        trace, bids, taken = random_deal(deck, players, d.k, d.dealer, d.kind, -1 if d.trump is None else d.trump,
                                         rules, list(d.pass_runs), a)
        want = _python_deal(d, b)
        assert trace == want, f"deal {i + 1}"
        assert bids == d.bids and taken == d.taken
        assert a.bit_generator.state == b.bit_generator.state
        deals += 1
    assert deals == len(st.plan)
