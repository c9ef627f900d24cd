"""Quintet rules through the engine (docs/rules/quintet.md): Q-2 rankings and ties, Q-1 layouts, Q-3, match play."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.cards import card_id, card_str
from games.core.protocol import IllegalAction
from games.quintet import LayoutSpace, Rules, State
from games.quintet.match import play_match
from games.quintet.rules import DECK

NAMES = [card_str(c) for c in DECK]
POINTS = (3, 4, 5, 6, 7)


def fill(packet: list[str], held: list[str]) -> list[list[str]]:
    """``packet`` as packet 1, the other held cards in order as packets 2-5."""
    rest = [c for c in held if c not in packet]
    return [packet] + [rest[i:i + 5] for i in range(0, 20, 5)]


def duel(a: str, b: str) -> tuple[int | None, dict[str, object], list[int]]:
    """Seat 0 lays packet ``a`` and seat 1 packet ``b`` in slot 1 of a whole deal (Q-1.4).

    The seven removed cards are the first deck cards neither packet uses (Q-1.2: both packets
    must be held; each player has his own deck, so the two packets may share cards).
    """
    pa, pb = a.split(), b.split()
    removed = [c for c in NAMES if c not in set(pa) | set(pb)][:7]
    held = [c for c in NAMES if c not in removed]
    st = State.from_removed(Rules(), 0, [card_id(c) for c in removed])
    st.apply(fill(pa, held))
    st.apply(fill(pb, held))
    out = st.outcome()
    winners = out["winners"]
    # each seat scores the points of the comparisons it won, a tie scores nothing.
    assert st.scores() == [sum(p for p, w in zip(POINTS, winners, strict=True) if w == s) for s in (0, 1)]
    return winners[0], out, st.scores()


# one packet of every category, highest first.
CATEGORY_EXAMPLES = [
    ("straight_flush", "Ks Qs Js Ts 9s"),
    ("four", "Ah Ad Ac As 7d"),
    ("full_house", "Kh Kd Kc 8h 8d"),
    ("flush", "Ah Jh 9h 8h 7h"),
    ("straight", "Qs Jd Th 9c 8c"),
    ("three", "9h 9d 9c As Kd"),
    ("two_pair", "Ah Ad 8h 8d 7c"),
    ("pair", "Kh Kd Qc Jc 9d"),
    ("high", "Ah Kd Qc Jc 9d"),
]


@pytest.mark.parametrize("i", range(len(CATEGORY_EXAMPLES) - 1))
def test_q2_each_category_beats_the_next(i: int) -> None:
    (hi_name, hi), (lo_name, lo) = CATEGORY_EXAMPLES[i], CATEGORY_EXAMPLES[i + 1]
    w, out, _ = duel(hi, lo)
    assert w == 0
    assert out["categories"][0][0] == hi_name and out["categories"][1][0] == lo_name  # type: ignore[index]
    assert duel(lo, hi)[0] == 1


@pytest.mark.parametrize(("rule", "a", "b", "winner"), [
    # straight flush: higher top card; same top card: tie
    ("sf top", "As Ks Qs Js Ts", "Kh Qh Jh Th 9h", 0),
    ("sf same top", "Ks Qs Js Ts 9s", "Kh Qh Jh Th 9h", None),
    # four: higher rank; same rank: tie, the fifth card is not compared
    ("four rank", "Kh Kd Kc Ks Ad", "Ah Ad Ac As 7d", 1),
    ("four kicker ignored", "Ah Ad Ac As 7d", "Ah Ad Ac As Kd", None),
    # full house: higher three; same three: tie, the pair is not compared
    ("full three", "Kh Kd Kc 7h 7d", "Qh Qd Qc Ah Ad", 0),
    ("full pair ignored", "Kh Kd Kc 8h 8d", "Kh Kd Kc Ah Ad", None),
    # flush: cards from the highest down; all equal: tie (suits never break ties)
    ("flush 4th card", "Ah Jh Th 8h 7h", "Ad Jd Td 9d 7d", 1),
    ("flush 5th card", "Ah Kh Jh 9h 8h", "Ad Kd Jd 9d 7d", 0),
    ("flush equal ranks", "Ah Jh 9h 8h 7h", "As Js 9s 8s 7s", None),
    # straight: higher top; same top: tie; 7-8-9-T-J is the lowest
    ("straight top", "As Kd Qh Jc Tc", "Qs Jd Th 9c 8c", 0),
    ("straight lowest", "Js Td 9h 8c 7c", "Qs Jd Th 9c 8c", 1),
    ("straight same top", "Qs Jd Th 9c 8c", "Qh Jh Ts 9d 8d", None),
    # three: higher rank; same rank: tie, kickers not compared
    ("three rank", "Th Td Tc 7s 8d", "9h 9d 9c As Kd", 0),
    ("three kickers ignored", "9h 9d 9c As Kd", "9h 9d 9s 8s 7d", None),
    # two pair: higher pair, then lower pair, then the fifth card; all equal: tie
    ("two pair high pair", "Ah Ad 7h 7d 8c", "Kh Kd Qh Qd Jc", 0),
    ("two pair low pair", "Ah Ad 8h 8d 7c", "As Ac 9h 9d 7d", 1),
    ("two pair fifth card", "Ah Ad 8h 8d Kc", "As Ac 8s 8c Qc", 0),
    ("two pair equal", "Ah Ad 8h 8d Kc", "As Ac 8s 8c Kd", None),
    # pair: pair rank, then the three others from the highest down; all equal: tie
    ("pair rank", "Kh Kd 7c 8c 9d", "Qh Qd Ac Jc 9d", 0),
    ("pair 2nd kicker", "Kh Kd Ac 8c 7d", "Ks Kc Ad 9c 7c", 1),
    ("pair 3rd kicker", "Kh Kd Ac Jc 8d", "Ks Kc Ad Jd 7c", 0),
    ("pair equal", "Kh Kd Ac Jc 8d", "Ks Kc Ad Jd 8c", None),
    # high card: from the highest down; all equal: tie
    ("high first card", "Kh Qd Jc 9c 8d", "Ah Jd 9h 8c 7d", 1),
    ("high last card", "Ah Kd Qc Jc 9d", "As Kh Qd Jd 8c", 0),
    ("high equal", "Ah Kd Qc Jc 9d", "As Kh Qd Js 9c", None),
])
def test_q2_tie_breaks_and_ties(rule: str, a: str, b: str, winner: int | None) -> None:
    w, _, scores = duel(a, b)
    assert w == winner, rule
    if winner is None:  # Q-1.4 [ruling]: a tie scores nothing, so the 3 points of slot 1 go nowhere
        assert sum(scores) <= 25 - 3
    assert duel(b, a)[0] == (None if winner is None else 1 - winner)


def test_q2_no_wrap_around_straight() -> None:
    # [ruling] A-7-8-9-T is not a straight: a high card, beaten by the lowest pair.
    w, out, _ = duel("As 7d 8h 9c Tc", "7h 7c 8d 9d Kd")
    assert out["categories"][0][0] == "high" and w == 1  # type: ignore[index]


def test_identical_layouts_tie_everywhere_and_score_nothing() -> None:
    st = State.deal(Rules(), 2, 1, np.random.default_rng(3))
    lay = st.legal_actions().sample(np.random.default_rng(4))
    st.apply(lay)
    st.apply(lay)
    assert st.outcome()["winners"] == [None] * 5 and st.scores() == [0, 0]


# -----------------------------------------------------------------------------------

EXAMPLE_REMOVED = ["8h", "7h", "9d", "Ts", "7s", "Qc", "Jc"]
EXAMPLE_A = [["9s", "9c", "8s", "8c", "7c"], ["Ks", "Kd", "Kc", "Js", "Tc"], ["Qd", "Jd", "Td", "8d", "7d"],
             ["As", "Ac", "Ah", "Ad", "Qs"], ["Kh", "Qh", "Jh", "Th", "9h"]]
EXAMPLE_B = [["As", "Ac", "Ah", "8d", "8c"], ["Ks", "Qs", "Js", "9s", "8s"], ["Kh", "Qh", "Jh", "Th", "9h"],
             ["Ad", "Kd", "Qd", "Jd", "Td"], ["7d", "7c", "Kc", "Tc", "9c"]]


def example_state() -> State:
    return State.from_removed(Rules(), 0, [card_id(c) for c in EXAMPLE_REMOVED])


def test_q3_worked_example_b_18_a_7() -> None:
    st = example_state()
    st.apply(EXAMPLE_A)
    st.apply(EXAMPLE_B)
    out = st.outcome()
    assert out["scores"] == [7, 18] and out["winners"] == [1, 1, 1, 1, 0]
    assert out["categories"] == [["two_pair", "three", "flush", "four", "straight_flush"],
                                 ["full_house", "flush", "straight_flush", "straight_flush", "pair"]]


def test_q3_source_misprint_is_rejected_naming_8c() -> None:
    st = example_state()
    st.apply(EXAMPLE_A)
    misprint = [list(p) for p in EXAMPLE_B]
    misprint[4][4] = "8c"  # the source prints 8c, which B already laid in packet 1
    with pytest.raises(IllegalAction) as e:
        st.apply(misprint)
    assert e.value.rule == "Q-1.3" and e.value.index == 1
    assert "8c" in str(e.value) and "packet 1" in str(e.value) and "packet 5" in str(e.value)
    assert "missing: 9c" in str(e.value)
    assert st.to_act() == 1 and not st.is_over()  # the bad layout changed nothing


@pytest.mark.parametrize(("change", "rule", "words"), [
    (lambda L: L[2].__setitem__(0, "2c"), "Q-1.1", ["2c", "packet 3", "32-card deck"]),  # foreign card
    (lambda L: L[0].__setitem__(0, "8h"), "Q-1.2", ["8h", "packet 1", "removed"]),  # a removed card
    (lambda L: L[1].__setitem__(4, "Kh"), "Q-1.3", ["Kh", "packet 2", "packet 5", "missing: Tc"]),  # repeated
    (lambda L: L[3].pop(), "Q-1.3", ["packet 4", "4 cards"]),  # a packet of 4
    (lambda L: L[3].append("Kc"), "Q-1.3", ["packet 4", "6 cards"]),  # a packet of 6
    (lambda L: L.pop(), "Q-1.3", ["5 packets, not 4"]),  # a layout of 4 packets
    (lambda L: L[0].__setitem__(1, "Xy"), "Q-1.1", ["packet 1", "Xy"]),  # not a card
])
def test_invalid_layouts_name_the_card_or_packet(change, rule: str, words: list[str]) -> None:  # type: ignore[no-untyped-def]
    st = example_state()
    bad = [list(p) for p in EXAMPLE_A]
    change(bad)
    with pytest.raises(IllegalAction) as e:
        st.apply(bad)
    assert e.value.rule == rule and e.value.index == 0
    for w in words:
        assert w in str(e.value)


def test_the_deal_removes_seven_and_both_hold_the_same_25() -> None:
    st = State.deal(Rules(), 2, 0, np.random.default_rng(11))
    assert len(st.removed) == 7 and len(set(st.removed)) == 7
    assert sorted(st.held + st.removed) == sorted(DECK)  # 32 cards 7..A
    assert st.view(0)["cards"] == st.view(1)["cards"] == list(st.held)
    with pytest.raises(IllegalAction, match=r"Q-1\.1"):
        State.deal(Rules(), 3, 0, np.random.default_rng(1))
    with pytest.raises(IllegalAction, match=r"Q-1\.2"):
        State.from_removed(Rules(), 0, [card_id(c) for c in EXAMPLE_REMOVED[:6]])


def test_views_hide_the_other_layout_until_both_are_in() -> None:
    from games.core import protocol

    st = example_state()
    assert isinstance(st, protocol.State)
    assert st.to_act() == 0 and len(st.legal_actions()) == 623_360_743_125_120  # 25! / (5!)^5
    st.apply(EXAMPLE_A)
    v1 = st.view(1)
    assert st.to_act() == 1 and v1["laid"] == [True, False] and v1["layout"] is None
    assert "layouts" not in v1 and "scores" not in v1
    assert st.view(0)["layout"] == tuple(tuple(card_id(c) for c in p) for p in EXAMPLE_A)
    st.apply(EXAMPLE_B)
    assert st.is_over() and st.to_act() == -1 and len(st.legal_actions()) == 0
    assert st.view(1)["layouts"][0] == st.view(0)["layout"] and st.view(1)["scores"] == [7, 18]
    with pytest.raises(IllegalAction, match=r"Q-1\.3"):
        st.apply(EXAMPLE_B)


def test_layout_space_is_listable_samplable_and_conserves_cards() -> None:
    st = State.deal(Rules(), 2, 0, np.random.default_rng(5))
    space = st.legal_actions()
    assert isinstance(space, LayoutSpace)
    held = sorted(st.held)
    rng = np.random.default_rng(6)
    for _ in range(200):
        lay = space.sample(rng)
        assert sorted(c for p in lay for c in p) == held and all(len(p) == 5 for p in lay)
        assert lay in space
        i = space.index(lay)
        assert space[i] == tuple(tuple(sorted(p)) for p in lay)
    for i in (0, 1, len(space) - 1, int(rng.integers(len(space)))):
        assert space.index(space[i]) == i and space[i] in space
    assert sorted(c for p in space[0] for c in p) == held
    assert [list(p) for p in space[0]] == [held[5 * k: 5 * k + 5] for k in range(5)]


def test_match_alternates_the_dealer_and_totals_the_deals() -> None:
    from games.core import registry

    bots = [registry.make("quintet/greedy"), registry.make("quintet/random")]
    res = play_match(Rules(), bots, 6, np.random.default_rng(9), keep_records=True)
    assert [r["dealer"] for r in res.records] == [0, 1, 0, 1, 0, 1]
    assert res.totals == [sum(d[0] for d in res.deals), sum(d[1] for d in res.deals)]
    assert all(sum(d) <= 25 for d in res.deals)
    assert res.winner == (0 if res.totals[0] > res.totals[1] else 1 if res.totals[1] > res.totals[0] else None)
    assert res.totals[0] > res.totals[1]  # greedy's strongest packets beat random layouts by ~20 a deal
    with pytest.raises(ValueError, match="2 bots"):
        play_match(Rules(), bots[:1], 2, np.random.default_rng(9))
