"""Liar's poker engine (docs/rules/liars-poker.md): bids and their order, turns, challenges, rebids,
resolution and payments, the opener, the worked example of LP-6, lazy legal actions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from games.core.protocol import IllegalAction, RulesError
from games.liars_poker.bids import ACCEPT, CHALLENGE, Actions, Bid, Chain
from games.liars_poker.entry import ENTRY
from games.liars_poker.rules import PRESETS, Rules, digit_ranking
from games.liars_poker.state import State

LP6 = ["31415926", "53589793", "23846264"]


def rules(**kw: object) -> Rules:
    return dataclasses.replace(PRESETS["classic"], **kw)


def play(st: State, *actions: object) -> State:
    for a in actions:
        st.apply(a)
    return st


def test_lp6_worked_example() -> None:
    st = State(rules(), 3, 0, [LP6])
    play(st, Bid(2, 5), Bid(3, 3), CHALLENGE, Bid(3, 9), Bid(4, 3), CHALLENGE)
    assert st.to_act() == 0 and not st.is_over()
    st.apply(CHALLENGE)
    assert st.is_over()
    assert st.scores() == [-1, 2, -1]
    r = st.outcome()["rounds"][0]
    assert r == {"round": 0, "opener": 0, "holder": 1, "bid": [4, 3], "rebid": False, "count": 4,
                 "holder_wins": True, "stake": 1, "scores": [-1, 2, -1]}


def test_lp6_had_seat_1_bid_five_threes() -> None:
    st = play(State(rules(), 3, 0, [LP6]), Bid(2, 5), Bid(3, 3), CHALLENGE, Bid(3, 9), Bid(5, 3), CHALLENGE, CHALLENGE)
    assert st.scores() == [1, -2, 1]


def test_lp6_under_rebid_once_the_turn_goes_back_to_the_holder() -> None:
    st = play(State(rules(rebid="once"), 3, 0, [LP6]), Bid(2, 5), Bid(3, 3), CHALLENGE, Bid(3, 9), Bid(4, 3),
              CHALLENGE, CHALLENGE)
    assert st.to_act() == 1 and not st.is_over()
    legal = st.legal_actions()
    assert ACCEPT in legal and CHALLENGE not in legal and Bid(4, 9) in legal and Bid(4, 3) not in legal
    st.apply(Bid(4, 9))  # the rebid: 9s on the table: 1 + 2 + 0 = 3 < 4
    assert st.to_act() == 2
    play(st, CHALLENGE, CHALLENGE)  # resolved with no second rebid (LP-4.6)
    assert st.is_over()
    r = st.outcome()["rounds"][0]
    assert r["rebid"] is True and r["count"] == 3 and not r["holder_wins"] and r["stake"] == 1
    assert st.scores() == [1, -2, 1]


def test_rebid_stake_doubles_only_a_rebid() -> None:
    st = play(State(rules(rebid="once", rebid_stake=2), 2, 0, [["1122", "1133"]]), Bid(2, 1), CHALLENGE)
    assert st.to_act() == 0
    play(st, Bid(4, 1), CHALLENGE)  # 1s: 2 + 2 = 4 >= 4
    assert st.scores() == [2, -2] and st.outcome()["rounds"][0]["stake"] == 2
    st = play(State(rules(rebid="once", rebid_stake=2), 2, 0, [["1122", "1133"]]), Bid(2, 1), CHALLENGE, ACCEPT)
    assert st.scores() == [1, -1] and st.outcome()["rounds"][0]["stake"] == 1


def test_a_raise_of_a_rebid_is_an_ordinary_bid_and_earns_a_rebid_turn_again() -> None:
    st = play(State(rules(rebid="once", rebid_stake=2), 3, 0, [["1111", "2222", "3333"]]),
              Bid(1, 1), CHALLENGE, CHALLENGE)
    assert st.to_act() == 0
    play(st, Bid(2, 1))  # rebid
    play(st, Bid(2, 2))  # seat 1 raises the rebid
    assert st.to_act() == 2
    play(st, CHALLENGE, CHALLENGE)
    assert st.to_act() == 1 and st.current.rebid_turn  # the raise earned a rebid turn
    play(st, ACCEPT)
    r = st.outcome()["rounds"][0]
    assert r["holder"] == 1 and r["rebid"] is False and r["stake"] == 1 and r["holder_wins"]
    assert st.scores() == [-1, 2, -1]


def test_two_players_the_first_challenge_resolves() -> None:
    st = play(State(rules(), 2, 0, [["00000000", "12345678"]]), Bid(1, 9), CHALLENGE)
    assert st.is_over() and st.scores() == [-1, 1]


def test_a_raise_cancels_the_challenges() -> None:
    st = play(State(rules(), 4, 0, [["11111111"] * 4]), Bid(1, 1), CHALLENGE, CHALLENGE, Bid(2, 1))
    assert st.to_act() == 0 and st.current.challenges == 0
    play(st, CHALLENGE, CHALLENGE)
    assert not st.is_over() and st.to_act() == 2
    play(st, CHALLENGE)
    assert st.is_over() and st.scores() == [-1, -1, -1, 3]  # seat 3 raised


def test_stake_multiplies_the_payment() -> None:
    st = play(State(rules(stake=5), 3, 0, [["11", "22", "33"]]), Bid(6, 1), CHALLENGE, CHALLENGE)
    assert st.scores() == [-10, 5, 5]


@pytest.mark.parametrize(("order", "expect"), [
    ("natural", (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
    ("ace_high", (2, 3, 4, 5, 6, 7, 8, 9, 0, 1)),
    ("openspiel", (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)),
])
def test_digit_orders(order: str, expect: tuple[int, ...]) -> None:
    assert digit_ranking(10, order) == expect
    assert digit_ranking(4, order) == (1, 2, 3, 4)  # LP-3.3: D < 10 ranks 1..D whatever the order


def test_bid_order_examples_of_lp_3_4() -> None:
    nat = Chain(digit_ranking(10, "natural"), 24)
    seq = [Bid(3, 5), Bid(3, 7), Bid(4, 2), Bid(4, 5)]
    assert [nat.rank(b) for b in seq] == sorted(nat.rank(b) for b in seq)
    ace = Chain(digit_ranking(10, "ace_high"), 24)
    assert ace.rank(Bid(3, 1)) > ace.rank(Bid(3, 7)) and nat.rank(Bid(3, 1)) < nat.rank(Bid(3, 7))
    assert nat.count == 240 and nat.bid(0) == Bid(1, 0) and nat.bid(239) == Bid(24, 9)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_chain_lengths_of_lp_9_3(preset: str) -> None:
    r = PRESETS[preset]
    assert r.chain_length(2) == (200 if preset == "openspiel" else 160)
    st = State.deal(r, 2, 0, np.random.default_rng(1))
    legal = st.legal_actions()
    assert len(legal) == r.chain_length(2)  # the opener: every bid, no challenge (LP-4.1)
    st.apply(legal[0])
    assert len(st.legal_actions()) == r.chain_length(2)  # every higher bid + the challenge
    assert st.legal_actions()[-1] == CHALLENGE


def test_actions_is_a_lazy_sequence() -> None:
    st = State.deal(rules(), 10, 0, np.random.default_rng(2))
    st.apply(Bid(3, 4))
    a = st.legal_actions()
    assert isinstance(a, Actions) and len(a) == 800 - 25 + 1  # (3, 4) has rank 24
    assert a[0] == Bid(3, 5) and a[-1] == CHALLENGE and a[-2] == Bid(80, 9)
    assert Bid(3, 4) not in a and Bid(3, 5) in a and (3, 5) in a and ACCEPT not in a and "x" not in a
    assert list(a) == [a[i] for i in range(len(a))]
    assert a.index(CHALLENGE) == len(a) - 1 and a.index(Bid(4, 0)) == 5
    assert a[1:3] == [Bid(3, 6), Bid(3, 7)]


def test_openers_rotate_and_follow_the_last_bidder() -> None:
    notes = [["12", "34", "56"]] * 4
    st = State(rules(rounds=4), 3, 0, notes)
    openers = []
    for _ in range(4):
        openers.append(st.current.opener)
        play(st, Bid(1, 1), Bid(1, 2), CHALLENGE, CHALLENGE)  # seat opener+1 holds
    assert openers == [0, 1, 2, 0]
    st = State(rules(rounds=3, next_opener="last_bidder"), 3, 0, notes)
    openers = []
    for _ in range(3):
        openers.append(st.current.opener)
        play(st, Bid(1, 1), Bid(1, 2), CHALLENGE, CHALLENGE)
    assert openers == [0, 1, 2]
    assert st.scores() == [1 + 1 - 2, -2 + 1 + 1, 1 - 2 + 1]


@pytest.mark.parametrize(("setup", "action", "rule"), [
    ([], CHALLENGE, "LP-4.1"),
    ([], ACCEPT, "LP-4.6"),
    ([Bid(2, 5)], Bid(2, 5), "LP-3.2"),
    ([Bid(2, 5)], Bid(2, 4), "LP-3.2"),
    ([Bid(2, 5)], Bid(25, 1), "LP-3.1"),
    ([Bid(2, 5)], Bid(0, 1), "LP-3.1"),
    ([Bid(2, 5)], Bid(3, 10), "LP-3.1"),
    ([Bid(2, 5)], ACCEPT, "LP-4.6"),
    ([Bid(2, 5)], "fold", "LP-7"),
    ([Bid(2, 5)], 17, "LP-7"),
    ([Bid(2, 5)], (1, 2, 3), "LP-7"),
])
def test_illegal_actions_name_their_rule(setup: list[object], action: object, rule: str) -> None:
    st = play(State(rules(), 3, 0, [LP6]), *setup)
    before = st.record()
    with pytest.raises(IllegalAction) as e:
        st.apply(action)
    assert e.value.rule == rule
    assert st.record() == before


def test_after_the_end_nothing_is_legal() -> None:
    st = play(State(rules(), 2, 0, [["12", "34"]]), Bid(1, 1), CHALLENGE)
    assert st.to_act() == -1 and len(st.legal_actions()) == 0
    with pytest.raises(IllegalAction) as e:
        st.apply(Bid(4, 4))
    assert e.value.rule == "LP-4.4"


def test_rebid_turn_refuses_a_challenge() -> None:
    st = play(State(rules(rebid="once"), 2, 0, [["12", "34"]]), Bid(1, 1), CHALLENGE)
    with pytest.raises(IllegalAction) as e:
        st.apply(CHALLENGE)
    assert e.value.rule == "LP-4.6"


def test_copy_is_independent() -> None:
    st = play(State(rules(rounds=2), 3, 0, [LP6, LP6]), Bid(2, 5))
    c = st.copy()
    play(c, CHALLENGE, CHALLENGE, Bid(1, 1))
    assert st.current.history == [(0, "bid", Bid(2, 5))] and st.deal_no == 0 and c.deal_no == 1


def test_views_hide_the_other_notes_until_resolution() -> None:
    st = play(State(rules(rounds=2), 3, 0, [LP6, LP6[::-1]]), Bid(2, 5))
    v = st.view(1)
    assert v["note"] == LP6[1] and LP6[0] not in str(v) and LP6[2] not in str(v)
    play(st, CHALLENGE, CHALLENGE)  # round 0 resolved: its notes are shown (LP-2.3)
    v = st.view(1)
    assert list(v["finished"][0].notes) == LP6 and v["note"] == LP6[1] and v["finished"][0].holder == 0


def test_deal_draws_every_note_up_front() -> None:
    r = rules(rounds=3, digit_values=4, digits_per_note=5)
    a = State.deal(r, 4, 0, np.random.default_rng(7))
    b = State.deal(r, 4, 0, np.random.default_rng(7))
    assert a.notes == b.notes and len(a.notes) == 3 and all(len(n) == 4 for n in a.notes)
    assert all(len(x) == 5 and set(x) <= set("1234") for rnd in a.notes for x in rnd)


def test_random_rounds_always_end_within_lp_4_7() -> None:
    rng = np.random.default_rng(3)
    for preset in PRESETS.values():
        for n in (2, 3, 7, 10):
            r = dataclasses.replace(preset, rounds=3)
            st = ENTRY.deal(r, n, 0, rng)
            steps = 0
            while not st.is_over():
                legal = st.legal_actions()
                st.apply(legal[int(rng.integers(len(legal)))])
                steps += 1
            assert steps < 3 * n * (r.chain_length(n) + 1)
            assert sum(st.scores()) == 0


@pytest.mark.parametrize(("field", "value", "rule"), [
    ("digits_per_note", 0, "LP-1.2"), ("digits_per_note", 21, "LP-1.2"), ("digit_values", 1, "LP-1.3"),
    ("digit_values", 11, "LP-1.3"), ("digit_order", "reverse", "LP-3.3"), ("rebid", "twice", "LP-4.6"),
    ("rebid_stake", 3, "LP-4.6"), ("stake", 0, "LP-5.2"), ("next_opener", "dealer", "LP-1.5"),
    ("rounds", 0, "LP-5.4"), ("stake", True, "LP-5.2"),
])
def test_rule_options_are_checked(field: str, value: object, rule: str) -> None:
    with pytest.raises(RulesError) as e:
        ENTRY.rules({field: value})
    assert e.value.field == field and e.value.rule == rule


def test_an_unknown_preset_is_refused() -> None:
    with pytest.raises(RulesError) as e:
        Rules(preset="uk")
    assert e.value.field == "preset" and e.value.rule == "LP-8"
    with pytest.raises(RulesError) as e:
        ENTRY.rules({"preset": "uk"})
    assert e.value.field == "preset"


def test_presets_of_lp_8() -> None:
    assert ENTRY.rules({"preset": "us"}).digit_order == "ace_high"
    tf = ENTRY.rules({"preset": "trading-floor"})
    assert (tf.digit_order, tf.rebid, tf.rebid_stake) == ("ace_high", "once", 2)
    os_ = ENTRY.rules({"preset": "openspiel"})
    assert (os_.digits_per_note, os_.digit_order, os_.rebid, os_.rebid_stake) == (10, "openspiel", "once", 1)
    for name, r in PRESETS.items():
        assert r.stake == 1 and r.next_opener == "rotate" and ENTRY.rules(ENTRY.rules_dict(r)) == r
        assert ENTRY.rules({"preset": name}) == r
