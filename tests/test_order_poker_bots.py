"""Order Poker bots: registry entries, legal play, the seed's strategy remarks, Monte Carlo sampling."""

from __future__ import annotations

import numpy as np
import pytest
from test_order_poker_helpers import deal, play
from test_order_poker_playthrough import check_outcome, play_checked

from games.core import registry
from games.core.cards import parse_cards
from games.order_poker import COMBINATIONS, Rules, State
from games.order_poker.montecarlo import known_hidden_cards, sample_state
from games.order_poker.plans import sampled_one_swap_reach, swap_plans
from games.order_poker.state import combination

H0, H1, H2 = "6c 7d 8h 9s Jc", "6d 6h 8c Tc Qd", "Ks Kd Ah Ac 7s"
R_PAIR, R_NONE = "Qh Qc 9d Th 7c", "Ts 9h Jd Qs As"
NAMES = ["order-poker/random", "order-poker/heuristic", "order-poker/montecarlo"]


def test_registry_has_the_three_bots_with_schemas() -> None:
    found = registry.bots("order-poker")
    assert set(NAMES) <= set(found)
    for name in NAMES:
        schema = found[name].schema
        assert schema["type"] == "object" and schema["properties"] and found[name].description
    assert "samples" in found["order-poker/montecarlo"].schema["properties"]
    assert "pass_prob" in found["order-poker/random"].schema["properties"]
    assert "risk" in found["order-poker/heuristic"].schema["properties"]


@pytest.mark.parametrize("name, params", [
    ("order-poker/random", {"pass_prob": 1.5}), ("order-poker/random", {"colour": 1}),
    ("order-poker/heuristic", {"risk": -1}), ("order-poker/heuristic", {"samples": 0}),
    ("order-poker/montecarlo", {"samples": "many"}), ("order-poker/montecarlo", {"depth": 3}),
])
def test_bad_parameters_are_rejected(name: str, params: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        registry.make(name, params)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_heuristic_playthroughs_keep_every_invariant(players: int) -> None:
    rng = np.random.default_rng(3000 + players)
    bots = [registry.make("order-poker/heuristic") if i % 2 == 0 else registry.make("order-poker/random")
            for i in range(players)]
    for d in range(150):
        st = State.deal(Rules(), players, d % players, rng)
        play_checked(st, bots, rng, exact=d % 30 == 0)
        check_outcome(st)


def test_montecarlo_plays_legal_actions_and_is_seeded() -> None:
    bot = registry.make("order-poker/montecarlo", {"samples": 2, "candidates": 3})
    records = []
    for _ in range(2):
        rng = np.random.default_rng(5)
        for d in range(3):
            st = State.deal(Rules(), 4, d, rng)
            play_checked(st, [bot] * 4, rng, exact=False)
            check_outcome(st)
            records.append(st.record())
    assert records[:3] == records[3:]


# ---------------------------------------------------------------- plans (exact tables)
def test_swap_plans_cover_every_split_with_its_cost() -> None:
    hand, robot = parse_cards(H0), parse_cards(R_PAIR)
    p = swap_plans(hand, robot)
    assert len(p.mine) == 252 and p.cost.tolist().count(0) == 1 and p.cost.tolist().count(5) == 1
    i0 = int(np.flatnonzero(p.cost == 0)[0])
    assert COMBINATIONS[p.mine[i0]] == "none" and COMBINATIONS[p.robot[i0]] == "pair"
    # One swap (Jc or 6c for Th) makes a straight; the exact count of such splits is 2.
    assert int(((p.cost == 1) & (p.mine == COMBINATIONS.index("straight"))).sum()) == 2
    for k in range(252):
        cards = p.pool[p.subsets[k]].tolist()
        assert p.mine[k] == combination(cards)


def test_sampled_opponent_reach_is_a_probability_and_seeded() -> None:
    unknown = [c for c in range(16, 52) if c not in parse_cards(H0) + parse_cards(R_PAIR)]
    a = sampled_one_swap_reach(unknown, parse_cards(R_PAIR), 400, np.random.default_rng(1))
    b = sampled_one_swap_reach(unknown, parse_cards(R_PAIR), 400, np.random.default_rng(1))
    assert (a == b).all() and ((a >= 0) & (a <= 1)).all()
    # With a pair of queens in the robot, nearly every hand holds or makes a pair in one swap.
    assert a[COMBINATIONS.index("pair")] > 0.9 and a[COMBINATIONS.index("straight_flush")] < 0.05


# ---------------------------------------------------------------- the seed's strategy remarks
def heuristic_act(st: State) -> object:
    bot = registry.make("order-poker/heuristic")
    return bot.act(st.view(st.to_act()), st.legal_actions(), np.random.default_rng(0))


def test_heuristic_bids_what_one_swap_reaches() -> None:
    st = deal([H0, H1, H2], R_PAIR, dealer=2)  # seat 0: 6-7-8-9 + Th in the robot
    a = heuristic_act(st)
    assert a.type == "order"
    p = swap_plans(st.hands[0], st.robot)
    assert int(p.cost[p.mine == a.combination].min()) <= 1


def test_heuristic_last_bidder_with_a_combination_does_not_pass() -> None:
    st = play(deal([H0, H2, H1], R_PAIR, dealer=2), "pass", "pass")  # seat 2 holds a pair of sixes
    assert heuristic_act(st).type == "order"  # passing would cost -1 (OP-4)


def test_heuristic_roles_on_a_pair_order() -> None:
    # Seat 0 orders `pair`; seat 1 holds a pair of sixes: against (he scores the stake).
    st = play(deal([H0, H1, H2], R_NONE, dealer=2), "order pair", "pass", "pass")
    assert heuristic_act(st).role == "against"
    # Seat 2 holds two pair, not a pair, robot holds nothing: for, so the orderer gets only +1.
    play(st, "against")
    assert heuristic_act(st).role == "for"


def test_heuristic_orderer_swaps_toward_the_order_then_stops() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order straight", "pass", "pass", "against", "against")
    a = heuristic_act(st)
    assert a.type == "swap" and a.take == parse_cards("Th")[0]
    play(st, "swap Jc Th", "swap Qd Qc", "keep")
    assert st.round == 2 and COMBINATIONS[combination(st.hands[0])] == "straight"
    assert heuristic_act(st).type == "stop"


def test_heuristic_beats_random_over_duplicate_seating() -> None:
    names = ["order-poker/heuristic", "order-poker/random", "order-poker/random"]
    totals = np.zeros(3)
    for k in range(120):
        for r in range(3):
            bots = [registry.make(names[(i + r) % 3]) for i in range(3)]
            st = State.deal(Rules(), 3, k % 3, np.random.default_rng([7, k]))
            rng = np.random.default_rng([7, k, r])
            while not st.is_over():
                s = st.to_act()
                st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
            for i, x in enumerate(st.scores()):
                totals[(i + r) % 3] += x
    mean = totals / 360
    assert mean[0] > max(mean[1], mean[2]) + 0.3, mean


# ---------------------------------------------------------------- montecarlo sampling
def test_sampled_states_agree_with_the_view() -> None:
    rng = np.random.default_rng(11)
    bots = [registry.make("order-poker/random", {"pass_prob": 0.3}) for _ in range(5)]
    checked = 0
    for d in range(60):
        st = State.deal(Rules(), 5, d % 5, rng)
        while not st.is_over():
            seat = st.to_act()
            view = st.view(seat)
            if st.actions and d % 3 == 0:
                s = sample_state(view, rng)
                assert s.hands[seat] == st.hands[seat] and s.robot == st.robot
                assert s.actions == st.actions and s.to_act() == st.to_act()
                for f, h in view["open_hands"].items():
                    assert s.hands[f] == h
                for i, cards in known_hidden_cards(view).items():
                    assert cards <= set(s.hands[i])
                cards = [c for h in s.hands for c in h] + s.robot
                assert len(set(cards)) == 30
                checked += 1
            st.apply(bots[seat].act(view, st.legal_actions(), rng))
    assert checked > 100
