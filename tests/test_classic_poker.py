"""Classic poker engine (docs/rules/classic-poker.md): the CP-11.2 record, betting, illegal actions
with their CP rule, and showdowns recomputed by the plain-Python reference evaluator."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import numpy as np
import pytest
from reference_wild import RefMode, reference_key

from games.classic_poker import hands
from games.classic_poker.bots import EquityBot, RandomBot, RulesBot
from games.classic_poker.rules import Rules
from games.classic_poker.state import State
from games.core import betting as bt
from games.core import registry, replay
from games.core.cards import card_str
from games.core.protocol import IllegalAction, RulesError

ENTRY = registry.game("classic-poker")
PREFIX = ["Qs", "9h", "Kd", "Ah", "Qh", "8d", "3c", "Tc", "2c", "7s", "Jh", "6h", "Qd", "6c", "8s", "4d", "5d", "5h",
          "2d", "Js", "9c", "4s"]


def _example_record() -> dict[str, Any]:
    """CP-11.2's example, its abridged deck orders completed with the remaining cards in id order."""
    rest = [card_str(c) for c in range(52) if card_str(c) not in PREFIX]
    return {"format": "rasklad-record/1", "game": "classic-poker", "version": 2,
            "rules": {"preset": "draw", "deck": "52", "ante": 1, "min_bet": 1, "limit": 3, "max_raises": 3,
                      "openers": "none", "max_draw": 5, "pot": "high"},
            "players": 4, "dealer": 3,
            "deal": {"deck_order": PREFIX + rest, "reshuffle_order": [card_str(c) for c in range(52)],
                     "carried": [0, 0, 0, 0]},
            "actions": [{"seat": 0, "act": "raise", "amount": 3}, {"seat": 1, "act": "raise", "amount": 3},
                        {"seat": 2, "act": "fold"}, {"seat": 3, "act": "fold"}, {"seat": 0, "act": "call"},
                        {"seat": 0, "act": "draw", "discard": ["2c", "5d"]}, {"seat": 1, "act": "draw", "discard": []},
                        {"seat": 0, "act": "check"}, {"seat": 1, "act": "check"}],
            "outcome": {"showdown": {"0": {"category": "three", "cards": ["Qs", "Qh", "Qd", "9c", "4s"]},
                                     "1": {"category": "straight", "cards": ["9h", "8d", "7s", "6c", "5h"]}},
                        "winners": {"high": [1]}, "scores": [-7, 9, -1, -1]}}


def test_cp11_2_example_record_replays_to_its_outcome() -> None:
    rec = _example_record()
    out = replay.replay(rec)  # checks the stored outcome field by field
    assert out["pot"] == 16  # CP-14.4: 4 + 3 + 6 + 3
    st = replay.replay_state(rec)
    again = st.record()
    assert again["actions"] == rec["actions"] and again["outcome"]["scores"] == [-7, 9, -1, -1]


@pytest.mark.parametrize(("index", "change", "rule"), [
    (1, {"seat": 1, "act": "raise", "amount": 4}, "CP-6.4"),     # CP-14.4: a raise of 4 with limit 3
    (5, {"seat": 0, "act": "draw", "discard": ["As"]}, "CP-7.4"),  # not his card
    (5, {"seat": 0, "act": "check"}, "CP-7.4"),                    # a bet during the draw
    (2, {"seat": 3, "act": "fold"}, "CP-1.7"),                     # out of turn
])
def test_illegal_actions_name_their_index_and_rule(index: int, change: dict[str, Any], rule: str) -> None:
    rec = _example_record()
    del rec["outcome"]
    rec["actions"][index] = change
    with pytest.raises(IllegalAction) as e:
        replay.replay(rec)
    assert (e.value.index, e.value.rule) == (index, rule)


def test_raise_cap_and_first_stud_bet() -> None:
    rules = ENTRY.rules({"preset": "stud7"})
    st = State.deal(rules, 3, 0, np.random.default_rng(4))
    first = st.to_act()
    acts = {str(a) for a in st.legal_actions()}
    assert "check" not in acts and {"fold", "raise 1", "raise 3"} <= acts  # CP-8.4
    with pytest.raises(IllegalAction, match=r"CP-8\.4"):
        st.apply(type(st.legal_actions()[0])(bet=bt.CHECK))
    for _ in range(4):  # a bet and three raises (CP-6.6)
        st.apply(next(a for a in st.legal_actions() if str(a) == "raise 3"))
    assert not any(str(a).startswith("raise") for a in st.legal_actions())
    assert st.to_act() != first or len(st.legal_actions()) == 2


def test_jackpots_openers() -> None:
    rules = ENTRY.rules({"preset": "jackpots"})
    for seed in range(40):
        st = State.deal(rules, 4, 0, np.random.default_rng(seed))
        seat = st.to_act()
        can = st._may_open(seat)
        raises = [a for a in st.legal_actions() if str(a).startswith("raise")]
        assert bool(raises) == can  # CP-7.3
        if not can:
            with pytest.raises(IllegalAction, match=r"CP-7\.3"):
                st.apply(type(st.legal_actions()[0])(bet=bt.raise_by(1)))


def test_passed_out_deal_scores_zero() -> None:
    rules = ENTRY.rules({"preset": "jackpots"})
    for seed in range(200):
        st = State.deal(rules, 3, 0, np.random.default_rng(seed))
        while not st.is_over() and st.street == 0 and st.phase == "bet":
            checks = [a for a in st.legal_actions() if str(a) == "check"]
            st.apply(checks[0])
        if st.is_over():
            assert st.outcome()["passed_out"] and st.scores() == [0, 0, 0]  # CP-7.3
            return
    pytest.fail("no passed-out deal in 200 seeds")


def test_bad_rules_name_field_and_rule() -> None:
    with pytest.raises(RulesError) as e:
        Rules(form="draw", four_flush="on")
    assert (e.value.field, e.value.rule) == ("four_flush", "CP-4.2")
    with pytest.raises(RulesError) as e:
        Rules(min_bet=4, limit=3)
    assert e.value.field == "min_bet"


# ------------------------------------------------------------------ showdowns against the reference
def _ref_mode(rules: Rules, low: bool) -> RefMode:
    wild = "none"
    if rules.jokers:
        wild = "bug" if rules.joker == "bug" else ("deuces+jokers" if rules.wild_ranks == ("2",) else "jokers")
    elif rules.wild_ranks == ("2",):
        wild = "deuces"
    return RefMode(short=rules.short, wild=wild, bug_flush=rules.bug_flush, four_flush=rules.four_flush == "on",
                   low=rules.low_ranking if low else None, ace_low_straight=rules.ace_low_straight == "on")


def _ref(rules: Rules, cards: list[int], low: bool) -> Any:
    mode = _ref_mode(rules, low)
    keys = [reference_key(list(s), mode, "36" if rules.short else "52") for s in itertools.combinations(cards, 5)]
    return min(keys) if low else max(keys)


def _play(preset: str, players: int, seed: int) -> State:
    rules = ENTRY.rules({"preset": preset})
    rng = np.random.default_rng(seed)
    st = State.deal(rules, players, seed % players, rng)
    bots = [RulesBot() if s % 2 else RandomBot() for s in range(players)]
    while not st.is_over():
        s = st.to_act()
        st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
    return st


@pytest.mark.parametrize("preset", ["draw", "draw-joker", "draw-bug", "draw-deuces", "lowball", "lowball-a5", "stud5",
                                    "stud7", "stud7-hilo", "short36-stud7"])
def test_payouts_follow_the_reference_evaluator(preset: str) -> None:
    """CP-6.8/CP-6.9/CP-5: every showdown pays the reference's best hands, halves and odd chips."""
    showdowns = 0
    for seed in range(60):
        st = _play(preset, 4 if "36" not in preset else 3, seed)
        out = st.outcome()
        committed = list(st.betting.committed)
        assert sum(out["scores"]) == 0
        if not out["showdown"]:
            continue
        showdowns += 1
        live = [int(s) for s in out["showdown"]]
        order = bt.odd_chip_order(st.dealer, st.players)
        rules = st.rules
        pot = sum(committed)
        expected = [0] * st.players
        hi_keys = {s: _ref(rules, st.full_hand(s), False) for s in live} if rules.pot != "low" else {}
        lo_keys = {s: _ref(rules, st.full_hand(s), True) for s in live} if rules.pot != "high" else {}
        if rules.pot == "low":
            best = min(lo_keys.values())
            split = bt.split_pot(pot, [s for s in live if lo_keys[s] == best], order)
        elif rules.pot == "high":
            best = max(hi_keys.values())
            split = bt.split_pot(pot, [s for s in live if hi_keys[s] == best], order)
        else:
            hb, lb = max(hi_keys.values()), min(lo_keys.values())
            split = bt.split_hi_lo(pot, [s for s in live if hi_keys[s] == hb], [s for s in live if lo_keys[s] == lb],
                                   order)
        for s, c in split.items():
            expected[s] += c
        assert out["scores"] == [expected[s] - committed[s] for s in range(st.players)], (preset, seed)
    assert showdowns >= 10


def test_common_card_when_the_stock_runs_short() -> None:
    """CP-8.6: eight players all in to the seventh card on 52 cards share one up card."""
    rules = ENTRY.rules({"preset": "stud7"})
    st = State.deal(rules, 8, 0, np.random.default_rng(3))
    while not st.is_over():
        calls = [a for a in st.legal_actions() if str(a) in ("call", "check")]
        st.apply(calls[0] if calls else next(a for a in st.legal_actions() if str(a) == "raise 1"))
    assert st.common is not None and all(len(st.cards[s]) == 6 for s in range(8))
    assert len(st.outcome()["showdown"]) == 8


def test_draw_restock_conserves_cards() -> None:
    """CP-7.5: six players drawing five on 36 cards: every card dealt at most once at a time."""
    rules = ENTRY.rules({"preset": "short36-draw"})
    st = State.deal(rules, 6, 0, np.random.default_rng(9))
    while st.phase == "bet":
        st.apply(next(a for a in st.legal_actions() if str(a) in ("check", "call")))
    while st.phase == "draw":
        st.apply(max(st.legal_actions(), key=lambda a: len(a.discard or ())))
    held = [c for s in range(6) for c in st.cards[s]]
    assert len(held) == len(set(held)) == 30
    assert not set(held) & set(st.kept_aside)


def test_views_hide_other_hole_cards() -> None:
    st = _play("stud7", 4, 1)
    v = st.view(0)
    for p in range(1, 4):
        downs = {hands.name(c) for c, u in zip(st.cards[p], st.face_up[p], strict=True) if not u}
        assert not downs & set(json.dumps(v["up"]).split('"'))
    assert v["hand"] == [hands.name(c) for c in st.cards[0]]


def test_views_show_how_many_cards_others_drew_never_which() -> None:
    """CP-11.1: another player's draw shows its count (and a shown ace, CP-7.4), never the cards
    thrown; a seat sees its own discards. (Views listed every discard of every seat before.)"""
    rules = ENTRY.rules({"preset": "draw"})
    seen_draws = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        st = State.deal(rules, 3, 2, rng)
        bot = RandomBot()
        while not st.is_over():
            seat = st.to_act()
            st.apply(bot.act(st.view(seat), st.legal_actions(), rng))
        for s in range(3):
            thrown_by_others = {c for a in st.history if a["act"] == "draw" and a["seat"] != s for c in a["discard"]}
            mine = [a for a in st.history if a["act"] == "draw" and a["seat"] == s]
            actions = st.view(s)["actions"]
            draws = [a for a in actions if a["act"] == "draw"]
            for a in draws:
                if a["seat"] == s:
                    assert a in mine
                else:
                    assert "discard" not in a and a["count"] == st.drawn[a["seat"]]
                    seen_draws += a["count"] > 0
            assert not thrown_by_others & set(json.dumps(actions).split('"')) - set(st.view(s)["hand"])
    assert seen_draws > 20


def test_equity_bot_is_deterministic_and_legal() -> None:
    rules = ENTRY.rules({"preset": "stud7-hilo"})
    st = State.deal(rules, 3, 0, np.random.default_rng(2))
    bot = EquityBot(samples=200)
    view = st.view(st.to_act())
    a = bot.act(copy.deepcopy(view), st.legal_actions(), np.random.default_rng(5))
    b = bot.act(copy.deepcopy(view), st.legal_actions(), np.random.default_rng(5))
    assert a == b and a in st.legal_actions()


def test_wild_card_declarations_in_the_outcome() -> None:
    """CP-3.3 / CP-11.2: the declaration written for a shown hand (CP-14.2, CP-14.3 hands)."""
    from games.classic_poker.rules import PRESETS
    from games.classic_poker.state import _declare

    assert _declare(PRESETS["draw-bug"], ["Kc", "Kd", "Jk", "7h", "4s"], False) == {"Jk": "Ac"}  # pair of kings, ace
    assert _declare(PRESETS["draw-bug"], ["5c", "6d", "7h", "8s", "Jk"], False)["Jk"][0] == "9"  # 9-high straight
    assert _declare(PRESETS["draw-bug"], ["Ah", "Kh", "9h", "5h", "Jk"], False) == {"Jk": "Qh"}  # fill: A-K-Q-9-5
    deuces = _declare(PRESETS["draw-deuces"], ["Ah", "3h", "2h", "2s", "2d"], False)
    assert deuces == {"2h": "5h", "2s": "4h", "2d": "2h"}  # CP-3.2: a straight flush A-5 of hearts
    assert _declare(PRESETS["draw-joker"], ["7c", "7d", "7h", "7s", "Jk"], False) == {"Jk": "7c"}  # five sevens
    low = Rules(deck="53", pot="low", low_ranking="ace_to_five")
    assert _declare(low, ["As", "2d", "3c", "4h", "Jk"], True)["Jk"][0] == "5"  # CP-5.5: 5-4-3-2-A
    st = _play("draw-joker", 4, 0)
    for entry in st.outcome()["showdown"].values():
        if "Jk" in entry.get("cards", []):
            assert "Jk" in entry["declared"]


def test_openers_are_shown() -> None:
    """CP-11.1: with openers=jacks the outcome names the opener and shows his openers."""
    seen = 0
    for seed in range(30):
        st = _play("jackpots", 4, seed)
        out = st.outcome()
        if out.get("passed_out"):
            assert "openers" not in out
            continue
        seen += 1
        op = out["openers"]
        dealt = {hands.name(c) for c in st.dealt[op["seat"]]}
        assert set(op["cards"]) <= dealt and len(op["cards"]) >= 2
        if len(op["cards"]) == 4 and len({c[1] for c in op["cards"]}) == 1:
            continue  # a four-flush opener (four_flush_opens, CP-7.3)
        ranks = [c[0] for c in op["cards"]]
        assert all(ranks.count(r) >= 2 for r in ranks) or len(ranks) == 5
        if len(ranks) == 2:  # one pair opens only from jacks up; two pair, three, four always
            assert "23456789TJQKA".index(ranks[0]) >= 9
    assert seen


# ------------------------------------------------------------------ CP-7.4, CP-5.4, CP-7.3/CP-7.5 as written
def _interleave(by_pos: list[list[str]], stock: list[str], deck: list[int]) -> list[int]:
    """A ``deck_order`` dealing ``by_pos[i]`` to position i (CP-11.3: card k to position k mod n), then
    ``stock`` on top of the stock, then the rest of ``deck`` in id order."""
    n = len(by_pos)
    order = [hands.parse(by_pos[k % n][k // n]) for k in range(5 * n)] + [hands.parse(c) for c in stock]
    return order + [c for c in sorted(deck) if c not in order]


def test_cp7_4_a_discard_in_any_order_is_accepted_and_written_in_the_order_held() -> None:
    """CP-7.4 gives a discard no order: seat 0 holds Qs Qh 2c Qd 5d (as dealt, CP-11.3) and throws
    5d 2c; the record writes ["2c", "5d"], the order the cards are held (CP-11.2). It was rejected as
    "a discard of 2 cards is over the limit max_draw=5"."""
    rec = _example_record()
    rec["actions"][5] = {"seat": 0, "act": "draw", "discard": ["5d", "2c"]}
    out = replay.replay(rec)  # the stored outcome still holds
    assert out["scores"] == [-7, 9, -1, -1]
    st = replay.replay_state(rec)
    assert st.record()["actions"][5] == {"seat": 0, "act": "draw", "discard": ["2c", "5d"]}
    assert [hands.name(c) for c in st.cards[0]] == ["Qs", "Qh", "Qd", "9c", "4s"]
    # Straight through the engine and the record writer: three cards in reverse order.
    st = ENTRY.state_from_record({**_example_record(), "actions": [], "outcome": None})
    for a in _example_record()["actions"][:5]:
        st.apply(ENTRY.decode_action(st, a, 0))
    thrown = (hands.parse("5d"), hands.parse("Qd"), hands.parse("2c"))
    act = type(st.legal_actions()[0])(discard=thrown)
    assert ENTRY.encode_action(st, act)["discard"] == ["2c", "Qd", "5d"]
    st.apply(act)
    assert st.history[-1]["discard"] == ["2c", "Qd", "5d"] and st.drawn[0] == 3


def test_cp5_4_a_low_pot_with_no_qualifying_low_goes_to_the_high_hand() -> None:
    """CP-5.4: ``pot=low`` with ``low_qualifier=8`` and no low of 8 or better: the high hand takes the
    whole pot. Seat 0 (K-Q-J-9-3, no pair: the better low) loses to seat 1's pair of aces; the engine
    gave the pot to the best non-qualifying low before."""
    rules = Rules(pot="low", low_ranking="ace_to_five", low_qualifier="8")
    order = _interleave([["Ks", "Qd", "Jc", "9h", "3s"], ["As", "Ad", "7c", "6h", "5s"]], [], list(range(52)))
    st = State(rules, 2, 1, order, list(range(52)))
    for text in ("check", "check"):
        st.apply(next(a for a in st.legal_actions() if str(a) == text))
    st.apply(type(st.legal_actions()[0])(discard=()))
    st.apply(type(st.legal_actions()[0])(discard=()))
    for text in ("check", "check"):
        st.apply(next(a for a in st.legal_actions() if str(a) == text))
    out = st.outcome()
    assert out["scores"] == [-1, 1] and out["winners"] == {"high": [1], "low": []}
    assert out["showdown"]["1"]["category"] == "pair" and out["showdown"]["0"]["low"] is None
    # A qualifying low still takes the whole low pot (seat 1 now holds 7-6-5-3-A).
    order = _interleave([["Ks", "Kd", "Kc", "9h", "9s"], ["As", "3d", "7c", "6h", "5s"]], [], list(range(52)))
    st = State(rules, 2, 1, order, list(range(52)))
    for a in ("check", "check", (), (), "check", "check"):
        st.apply(type(st.legal_actions()[0])(discard=a) if isinstance(a, tuple)
                 else next(x for x in st.legal_actions() if str(x) == a))
    assert st.outcome()["scores"] == [-1, 1] and st.outcome()["winners"]["low"] == [1]


def test_cp7_3_cp7_5_only_the_openers_opening_cards_are_kept_aside() -> None:
    """CP-7.3 / CP-7.5: the opener (seat 0, Jc Jd) throws Jd 6h 8s Tc. Jd, an opening card, is kept
    aside; 6h 8s Tc join the new stock. 36 cards, six players: after seat 0 draws four, two cards are
    left, so seat 2's draw of five rebuilds the stock from 8s 6h Tc (first in ``reshuffle_order``)
    and seat 1's folded hand: seat 2 ends with the two stock cards and 8s 6h Tc. The engine kept every
    discard of the opener aside and dealt seat 2 seat 1's folded cards instead."""
    rules = Rules(deck="36", openers="jacks")
    deck = hands.deck_of(rules)
    by_pos = [["Jc", "Jd", "6h", "8s", "Tc"], ["Ac", "Kc", "Qc", "9c", "7c"], ["Ad", "Kd", "Qd", "9d", "7d"],
              ["Ah", "Ks", "Qh", "9h", "7s"], ["As", "Kh", "Qs", "9s", "7h"], ["Ts", "Th", "8c", "8d", "6c"]]
    stock = ["6d", "6s", "Js", "Jh", "8h", "Td"]
    order = _interleave(by_pos, stock, deck)
    first = [hands.parse(c) for c in ("Jd", "8s", "6h", "Tc")]
    re = first + [c for c in sorted(deck) if c not in first]
    st = State(rules, 6, 5, order, re)
    Act = type(st.legal_actions()[0])
    st.apply(Act(bet=bt.raise_by(1)))  # seat 0 opens (CP-7.3)
    st.apply(Act(bet=bt.FOLD))  # seat 1
    for _ in range(4):
        st.apply(Act(bet=bt.CALL))
    st.apply(Act(discard=tuple(hands.parse(c) for c in ("Jd", "6h", "8s", "Tc"))))
    st.apply(Act(discard=tuple(st.cards[2])))
    assert [hands.name(c) for c in st.cards[0]] == ["Jc", "6d", "6s", "Js", "Jh"]
    assert [hands.name(c) for c in st.cards[2]] == ["8h", "Td", "8s", "6h", "Tc"]
    assert st.kept_aside == [hands.parse("Jd")]
    for _ in range(3):
        st.apply(Act(discard=()))
    while not st.is_over():
        st.apply(Act(bet=bt.CHECK))
    out = st.outcome()
    assert out["openers"] == {"seat": 0, "cards": ["Jc", "Jd"]}  # CP-11.1: the kept-aside Jd shown
    assert out["showdown"]["0"]["category"] == "full_house" and out["showdown"]["2"]["category"] == "two_pair"
    assert out["winners"] == {"high": [0]} and out["scores"] == [9, -1, -2, -2, -2, -2]
    assert sum(st.cards_in_play().values()) == 36


def test_cp7_5_no_discard_beyond_the_cards_left_to_replace_it() -> None:
    """CP-7.5: 36 cards, six players, the opener (seat 0) throws all five, Jc Jd kept aside (CP-7.3):
    one stock card and his three other discards are left, so seat 1 may draw four, not five (the
    engine offered five and then failed with "the stock and the discards are exhausted")."""
    rules = Rules(deck="36", openers="jacks")
    deck = hands.deck_of(rules)
    by_pos = [["Jc", "Jd", "6h", "8s", "Tc"], ["Ac", "Kc", "Qc", "9c", "7c"], ["Ad", "Kd", "Qd", "9d", "7d"],
              ["Ah", "Ks", "Qh", "9h", "7s"], ["As", "Kh", "Qs", "9s", "7h"], ["Ts", "Th", "8c", "8d", "6c"]]
    st = State(rules, 6, 5, _interleave(by_pos, [], deck), sorted(deck))
    Act = type(st.legal_actions()[0])
    st.apply(Act(bet=bt.raise_by(1)))
    for _ in range(5):
        st.apply(Act(bet=bt.CALL))
    st.apply(Act(discard=tuple(st.cards[0])))
    assert st.kept_aside == [hands.parse("Jc"), hands.parse("Jd")]
    assert max(len(a.discard or ()) for a in st.legal_actions()) == 4
    with pytest.raises(IllegalAction) as e:
        st.apply(Act(discard=tuple(st.cards[1])))
    assert e.value.rule == "CP-7.5"
    st.apply(Act(discard=tuple(st.cards[1][:4])))
    # The stock's last card (Js), then the new stock: 6h 8s Tc in ``reshuffle_order``, never Jc Jd.
    assert [hands.name(c) for c in st.cards[1]] == ["7c", "Js", "6h", "8s", "Tc"]


def test_cp5_4_bots_play_low_pots_with_a_qualifier() -> None:
    """CP-5.4 with ``pot=low``, ``low_qualifier=8``: every bot plays, scores sum to zero, records replay,
    and some pots go to the high hand. The rules bot failed on a hand with no qualifying low (its
    strength described the value 0)."""
    rules = Rules(pot="low", low_ranking="ace_to_five", low_qualifier="8")
    to_high = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        st = State.deal(rules, 3, seed % 3, rng)
        bots = [RandomBot(), RulesBot(), EquityBot(samples=30)]
        while not st.is_over():
            s = st.to_act()
            st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
        assert sum(st.scores()) == 0 and replay.replay(st.record())["scores"] == st.scores()
        to_high += st.outcome()["winners"].get("low") == []
    assert to_high >= 5
