"""The pimc bot's bidding arithmetic: its declarer balance is PF-8/PF-13's, where its assumptions hold."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from games.core.cards import parse_cards
from games.preferans import cards as pc
from games.preferans import scoring
from games.preferans.pimc import declarer_balance
from games.preferans.rules import SOCHI, VALUES
from games.preferans.scoring import ContractResult, Sheet


def _split(defence: int) -> list[int]:
    return [defence - defence // 2, defence // 2]


@pytest.mark.parametrize("level", [6, 7, 8, 9, 10, 11])
def test_declarer_balance_is_the_scored_balance(level: int) -> None:
    """For every trick count where both defenders whist and meet the obligation (PF-8.6), and no talon
    bonus applies, ``declarer_balance`` equals the balance PF-13 gives the scored deal exactly."""
    checked = 0
    for t in range(11):
        b, c = _split(10 - t)
        misere = level == 11
        whisters = [] if misere or level == 10 else [1, 2]
        if whisters and b + c < VALUES[level].o:
            continue  # an obligation missed: the bot's estimate leaves the whisters' penalty out
        if whisters and level <= 7 and min(b, c) < VALUES[level].o // 2:
            continue
        res = ContractResult(0, level, [t, b, c], whisters, None, 2, False, parse_cards("7s 8s"),
                             "misere" if misere else "contract")
        delta = scoring.score_contract(Sheet.fresh(3, 100), res, SOCHI, 3)
        assert declarer_balance(level, t, 3, SOCHI.consolation, SOCHI.whists_on_failure) == \
            pytest.approx(float(delta.balances()[0]), abs=1e-9), (level, t)
        checked += 1
    assert checked >= 4


def test_a_failed_six_costs_more_than_three_made_sixes_earn() -> None:
    """Why pimc bids only on a high chance of making (PF-8.1-8.5): one trick short of a six loses more
    than a made six with an overtrick wins."""
    made = declarer_balance(6, 7, 3, "all", True)
    short = declarer_balance(6, 5, 3, "all", True)
    assert made > 0 > short and -short > 3 * made


# ---------------------------------------------------------------- whisting and a defender's samples
def _view(level: int = 6, talon: str = "7s 8h") -> dict:
    from games.preferans.rules import rules_json

    sheet = Sheet.fresh(3, 100)
    return {"players": 3, "rules": rules_json(SOCHI),
            "sheet": {"pulka": [str(x) for x in sheet.pulka], "mountain": [str(x) for x in sheet.mountain],
                      "whists": [[str(x) for x in row] for row in sheet.whists]},
            "deal": {"declarer": 0, "level": level, "talon": talon.split(), "active": [0, 1, 2], "dealer": 2}}


@pytest.mark.parametrize(("whists", "defence", "expected"), [
    ({1: False, 2: False}, 4, Fraction(-10, 3)),  # PF-6.3 both pass: the six is made, 10 off his pulka
    ({1: True, 2: False}, 4, 4 - Fraction(10, 3)),  # PF-8.3 the lone whister writes both defenders' 4 tricks
    ({1: True, 2: False}, 2, 2 - 10),  # PF-8.6 two short of the obligation: 5 x 2 on his mountain
    ({1: False, 2: True}, 2, Fraction(-10, 3) + Fraction(10, 3)),  # the passer: his partner's penalty evens out
    ({1: True, 2: True}, 5, 1 + Fraction(5, 2) + Fraction(10, 3)),  # PF-8.2/8.5 one down: consolation 1, 2.5 whists
])
def test_responder_balance_is_pf13_by_hand(whists: dict[int, bool], defence: int, expected: Fraction) -> None:
    """Seat 1's balance (PF-13) from a six of seat 0 on a fresh sheet, worked out by hand from PF-8."""
    from games.preferans.pimc import responder_balance

    assert responder_balance(_view(), 1, whists, defence) == pytest.approx(float(expected), abs=1e-9)


def _respond_states(seeds: range):  # type: ignore[no-untyped-def]
    """(state, seat) at every main-phase respond step of heuristic matches (first 12 deals)."""
    from games.core import registry
    from games.preferans.entry import ENTRY

    heur = registry.make("preferans/heuristic", {})
    for seed in seeds:
        rng = np.random.default_rng(seed)
        st = ENTRY.deal(SOCHI, 3, 0, rng)
        while st.deal_no < 12 and not st.is_over():
            seat = st.to_act()
            view = st.view(seat)
            if view["deal"]["step"] == "respond" and view["deal"]["talon"] is not None:
                yield st.copy(), seat
            st.apply(heur.act(view, st.legal_actions(), rng))


def test_a_defenders_samples_hold_what_he_knows_and_the_declarer_the_talon() -> None:
    """PF-5.1/PF-14: the talon is public and joins the declarer's hand, the discard is hidden. Every sample
    deals the declarer ten cards and the other defender ten, none of them the defender's own or each
    other's; a talon ace (never a heuristic discard) is always the declarer's; and the declarer's own ten
    are worth about his bid (AUCTION_MARGIN) in nearly every sample."""
    from games.preferans.bots import best_strain
    from games.preferans.pimc import AUCTION_MARGIN, PimcBot
    from games.preferans.rules import call_level

    bot = PimcBot()
    checked = aces = fits = 0
    for st, seat in _respond_states(range(40)):
        d = st.view(seat)["deal"]
        decl = d["declarer"]
        other = next(s for s in d["active"] if s not in (seat, decl))
        mine = set(parse_cards(" ".join(d["hand"])))
        talon = parse_cards(" ".join(d["talon"]))
        plausible = 0
        rng = np.random.default_rng(checked)
        for _ in range(20):
            hidden = bot._sample(d, seat, rng)
            assert hidden is not None
            h, o = set(hidden[decl]), set(hidden[other])
            assert len(h) == len(o) == 10 and not (h & o) and not ((h | o) & mine)
            assert (h | o | mine) >= set(talon) - {c for c in talon if c not in h}  # nothing lost but discards
            for c in talon:
                if c >> 2 == 12:
                    assert c in h
                    aces += 1
            plausible += best_strain(sorted(h - set(talon)) + sorted(set(pc.DECK) - h - o - mine - set(talon)))[1] \
                >= call_level(d["bought"]) - AUCTION_MARGIN
        fits += plausible
        checked += 1
    assert checked >= 10 and aces > 0 and fits >= 0.9 * 20 * checked


def test_pimc_whists_closer_to_the_full_information_answer_than_the_heuristic() -> None:
    """At every respond step of 40 heuristic matches' first 12 deals, the answer a player seeing every
    hand would give (the better PF-13 balance for the true double-dummy defence, the other responder's
    true answer) against what pimc and the heuristic bot answer: pimc's mean regret is lower."""
    from games.core import registry
    from games.preferans import solver
    from games.preferans.pimc import PimcBot, responder_balance

    heur = registry.make("preferans/heuristic", {})
    bot = PimcBot()
    regret = {"pimc": [], "heuristic": []}
    for n, (st, seat) in enumerate(_respond_states(range(40))):
        view = st.view(seat)
        d = view["deal"]
        order = list(d["active"])
        decl = d["declarer"]
        k = order.index(decl)
        first, second = order[(k + 1) % 3], order[(k + 2) % 3]
        other = second if seat == first else first
        defence = 10 - solver.tricks([sorted(st.current.hands[s]) for s in order], d["trump"], k, 0)
        if seat == first:
            ov = st.view(other)
            ov["deal"] = {**ov["deal"], "to_act": other}
            their = heur.act(ov, ["whist", "pass"], np.random.default_rng(0)) == "whist"
        else:
            their = next(t for s, t in reversed(d["actions"]) if s == other) == "whist"
        value = {a: responder_balance(view, seat, {first: a == "whist" if seat == first else their,
                                                   second: a == "whist" if seat == second else their}, defence)
                 for a in ("whist", "pass")}
        for name, b in (("pimc", bot), ("heuristic", heur)):
            answer = b.act(view, st.legal_actions(), np.random.default_rng(n))
            regret[name].append(max(value.values()) - value[answer])
    assert len(regret["pimc"]) >= 200
    assert np.mean(regret["pimc"]) < np.mean(regret["heuristic"])


# ---------------------------------------------------------------- holding ("мои", PF-4.4)
@pytest.mark.parametrize(("calls", "level", "strain", "expected"), [
    (["bid:6s", "pass", "bid:10s"], 6, "s", "pass"),  # a six-hand never holds a ten
    (["bid:6s", "pass"], 6, "s", "hold"),
    (["bid:7h", "pass"], 7, "s", "pass"),  # at its own level only its own strain (as its bids)
    (["bid:7h", "pass"], 8, "s", "hold"),  # any strain of a lower level
    (["bid:7s", "pass"], 6, "h", "pass"),
])
def test_hold_only_what_the_hand_affords(calls: list[str], level: int, strain: str, expected: str) -> None:
    from games.preferans.bots import hold_or_bid

    d = {"actions": [[i % 3, c] for i, c in enumerate(calls)]}
    assert hold_or_bid(d, ["hold", "pass"], level, strain) == expected


def test_the_bots_never_hold_above_their_hand_against_random_bidders() -> None:
    """Random bidders push the standing call to tens; the heuristic and pimc bots hold (PF-4.4) only a
    call their own bid would reach, read from the public auction of real matches."""
    from games.core import registry
    from games.preferans.bots import affordable, best_strain, standing_call
    from games.preferans.entry import ENTRY
    from games.preferans.rules import call_level

    heur = registry.make("preferans/heuristic", {})
    rand = registry.make("preferans/random", {})
    holds = declined = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        st = ENTRY.deal(SOCHI, 3, 0, rng)
        while st.deal_no < 20 and not st.is_over():
            seat, legal = st.to_act(), st.legal_actions()
            view = st.view(seat)
            a = (heur if seat == 0 else rand).act(view, legal, rng)
            if seat == 0 and "hold" in legal:
                d = view["deal"]
                strain, est = best_strain(parse_cards(" ".join(d["hand"])))
                call = standing_call(d)
                assert call is not None
                if a == "hold":
                    holds += 1
                    assert affordable(call, int(est + 0.75), strain) and call_level(call) <= int(est + 0.75)
                else:
                    declined += 1
            st.apply(a)
    assert declined > 0
