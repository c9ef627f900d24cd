"""One test (at least) per numbered rule of docs/rules/order-poker.md, and the worked example OP-8."""

from __future__ import annotations

import numpy as np
import pytest
from reference_eval import category_name
from test_order_poker_helpers import action, deal, play

from games.core.cards import parse_cards
from games.core.protocol import IllegalAction
from games.order_poker import COMBINATIONS, Rules, State
from games.order_poker.rules import DECK, FULL_HOUSE, PAIR, STRAIGHT, THREE, TWO_PAIR
from games.order_poker.scoring import half_stake, score_all_passed, score_order
from games.order_poker.state import combination

# Setup B: 3 players, the robot holds a pair of queens.
H0, H1, H2 = "6c 7d 8h 9s Jc", "6d 6h 8c Tc Qd", "Ks Kd Ah Ac 7s"
R_PAIR = "Qh Qc 9d Th 7c"
R_NONE = "Ts 9h Jd Qs As"
H3 = "Js Jh 9c Td 8s"


def kinds(st: State) -> set[tuple[str, int]]:
    return {(a.type, a.combination) for a in st.legal_actions()}


def swaps(st: State) -> set[tuple[str, str, int]]:
    from games.core.cards import card_str
    return {(card_str(a.give), card_str(a.take), a.source) for a in st.legal_actions() if a.type == "swap"}


def rule_of(st: State, text: str) -> str:
    with pytest.raises(IllegalAction) as e:
        st.apply(action(st.to_act(), text))
    return e.value.rule


# ---------------------------------------------------------------- OP-1 table
def test_op_1_1_and_1_4_deal_uses_the_36_card_deck_five_cards_each() -> None:
    rng = np.random.default_rng(7)
    for n in range(3, 7):
        st = State.deal(Rules(), n, 0, rng)
        cards = [c for h in st.hands for c in h] + st.robot
        assert len(cards) == 5 * (n + 1) == len(set(cards))
        assert set(cards) <= set(DECK) and len(DECK) == 36


def test_op_1_1_foreign_and_duplicate_cards_are_rejected() -> None:
    with pytest.raises(IllegalAction, match="not in the 36-card deck") as e:
        deal(["2c 7d 8h 9s Jc", H1, H2], R_PAIR)
    assert e.value.rule == "OP-1.1"
    with pytest.raises(IllegalAction, match="duplicate card 6d") as e:
        deal([H0, H1, "6d Kd Ah Ac 7s"], R_PAIR)
    assert e.value.rule == "OP-1.1"
    with pytest.raises(IllegalAction) as e:
        deal([H0, H1, "Ks Kd Ah Ac"], R_PAIR)
    assert e.value.rule == "OP-1.4"


@pytest.mark.parametrize("n", [2, 7])
def test_op_1_2_three_to_six_players(n: int) -> None:
    with pytest.raises(IllegalAction) as e:
        State.deal(Rules(), n, 0, np.random.default_rng(0))
    assert e.value.rule == "OP-1.2"


@pytest.mark.parametrize("dealer", [-1, 4, True])
def test_op_1_3_dealer_is_a_seat(dealer: int) -> None:
    with pytest.raises(IllegalAction) as e:
        State.deal(Rules(), 4, dealer, np.random.default_rng(0))
    assert e.value.rule == "OP-1.3"
    with pytest.raises(IllegalAction) as e:
        State.from_hands(Rules(), 3, dealer, [parse_cards(h) for h in (H0, H1, H2)], parse_cards(R_PAIR))
    assert e.value.rule == "OP-1.3"


# ---------------------------------------------------------------- OP-2 combinations
@pytest.mark.parametrize("hand, name", [
    ("6c 7d 8h 9s Jc", "none"), ("6c 6d 8h 9s Jc", "pair"), ("6c 6d 8h 8s Jc", "two_pair"),
    ("6c 6d 6h 8s Jc", "three"), ("6c 7d 8h 9s Tc", "straight"), ("Tc Jd Qh Ks Ac", "straight"),
    ("Ac 6d 7h 8s 9c", "none"),  # no wrap-around
    ("6c 6d 6h 8s 8c", "full_house"), ("6c 8c Tc Qc Ac", "flush"), ("6c 6d 6h 6s 8c", "four"),
    ("6h 7h 8h 9h Th", "straight_flush"),
])
def test_op_2_combinations(hand: str, name: str) -> None:
    cards = parse_cards(hand)
    assert COMBINATIONS[combination(cards)] == name == category_name(cards, "order-poker")


def test_op_2_fulfilled_means_exactly_the_order() -> None:
    # A full house does not fulfil an order of `three`: the orderer scores -1.
    cats = [FULL_HOUSE, 0, 0]
    assert score_order(cats, 0, 0, THREE, [None, "against", "against"], -1, 1, PAIR)[0] == -1


# ---------------------------------------------------------------- OP-3 bidding
def test_op_3_1_left_of_dealer_first_then_clockwise_among_bidders() -> None:
    st = deal([H0, H1, H2, H3], R_PAIR, dealer=1)
    seen = []
    for text in ["order two_pair", "pass", "order three", "order straight", "order flush"]:
        seen.append(st.to_act())
        play(st, text)
    assert seen == [2, 3, 0, 1, 2]  # seat 3 passed and is skipped after seat 2
    assert st.to_act() == 0
    st2 = deal([H0, H1, H2], R_PAIR, dealer=2)
    with pytest.raises(IllegalAction) as e:
        st2.apply(action(1, "pass"))
    assert e.value.rule == "OP-3.1" and e.value.index == 0


def test_op_3_2_no_robot_combination_no_repeat_no_none() -> None:
    st = deal([H0, H1, H2], R_PAIR, dealer=2)
    assert ("order", PAIR) not in kinds(st)  # the robot holds a pair
    assert kinds(st) == {("pass", -1)} | {("order", c) for c in range(2, 9)}
    assert rule_of(st, "order pair") == "OP-3.2"
    play(st, "order three")
    assert ("order", THREE) not in kinds(st)
    assert rule_of(st, "order three") == "OP-3.2"
    with pytest.raises(IllegalAction) as e:
        play(st, "order none")
    assert e.value.rule == "OP-3.2"
    # With a robot holding nothing, every one of the eight combinations may be ordered.
    assert kinds(deal([H0, H1, H2], R_NONE, dealer=2)) == {("pass", -1)} | {("order", c) for c in range(1, 9)}


def test_op_3_3_last_bidder_without_order_still_gets_his_turn() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "pass", "pass")
    assert st.to_act() == 2 and ("order", THREE) in kinds(st)
    play(st, "order three")
    assert (st.phase, st.orderer, st.order, st.stake, st.to_act()) == ("roles", 2, THREE, 1, 0)
    # Or he passes too: everyone passed (OP-4).
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "pass", "pass", "pass")
    assert st.is_over() and st.end_rule == "OP-4"


def test_op_3_3_all_but_one_passed_with_an_order_standing() -> None:
    st = play(deal([H0, H1, H2, H3], R_PAIR, dealer=3),
              "order straight", "order three", "pass", "pass", "pass")
    assert (st.phase, st.orderer, st.order, st.stake) == ("roles", 1, THREE, 2)


def test_op_3_4_no_legal_order_left_only_pass() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order two_pair", "order three", "order straight",
              "order full_house", "order flush", "order four", "order straight_flush")
    assert st.to_act() == 1 and kinds(st) == {("pass", -1)}
    assert st.stake == 7


@pytest.mark.parametrize("s, h", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (8, 4)])
def test_op_3_5_half_stake_rounds_up(s: int, h: int) -> None:
    assert half_stake(s) == h


# ---------------------------------------------------------------- OP-4 all passed
def test_op_4_holders_of_a_combination_score_minus_one() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "pass", "pass", "pass")
    assert st.scores() == [0, -1, -1]
    assert st.outcome()["orderer"] is None and st.outcome()["order"] is None and st.outcome()["stake"] == 0


def test_op_4_dealer_pays_when_nobody_and_not_the_robot_holds_a_combination() -> None:
    hands = ["6c 7d 8h 9s Jc", "6d 7h 8c Tc Qd", "Ks Jd Ah 9c 7s"]
    assert play(deal(hands, "Qh Kc 9d Th 6h", dealer=2), "pass", "pass", "pass").scores() == [0, 0, -1]
    assert play(deal(hands, "Qh Kc 9d Th 6h", dealer=0), "pass", "pass", "pass").scores() == [-1, 0, 0]
    # The robot holds a pair: nobody pays.
    assert play(deal(hands, "Qh Qc 9d Th 6h", dealer=2), "pass", "pass", "pass").scores() == [0, 0, 0]
    assert score_all_passed([0, 0, 0], 0, 1) == [0, -1, 0]


# ---------------------------------------------------------------- OP-5 roles
def test_op_5_1_roles_start_left_of_the_orderer() -> None:
    st = play(deal([H0, H1, H2, H3], R_PAIR, dealer=3), "pass", "order three", "pass", "pass")
    assert st.orderer == 1
    order = []
    for r in ["for", "against", "for"]:
        order.append(st.to_act())
        assert kinds(st) == {("role", -1)}
        play(st, r)
    assert order == [2, 3, 0]
    assert st.roles == ["for", None, "for", "against"]
    st2 = play(deal([H0, H1, H2, H3], R_PAIR, dealer=3), "pass", "order three", "pass", "pass")
    with pytest.raises(IllegalAction) as e:
        st2.apply(action(3, "for"))  # seat 2 declares first
    assert e.value.rule == "OP-5.1"


def test_op_5_2_for_hands_are_laid_open_after_the_roles() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order straight", "pass", "pass", "for")
    assert st.view(2)["open_hands"] == {}  # seat 2 has not declared yet
    play(st, "against")
    assert st.is_open and st.view(2)["open_hands"] == {1: parse_cards(H1)}
    assert st.view(0)["open_hands"] == {1: parse_cards(H1)}
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order straight", "pass", "pass", "against", "against")
    assert not st.is_open and st.view(1)["open_hands"] == {}


# ---------------------------------------------------------------- OP-6 exchange
def test_op_6_1_no_exchange_on_pair() -> None:
    st = play(deal([H0, H1, H2], R_NONE, dealer=2), "pass", "order pair", "pass", "against", "for")
    assert st.is_over() and st.end_rule == "OP-6.1" and st.round == 0
    # S = H = 1; the orderer holds his pair, the `for` seat 0 does not: +1 (OP-7).
    assert st.scores() == [0, 1, 0]


def _exchange_b(rules: dict[str, int] | None = None) -> State:
    """Setup B: seat 0 orders a straight, seat 1 `for`, seat 2 `against`; round 1, seat 0 to act."""
    return play(deal([H0, H1, H2], R_PAIR, dealer=2, **(rules or {})), "order straight", "pass", "pass",
                "for", "against")


def test_op_6_2_round_order_orderer_first_then_clockwise() -> None:
    st = play(deal([H0, H1, H2, H3], R_NONE, dealer=3), "pass", "order three", "pass", "pass",
              "against", "against", "against")
    seen = []
    for _ in range(8):
        seen.append(st.to_act())
        legal = st.legal_actions()
        st.apply(next(a for a in legal if a.type == "swap") if st.to_act() == 2 else legal[0])
    assert seen == [1, 2, 3, 0, 1, 2, 3, 0]
    assert st.round == 3


def test_op_6_3_orderer_swaps_with_robot_or_for_player_stop_from_round_2() -> None:
    st = _exchange_b()
    assert st.to_act() == 0 and st.round == 1
    legal = st.legal_actions()
    assert len(legal) == 1 + 25 + 25  # keep, 25 robot swaps, 25 swaps with the open seat 1
    assert {a.source for a in legal if a.type == "swap"} == {-1, 1}
    assert rule_of(st, "stop") == "OP-6.3"
    assert rule_of(st, "swap 6c Ks 2") == "OP-6.3"  # seat 2 is `against`: not open
    assert rule_of(st, "swap As Qh") == "OP-6.3"  # a card the orderer does not hold
    play(st, "keep", "swap Qd Qc", "keep")  # seat 1 swaps, so round 2 follows
    assert st.round == 2 and ("stop", -1) in kinds(st)
    play(st, "stop")
    assert st.is_over() and st.end_rule == "OP-6.3"
    # Not in a closed game: only robot swaps.
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order straight", "pass", "pass", "against", "against")
    assert {a.source for a in st.legal_actions() if a.type == "swap"} == {-1}


def test_op_6_3_only_the_orderer_says_stop() -> None:
    st = play(_exchange_b(), "keep", "swap Qd Qc", "keep", "keep")
    assert st.to_act() == 1 and ("stop", -1) not in kinds(st)
    assert rule_of(st, "stop") == "OP-6.3"


def test_op_6_4_orderer_uses_only_one_for_player() -> None:
    st = play(deal([H0, H1, H2, H3], R_PAIR, dealer=3), "order straight", "pass", "pass", "pass",
              "for", "for", "against")
    assert {a.source for a in st.legal_actions() if a.type == "swap"} == {-1, 1, 2}
    play(st, "swap Jc Tc 1", "keep", "keep", "swap Js 9d")
    assert st.partner == 1 and st.to_act() == 0
    assert {a.source for a in st.legal_actions() if a.type == "swap"} == {-1, 1}
    assert rule_of(st, "swap 6c Ks 2") == "OP-6.4"
    assert rule_of(st, "swap 6c Js 3") == "OP-6.3"


def test_op_6_5_opponents_may_not_lower_the_robot() -> None:
    st = play(_exchange_b(), "swap Jc Th")  # seat 0 now holds 6-7-8-9-T; robot Qh Qc 9d Jc 7c
    assert st.to_act() == 1 and COMBINATIONS[st.robot_cat] == "pair"
    robot = parse_cards("Qh Qc 9d Jc 7c")
    expected = set()
    for g in parse_cards(H1):
        for t in robot:
            after = [g if c == t else c for c in robot]
            if category_name(after, "order-poker") != "none":  # pair or better keeps the rank
                expected.add((g, t))
    from games.core.cards import card_str
    assert swaps(st) == {(card_str(g), card_str(t), -1) for g, t in expected}
    assert 0 < len(expected) < 25
    assert rule_of(st, "swap 6d Qh") == "OP-6.5"  # robot 6d Qc 9d Jc 7c: none
    assert rule_of(st, "swap 6d Ks 2") == "OP-6.5"  # opponents swap only with the robot
    play(st, "swap Qd Qh")  # still a pair: legal
    assert COMBINATIONS[st.robot_cat] == "pair"


def test_op_6_5_none_may_become_anything_and_the_orderer_is_free() -> None:
    st = play(deal([H0, H1, H2], R_NONE, dealer=2), "order straight", "pass", "pass", "against", "against")
    play(st, "keep")
    assert len(swaps(st)) == 25  # robot holds nothing
    st = _exchange_b()
    assert ("Jc", "Qh", -1) in swaps(st)  # lowers the robot's pair to nothing: the orderer may
    play(st, "swap Jc Qh")
    assert COMBINATIONS[st.robot_cat] == "none"


def test_op_6_6_a_swap_exchanges_two_different_cards() -> None:
    st = _exchange_b()
    assert all(a.give != a.take for a in st.legal_actions() if a.type == "swap")
    assert rule_of(st, "swap Th Th") == "OP-6.6"


def test_op_6_7_a_round_where_all_others_keep_ends_the_phase() -> None:
    st = play(_exchange_b(), "swap Jc Th", "keep", "keep")
    assert st.is_over() and st.end_rule == "OP-6.7" and st.round == 1
    st = play(_exchange_b(), "keep", "keep", "swap Kd Th")
    assert not st.is_over() and st.round == 2


def test_op_6_8_round_cap() -> None:
    st = play(_exchange_b({"max_exchange_rounds": 2}), "keep", "swap Qd Qc", "keep", "keep", "swap Qc Qd")
    assert not st.is_over()
    play(st, "keep")
    assert st.is_over() and st.end_rule == "OP-6.8" and st.outcome()["rounds"] == 2
    assert Rules().max_exchange_rounds == 12


# ---------------------------------------------------------------- OP-7 scoring
ROLES = [None, "for", "for", "against", "against"]


@pytest.mark.parametrize("cats, partner, expected", [
    # orderer not fulfilled: -1; `for` 0 even if fulfilled; `against` fulfilled gets S regardless
    ([0, STRAIGHT, 0, STRAIGHT, 0], -1, [-1, 0, 0, 5, 0]),
    # fulfilled, open, a `for` fulfilled: S to him and to the orderer; the other `for` +1 if used
    ([STRAIGHT, STRAIGHT, 0, 0, 0], 2, [5, 5, 1, 0, 0]),
    # fulfilled, open, no `for` fulfilled: orderer +1, the used `for` +1, the other 0
    ([STRAIGHT, 0, 0, 0, 0], 1, [1, 1, 0, 0, 0]),
    ([STRAIGHT, 0, 0, 0, 0], -1, [1, 0, 0, 0, 0]),
    # `against` not fulfilled but matching the robot's rank (two pair, >= pair): H
    ([STRAIGHT, 0, 0, TWO_PAIR, PAIR], -1, [1, 0, 0, 3, 0]),
])
def test_op_7_open_game_rows(cats: list[int], partner: int, expected: list[int]) -> None:
    assert score_order(cats, TWO_PAIR, 0, STRAIGHT, ROLES, partner, 5, PAIR) == expected


def test_op_7_closed_game_orderer_gets_half_stake() -> None:
    roles = [None, "against", "against"]
    assert score_order([THREE, 0, THREE], 0, 0, THREE, roles, -1, 3, PAIR) == [2, 0, 3]
    assert score_order([0, 0, THREE], 0, 0, THREE, roles, -1, 3, PAIR) == [-1, 0, 3]


@pytest.mark.parametrize("half_min, robot, against, points", [
    ("pair", PAIR, PAIR, 2), ("two_pair", PAIR, PAIR, 0),
    ("pair", TWO_PAIR, TWO_PAIR, 2), ("two_pair", TWO_PAIR, TWO_PAIR, 2),
    ("pair", 0, 0, 0), ("pair", THREE, TWO_PAIR, 0),
])
def test_op_7_against_half_min_option(half_min: str, robot: int, against: int, points: int) -> None:
    rank = Rules(against_half_min=half_min).half_min_rank
    roles = [None, "against", "against"]
    scores = score_order([STRAIGHT, against, 0], robot, 0, STRAIGHT, roles, -1, 4, rank)
    assert scores == [2, points, 0]


def test_op_7_against_half_stake_in_a_played_deal_both_options() -> None:
    # The robot holds a pair of queens, seat 1 (`against`) a pair of sixes: the same rank, so
    # H = 1 with against_half_min "pair" and nothing with "two_pair"; seat 0 makes his straight.
    for half_min, expected in [("pair", [1, 1, 0]), ("two_pair", [1, 0, 0])]:
        st = play(deal([H0, H1, H2], R_PAIR, dealer=2, against_half_min=half_min),
                  "order straight", "pass", "pass", "against", "for", "swap Jc Th", "keep", "keep")
        assert st.outcome()["combinations"] == ["straight", "pair", "two_pair"]
        assert st.scores() == expected, half_min


# ---------------------------------------------------------------- OP-8 worked example
def test_op_8_worked_example() -> None:
    st = deal([H0, H1, H2], R_PAIR, dealer=2)
    assert COMBINATIONS[st.robot_cat] == "pair"
    seats = []
    for text in ["pass", "order two_pair", "order three", "order full_house", "pass"]:
        seats.append(st.to_act())
        play(st, text)
    assert seats == [0, 1, 2, 1, 2]
    assert (st.orderer, COMBINATIONS[st.order], st.stake) == (1, "full_house", 3)
    assert half_stake(st.stake) == 2
    assert st.to_act() == 2
    play(st, "for")
    assert st.to_act() == 0
    play(st, "against")
    assert st.is_open and st.view(0)["open_hands"] == {2: parse_cards(H2)}
    assert st.roles == ["against", None, "for"]
    # Played on: the orderer builds his full house from the robot's queens in two rounds.
    play(st, "swap 8c Qh", "swap 7s Th", "keep", "swap Tc Qc", "keep", "keep")
    out = st.outcome()
    assert out["combinations"] == ["none", "full_house", "two_pair"] and out["rounds"] == 2
    assert out["open"] and out["fulfilled"] == [False, True, False]
    assert out["scores"] == [0, 1, 0]  # open game, no `for` fulfilled: orderer +1
    assert out["roles"] == ["against", "orderer", "for"] and out["stake"] == 3
