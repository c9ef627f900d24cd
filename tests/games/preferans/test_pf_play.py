"""The Preferans engine: auction (PF-4), talon and contract (PF-5), whist (PF-6), play (PF-7), raspasy
(PF-10), the match (PF-11), views (PF-14) and records (PF-15)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from games.core import replay
from games.core.cards import card_id, parse_cards
from games.core.protocol import IllegalAction
from games.core.tricks import PREFERANS, TABLE, Play, legal_plays
from games.preferans.cards import DECK
from games.preferans.deal import legal_cards
from games.preferans.entry import ENTRY
from games.preferans.rules import CLASSIC, SOCHI, Rules
from games.preferans.scoring import exact
from games.preferans.state import State

EXAMPLE_DECK = [
    "Ks", "7d", "Ad", "Ac", "Qd", "8h", "Th", "7h", "7c", "Qc", "9h", "8s", "8d", "Jc", "9s", "Ah",
    "Js", "Tc", "9d", "Ts", "Kd", "8c", "7s", "9c", "Qh", "Qs", "Td", "As", "Jh", "Kc", "Kh", "Jd"]
EXAMPLE_ACTIONS = [
    [1, "pass"], [2, "bid:6s"], [0, "bid:6c"], [2, "hold"], [0, "pass"],
    [2, "discard:Jd,9h"], [2, "declare:7s"], [0, "whist"], [1, "pass"], [0, "closed"],
    [1, "play:Ad"], [2, "play:8d"], [0, "play:Td"], [1, "play:Ac"], [2, "play:Tc"], [0, "play:8c"],
    [1, "play:Th"], [2, "play:Kh"], [0, "play:Jh"], [2, "play:Js"], [0, "play:Qs"], [1, "play:Ks"],
    [1, "play:Qc"], [2, "play:Jc"], [0, "play:Kc"], [0, "play:As"], [1, "play:7c"], [2, "play:8s"],
    [0, "play:Kd"], [1, "play:7d"], [2, "play:9d"], [0, "play:Qh"], [1, "play:7h"], [2, "play:Ah"],
    [2, "play:Ts"], [0, "play:7s"], [1, "play:8h"], [2, "play:9s"], [0, "play:9c"], [1, "play:Qd"]]


def fresh(deck: list[str] | None = None, rules: Rules = SOCHI, players: int = 3, dealer: int = 0) -> State:
    cards = parse_cards(deck) if deck else list(DECK)
    return State(rules, players, dealer, [cards] * 4)


def run(st: State, actions: list[list[Any]]) -> None:
    for seat, tok in actions:
        assert st.to_act() == seat, (seat, tok, st.to_act())
        st.apply(tok)


def test_pf_15_8_example_replays_to_the_printed_numbers() -> None:
    st = fresh(EXAMPLE_DECK)
    assert [sorted(h) for h in st.current.hands] == [sorted(parse_cards(h)) for h in (
        "7s Qs As 8c 9c Kc Td Kd Jh Qh", "Ks 7c Qc Ac 7d Qd Ad 7h 8h Th", "8s 9s Ts Js Tc Jc 8d 9d 9h Ah")]
    stub = st.deal_stub(st.current)
    assert stub["talon"] == ["Kh", "Jd"] and stub["hands"][0] == ["7s", "Qs", "As", "8c", "9c", "Kc", "Td", "Kd",
                                                                   "Jh", "Qh"]
    run(st, [[s, "discard:9h,Jd" if t.startswith("discard") else t] for s, t in EXAMPLE_ACTIONS])
    e = st.entries[0]
    assert e == {"deal_index": 0, "kind": "contract", "bought": "6c", "declarer": 2, "discard": ["Jd", "9h"],
                 "contract": "7s", "responses": [[0, "whist"], [1, "pass"]], "mode": "closed",
                 "tricks": [3, 3, 4], "nobody": 0,
                 "delta": {"pulka": [0, 0, 0], "mountain": [0, 0, 60],
                           "whists": [[0, 0, 18], [0, 0, 6], [0, 0, 0]]},
                 "scores": [38, 26, -64]}
    assert st.deals[0].actions[5] == (2, "discard:Jd,9h")  # PF-15.1: written in canonical order


# ------------------------------------------------------------------ PF-4 auction
def test_pf_4_4_hold_after_pass_example() -> None:
    st = fresh()
    run(st, [[1, "bid:7c"], [2, "pass"]])
    assert "hold" in st.legal_actions()  # seat 0, the next active player after the passer
    run(st, [[0, "hold"]])
    assert "hold" not in st.legal_actions()  # seat 1 must raise or pass
    run(st, [[1, "bid:7d"]])
    assert "hold" in st.legal_actions()  # the holder may hold again


def test_pf_4_4_no_hold_before_a_pass_or_when_off() -> None:
    st = fresh()
    run(st, [[1, "bid:6s"]])
    assert "hold" not in st.legal_actions()
    st = fresh(rules=Rules(hold_rule="off"))
    run(st, [[1, "bid:7c"], [2, "pass"]])
    assert "hold" not in st.legal_actions()
    with pytest.raises(IllegalAction) as e:
        st.apply("hold")
    assert e.value.rule == "PF-4.4"


def test_pf_4_4_senior() -> None:
    st = fresh(rules=Rules(hold_rule="senior"))
    run(st, [[1, "bid:6s"], [2, "bid:6c"]])
    assert "hold" not in st.legal_actions()  # seat 0 (third hand) is junior to seat 2
    run(st, [[0, "pass"]])
    assert "hold" in st.legal_actions()  # seat 1 (first hand) is senior to seat 2; no pass needed before
    run(st, [[1, "hold"]])
    assert "hold" not in st.legal_actions()  # seat 2, junior, must raise or pass
    run(st, [[2, "pass"]])
    assert st.current.declarer == 1 and st.current.bought == "6c"


def test_pf_4_3_bids_must_rise_and_rungs_may_be_skipped() -> None:
    st = fresh()
    run(st, [[1, "bid:8d"]])
    assert "bid:8d" not in st.legal_actions() and "bid:8h" in st.legal_actions()
    with pytest.raises(IllegalAction) as e:
        st.apply("bid:7s")
    assert e.value.rule == "PF-4.3"


def test_pf_4_5_misere_first_call_ends_the_source_auction() -> None:
    st = fresh()
    run(st, [[1, "bid:6s"]])
    assert "bid:misere" in st.legal_actions()  # seat 2 has not spoken
    run(st, [[2, "pass"], [0, "bid:6c"]])
    assert "bid:misere" not in st.legal_actions()  # seat 1 has bid already
    with pytest.raises(IllegalAction) as e:
        st.apply("bid:misere")
    assert e.value.rule == "PF-4.5"
    st = fresh()
    run(st, [[1, "bid:misere"]])
    assert st.current.declarer == 1 and st.current.step == "discard"


def test_pf_4_5_modern_ladder_misere() -> None:
    st = fresh(rules=Rules(ladder="modern"))
    run(st, [[1, "bid:misere"]])
    assert st.legal_actions()[:2] == ["pass", "bid:9s"] and "hold" not in st.legal_actions()
    run(st, [[2, "bid:9s"], [0, "pass"]])
    assert st.legal_actions() == ["pass"]  # the misère bidder may only pass
    run(st, [[1, "pass"]])
    assert st.current.declarer == 2 and st.current.bought == "9s"


def test_pf_4_6_third_hand_after_two_passes_and_raspasy() -> None:
    st = fresh()
    run(st, [[1, "pass"], [2, "pass"], [0, "bid:6s"]])
    assert st.current.declarer == 0
    st = fresh()
    run(st, [[1, "pass"], [2, "pass"], [0, "pass"]])
    assert st.current.kind == "raspasy" and st.current.trick == [Play(TABLE, card_id("Ah"))]  # d[30]


# ------------------------------------------------------------------ PF-5
def test_pf_5_2_contract_not_below_the_bid() -> None:
    st = fresh()
    run(st, [[1, "bid:7d"], [2, "pass"], [0, "pass"], [1, "discard:7c,7d"]])
    legal = st.legal_actions()
    assert {"declare:7d", "declare:7h", "declare:7nt", "declare:8s"} <= set(legal)
    assert "declare:7s" not in legal and "declare:7c" not in legal and "declare:6h" not in legal
    for tok, rule in (("declare:7s", "PF-5.2"), ("declare:misere", "PF-5.3"), ("declare:9s/wt", "PF-5.3")):
        with pytest.raises(IllegalAction) as e:
            st.apply(tok)
        assert e.value.rule == rule


def test_pf_5_5_without_talon() -> None:
    st = fresh()
    run(st, [[1, "bid:9wt"], [2, "pass"], [0, "pass"]])
    assert st.current.step == "declare" and not st.current.talon_public
    legal = st.legal_actions()
    assert "declare:9s/wt" in legal and "declare:10nt/wt" in legal and len(legal) == 10
    st2 = fresh()
    run(st2, [[1, "bid:10wt"], [2, "pass"], [0, "pass"]])
    assert all(t.startswith("declare:10") for t in st2.legal_actions())
    with pytest.raises(IllegalAction) as e:
        st2.apply("declare:9s/wt")
    assert e.value.rule == "PF-5.5"


def test_pf_5_1_discard_errors() -> None:
    st = fresh()
    run(st, [[1, "bid:6s"], [2, "pass"], [0, "pass"]])
    assert len(st.legal_actions()) == 66
    with pytest.raises(IllegalAction) as e:
        st.apply("discard:Ks,Kh")  # not in seat 1's hand
    assert e.value.rule == "PF-5.1"


# ------------------------------------------------------------------ PF-6
def _to_responses(st: State, contract: str = "6s") -> None:
    run(st, [[1, "bid:6s"], [2, "pass"], [0, "pass"], [1, "discard:7c,7d"], [1, f"declare:{contract}"]])


def test_pf_6_3_both_pass_counts_as_made() -> None:
    st = fresh()
    _to_responses(st)
    run(st, [[2, "pass"], [0, "pass"]])
    e = st.entries[0]
    assert e["kind"] == "passed" and e["delta"]["pulka"] == [0, -10, 0] and e["tricks"] == [None] * 3


def test_pf_6_5_no_play_consent_and_refusal() -> None:
    st = fresh()
    _to_responses(st)
    run(st, [[2, "whist"], [0, "pass"]])
    assert st.legal_actions() == ["no_play", "open", "closed"]
    run(st, [[2, "no_play"], [1, "refuse"]])
    assert st.legal_actions() == ["open", "closed"]
    run(st, [[2, "open"]])
    # PF-6.5 open_at declarer_first_card: seat 1 (first hand) leads; declarer is seat 1 himself here
    seat_to_play = st.current.next_card_seat()
    assert seat_to_play == 1
    st.apply(st.legal_actions()[0])
    assert st.current.opened
    assert st.current.next_card_seat() == 2 and st.to_act() == 2
    st.apply(st.legal_actions()[0])
    assert st.current.next_card_seat() == 0 and st.to_act() == 2  # the whister plays the passer's cards
    v = st.view(1)["deal"]
    assert set(v["open_hands"]) == {"0", "2"}


def test_pf_6_5_accepted_no_play() -> None:
    st = fresh()
    _to_responses(st, "7s")
    run(st, [[2, "whist"], [0, "pass"], [2, "no_play"], [1, "accept"]])
    e = st.entries[0]
    assert e["kind"] == "no_play" and e["delta"]["whists"][2][1] == 2 and e["delta"]["pulka"][1] == -20


def test_pf_6_5_lone_whist_options() -> None:
    st = fresh(rules=Rules(lone_whist="open_only", whist_without_play=False))
    _to_responses(st)
    run(st, [[2, "pass"], [0, "whist"]])
    assert st.legal_actions() == ["open"]
    st = fresh()
    _to_responses(st, "8s")
    run(st, [[2, "pass"], [0, "whist"]])
    assert st.legal_actions() == ["open", "closed"]  # no_play only at 6 or 7


def test_pf_6_5_open_after_lead() -> None:
    st = fresh(rules=Rules(open_at="after_lead", opening_lead="first_hand"))
    run(st, [[1, "pass"], [2, "bid:6s"], [0, "pass"], [2, "discard:9h,9s"], [2, "declare:6s"],
             [0, "whist"], [1, "pass"], [0, "open"]])
    assert st.to_act() == 1  # the passer leads his own card before the hands open
    st.apply(st.legal_actions()[0])
    assert st.current.opened and st.to_act() == 2


# ------------------------------------------------------------------ PF-7, PF-10
def test_pf_7_2_legal_cards_agree_with_the_shared_trick_core() -> None:
    rng = np.random.default_rng(7)
    for _ in range(2000):
        cards = [int(c) for c in rng.permutation(np.asarray(DECK))[:12]]
        hand, table = set(cards[:8]), cards[8:8 + int(rng.integers(0, 3))]
        trump = [None, 0, 1, 2, 3][int(rng.integers(5))]
        trick = [Play(9, c) for c in table]
        mine = sorted(legal_cards(hand, trick, trump))
        core = sorted(p.card for p in legal_plays(hand, 1, trick, trump, PREFERANS))
        assert mine == core


def test_pf_7_2_illegal_card_names_the_rule() -> None:
    st = fresh(EXAMPLE_DECK)
    run(st, [[s, t] for s, t in EXAMPLE_ACTIONS[:11]])  # seat 1 led Ad; seat 2 holds 8d and 9d
    with pytest.raises(IllegalAction) as e:
        st.apply("play:Ah")
    assert e.value.rule == "PF-7.2"


def test_pf_10_raspasy_talon_tricks_and_first_hand_leads_trick_3() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        st = State(SOCHI, 3, 0, [[int(c) for c in rng.permutation(np.asarray(DECK))]] * 3)
        run(st, [[1, "pass"], [2, "pass"], [0, "pass"]])
        d = st.current
        while d.trick_no < 2:
            st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
        assert d.order == [1, 2, 0] and not d.trick  # PF-10.3
        while not st.entries:
            st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
        e = st.entries[0]
        assert sum(e["tricks"]) + e["nobody"] == 10 and e["kind"] == "raspasy"
        assert e["delta"]["mountain"] == [5 * t for t in e["tricks"]]


def test_pf_10_4_raspasy_talon_unused() -> None:
    st = fresh(rules=Rules(raspasy_talon="unused"))
    run(st, [[1, "pass"], [2, "pass"], [0, "pass"]])
    assert st.current.trick == [] and st.to_act() == 1


def test_pf_7_7_ten_check_solve_and_no_check() -> None:
    st = fresh(rules=Rules(ten_check="no_check"))
    run(st, [[1, "bid:10s"], [2, "pass"], [0, "pass"], [1, "discard:7c,7d"], [1, "declare:10s"]])
    assert st.entries[0]["kind"] == "ten_conceded" and st.entries[0]["delta"]["pulka"][1] == -50
    st = fresh(rules=Rules(ten_check="solve"))
    run(st, [[1, "bid:10s"], [2, "pass"], [0, "pass"], [1, "discard:7c,7d"], [1, "declare:10s"]])
    e = st.entries[0]
    assert e["kind"] == "ten_checked" and e["tricks"][0] is None and e["tricks"][2] is None
    # seat 1 keeps 7h 7s 8c 8d 8h 8s 9c 9d Ah As (DECK order, talon Ah As): far from ten spades
    t = e["tricks"][1]
    assert t is not None and t < 10 and e["delta"]["mountain"][1] == 50 * (10 - t)


def test_pf_9_2_declarer_choice_writeoff() -> None:
    st = fresh(rules=Rules(writeoff="declarer_choice"))
    st.sheet.mountain[1] = Fraction(15)
    _to_responses(st)
    run(st, [[2, "pass"], [0, "pass"]])
    assert st.legal_actions() == [f"writeoff:{m}" for m in range(11)]
    with pytest.raises(IllegalAction) as e:
        st.apply("writeoff:11")
    assert e.value.rule == "PF-9.2"
    run(st, [[1, "writeoff:10"]])
    assert st.entries[0]["delta"]["mountain"][1] == -10 and st.entries[0]["delta"]["pulka"][1] == 0


# ------------------------------------------------------------------ PF-14 views
def test_pf_14_views_hide_hands_talon_and_discard() -> None:
    st = fresh(EXAMPLE_DECK)
    v = st.view(0)["deal"]
    assert v["talon"] is None and v["open_hands"] == {} and len(v["hand"]) == 10
    run(st, [[s, t] for s, t in EXAMPLE_ACTIONS[:6]])
    assert st.view(0)["deal"]["talon"] == ["Kh", "Jd"]
    assert st.view(0)["deal"]["discard"] is None and st.view(2)["deal"]["discard"] == ["Jd", "9h"]
    assert all(t != "discard:Jd,9h" for _, t in st.view(0)["deal"]["actions"])


# ------------------------------------------------------------------ PF-11, PF-13, PF-15 on whole matches
@pytest.mark.parametrize(("rules", "players"), [(SOCHI, 3), (SOCHI, 4), (CLASSIC, 3), (CLASSIC, 4)])
def test_pf_13_deal_balances_sum_to_the_settlement(rules: Rules, players: int) -> None:
    from games.preferans.bots import HeuristicBot

    bot = HeuristicBot()
    for seed in range(3):
        rng = np.random.default_rng(seed)
        st = ENTRY.deal(rules, players, 0, rng)
        while not st.is_over():
            seat = st.to_act()
            st.apply(bot.act(st.view(seat), st.legal_actions(), rng))
        assert st.settlement is not None
        total = [sum((b[s] for b in st.balances), Fraction(0)) for s in range(players)]
        assert total == st.settlement.balances and sum(total) == 0
        out = st.outcome()
        # PF-15.4 / PF-15.6: the outcome's scores are the final balances in whists, exact; the deal
        # scores (PF-13) sum to them exactly; scores() counts them in 1/n whist (rows, statistics).
        assert out["scores"] == [exact(b) for b in total]
        assert [sum(Fraction(str(d["scores"][s])) for d in out["deals"]) for s in range(players)] == total
        assert st.scores() == [int(b * st.score_unit) for b in total]
        rec = json.loads(json.dumps(st.record()))
        assert replay.replay(rec) == json.loads(json.dumps(out))
        if rules.razboinik:
            assert [d.phase for d in st.deals[:6 * players]] == ["razboinik"] * (6 * players)
            assert [d.round_level for d in st.deals[:6 * players:players]] == [6, 7, 8, 9, 10, 11]
            assert all(d.phase == "prelim_raspasy" for d in st.deals[6 * players:8 * players])
        assert out["end"] in ("closed", "max_deals")
        if out["end"] == "closed":
            assert sum(1 for p in out["sheet"]["pulka"] if p == 0) >= players - 1


def test_pf_15_7_record_errors_name_the_rule() -> None:
    st = fresh(EXAMPLE_DECK)
    rec = st.record()
    rec["actions"] = [[[1, "pass"], [2, "bid:6s"], [0, "bid:6s"]]]
    with pytest.raises(IllegalAction) as e:
        replay.replay_state(rec)
    assert e.value.rule == "PF-4.3" and e.value.index == 2 and e.value.deal == 0
    rec["actions"] = [[[2, "pass"]]]
    with pytest.raises(IllegalAction) as e:
        replay.replay_state(rec)
    assert e.value.rule == "PF-4.3"  # out of turn
    rec["actions"] = [[[1, "pass"], [2, "fold"]]]
    with pytest.raises(IllegalAction) as e:
        replay.replay_state(rec)
    assert e.value.rule == "PF-15.1"
    bad = json.loads(json.dumps(st.record()))
    bad["deal"][0]["talon"] = ["Jd", "Kh"]
    with pytest.raises(IllegalAction) as e:
        replay.replay_state(bad)
    assert e.value.rule == "PF-3.4"
    bad = json.loads(json.dumps(st.record()))
    bad["deal"][0]["deck"][0] = "6s"
    with pytest.raises(IllegalAction) as e:
        replay.replay_state(bad)
    assert e.value.rule == "PF-3.4" and "6s" in str(e.value)


def test_pf_2_3_four_players_the_dealer_sits_out() -> None:
    from games.preferans.bots import RandomBot

    rng = np.random.default_rng(4)
    st = ENTRY.deal(SOCHI, 4, 0, rng)
    bot = RandomBot()
    seen_dealers = set()
    while not st.is_over() and st.deal_no < 12:
        d = st.current
        assert st.to_act() != d.dealer and d.active == ((d.dealer + 1) % 4, (d.dealer + 2) % 4, (d.dealer + 3) % 4)
        assert st.deal_stub(d)["hands"][d.dealer] == [] and st.view(d.dealer)["deal"]["hand"] == []
        seen_dealers.add(d.dealer)
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    assert seen_dealers == {0, 1, 2, 3}  # PF-2.2: the dealer moves one seat clockwise every deal
    assert all(e["tricks"][d.dealer] is None for d, e in zip(st.deals, st.entries, strict=False))


def test_pf_7_1_opening_lead_option() -> None:
    st = fresh(rules=Rules(opening_lead="declarer"))
    run(st, [[1, "pass"], [2, "bid:6s"], [0, "pass"], [2, "discard:9h,9s"], [2, "declare:6s"],
             [0, "pass"], [1, "whist"], [1, "closed"]])
    assert st.to_act() == 2 and st.current.trick == []
    st = fresh()
    run(st, [[1, "pass"], [2, "bid:6s"], [0, "pass"], [2, "discard:9h,9s"], [2, "declare:6s"],
             [0, "pass"], [1, "whist"], [1, "closed"]])
    assert st.to_act() == 1  # PF-7.1: the first hand leads


@pytest.mark.parametrize(("defence", "shown"), [("open", True), ("closed", False)])
def test_pf_7_6_misere_defence(defence: str, shown: bool) -> None:
    st = fresh(rules=Rules(misere_defence=defence))
    run(st, [[1, "bid:misere"], [1, "discard:Ah,As"]])
    assert st.current.contract == "misere" and st.current.step == "play"
    assert st.view(1)["deal"]["open_hands"] == {}
    st.apply(st.legal_actions()[0])  # the opening lead
    assert bool(st.view(1)["deal"]["open_hands"]) is shown
    if shown:
        assert set(st.view(1)["deal"]["open_hands"]) == {"0", "2"}  # the defenders, never the declarer
        assert "1" not in st.view(2)["deal"]["open_hands"]


def test_pf_7_7_play_open_shows_all_three_hands() -> None:
    st = fresh()
    run(st, [[1, "bid:10s"], [2, "pass"], [0, "pass"], [1, "discard:7c,7d"], [1, "declare:10s"]])
    assert st.current.step == "play"
    st.apply(st.legal_actions()[0])
    assert set(st.view(0)["deal"]["open_hands"]) == {"1", "2"} and st.current.responses == []


@pytest.mark.parametrize("options", [
    {"ladder": "modern", "hold_rule": "senior"}, {"hold_rule": "off", "whist_without_play": False},
    {"writeoff": "declarer_choice", "closing_whist_rate": 0.1}, {"writeoff": "mountain_first"},
    {"ten_check": "solve", "consolation": "dealer_only"}, {"ten_check": "no_check", "consolation": "none"},
    {"raspasy_talon": "unused", "talon_bonus_3p": True, "whists_on_failure": False},
    {"lone_whist": "open_only", "open_at": "after_lead", "whist_split": "per_half"},
    {"lone_whist": "closed_only", "opening_lead": "declarer", "misere_defence": "closed"},
    {"preset": "classic", "razboinik_made": "off_mountain", "max_deals": 6, "whist_price": "1/10"},
])
def test_every_option_plays_replays_and_settles(options: dict[str, Any]) -> None:
    """Random matches under every option value: the record replays, the deal balances sum to the settlement."""
    rules = ENTRY.rules({"max_deals": 40, **options})
    for players in (3, 4):
        rng = np.random.default_rng(players)
        st = ENTRY.deal(rules, players, 0, rng)
        while not st.is_over():
            acts = st.legal_actions()
            st.apply(acts[int(rng.integers(len(acts)))])
        assert st.settlement is not None
        total = [sum((b[s] for b in st.balances), Fraction(0)) for s in range(players)]
        assert total == st.settlement.balances and sum(total) == 0
        rec = json.loads(json.dumps(st.record()))
        assert replay.replay(rec) == json.loads(json.dumps(st.outcome()))
        unit = players * (10 if rules.closing_whist_rate != 1 else 1)
        assert st.scores() == [int(b * unit) for b in total]
