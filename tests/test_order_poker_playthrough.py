"""Random playthroughs of Order Poker: invariants on thousands of seeded deals."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from reference_eval import category_name

from games.core import registry
from games.order_poker import COMBINATIONS, ROBOT, Rules, State
from games.order_poker.actions import Action, from_dict, swap
from games.order_poker.record import replay
from games.order_poker.rules import DECK

RANKS = {name: i for i, name in enumerate(COMBINATIONS)}


def ref_cat(cards: list[int]) -> int:
    return RANKS[category_name(cards, "order-poker")]


def reference_legal(st: State) -> set[Action]:
    """The legal actions written again from the rule text, with the pure-Python evaluator."""
    s = st.to_act()
    if st.phase == "bidding":  # OP-3.2, OP-3.4
        dealt_robot = ref_cat(list(st.dealt_robot))
        return {Action(s, "pass")} | {Action(s, "order", c) for c in range(1, 9)
                                      if c != dealt_robot and c not in st.bids}
    if st.phase == "roles":  # OP-5.1
        return {Action(s, "role", role="for"), Action(s, "role", role="against")}
    out = {Action(s, "keep")}
    hand, robot = st.hands[s], st.robot
    if s == st.orderer:  # OP-6.3, OP-6.4
        if st.round >= 2:
            out.add(Action(s, "stop"))
        out |= {swap(s, g, t) for g in hand for t in robot}
        used = {a.source for a in st.actions if a.type == "swap" and a.seat == s and a.source != ROBOT}
        for f in range(st.players):
            if st.roles[f] == "for" and (not used or used == {f}):
                out |= {swap(s, g, t, f) for g in hand for t in st.hands[f]}
        return out
    before = ref_cat(robot)  # OP-6.5
    for g in hand:
        for t in robot:
            if before == 0 or ref_cat([g if c == t else c for c in robot]) >= before:
                out.add(swap(s, g, t))
    return out


def hidden_leak(st: State, seat: int, view: dict[str, Any]) -> set[int]:
    """Cards of other hidden hands that appear in ``view`` without having been made public."""
    public = set(st.robot) | set(st.hands[seat])
    for i, r in enumerate(st.roles):
        if r == "for" and st.phase in ("exchange", "over"):
            public |= set(st.hands[i])
    for a in st.actions:
        if a.type == "swap":
            public |= {a.give, a.take}
    secret = {c for i in range(st.players) if i != seat for c in st.hands[i]} - public
    shown = set(view["hand"]) | set(view["robot"]) | {c for h in view["open_hands"].values() for c in h}
    shown |= {c for a in view["actions"] if a.type == "swap" for c in (a.give, a.take)}
    assert "hands" not in view
    return shown & secret


def play_checked(st: State, bots: list[Any], rng: np.random.Generator, exact: bool) -> None:
    while not st.is_over():
        seat = st.to_act()
        legal = st.legal_actions()
        assert legal, "legal_actions is empty before the end"
        assert len(set(legal)) == len(legal) and all(a.seat == seat for a in legal)
        if exact:
            assert set(legal) == reference_legal(st)
        view = st.view(seat)
        assert not hidden_leak(st, seat, view)
        cards = [c for h in st.hands for c in h] + st.robot
        assert len(cards) == 5 * (st.players + 1) == len(set(cards)) and set(cards) <= set(DECK)
        assert all(len(h) == 5 for h in st.hands) and len(st.robot) == 5
        a = bots[seat].act(view, legal, rng)
        assert a in legal
        st.apply(a)
    assert st.to_act() == -1 and st.legal_actions() == []


def check_outcome(st: State) -> None:
    out = st.outcome()
    rec = json.loads(json.dumps(st.record()))
    assert replay(rec) == rec["outcome"] == out  # record -> replay gives the same outcome
    assert [from_dict(d) for d in rec["actions"]] == st.actions
    scores, stake = out["scores"], out["stake"]
    assert stake == sum(a.type == "order" for a in st.actions)
    if out["orderer"] is None:  # OP-4
        assert set(scores) <= {0, -1}
    else:
        assert out["rounds"] <= st.rules.max_exchange_rounds
        assert all(-1 <= x <= stake for x in scores) and min(scores) >= -1
        assert [i for i, x in enumerate(scores) if x < 0] in ([], [out["orderer"]])
        assert out["open"] == ("for" in out["roles"])
        assert out["combinations"] == [category_name(h, "order-poker") for h in st.hands]
        if out["order"] == "pair":
            assert out["rounds"] == 0  # OP-6.1


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_playthroughs(players: int) -> None:
    rng = np.random.default_rng(1000 + players)
    bots = [registry.make("order-poker/random", {"pass_prob": p}) for p in (0.3, 0.6, 0.8, 0.5, 0.7, 0.9)]
    ended = set()
    for d in range(500):
        rules = Rules(max_exchange_rounds=[12, 3, 1][d % 3], against_half_min=["pair", "two_pair"][d % 2])
        st = State.deal(rules, players, d % players, rng)
        play_checked(st, bots, rng, exact=d % 25 == 0)
        check_outcome(st)
        ended.add(st.end_rule)
    assert {"OP-4", "OP-6.7", "OP-6.8"} <= ended


@pytest.mark.parametrize("players", [3, 6])
def test_random_playthroughs_with_keeping_bots_reach_every_ending(players: int) -> None:
    rng = np.random.default_rng(2000 + players)
    bots = [registry.make("order-poker/random", {"pass_prob": 0.5, "keep_prob": 0.6}) for _ in range(players)]
    ended = set()
    for d in range(300):
        st = State.deal(Rules(), players, d % players, rng)
        play_checked(st, bots, rng, exact=d % 20 == 0)
        check_outcome(st)
        ended.add(st.end_rule)
    assert {"OP-4", "OP-6.1", "OP-6.3", "OP-6.7"} <= ended


def test_many_fast_deals_replay_to_the_same_outcome() -> None:
    """Thousands more deals, checking only record -> replay (the cheap invariant)."""
    rng = np.random.default_rng(99)
    bot = registry.make("order-poker/random", {"pass_prob": 0.5, "keep_prob": 0.3})
    for d in range(2000):
        n = 3 + d % 4
        st = State.deal(Rules(), n, d % n, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
        rec = st.record()
        assert replay(rec) == rec["outcome"]
