"""Order Poker's ML adapter (rasklad/interop/adapted/order_poker.py, docs/interop.md): chance is the deal
card by card, the action numbering on a hand-checked deal, returns are scores(), seat_state agrees with
the view, and OpenSpiel's ISMCTS plays a tournament through it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.core import registry  # noqa: E402
from games.core.cards import card_id  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("order-poker")
#: OpenSpiel's ISMCTS as the registry offers it for the game.
BOT = next(b for b in registry.bots("order-poker") if "ismcts" in b)

#: OP-8-like table, dealer 0: seat 0 a pair of 7s, seat 1 two pair, seat 2 three tens, the robot a pair of 6s.
HANDS = ["7c 7d Ts Qh Ad", "8c 8d 9c 9d Kh", "Tc Td Th Js 6h"]
ROBOT = "6c 6d 8h 9s Qc"


def _ids(cards: str) -> list[int]:
    return [card_id(c) for c in cards.split()]


def _swap_id(give: str, take: str) -> int:
    return 13 + 36 * (card_id(give) - 16) + card_id(take) - 16  # the module docstring's numbering


def test_chance_deals_the_deck_card_by_card_as_deal_does() -> None:
    g = pyspiel.load_game("rasklad_order_poker")
    st = g.new_initial_state()
    first = st.chance_outcomes()
    assert [c for c, _ in first] == list(range(16, 52))  # OP-1.1: the 36 cards, by card id
    assert all(p == pytest.approx(1 / 36) for _, p in first)
    st.apply_action(card_id("As"))
    second = st.chance_outcomes()
    assert len(second) == 35 and card_id("As") not in dict(second)
    assert all(p == pytest.approx(1 / 35) for _, p in second)
    assert ros.game_name("order-poker") == g.get_type().short_name == "rasklad_order_poker"
    assert g.max_chance_outcomes() == 52 and g.num_distinct_actions() == 13 + 36 * 36
    # start() on the cards deal() gave, in its order (seats 0..n-1, then the robot), is deal()'s state.
    entry = registry.game("order-poker")
    for seed in range(3):
        dealt: Any = entry.deal(entry.rules({}), 4, 2, np.random.default_rng(seed))
        drawn = [c for h in dealt.dealt for c in h] + list(dealt.dealt_robot)
        assert AD.start(dealt.rules, 4, 2, drawn).record() == dealt.record()


def test_a_hand_checked_deal_numbering_and_returns() -> None:
    g = pyspiel.load_game("rasklad_order_poker(players=3,dealer=0)")
    st = g.new_initial_state()
    for card in [c for h in HANDS for c in _ids(h)] + _ids(ROBOT):
        assert st.is_chance_node()
        st.apply_action(card)
    assert st.current_player() == 1  # OP-3.1: left of the dealer bids first
    assert st.legal_actions() == [0, 2, 3, 4, 5, 6, 7, 8]  # pass or any order but the robot's pair (OP-3.2)
    st.apply_action(3)  # seat 1: three
    assert st.legal_actions() == [0, 2, 4, 5, 6, 7, 8]  # three is taken
    st.apply_action(5)  # seat 2: full house
    st.apply_action(0)  # seat 0 passes
    assert st.current_player() == 1 and st.legal_actions() == [0, 2, 4, 6, 7, 8]
    st.apply_action(2)  # seat 1: two pair
    st.apply_action(0)  # seat 2 passes: seat 1 orders two pair, stake 3 (OP-3.3, OP-3.5)
    assert st.current_player() == 2 and st.legal_actions() == [9, 10]  # OP-5.1: for / against
    st.apply_action(9)  # seat 2: for
    st.apply_action(10)  # seat 0: against
    assert st.current_player() == 1  # OP-6.2: the orderer first
    legal = st.legal_actions()
    # OP-6.3: keep, every swap with the robot, every swap with the `for` player's open hand; no stop in round 1.
    robot_swaps = [_swap_id(gv, tk) for gv in HANDS[1].split() for tk in ROBOT.split()]
    open_swaps = [_swap_id(gv, tk) for gv in HANDS[1].split() for tk in HANDS[2].split()]
    assert legal == sorted([11, *robot_swaps, *open_swaps]) and 12 not in legal
    swap = AD.action(st.engine, _swap_id("Kh", "6h"))
    assert (swap.seat, swap.give, swap.take, swap.source) == (1, card_id("Kh"), card_id("6h"), 2)
    assert json.loads(st.action_to_string(_swap_id("Kh", "6h"))) == {"type": "swap", "give": "Kh", "take": "6h",
                                                                  "from": 2}
    st.apply_action(_swap_id("Kh", "6h"))  # the orderer takes seat 2's open 6h (still two pair)
    st.apply_action(11)  # seat 2 keeps
    st.apply_action(11)  # seat 0 keeps: nobody but the orderer swapped, the exchange ends (OP-6.7)
    assert st.is_terminal()
    # OP-7: orderer fulfilled, his `for` partner not but lent a card: 1 and 1; seat 0 `against` holds a pair
    # as the robot does: H = ceil(3 / 2) = 2.
    assert st.returns() == [2.0, 1.0, 1.0] == [float(x) for x in st.engine.scores()]
    assert st.engine.end_rule == "OP-6.7"
    info = st.information_state_string(0)
    assert info.endswith(" 1:3,2:5,0:0,1:2,2:0,2:9,0:10,1:" + f"{_swap_id('Kh', '6h')},2:11,0:11")


def test_seat_state_agrees_with_every_view_of_random_deals() -> None:
    """At every decision of random deals, for every seat: the rebuilt state shows the seat exactly its view
    (positions of the cards in hands included), and the tensor is 0/1 of the declared size."""
    rng = np.random.default_rng(5)
    exchanges = 0
    for players in (3, 5):
        g = pyspiel.load_game(f"rasklad_order_poker(players={players},max_exchange_rounds=3)")
        size = AD.tensor_size(g.rules, players)
        for _ in range(15):
            st = g.new_initial_state()
            length = 0
            while not st.is_terminal():
                length += 1
                if st.is_chance_node():
                    outcomes = [c for c, _ in st.chance_outcomes()]
                    st.apply_action(int(rng.choice(outcomes)))
                    continue
                exchanges += st.engine.phase == "exchange"
                for seat in range(players):
                    view = st.engine.view(seat)
                    assert AD.seat_state(view, rng).view(seat) == view
                    t = AD.tensor(view, g.rules, players)
                    assert t.shape == (size,) and set(np.unique(t).tolist()) <= {0.0, 1.0}
                st.apply_action(int(rng.choice(st.legal_actions())))
            assert length <= g.max_game_length()
            assert all(-1 <= r <= 8 for r in st.returns())  # the declared utility bounds
    assert exchanges > 20  # the exchange phase (open hands, swaps) was visited


def test_the_ismcts_bot_plays_an_order_poker_tournament() -> None:
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": 3,
                       "rules": {"max_exchange_rounds": 2},
                       "bots": [{"name": BOT, "params": {"simulations": 5}}, "order-poker/random",
                                "order-poker/heuristic"],
                       "deals": 2, "shard_deals": 2, "seating": "duplicate", "seed": 3, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 3 * 3  # 2 deals x 3 rotations x 3 seats
    assert sum(1 for row in seats if row["bot"] == BOT) == 6
    assert all(-1 <= row["score"] <= 8 for row in seats)




def test_the_pettingzoo_env_masks_the_engine_s_legal_actions() -> None:
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install 'rasklad[pettingzoo]')")
    from rasklad.interop.pettingzoo import env

    e = env("order-poker", players=4, dealer=3)
    e.reset(seed=11)
    st = e.unwrapped.state_
    assert e.agent_selection == "player_0"  # OP-3.1: left of the dealer
    legal = sorted(AD.action_id(st, a) for a in st.legal_actions())
    assert np.flatnonzero(e.observe("player_0")["action_mask"]).tolist() == legal
    assert legal == [c for c in range(9) if c == 0 or c != st.robot_cat]  # pass, every order but the robot's
    rng, final = np.random.default_rng(0), {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        seat = e.unwrapped.possible_agents.index(agent)
        mask = obs["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(AD.action_id(st, a) for a in st.legal_actions())
        assert st.to_act() == seat
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert [final[f"player_{i}"] for i in range(4)] == [float(x) for x in st.scores()]  # rewards are scores()


def test_the_ismcts_bot_needs_two_simulations() -> None:
    """OpenSpiel's ISMCTS spends its first simulation expanding the root: at 1 it has no visit to choose by
    and fails its own assertion, so a spec asking for 1 is refused naming the field."""
    from sims.spec import SpecError, parse_spec

    with pytest.raises(SpecError, match="simulations"):
        parse_spec({"kind": "tournament", "game": "order-poker", "players": 3,
                    "bots": [{"name": BOT, "params": {"simulations": 1}}, "order-poker/random", "order-poker/random"],
                    "deals": 1, "seed": 1})
