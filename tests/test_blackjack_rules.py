"""The rules of docs/rules/blackjack.md through the readable engine: the worked examples (BJ-9), the
doubling, naturals, settlement, splits, the peek, the stock running out, records and replay (BJ-8)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from games.blackjack.casino import CasinoState
from games.blackjack.dealing import make
from games.blackjack.home import HomeState
from games.blackjack.ochko import GOLDEN, OchkoState, ochko_total
from games.blackjack.rules import PRESETS, Rules, total
from games.blackjack.state import Event
from games.core.cards import card_id, card_str
from games.core.protocol import IllegalAction, RulesError
from games.core.replay import replay


def order(top: str, deck: list[int] | None = None) -> list[int]:
    """A deck order whose first cards are ``top`` (the rest in id order)."""
    deck = list(range(52)) if deck is None else list(deck)
    head = [card_id(c) for c in top.split()]
    rest = Counter(deck) - Counter(head)
    assert sum(rest.values()) == len(deck) - len(head), "a top card is not in the deck"
    return head + sorted(rest.elements())


def home(top: str, players: int = 3, dealer: int = 0, **opts: Any) -> HomeState:
    st = make(Rules(**opts), players, dealer, order(top), list(range(52)))
    assert isinstance(st, HomeState)
    return st


def play(st: Any, *actions: Any) -> None:
    for a in actions:
        st.apply(a)


def test_bj_9_1_the_seed_doubling_example() -> None:
    """BJ-9.1 / BJ-2.2 / BJ-2.5 seed: K forces the double, A the redouble; the dealer busts on 24."""
    st = home("As 7d Kh 6c 5s 6d 9h 8s")
    play(st, ("bet", 2), ("bet", 3))
    assert st.doubled and st.redoubled == [False, True, False]
    assert [st.hands[s][0].bet for s in (1, 2)] == [8, 6]
    play(st, "hit", "stand", "stand")
    assert st.to_act() == 0 and total(st.dealer_hand.ranks()) == (16, False)
    st.apply("hit")
    assert st.is_over() and st.scores() == [-14, 8, 6]
    rec = st.record()
    assert rec["actions"] == [{"seat": 1, "act": "bet", "n": 2}, {"seat": 2, "act": "bet", "n": 3},
                              {"seat": 0, "event": "double"}, {"seat": 1, "event": "redouble"},
                              {"seat": 1, "act": "hit"}, {"seat": 1, "act": "stand"}, {"seat": 2, "act": "stand"},
                              {"seat": 0, "act": "hit"}, {"seat": 0, "event": "bust"}]
    assert rec["outcome"]["totals"] == {"0": 24, "1": 16, "2": 12}
    assert rec["outcome"]["bets"] == {"1": 8, "2": 6}
    assert rec["dealer"] == 0 and rec["rules"]["doubling"] == "seed"
    assert replay(json.loads(json.dumps(rec)))["scores"] == [-14, 8, 6]


def test_bj_9_1_had_he_stood_ties_go_to_the_dealer() -> None:
    """BJ-9.1 / BJ-4.9: standing on 16, seat 1's 16 ties and loses 8, seat 2's 12 loses 6; ties=push pushes."""
    st = home("As 7d Kh 6c 5s 6d 9h 8s")
    play(st, ("bet", 2), ("bet", 3), "hit", "stand", "stand", "stand")
    assert st.scores() == [14, -8, -6]
    st = home("As 7d Kh 6c 5s 6d 9h 8s", ties="push")
    play(st, ("bet", 2), ("bet", 3), "hit", "stand", "stand", "stand")
    assert st.scores() == [6, 0, -6]


def test_bj_2_5_no_double_on_a_ten_and_free_and_off() -> None:
    """BJ-2.2: a ten is no face card; ``free`` asks the dealer and then each player; ``off`` skips it."""
    st = home("As 7d Th 6c 5s 6d")
    play(st, ("bet", 2), ("bet", 3))
    assert not st.doubled and st.hands[1][0].bet == 2
    st = home("2s 7d 5h 6c 5s 6d", doubling="free")
    play(st, ("bet", 2), ("bet", 3))
    assert st.to_act() == 0 and st.legal_actions() == ["double", "no_double"]
    st.apply("double")
    assert st.to_act() == 1 and st.legal_actions() == ["redouble", "no_redouble"]
    play(st, "redouble", "no_redouble")
    assert [st.hands[s][0].bet for s in (1, 2)] == [8, 6]
    st = home("As 7d Kh 6c 5s 6d", doubling="off")
    play(st, ("bet", 2), ("bet", 3))
    assert not st.doubled and st.hands[1][0].bet == 2 and st.phase == "play"


def test_bj_4_2_bets_after_the_first_card() -> None:
    """BJ-4.2 after_first_card: the first cards are dealt, then the bets, then the doubling."""
    st = home("As 7d Kh 6c 5s 6d", bet_timing="after_first_card")
    assert st.phase == "bet" and [len(st.hands[s][0].cards) for s in range(3)] == [1, 1, 1]
    v = st.view(1)
    assert v["hands"]["1"] == [["As"]] and v["hands"]["2"] == [["??"]] and v["hands"]["0"] == [["??"]]
    play(st, ("bet", 1), ("bet", 4))
    assert st.doubled and [st.hands[s][0].bet for s in (1, 2)] == [4, 8]


def test_bj_9_2_dealer_natural() -> None:
    """BJ-9.2 / BJ-4.6: the dealer's natural: seat 2 pays twice his doubled bet, seat 1's natural pays nothing."""
    st = home("Qs 9c Ad Ah 9h Jc")
    play(st, ("bet", 2), ("bet", 3))
    assert st.is_over() and st.doubled
    assert st.scores() == [12, 0, -12]
    assert {"seat": 0, "event": "natural"} in st.record()["actions"]


def test_bj_4_6_player_natural_paid_twice_at_once() -> None:
    """BJ-4.6: a player's natural (dealer without one) is paid twice his bet and he is done."""
    st = home("As 7d 5h Kc 5s 6d")
    play(st, ("bet", 2), ("bet", 3))
    assert st.hands[1][0].natural and st.hands[1][0].result == 2 * 2 and not st.doubled
    assert st.to_act() == 2


def test_bj_4_1_the_next_dealer() -> None:
    """BJ-4.1: ``left`` passes the deal to the next seat; ``natural`` to the first player dealt a natural."""
    for preset, expect in (("left", 1), ("natural", 2)):
        # seats 1, 2, 3 get 7s, As, 5h; the dealer 2d; then 9c, Kd (seat 2: a natural), 8d; the dealer 6c
        st = home("7s As 5h 2d 9c Kd 8d 6c", players=4, deal_passes=preset, doubling="off")
        play(st, ("bet", 1), ("bet", 1), ("bet", 1))
        assert st.hands[2][0].natural
        while not st.is_over():
            st.apply("stand")
        assert st.outcome()["next_dealer"] == expect
    st = home("7s 9c 5h 2d 9h 6c", players=3, deal_passes="natural", doubling="off")
    play(st, ("bet", 1), ("bet", 1))
    while not st.is_over():
        st.apply("stand")
    assert st.outcome()["next_dealer"] == 0


def test_bj_4_7_hit_at_21_is_illegal_and_bust_pays_at_once() -> None:
    """BJ-4.7: 21 stands by itself; a record that hits at 21 is refused citing BJ-4.7; a bust pays at once."""
    st = home("5s 7d 5h 6c 5c 6d Tc 9h")
    play(st, ("bet", 1), ("bet", 1))
    rec = st.record()
    st.apply("hit")  # 5 + 6 + T = 21: seat 1 stands automatically
    assert st.to_act() == 2
    rec = st.record()
    rec["actions"].append({"seat": 1, "act": "hit"})
    with pytest.raises(IllegalAction) as e:
        replay(rec)
    assert e.value.rule == "BJ-4.7" and e.value.index == 3
    st.apply("hit")  # 7 + 5 + 9 + ... seat 2: 7d 5s = 12, + 9h = 21 -> stands too
    assert st.to_act() == 0


def test_bj_4_8_dealer_rules_s17_h17() -> None:
    """BJ-4.8: s17 stands on soft 17; h17 hits it; both automatic (no dealer actions)."""
    for rule in ("s17", "h17"):
        st = home("9s 9d As Tc Th 6d 5h", dealer_rule=rule, doubling="off")
        play(st, ("bet", 1), ("bet", 1), "stand", "stand")
        assert st.is_over() and (len(st.dealer_hand.cards) == 2) == (rule == "s17")
        assert not any(e.get("seat") == 0 and "act" in e for e in st.log)


def test_bj_4_10_split_pairs_home() -> None:
    """BJ-4.10: a pair may be split before any other action; each hand carries the doubled bet."""
    st = home("8s 7d Kh 8c 5s 6d 3h 9h 2c", split_pairs="on")
    play(st, ("bet", 2), ("bet", 1))
    assert "split" in st.legal_actions()
    st.apply("split")
    assert [h.bet for h in st.hands[1]] == [4, 4] and st.hands[1][0].cards == [card_id("8s"), card_id("3h")]
    assert st.view(2)["hands"]["1"][0][0] == "8s"  # the face-down card is turned up
    play(st, "stand")
    assert st.hands[1][1].cards == [card_id("8c"), card_id("9h")]
    play(st, "stand")
    assert "split" not in st.legal_actions()


def test_bj_5_2_views_hide_face_down_cards() -> None:
    """BJ-5.2: another player's face-down card is hidden; his face-up card is seen."""
    st = home("As 7d Kh 6c 5s 6d 9h 8s")
    play(st, ("bet", 2), ("bet", 3))
    v = st.view(2)
    assert v["hands"]["1"] == [["??", "6c"]] and v["hands"]["2"] == [["7d", "5s"]] and v["hands"]["0"] == [["??", "6d"]]
    assert "As" not in json.dumps(v, default=str)


# --------------------------------------------------------------------------- ochko

def ochko(top: str, players: int = 3, dealer: int = 0, **opts: Any) -> OchkoState:
    st = make(Rules(preset="ochko", **opts), players, dealer, order(top, list(range(16, 52))), None)
    assert isinstance(st, OchkoState)
    return st


def test_bj_9_3_the_bank_is_broken() -> None:
    """BJ-9.3: stakes up to the uncovered bank; the banker's 19 loses to 21 and 20: he pays 4 and 6."""
    st = ochko("As 9c 8d Tc Kc 7c Ah")
    assert st.legal_actions()[-1] == ("stake", 10)
    play(st, ("stake", 4), "more")
    assert st.to_act() == 2 and st.legal_actions()[-1] == ("stake", 6)  # 10 - 4
    play(st, ("stake", 6), "more", "more", "enough")
    assert ochko_total(st.hands[2].ranks(), "11") == 20
    play(st, "more", "enough")
    assert st.is_over() and st.scores() == [-10, 4, 6] and st.bank == 0


def test_bj_6_4_stake_above_the_uncovered_bank_is_refused() -> None:
    """BJ-8 / BJ-6.4: a record staking more than the uncovered bank names BJ-6.4."""
    st = ochko("As 9c 8d Tc Kc 7c Ah")
    play(st, ("stake", 4), "more")
    rec = st.record()
    rec["actions"].append({"seat": 2, "act": "stake", "n": 7})
    with pytest.raises(IllegalAction) as e:
        replay(rec)
    assert e.value.rule == "BJ-6.4" and e.value.index == 2


def test_bj_9_4_golden_ochko_and_ties() -> None:
    """BJ-9.4 / BJ-6.2: two aces beat the banker's 21; a player's 21 against the banker's 21 loses."""
    st = ochko("As Tc Ac Ah Kd Ad")  # seat 1: A A; seat 2: T A; banker: A, draws K (15), then A: 26? no: see below
    assert ochko_total([12, 12], "11") == GOLDEN and ochko_total([12, 12], "1_or_11") == GOLDEN
    play(st, ("stake", 2), "more")  # seat 1 draws Ah: golden, stops
    play(st, ("stake", 3), "more")  # seat 2 draws Kd (4): 10 + 4 = 14
    assert st.hands[1].ranks() == [12, 12] and st.to_act() == 2
    st2 = ochko("As Tc Ac Ah Ad Ts")
    play(st2, ("stake", 2), "more", ("stake", 3), "more")  # seat 2: T + A = 21, stops
    assert st2.to_act() == 0
    play(st2, "more")  # banker: A + T = 21
    assert st2.is_over() and st2.scores() == [-2 + 3, 2, -3]


def test_bj_6_1_ace_one_or_eleven() -> None:
    """BJ-6.1: with ace=1_or_11 an ace counts 1 where 11 would bust."""
    assert ochko_total([12, 8, 8], "11") == 31 and ochko_total([12, 8, 8], "1_or_11") == 21


# --------------------------------------------------------------------------- casino

def casino(top: str, players: int = 1, **opts: Any) -> CasinoState:
    rules = Rules(preset="casino", **opts)
    deck = list(range(52)) * rules.decks
    st = make(rules, players, None, order(top, deck), list(range(52)) if rules.decks == 1 else None)
    assert isinstance(st, CasinoState)
    return st


def test_bj_7_1_dealing_order_and_peek() -> None:
    """BJ-7.1 / BJ-7.2: first cards, up card, second cards, hole; the dealer's natural ends the round."""
    st = casino("9s Ad Ah 9c Kc Ks", players=2)
    assert st.dealer.cards == [card_id("Ah"), card_id("Ks")]
    assert st.is_over() and st.scores() == [-10, 0] and st.record()["dealer"] is None
    assert st.record()["actions"] == [{"seat": None, "event": "natural"}]


def test_bj_7_3_natural_pays_3_2_or_6_5() -> None:
    """BJ-7.3: a natural pays 15 chips on a 10-chip bet (3:2) or 12 (6:5)."""
    for pays, won in (("3:2", 15), ("6:5", 12)):
        st = casino("As 9d Kc 7c", blackjack_pays=pays)
        assert st.is_over() and st.scores() == [won]


def test_bj_9_5_double_split_and_dealer() -> None:
    """BJ-7.4: double takes one card and doubles the bet; split aces get one card each."""
    st = casino("6s 6d 5c Tc 9h Th")  # player 11 v 6: doubles, draws 9 = 20; dealer 16 draws T: bust
    st.apply("double")
    assert st.is_over() and st.scores() == [20]
    st = casino("As 6d Ac Tc 9h 2h 5s")  # A A v 6: split: A+9, A+2 (one card each); dealer 16 + 5 = 21
    st.apply("split")
    assert st.is_over() and st.scores() == [-20]
    assert [total(h.ranks())[0] for h in st.hands[0]] == [20, 13]


def test_bj_7_4_das_off_and_split_ten_ace_is_not_natural() -> None:
    """BJ-7.4: after a split no double with das=off; an ace and a ten after a split count 21, no natural."""
    st = casino("8s 6d 8c Tc 3h 5h", das="off")
    st.apply("split")
    assert st.legal_actions() == ["hit", "stand"]
    st = casino("8s 6d 8c Tc 3h 5h")
    st.apply("split")
    assert "double" in st.legal_actions()
    st = casino("Ts 6d Tc Tc As 2h Th")  # T T split: T+A = 21 (not natural: paid 1:1)
    st.apply("split")
    assert st.to_act() == 0 and st.hand_ix == 1  # 21 stands by itself
    st.apply("stand")
    assert st.hands[0][0].result == 10 and not st.hands[0][0].natural


def test_bj_7_6_dealer_soft17() -> None:
    """BJ-7.6: the dealer stands on soft 17, or hits it with dealer_soft17=hit."""
    for rule, cards in (("stand", 2), ("hit", 3)):
        st = casino("Ts As 9s 6c 4h", dealer_soft17=rule)
        st.apply("stand")
        assert len(st.dealer.cards) == cards


def test_bj_3_4_new_stock_from_the_discards_in_reshuffle_order() -> None:
    """BJ-3.4 / BJ-8.1: when the stock runs out, the cards of the hands settled so far (here a bust)
    become the new stock, in the order they appear in ``reshuffle_order``. (Random play of one deck with
    seven players and splits never ran the stock out in 20,000 seeded rounds, so the stock is cut short.)"""
    reshuffle = list(reversed(range(52)))
    st = make(Rules(), 3, 0, order("5s 7d 5h Tc 5c 6d 9h"), reshuffle)
    play(st, ("bet", 1), ("bet", 1), "hit")  # seat 1: 5 T 9 = 24, bust: its cards go to the discards
    assert st.discards == [card_id(c) for c in ("5s", "Tc", "9h")]
    st.pos = len(st.stock)  # the stock is used up
    drawn = st.draw()
    assert drawn == card_id("Tc")  # reversed id order: Tc (id 34) before 9h (31) and 5s (15)
    assert st.stock == [card_id("Tc"), card_id("9h"), card_id("5s")] and st.discards == []


def test_events_must_match_the_engine() -> None:
    """BJ-8: an event in a record that the engine did not produce is refused."""
    st = home("As 7d Kh 6c 5s 6d 9h 8s")
    play(st, ("bet", 2), ("bet", 3), "hit", "stand", "stand", "hit")
    rec = copy.deepcopy(st.record())
    rec["actions"][3] = {"seat": 2, "event": "redouble"}
    with pytest.raises(IllegalAction) as e:
        replay(rec)
    assert e.value.rule == "BJ-8" and e.value.index == 3
    with pytest.raises(IllegalAction):
        st.apply(Event(1, "bust"))


def test_rules_errors_name_the_option() -> None:
    """Bad options raise RulesError naming the field and its rule."""
    with pytest.raises(RulesError) as e:
        Rules(preset="casino", decks=3)
    assert e.value.field == "decks" and e.value.rule == "BJ-3.4"
    with pytest.raises(RulesError) as e:
        Rules(preset="casino", bet=11)
    assert e.value.field == "bet"
    rec = PRESETS["home"]
    assert rec.record_dict() == {"preset": "home", "doubling": "seed", "dealer_rule": "free",
                                 "bet_timing": "before_deal", "ties": "dealer", "split_pairs": "off",
                                 "deal_passes": "left", "first_dealer": "jack", "min_bet": 1, "max_bet": 4}


def test_card_names() -> None:
    assert card_str(order("As")[0]) == "As"


def test_the_worked_examples_replay_from_their_golden_records() -> None:
    """BJ-9.1 and BJ-9.3 as stored records (games/blackjack/examples/) replay to the examples' scores."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "games" / "blackjack" / "examples"
    home_rec = json.loads((folder / "bj-9.1-home.json").read_text())
    assert replay(home_rec)["scores"] == [-14, 8, 6]
    assert home_rec["actions"][2:4] == [{"seat": 0, "event": "double"}, {"seat": 1, "event": "redouble"}]
    ochko_rec = json.loads((folder / "bj-9.3-ochko.json").read_text())
    out = replay(ochko_rec)
    assert out["scores"] == [-10, 4, 6] and out["bank"] == 0
