"""Raspisnoy rules through the engine: schedules (R-1), trumps (R-2), bids (R-3), play and the joker
(R-4), scoring (R-5), views (R-7) and the exact check figures (R-9)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from rasp_helpers import apply_all, deal_of, random_match

from games.core.cards import card_id
from games.core.protocol import RulesError
from games.core.tricks import JokerMode, Play, legal_plays, trick_winner
from games.raspisnoy.rules import CLASSIC, ODESSA, rules_from, schedule
from games.raspisnoy.scoring import seat_points
from games.raspisnoy.state import DECK36, State

# ----------------------------------------------------------------------------- R-1 schedules

def _sizes(rules, n):  # type: ignore[no-untyped-def]
    return [(k if kind == "normal" else f"{k}{kind[0]}") for kind, k in schedule(rules, n)]


def test_seed_002_schedule_for_five_players_exactly() -> None:
    """R-1.3: seed 002's table 1 2 3 4 5 6 7 7 7 7 7 6 5 4 3 2 1 7o 7o 7o 7o 7o 7 (dark 'o', golden last)."""
    plan = schedule(CLASSIC, 5)
    assert [k for _, k in plan] == [1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 6, 5, 4, 3, 2, 1, 7, 7, 7, 7, 7, 7]
    assert [kind for kind, _ in plan] == ["normal"] * 17 + ["dark"] * 5 + ["golden"]


@pytest.mark.parametrize(("n", "deals", "cards"), [(2, 39, 396), (3, 29, 216), (4, 25, 153), (5, 23, 119)])
def test_classic_match_sizes(n: int, deals: int, cards: int) -> None:
    """R-1.7, R-9.1."""
    plan = schedule(CLASSIC, n)
    assert len(plan) == deals and sum(k for _, k in plan) == cards


@pytest.mark.parametrize(("n", "deals", "cards", "cap6", "each1", "both"),
                         [(2, 44, 486, 20, 40, 16), (3, 37, 312, 25, 29, 17), (4, 36, 252, 30, 24, 18),
                          (5, 37, 217, 35, 21, 19), (6, 40, 210, 40, 20, 20)])
def test_odessa_match_sizes(n: int, deals: int, cards: int, cap6: int, each1: int, both: int) -> None:
    """R-1.8, R-9.1: defaults, cap 6, specials_each 1, both."""
    plan = schedule(ODESSA, n)
    assert len(plan) == deals and sum(k for _, k in plan) == cards
    assert len(schedule(dataclasses.replace(ODESSA, cap=6), n)) == cap6
    assert len(schedule(dataclasses.replace(ODESSA, specials_each=1), n)) == each1
    assert len(schedule(dataclasses.replace(ODESSA, cap=6, specials_each=1), n)) == both


def test_odessa_three_players_cap_six_blocks() -> None:
    """R-1.8: 1..5, three 6s, 5..1, then no-trump, dark, misère, golden blocks of 12 cards."""
    plan = schedule(dataclasses.replace(ODESSA, cap=6), 3)
    assert [k for _, k in plan[:13]] == [1, 2, 3, 4, 5, 6, 6, 6, 5, 4, 3, 2, 1]
    assert [kind for kind, _ in plan[13:]] == ["no_trump"] * 3 + ["dark"] * 3 + ["misere"] * 3 + ["golden"] * 3
    assert {k for _, k in plan[13:]} == {12}


@pytest.mark.parametrize(("n", "turned", "drawn"), [(2, 34, 8), (3, 22, 12), (4, 16, 16), (5, 32, 0), (6, 10, 24)])
def test_odessa_trump_sources(n: int, turned: int, drawn: int) -> None:
    """R-9.2: deals that find a trump by turning / by drawing, through a dealt match."""
    st = State.deal(ODESSA, n, np.random.default_rng(n))
    sources = []
    for i in range(len(st.plan)):
        sources.append(st._start(i).trump_source)
    assert sources.count("turned") == turned and sources.count("drawn") == drawn
    assert sources.count("none") == n  # the no-trump specials


def test_player_range_is_the_presets() -> None:
    """R-1.1: classic 2..5, odessa 2..6, whatever the options."""
    with pytest.raises(RulesError) as e:
        schedule(CLASSIC, 6)
    assert e.value.rule == "R-1.1"
    assert len(schedule(ODESSA, 6)) == 40
    with pytest.raises(RulesError):
        schedule(ODESSA, 7)


def test_dealer_rotates_and_left_of_dealer_bids_and_leads() -> None:
    """R-1.6: deal d is dealt by (first_dealer + d - 1) mod n; the next seat bids and leads first."""
    st = random_match(dataclasses.replace(CLASSIC, first_dealer=2), 3, 5)
    for d in st.done:
        assert d.dealer == (2 + d.index) % 3
        assert d.actions[0][0] == (d.dealer + 1) % 3
        assert d.tricks[0].leader == (d.dealer + 1) % 3


def test_unknown_option_and_preset_are_r6() -> None:
    """R-6: an option name not in R-6, an unknown preset."""
    with pytest.raises(RulesError) as e:
        rules_from({"preset": "classic", "jokerz": 1})
    assert e.value.rule == "R-6" and e.value.field == "jokerz"
    with pytest.raises(RulesError) as e:
        rules_from({"preset": "moscow"})
    assert e.value.rule == "R-6"


# ----------------------------------------------------------------------------- R-2 trumps

def test_classic_trump_is_diamonds_and_odessa_turns_the_next_card() -> None:
    """R-2.1, R-2.2, R-1.10: position n·k is the turned card."""
    d = deal_of(CLASSIC, ["Ah 9c", "Kh Ts"])
    assert (d.trump, d.trump_card, d.trump_source) == (1, None, "fixed")
    d = deal_of(ODESSA, ["Ah 9c", "Kh Ts"], turned="Qs")
    assert (d.trump, d.trump_card, d.trump_source) == (3, card_id("Qs"), "turned")


def test_a_turned_joker_means_no_trump_but_a_normal_deal() -> None:
    """R-2.2, R-1.5: the deal stays normal, without trump; by-trumps does not exist (R-2.8)."""
    d = deal_of(ODESSA, ["Ah 9c", "Kh Ts"], turned="7s")
    assert d.kind == "normal" and d.trump is None and d.trump_source == "turned"
    with_jokers_off = deal_of(dataclasses.replace(ODESSA, jokers=0), ["Ah 9c", "Kh Ts"], turned="7s")
    assert with_jokers_off.trump == 3  # with jokers = 0 the 7s names spades


def test_drawn_trump_when_all_cards_are_dealt() -> None:
    """R-2.2, R-2.5: 4 players x 9 cards: the drawn card's suit is trump; it lies in some hand."""
    hands = [" ".join(f"{r}{s}" for r in "6789TJQKA") for s in "cdhs"]
    d = deal_of(ODESSA, hands, drawn="Jh")
    assert (d.trump, d.trump_source) == (2, "drawn")
    d = deal_of(ODESSA, hands, drawn="7s")
    assert d.trump is None and d.trump_source == "drawn"


def test_rotating_trumps() -> None:
    """R-2.3: the trump of a trick is the suit after the led suit (s -> c -> d -> h -> s)."""
    rules = dataclasses.replace(CLASSIC, rotating_trumps=True)
    d = deal_of(rules, ["Ah", "6s"])  # hearts led: spades are trump
    assert d.trump_source == "rotating"
    apply_all(d, ["look", "bid:0", "look", "bid:1"])
    assert d.to_act() == 1  # left of dealer 0 leads
    apply_all(d, ["play:6s", "play:Ah"])  # spades led: clubs are trump; seat 0 has none: any card
    assert d.tricks[0].winner == 1
    d = deal_of(rules, ["Ac", "6s"])
    apply_all(d, ["look", "bid:0", "look", "bid:1", "play:6s", "play:Ac"])  # the club trumps the spade
    assert d.tricks[0].winner == 0


# ----------------------------------------------------------------------------- R-3 bids

def test_classic_voluntary_dark_first_decision_then_open_bids() -> None:
    """R-3.7, R-8.8: look or dark 1..k first; after look the open bids 0..k."""
    d = deal_of(CLASSIC, ["Ah 9c", "Kh Ts"])
    assert d.legal() == ["look", "dark:1", "dark:2"]
    apply_all(d, ["look"])
    assert d.legal() == ["bid:0", "bid:1", "bid:2"]


def test_dealer_restriction_forbids_exactly_one_bid() -> None:
    """R-3.3 (003's example: 5 cards, 4 bid: the dealer may bid 0, 2, 3, 4, 5)."""
    hands = [" ".join(f"{r}{s}" for r in "6789T") for s in "cdh"]
    d = deal_of(ODESSA, hands, turned="As")
    # dealer of the first 5-card deal: index 4 -> seat 1; order 2, 0, 1
    assert d.dealer == 1
    apply_all(d, ["bid:3", "bid:1"])
    assert d.legal() == ["bid:0", "bid:2", "bid:3", "bid:4", "bid:5"]


def test_pass_limit_and_the_duty_beats_the_restriction() -> None:
    """R-3.4, R-3.8: two passes in a row oblige a bid; in a 1-card deal with the others at 0 the
    dealer's only bid is 1 although it makes the sum equal the tricks."""
    d = deal_of(ODESSA, ["Ah", "Kh", "9c"], index=0, turned="6d", pass_runs=(2, 0, 0))
    assert d.dealer == 0
    assert d.legal() == ["bid:0", "bid:1"]  # seat 1
    apply_all(d, ["bid:0", "bid:0"])
    assert d.legal() == ["bid:1"]  # seat 0: duty removes 0, the restriction 1; the duty wins


def test_pass_runs_carry_over_deals_without_bids() -> None:
    """R-3.4: runs count bids of 0 (dark included), golden and misère deals leave them unchanged."""
    st = random_match(ODESSA, 3, 11)
    runs = [0, 0, 0]
    for d in st.done:
        assert list(d.pass_runs) == runs
        if d.kind in ("golden", "misere"):
            assert d.bids == [None] * 3
            continue
        runs = [r + 1 if b == 0 else 0 for r, b in zip(runs, d.bids, strict=True)]
        for s, b in enumerate(d.bids):
            if d.pass_runs[s] >= 2:
                assert b != 0  # duty


def test_dark_deals_offer_only_dark_bids() -> None:
    """R-3.2, R-3.6: classic dark deals 1..k (no dark pass), odessa 0..k."""
    plan = schedule(CLASSIC, 4)
    i = [kind for kind, _ in plan].index("dark")
    hands = [" ".join(f"{r}{s}" for r in "6789TJQKA") for s in "cdhs"]
    d = deal_of(CLASSIC, hands, index=i)
    assert d.legal() == [f"dark:{v}" for v in range(1, 10)]
    i = [kind for kind, _ in schedule(ODESSA, 4)].index("dark")
    d = deal_of(ODESSA, hands, index=i, drawn="Ac")
    assert d.legal()[0] == "dark:0"


# ----------------------------------------------------------------------------- R-4 play and the joker

def test_follow_suit_else_trump_else_any() -> None:
    """R-4.2: void in the led suit, a trump is due (no duty to beat)."""
    d = deal_of(ODESSA, ["Ah 9c", "Kd Td", "6c 8h"], index=1, turned="Qc")  # trump clubs; 2-card deal
    # deal 2: dealer seat 1, order 2, 0, 1; seat 2 leads
    apply_all(d, ["bid:0", "bid:0", "bid:0"])
    apply_all(d, ["play:8h"])
    assert d.legal() == ["play:Ah"]  # seat 0 follows hearts
    apply_all(d, ["play:Ah"])
    assert d.legal() == ["play:Td", "play:Kd"]  # seat 1: no hearts, no clubs: any


def test_joker_high_follow_wins_and_low_loses() -> None:
    """R-4.4, R-4.7: `Ah` led, joker high, `Tc` (trump clubs): the joker; joker low with `Kh`: the `Ah`."""
    d = deal_of(ODESSA, ["Tc", "Ah", "7s"], index=0, turned="Qc")
    apply_all(d, ["bid:1", "bid:0", "bid:1"])  # dealer 0: order 1, 2, 0
    assert d.legal() == ["play:Ah"]
    apply_all(d, ["play:Ah"])
    assert d.legal() == ["play:7s:high", "play:7s:low"]
    apply_all(d, ["play:7s:high", "play:Tc"])
    assert d.tricks[0].winner == 2
    d = deal_of(ODESSA, ["Kh", "Ah", "7s"], index=0, turned="Qc")
    apply_all(d, ["bid:1", "bid:0", "bid:1", "play:Ah", "play:7s:low", "play:Kh"])
    assert d.tricks[0].winner == 1


def test_odessa_joker_leads_and_their_duties() -> None:
    """R-4.5: highest SUIT forces the highest card of SUIT, void: a trump; lowest SUIT: the highest wins."""
    d4 = deal_of(ODESSA, ["Qh Kh 6c", "7s 9h Tc", "Ah 8d 6d"], index=2, turned="Jc")
    apply_all(d4, ["bid:0", "bid:0", "bid:0", "play:6c", "play:Tc", "play:6d"])
    leads = d4.legal()
    assert {f"play:7s:high:{s}" for s in "cdhs"} <= set(leads) and {f"play:7s:low:{s}" for s in "cdhs"} <= set(leads)
    apply_all(d4, ["play:7s:high:h"])
    assert d4.legal() == ["play:Ah"]  # seat 2's highest heart (R-4.5)
    apply_all(d4, ["play:Ah"])
    assert d4.legal() == ["play:Kh"]  # seat 0's highest heart, not the Qh
    apply_all(d4, ["play:Kh"])
    assert d4.tricks[-1].winner == 1


def test_lowest_suit_lead_cases_of_r47() -> None:
    """R-4.7's table: lowest h led: `Kh 6h` -> Kh; `Ac 9s` (trump c) -> Ac; `As 9d` -> the joker leader."""
    rules = ODESSA.trick_rules()
    for others, winner in ((("Kh", "6h"), 1), (("Ac", "9s"), 1), (("As", "9d"), 0)):
        trick = [Play(0, card_id("7s"), JokerMode.LOW, 2), Play(1, card_id(others[0])), Play(2, card_id(others[1]))]
        w = trick_winner(trick, 0, rules)
        assert w == winner, (others, w)


def test_classic_plain_joker_and_spade_exemption() -> None:
    """R-4.4, R-4.6: spades led, the joker as one's only spade need not be played; plain 7s follows as
    a seven (`8s` led, `7s` plain, `Js` -> Js); `Kh` led, plain 7s by a player void in h and d -> Kh."""
    d = deal_of(CLASSIC, ["7s Ac", "8s 9h", "Js Qh"], index=1)  # dealer 1: order 2, 0, 1
    apply_all(d, ["look", "bid:0", "look", "bid:0", "look", "bid:0"])
    assert d.to_act() == 2
    apply_all(d, ["play:Js"])
    assert d.legal() == ["play:7s:high", "play:7s:plain", "play:Ac"]  # need not play the joker
    apply_all(d, ["play:7s:plain", "play:8s"])
    assert d.tricks[0].winner == 2
    d = deal_of(CLASSIC, ["7s 9s", "Kh 9c", "6h Qs"], index=1)
    apply_all(d, ["look", "bid:0", "look", "bid:0", "look", "bid:0", "play:6h"])
    assert d.legal() == ["play:7s:high", "play:7s:plain", "play:9s"]
    apply_all(d, ["play:7s:plain", "play:Kh"])
    assert d.tricks[0].winner == 1


def test_classic_by_trumps_lead() -> None:
    """R-4.5: by-trumps: everyone plays his highest trump, the joker wins; a plain lead is a spade lead."""
    d = deal_of(CLASSIC, ["9d Ad", "7s 8c", "Kd 6d"], index=1)  # order 2, 0, 1; make seat 1 lead later
    apply_all(d, ["look", "bid:0", "look", "bid:0", "look", "bid:0", "play:6d", "play:Ad", "play:8c"])
    assert d.to_act() == 0 and d.tricks[0].winner == 0
    d = deal_of(CLASSIC, ["Ad 9d", "Kd 6d", "7s 8c"], index=1)  # seat 2 leads first
    apply_all(d, ["look", "bid:0", "look", "bid:0", "look", "bid:0"])
    assert d.legal() == ["play:7s:high:d", "play:7s:plain", "play:8c"]
    apply_all(d, ["play:7s:high:d"])
    assert d.legal() == ["play:Ad"]
    apply_all(d, ["play:Ad"])
    assert d.legal() == ["play:Kd"]
    apply_all(d, ["play:Kd"])
    assert d.tricks[0].winner == 2


def test_two_jokers_first_high_wins() -> None:
    """R-4.8: `Qd` led, `6s` high, `7s` high -> the 6s."""
    rules = dataclasses.replace(ODESSA, jokers=2)
    d = deal_of(rules, ["7s", "Qd", "6s"], index=0, turned="Ac")  # order 1, 2, 0
    apply_all(d, ["bid:0", "bid:0", "bid:0", "play:Qd", "play:6s:high", "play:7s:high"])
    assert d.tricks[0].winner == 2


# ----------------------------------------------------------------------------- R-5 scoring

@pytest.mark.parametrize(("rules", "kind", "k", "bid", "dark", "t", "points"), [
    (CLASSIC, "normal", 3, 3, False, 3, 30), (CLASSIC, "normal", 4, 3, False, 1, -20),
    (CLASSIC, "normal", 5, 2, False, 4, 4), (CLASSIC, "normal", 3, 0, False, 2, 2),
    (CLASSIC, "normal", 1, 0, False, 0, 5), (CLASSIC, "normal", 1, 1, False, 0, -10),
    (CLASSIC, "normal", 4, 3, True, 3, 60), (CLASSIC, "normal", 4, 3, True, 1, -40),
    (CLASSIC, "normal", 5, 2, True, 4, 8), (CLASSIC, "golden", 7, None, False, 3, 60),
    (ODESSA, "normal", 5, 5, False, 5, 100), (ODESSA, "normal", 5, 5, False, 3, -40),
    (ODESSA, "normal", 1, 1, False, 1, 10),
    (ODESSA, "no_trump", 12, 2, False, 2, 40), (ODESSA, "no_trump", 12, 0, False, 0, 10),
    (ODESSA, "no_trump", 12, 3, False, 5, 10),
    (ODESSA, "dark", 12, 4, True, 3, -20), (ODESSA, "dark", 9, 9, True, 9, 360), (ODESSA, "dark", 9, 9, True, 8, -40),
    (ODESSA, "misere", 9, None, False, 0, 50), (ODESSA, "misere", 9, None, False, 2, -40),
    (ODESSA, "golden", 9, None, False, 3, 60), (ODESSA, "normal", 5, 2, False, 2, 20),
])
def test_worked_examples(rules, kind, k, bid, dark, t, points) -> None:  # type: ignore[no-untyped-def]
    """R-5.7's rows."""
    assert seat_points(rules, kind, k, bid, dark, t) == points


def test_worked_examples_with_factor_one_and_a_half() -> None:
    """R-5.7: no-trump +30 / +7.5 / +7.5, misère -30 (halves kept exact, R-5.5)."""
    r = dataclasses.replace(ODESSA, special_factor=1.5)
    assert [seat_points(r, "no_trump", 12, b, False, t) for b, t in ((2, 2), (0, 0), (3, 5))] == \
        [30, Fraction(15, 2), Fraction(15, 2)]
    assert seat_points(r, "misere", 9, None, False, 2) == -30
    assert seat_points(r, "golden", 9, None, False, 3) == 60


def test_seed_002_sheet_deal_one() -> None:
    """R-5.7: 002's first deal of 5 players: three passes +5, Серж 1/0 -10, Рома 1/1 +10."""
    pts = [seat_points(CLASSIC, "normal", 1, b, False, t) for b, t in ((0, 0), (0, 0), (0, 0), (1, 0), (1, 1))]
    assert pts == [5, 5, 5, -10, 10]


def test_match_totals_and_winners() -> None:
    """R-5.6: totals are the sums of the deal points; the highest total wins, ties share."""
    st = random_match(CLASSIC, 3, 4)
    sums = [sum(d.points[s] for d in st.done) for s in range(3)]  # type: ignore[index]
    assert st.scores() == sums
    assert st.winners() == [s for s in range(3) if sums[s] == max(sums)]


# ----------------------------------------------------------------------------- R-7 views

def test_dark_views_hide_the_hand_until_look_or_bid() -> None:
    """R-7, R-3.7: classic normal deal: no hand before look; dark deal: no hand before the own bid."""
    st = State.deal(CLASSIC, 3, np.random.default_rng(3))
    seat = st.to_act()
    assert st.view(seat)["hand"] is None and st.view(seat)["hand_sizes"] == (1, 1, 1)
    st.apply("look")
    assert st.view(seat)["hand"] is not None
    other = (seat + 1) % 3
    assert st.view(other)["hand"] is None
    # walk to the first dark deal
    rng = np.random.default_rng(0)
    while st.current.kind != "dark":
        la = st.legal_actions()
        st.apply(la[int(rng.integers(len(la)))])
    first = st.to_act()
    assert all(st.view(s)["hand"] is None for s in range(3))
    st.apply(st.legal_actions()[0])
    assert st.view(first)["hand"] is not None
    assert all(st.view(s)["hand"] is None for s in range(3) if s != first)


def test_views_never_show_other_hands() -> None:
    """R-7: a view holds only its own hand; other hands as counts."""
    st = State.deal(ODESSA, 4, np.random.default_rng(9))
    v = st.view(0)
    assert v["hand"] == tuple(sorted(st.current.hands[0]))
    assert "hands" not in v and all(isinstance(x, int) for x in v["hand_sizes"])


# ----------------------------------------------------------------------------- R-9 exact figures

def _leader_wins(rules, players: int) -> Fraction:  # type: ignore[no-untyped-def]
    """R-9.5 by enumerating every ordered 1-card deal (and every turned card in odessa)."""
    tr = rules.trick_rules()
    jokers = rules.joker_set()
    wins = total = 0
    cards = list(DECK36)
    for a in cards:
        for b in cards:
            if b == a:
                continue
            turned = [c for c in cards if c not in (a, b)] if rules.odessa else [None]
            for t in turned:
                trump = 1 if t is None else (None if t in jokers else t & 3)
                lead = next(p for p in legal_plays([a], 0, [], trump, tr)
                            if p.mode is None or p.mode.value == "high")
                follow = [p for p in legal_plays([b], 1, [lead], trump, tr) if p.mode is None or p.mode.value == "high"]
                wins += trick_winner([lead, follow[0]], trump, tr) == 0
                total += 1
    return Fraction(wins, total)


def test_r95_leader_wins_two_players_classic() -> None:
    """R-9.5: classic, 2 players: 19/28."""
    assert _leader_wins(CLASSIC, 2) == Fraction(19, 28)


def test_r95_leader_wins_two_players_odessa() -> None:
    """R-9.5: odessa, 2 players (every turned card): 1661/2380."""
    assert _leader_wins(ODESSA, 2) == Fraction(1661, 2380)
