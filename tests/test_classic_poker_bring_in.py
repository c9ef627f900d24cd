"""Classic poker's ``stud_opening=bring_in`` (docs/rules/classic-poker.md, CP-8.8): the bring-in seat (the
lowest door card, suits clubs < diamonds < hearts < spades; razz the highest, the ace lowest), the
bring-in or completion, completion to the small bet, fixed limits, later streets opened by the best showing
hand, no free fold, odd chips to the first winner; rules validation, records (default rules written as
before), the conformance checks and every bot under the option, and the compiled kernel declining it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from games.classic_poker import hands
from games.classic_poker.fast.playout import FAST, supported
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import Action, State
from games.core import betting as bt
from games.core import registry
from games.core.protocol import IllegalAction, RulesError
from games.core.replay import replay_state

sys.path.insert(0, str(Path(__file__).resolve().parent / "conformance"))
from conformance_checks import play_random

#: PokerKit's F7S-like table: ante 1, bring-in 1, small bet 2, big bet 4.
F7S = Rules(preset="stud7", form="stud7", stud_opening="bring_in", bring_in=1, min_bet=2, limit=4)
F7S8 = Rules(preset="stud7", form="stud7", stud_opening="bring_in", bring_in=1, min_bet=2, limit=4, pot="high_low",
             low_ranking="ace_to_five", low_qualifier="8")
FR = Rules(preset="stud7", form="stud7", stud_opening="bring_in", bring_in=1, min_bet=2, limit=4, pot="low",
           low_ranking="ace_to_five")
RAISE = bt.Act.RAISE


def _deal(rules: Rules, players: int, dealer: int, first: list[str]) -> State:
    """A deal whose deck order starts with ``first`` (CP-11.3: three rounds to positions 0..n-1 from the
    dealer's left, then one card a street to each player still in), the rest of the deck after it."""
    top = [hands.parse(c) for c in first]
    deck = hands.deck_of(rules)
    return State(rules, players, dealer, top + [c for c in deck if c not in top])


def _bets(st: State) -> list[str]:
    return [str(a) for a in st.legal_actions()]


def _act(st: State, *acts: str) -> None:
    for a in acts:
        if a.startswith("raise "):
            st.apply(Action(bet=bt.raise_by(int(a.split()[1]))))
        else:
            st.apply(Action(bet={"fold": bt.FOLD, "check": bt.CHECK, "call": bt.CALL}[a]))


def test_the_lowest_door_card_brings_in_suits_breaking_ties() -> None:
    # dealer 2: positions seat 0, 1, 2; door cards (the third round) 2h, 2c, Ks: 2c is the lowest (clubs < hearts)
    st = _deal(F7S, 3, 2, ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd", "2h", "2c", "Ks"])
    assert st.bring_in_seat() == 1 and st.to_act() == 1
    # the best showing hand (CP-8.3) would have been seat 2 (Ks); the default opening is unchanged
    assert _deal(PRESETS["stud7"], 3, 2, ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd", "2h", "2c", "Ks"]).to_act() == 2
    # the same ranks with diamonds and spades: diamonds are lower
    assert _deal(F7S, 3, 2, ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd", "5s", "9c", "5d"]).to_act() == 2
    # razz: the highest door card, the ace lowest, spades highest of equal ranks: Ks over Kd, As lowest of all
    assert _deal(FR, 3, 2, ["2h", "3h", "4h", "2d", "3d", "4d", "Kd", "Ks", "As"]).to_act() == 1
    # dealer 0: positions seat 1, 2, 0, so seat 2 gets Ks
    assert _deal(FR, 3, 0, ["2h", "3h", "4h", "2d", "3d", "4d", "Kd", "Ks", "As"]).to_act() == 2


def test_bring_in_or_complete_then_call_or_complete_then_fixed_raises_up_to_the_cap() -> None:
    st = _deal(F7S, 3, 2, ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd", "2h", "2c", "Ks"])
    assert _bets(st) == ["raise 1", "raise 2"]  # the bring-in or the completion; no fold, no check
    with pytest.raises(IllegalAction) as e:
        _act(st, "fold")
    assert e.value.rule == "CP-8.8"
    with pytest.raises(IllegalAction) as e:
        _act(st, "raise 3")
    assert e.value.rule == "CP-8.8"
    _act(st, "raise 1")  # seat 1 brings in for 1
    assert st.to_act() == 2 and _bets(st) == ["fold", "call", "raise 1"]  # call 1 or complete to 2
    _act(st, "raise 1")  # seat 2 completes: the interval's first bet
    assert st.betting.current_bet == 2 and st.betting.raises == 1
    assert st.to_act() == 0 and _bets(st) == ["fold", "call", "raise 2"]
    _act(st, "raise 2", "raise 2", "raise 2")  # seats 0, 1, 2: three raises after the completion
    assert st.betting.current_bet == 8 and st.to_act() == 0 and _bets(st) == ["fold", "call"]  # capped
    _act(st, "call", "call")
    assert st.street == 1 and st.betting.pot == 3 + 3 * 8


def test_everyone_calling_the_bring_in_ends_the_interval_and_later_streets_go_to_the_best_showing_hand() -> None:
    # 4th street: seat 0 gets 9h (showing 2h 9h), seat 1 3c (2c 3c), seat 2 Kc (Ks Kc, a pair)
    st = _deal(F7S, 3, 2, ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd", "2h", "2c", "Ks", "9h", "3c", "Kc"])
    _act(st, "raise 1", "call", "call")
    assert st.street == 1 and st.betting.pot == 3 + 3
    assert st.to_act() == 2  # the pair of kings shows best
    assert _bets(st) == ["check", "raise 2"]  # no free fold (CP-8.8 d); the small bet on 4th street
    with pytest.raises(IllegalAction) as e:
        _act(st, "fold")
    assert e.value.rule == "CP-8.8"
    _act(st, "raise 2")
    assert _bets(st) == ["fold", "call", "raise 2"]
    _act(st, "call", "call")
    assert st.street == 2 and _bets(st)[-1] == "raise 4"  # 5th street: the big bet


def test_odd_chips_all_to_the_first_winner_in_turn() -> None:
    order = bt.odd_chip_order(2, 4)  # seats 3, 0, 1, 2
    assert bt.split_pot(11, [0, 1, 3], order) == {3: 4, 0: 4, 1: 3}
    assert bt.split_pot(11, [0, 1, 3], order, odd_to_first=True) == {3: 5, 0: 3, 1: 3}
    # high-low: the odd chip of the halving to the high half, then the low half's two odd chips to seat 3
    assert bt.split_hi_lo(23, [2], [0, 1, 3], order, odd_to_first=True) == {2: 12, 3: 5, 0: 3, 1: 3}


@pytest.mark.parametrize(("options", "field"), [
    ({"form": "draw", "stud_opening": "bring_in", "min_bet": 2}, "stud_opening"),
    ({"form": "stud5", "stud_opening": "bring_in", "min_bet": 2}, "stud_opening"),
    ({"form": "stud7", "stud_opening": "bring_in", "deck": "53", "min_bet": 2}, "stud_opening"),
    ({"form": "stud7", "stud_opening": "bring_in", "wild_ranks": ["2"], "min_bet": 2}, "stud_opening"),
    ({"form": "stud7", "stud_opening": "bring_in"}, "bring_in"),  # bring_in 1 is not below min_bet 1
    ({"form": "stud7", "stud_opening": "bring_in", "bring_in": 0, "min_bet": 2}, "bring_in"),
    ({"form": "stud7", "bring_in": 2}, "bring_in"),  # a bring-in without the option
    ({"form": "stud7", "stud_opening": "ante"}, "stud_opening"),
])
def test_rules_refused_name_the_option_and_cp_8_8(options: dict[str, object], field: str) -> None:
    with pytest.raises(RulesError) as e:
        Rules(**options)  # type: ignore[arg-type]
    assert e.value.field == field and e.value.rule == "CP-8.8"


def test_records_keep_the_default_rules_as_before_and_replay_under_the_option() -> None:
    st = State.deal(PRESETS["stud7"], 3, 0, np.random.default_rng(1))
    assert "stud_opening" not in st.record()["rules"] and "bring_in" not in st.record()["rules"]
    assert "stud_opening" not in st.view(0)["rules"]
    rng = np.random.default_rng(8)
    st = State.deal(F7S8, 5, 3, rng)
    bot = registry.make("classic-poker/random", {}, "classic-poker")
    while not st.is_over():
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    rec = json.loads(json.dumps(st.record()))
    assert rec["rules"]["stud_opening"] == "bring_in" and rec["rules"]["bring_in"] == 1
    assert rec["actions"][0]["act"] == "raise" and rec["actions"][0]["amount"] in (1, 2)
    again = replay_state(rec)
    assert again.scores() == st.scores() and again.record() == st.record()


@pytest.mark.parametrize("rules", [F7S, F7S8, FR], ids=["F7S", "F7S/8", "FR"])
def test_the_conformance_checks_hold_under_the_option(rules: Rules) -> None:
    entry = registry.game("classic-poker")
    for players in (2, 5, 8):  # eight players: the common card of CP-8.6 too
        assert play_random(entry, rules, players, 8, 880 + players).units == 8


def test_every_bot_answers_a_legal_action_and_the_kernel_plays_the_option() -> None:
    rng = np.random.default_rng(88)
    names = ["classic-poker/random", "classic-poker/rules", "classic-poker/equity"]
    bots = [registry.make(n, {"samples": 40} if n.endswith("equity") else {}, "classic-poker") for n in names]
    for rules in (F7S, F7S8, FR):
        for d in range(6):
            st = State.deal(rules, 3, d % 3, rng)
            while not st.is_over():
                seat, legal = st.to_act(), st.legal_actions()
                a = bots[(seat + d) % 3].act(st.view(seat), legal, rng)
                assert a in legal
                st.apply(a)
            assert sum(st.scores()) == 0
        # the kernel plays the bring-in (CP-8.8) with random and rules seats, not the equity bot
        assert supported(rules) and FAST.supports(rules, [bots[0], bots[1], bots[0]])
        assert not FAST.supports(rules, bots)
    assert supported(PRESETS["stud7"])
