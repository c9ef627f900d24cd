"""Liar's poker bots: random and truthful answer legally from their view; truthful follows its rule."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from games.core import registry
from games.liars_poker.bids import ACCEPT, CHALLENGE, Bid
from games.liars_poker.bots import TruthfulBot
from games.liars_poker.rules import PRESETS
from games.liars_poker.state import State


def run(bots: list[object], rules: object, n: int, seed: int) -> State:
    rng = np.random.default_rng(seed)
    st = State.deal(rules, n, 0, rng)  # type: ignore[arg-type]
    while not st.is_over():
        seat = st.to_act()
        a = bots[seat].act(st.view(seat), st.legal_actions(), rng)  # type: ignore[attr-defined]
        assert a in st.legal_actions()
        st.apply(a)
    return st


@pytest.mark.parametrize("preset", list(PRESETS))
def test_bots_play_legally_every_preset(preset: str) -> None:
    rules = dataclasses.replace(PRESETS[preset], rounds=5)
    for n in (2, 3, 6):
        bots = [registry.make("liars-poker/truthful", {}) if s % 2 else registry.make("liars-poker/random", {})
                for s in range(n)]
        st = run(bots, rules, n, n)
        assert sum(st.scores()) == 0


def view(note: str, players: int, bid: Bid | None, rebid_turn: bool = False, **rules: object) -> dict[str, object]:
    r = dataclasses.replace(PRESETS["classic"], **rules)  # type: ignore[arg-type]
    counts = [0] * 10
    for ch in note:
        counts[int(ch)] += 1
    return {"rules": r, "players": players, "counts": tuple(counts), "bid": bid, "rebid_turn": rebid_turn}


def test_truthful_opens_with_its_own_digits_plus_the_expected_others() -> None:
    # 2 players, three 7s: expect 0.8 more among the other 8 digits -> (3, 7)
    bot = TruthfulBot()
    assert bot.act(view("77712345", 2, None), [], np.random.default_rng(0)) == Bid(3, 7)
    # 5 players: 3.2 expected among the others -> (6, 7)
    assert bot.act(view("77712345", 5, None), [], np.random.default_rng(0)) == Bid(6, 7)


def test_truthful_challenges_below_its_threshold() -> None:
    bot = TruthfulBot(threshold=0.5)
    # (3, 9) with no 9 in hand: P(Bin(8, 0.1) >= 3) = 0.038 < 0.5
    assert bot.act(view("12345678", 2, Bid(3, 9)), [], np.random.default_rng(0)) == CHALLENGE
    # (2, 1) holding one 1: P(Bin(8, 0.1) >= 1) = 0.57 -> believed; the best target beats it
    assert bot.act(view("12345678", 2, Bid(2, 1)), [], np.random.default_rng(0)) != CHALLENGE
    assert TruthfulBot(threshold=0.6).act(view("12345678", 2, Bid(2, 1)), [], np.random.default_rng(0)) == CHALLENGE


def test_truthful_in_the_rebid_turn_accepts_a_likely_bid() -> None:
    bot = TruthfulBot()
    assert bot.act(view("77712345", 2, Bid(3, 7), rebid_turn=True), [], np.random.default_rng(0)) == ACCEPT
    a = bot.act(view("77712345", 2, Bid(2, 9), rebid_turn=True), [], np.random.default_rng(0))
    assert a == Bid(3, 7)  # its own best target, higher than (2, 9)


def test_truthful_beats_random() -> None:
    rules = dataclasses.replace(PRESETS["classic"], rounds=20)
    bots = [registry.make("liars-poker/truthful", {}), registry.make("liars-poker/random", {})]
    total = 0
    for seed in range(10):
        st = run(bots if seed % 2 == 0 else bots[::-1], rules, 2, seed)
        total += st.scores()[0] if seed % 2 == 0 else st.scores()[1]
    assert total > 0
