"""The wild-card / four-flush / low-hand evaluator (docs/rules/classic-poker.md CP-2..CP-5, CP-10, CP-13).

Checked three ways: the CP-13 tables exactly; every 5-card hand of every mode against the
plain-Python reference of tests/reference_wild.py (which tries every substitution of the wild
cards) by category and by the total order it induces; random 6- and 7-card hands against the
reference's best five; and the worked examples of CP-14.
"""

from __future__ import annotations

import itertools
import os
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest
from reference_eval import combinations_array, order_mismatch
from reference_wild import DECK_LOW, RefMode, category, grouped, reference_key

from ext.handeval import Mode, category_counts_mode, describe, evaluate_mode, parse_hand, sample_counts_mode

# CP-13, five-card columns (bug_flush=fill unless marked).
C52 = {"five": 0, "straight_flush": 40, "four": 624, "full_house": 3744, "flush": 5108, "straight": 10200,
       "three": 54912, "two_pair": 123552, "pair": 1098240, "high": 1302540}
C53_WILD = {"five": 13, "straight_flush": 204, "four": 3120, "full_house": 6552, "flush": 7804, "straight": 20532,
            "three": 137280, "two_pair": 123552, "pair": 1268088, "high": 1302540}
C53_BUG = {"five": 1, "straight_flush": 204, "four": 828, "full_house": 4368, "flush": 7804, "straight": 20532,
           "three": 63360, "two_pair": 138600, "pair": 1215024, "high": 1418964}
C53_BUG_ACE = {**C53_BUG, "flush": 6956, "pair": 1215872}
C52_FF = {**C52, "four_flush": 110940, "pair": 1063920, "high": 1225920}
# CP-13, 36 cards, seed-003 order: (5 cards, best 5 of 7); ace_low_straight=off in the *_OFF dicts.
S36_5 = {"straight_flush": 24, "four": 288, "flush": 480, "full_house": 1728, "three": 16128, "straight": 6120,
         "two_pair": 36288, "pair": 193536, "high": 122400, "five": 0}
S36_5_OFF = {**S36_5, "straight_flush": 20, "flush": 484, "straight": 5100, "high": 123420}
S36_7 = {"straight_flush": 10560, "four": 44640, "flush": 175560, "full_house": 633024, "three": 637560,
         "straight": 1139580, "two_pair": 3157056, "pair": 2316600, "high": 233100, "five": 0}
S36_7_OFF = {**S36_7, "straight_flush": 8820, "flush": 177300, "straight": 963360, "two_pair": 3179736,
             "pair": 2423520, "high": 279720}


@pytest.mark.parametrize(("mode", "jokers", "expected"), [
    (Mode(), 0, C52),  # a plain mode is not routed here: see the next test
    (Mode(wild="jokers"), 1, C53_WILD),
    (Mode(wild="bug"), 1, C53_BUG),
    (Mode(wild="bug", bug_flush="ace_only"), 1, C53_BUG_ACE),
    (Mode(four_flush=True), 0, C52_FF),
    (Mode(ranking="short-deck", wild="jokers"), 0, S36_5),
    (Mode(ranking="short-deck", ace_low_straight=False), 0, S36_5_OFF),
])
def test_cp13_five_card_tables(mode: Mode, jokers: int, expected: dict[str, int]) -> None:
    if mode.plain:
        mode = Mode(wild="jokers")  # no joker in the deck: the wild kernel on 52 natural cards
    got = category_counts_mode(mode, 5, jokers=jokers)
    assert {k: v for k, v in got.items()} == {k: expected.get(k, 0) for k in got}
    assert sum(got.values()) == (2869685 if jokers else sum(expected.values()))


@pytest.mark.parametrize(("ace_low", "expected"), [(True, S36_7), (False, S36_7_OFF)])
def test_cp13_short_deck_seven_cards(ace_low: bool, expected: dict[str, int]) -> None:
    got = category_counts_mode(Mode(ranking="short-deck", ace_low_straight=ace_low), 7)
    assert got == {k: expected[k] for k in got}


def test_cp13_ace_to_five_low() -> None:
    got = category_counts_mode(Mode(low="ace_to_five"), 5)
    assert (got["5-high"], got["6-high"], got["7-high"], got["8-high"]) == (1024, 5120, 15360, 35840)
    assert sum(got[f"{r}-high"] for r in "5678") == 57344


def test_deuces_wild_published_table() -> None:
    # The published deuces-wild frequencies (2,598,960 hands): five of a kind 672 (624 + the 48
    # hands of four deuces), straight flush 2,552 (natural royal 4 + wild royal 480 + 2,068).
    got = category_counts_mode(Mode(wild="deuces"), 5)
    assert got == {"high": 799680, "pair": 1225008, "two_pair": 95040, "three": 355080, "straight": 62232,
                   "flush": 14472, "full_house": 12672, "four": 31552, "straight_flush": 2552, "five": 672}


# ------------------------------------------------------------------ every 5-card hand vs the reference
MODES = {
    "jokers-53": (Mode(wild="jokers"), RefMode(wild="jokers"), "52", 1),
    "jokers-54": (Mode(wild="jokers"), RefMode(wild="jokers"), "52", 2),
    "bug-fill-54": (Mode(wild="bug"), RefMode(wild="bug"), "52", 2),
    "bug-ace-53": (Mode(wild="bug", bug_flush="ace_only"), RefMode(wild="bug", bug_flush="ace_only"), "52", 1),
    "deuces-52": (Mode(wild="deuces"), RefMode(wild="deuces"), "52", 0),
    "deuces+jokers-53": (Mode(wild="deuces+jokers"), RefMode(wild="deuces+jokers"), "52", 1),
    "four-flush-53": (Mode(wild="jokers", four_flush=True), RefMode(wild="jokers", four_flush=True), "52", 1),
    "four-flush-bug-ace-53": (Mode(wild="bug", bug_flush="ace_only", four_flush=True),
                              RefMode(wild="bug", bug_flush="ace_only", four_flush=True), "52", 1),
    "short-joker-37": (Mode(ranking="short-deck", wild="jokers"), RefMode(short=True, wild="jokers"), "36", 1),
    "short-bug-off-37": (Mode(ranking="short-deck", wild="bug", ace_low_straight=False),
                         RefMode(short=True, wild="bug", ace_low_straight=False), "36", 1),
    "low-ace-high-53": (Mode(wild="jokers", low="ace_high"), RefMode(wild="jokers", low="ace_high"), "52", 1),
    "low-ace-either-53": (Mode(wild="bug", low="ace_either"), RefMode(wild="bug", low="ace_either"), "52", 1),
    "low-ace-to-five-53": (Mode(wild="jokers", low="ace_to_five"), RefMode(wild="jokers", low="ace_to_five"), "52",
                           1),
    "low-deuces-either-52": (Mode(wild="deuces", low="ace_either"), RefMode(wild="deuces", low="ace_either"), "52",
                             0),
    "low-short-either-36": (Mode(ranking="short-deck", low="ace_either"), RefMode(short=True, low="ace_either"),
                            "36", 0),
    "low-short-off-37": (Mode(ranking="short-deck", wild="jokers", low="ace_either", ace_low_straight=False),
                         RefMode(short=True, wild="jokers", low="ace_either", ace_low_straight=False), "36", 1),
}


#: Checked on every hand by default (each wild mode, the four-flush, the short deck and each low ranking
#: once); the others too with EXHAUSTIVE_WILD=1 (about 20-40 s each on a loaded 2-core machine).
CORE = {"jokers-53", "bug-fill-54", "bug-ace-53", "deuces-52", "deuces+jokers-53", "four-flush-bug-ace-53",
        "short-bug-off-37", "low-ace-high-53", "low-ace-either-53", "low-ace-to-five-53"}
#: By default the deuce modes check every hand with at most two wild cards (the reference's 3- and 4-wild
#: substitutions take minutes); the published deuces-wild table above covers the rest by category.
CAPPED = {"deuces-52": 2, "deuces+jokers-53": 2}
EXHAUSTIVE = os.environ.get("EXHAUSTIVE_WILD") == "1"


def _deck(deck: str, jokers: int) -> list[int]:
    return [*range(4 * DECK_LOW[deck], 52), *range(52, 52 + jokers)]


@cache
def _hands(deck: str, jokers: int) -> npt.NDArray[np.uint8]:
    return combinations_array(_deck(deck, jokers), 5)


@pytest.mark.parametrize("name", [n if n in CORE else pytest.param(n, marks=pytest.mark.skipif(
    not EXHAUSTIVE, reason="set EXHAUSTIVE_WILD=1")) for n in MODES])
def test_every_five_card_hand_matches_the_reference(name: str) -> None:
    mode, ref, deck, jokers = MODES[name]
    hands = _hands(deck, jokers)
    if name in CAPPED and not EXHAUSTIVE:
        wild = np.asarray([ref.is_wild(c) for c in range(64)])
        hands = hands[wild[hands].sum(axis=1) <= CAPPED[name]]
    ref_rank, ref_names = grouped(hands, ref, deck)
    values = evaluate_mode(hands, mode, deck if deck != mode_deck_default(mode) else None)
    if mode.low is not None:
        ref_rank = -ref_rank  # the kernel returns higher = better low; the raw key is lower = better
    bad = order_mismatch(values, ref_rank)
    assert bad is None, (name, [hands[i].tolist() for i in bad])
    names = [describe(int(v), mode) for v in values[:: max(1, len(values) // 200_000)]]
    assert names == ref_names[:: max(1, len(values) // 200_000)]


def mode_deck_default(mode: Mode) -> str:
    return "36" if mode.ranking == "short-deck" else "52"


@pytest.mark.parametrize("name", ["jokers-54", "bug-ace-53", "deuces+jokers-53", "four-flush-53", "low-ace-either-53",
                                  "short-joker-37", "low-ace-to-five-53"])
@pytest.mark.parametrize("k", [6, 7])
def test_random_six_and_seven_card_hands_take_the_best_five(name: str, k: int) -> None:
    mode, ref, deck, jokers = MODES[name]
    rng = np.random.default_rng(17 + k)
    cards = np.asarray(_deck(deck, jokers), dtype=np.uint8)
    hands = np.stack([rng.choice(cards, k, replace=False) for _ in range(300)])
    values = evaluate_mode(hands, mode)
    low = mode.low is not None
    keys = []
    for h in hands:
        subs = [reference_key([int(c) for c in s], ref, deck) for s in itertools.combinations(h, 5)]
        keys.append(min(subs) if low else max(subs))
    pos = {key: i for i, key in enumerate(sorted(set(keys)))}
    ref_rank = np.asarray([(-1 if low else 1) * pos[key] for key in keys])
    bad = order_mismatch(values, ref_rank)
    assert bad is None, (name, k, [hands[i].tolist() for i in bad])
    assert [describe(int(v), mode) for v in values] == [category(key, ref) for key in keys]


@pytest.mark.parametrize("low", ["ace_high", "ace_either"])
@pytest.mark.parametrize("k", [5, 6, 7])
def test_low_hands_holding_five_of_a_suit_take_the_best_five(low: str, k: int) -> None:
    """Hands of natural cards holding five or more of one suit, where a low hand's flush counts (CP-5.2): the
    evaluator's shortcut (``Tables._low_suited``: a mixed choice or a same-rank swap reaches the best value
    with suits ignored) against the reference's best five of every choice. The suited cards are drawn
    mostly from the low ranks, so that the all-suited choice is often the lowest by ranks (the cases where
    the shortcut must fall back to every choice), and the others often pair them (the swaps)."""
    mode, ref = Mode(low=low), RefMode(low=low)  # type: ignore[arg-type]
    rng = np.random.default_rng(23 + k)
    weights = np.array([8.0, 8, 8, 8, 6, 4, 2, 1, 1, 1, 1, 1, 8])  # ranks 2..A: the low ones and the ace
    hands = []
    for _ in range(600):
        suit = int(rng.integers(4))
        m = int(rng.integers(5, k + 1))
        ranks = rng.choice(13, m, replace=False, p=weights / weights.sum())
        suited = [4 * int(r) + suit for r in ranks]
        rest = [c for c in rng.permutation(52).tolist() if c % 4 != suit][: k - m]
        if rng.random() < 0.5 and k > m:  # a card of another suit pairing a suited rank
            r = int(rng.choice(ranks))
            rest[0] = 4 * r + (suit + 1 + int(rng.integers(3))) % 4
        hand = suited + rest
        if len(set(hand)) == k:
            hands.append(hand)
    arr = np.asarray(hands, dtype=np.uint8)
    values = evaluate_mode(arr, mode)
    keys = [min(reference_key([int(c) for c in sub], ref, "52") for sub in itertools.combinations(h, 5))
            for h in hands]
    pos = {key: i for i, key in enumerate(sorted(set(keys)))}
    bad = order_mismatch(values, np.asarray([-pos[key] for key in keys]))
    assert bad is None, (low, k, [hands[i] for i in bad])
    assert [describe(int(v), mode) for v in values] == [category(key, ref) for key in keys]


# ------------------------------------------------------------------ CP-14 worked examples
def _v(hand: str, mode: Mode) -> int:
    return int(evaluate_mode(parse_hand(hand), mode)[0])


def test_cp14_2_bug() -> None:
    m = Mode(wild="bug")
    assert describe(_v("Ac Ad Jk 7h 4s", m), m) == "three"
    assert describe(_v("Kc Kd Jk 7h 4s", m), m) == "pair"
    assert _v("Kc Kd Jk 7h 4s", m) > _v("Kh Ks Qc 7d 4d", m)  # K-K with A-7-4 beats K-K-Q-7-4
    assert _v("Kc Kd Jk 7h 4s", m) == _v("Kh Ks Ac 7d 4d", m)  # the bug is worth exactly the ace (CP-3.2 a)
    assert describe(_v("5c 6d 7h 8s Jk", m), m) == "straight"
    assert _v("5c 6d 7h 8s Jk", m) == _v("5d 6c 7s 8h 9h", m)  # 9-high, not 4-high
    assert describe(_v("7h 9h Jh Kh Jk", m), m) == "flush" and _v("7h 9h Jh Kh Jk", m) == _v("7s 9s Js Ks As", m)
    assert _v("Ah Kh 9h 5h Jk", m) == _v("As Ks Qs 9s 5s", m)  # fill: flush A-K-Q-9-5
    ace = Mode(wild="bug", bug_flush="ace_only")
    assert describe(_v("Ah Kh 9h 5h Jk", ace), ace) == "pair"  # ace_only: a pair of aces
    assert describe(_v("Ac Ad Ah As Jk", m), m) == "five" and _v("Ac Ad Ah As Jk", m) > _v("Ts Js Qs Ks As", m)


def test_cp14_3_fully_wild() -> None:
    m = Mode(wild="jokers")
    assert _v("Ah Kh 9h 5h Jk", m) == _v("Ac Kc Qc 9c 5c", m)  # A-K-Q-9-5 flush, ties the natural one
    assert describe(_v("7c 7d 7h 7s Jk", m), m) == "five" and _v("7c 7d 7h 7s Jk", m) > _v("Ts Js Qs Ks As", m)
    d = Mode(wild="deuces")
    assert describe(_v("Ks 2d 2c 2h 9h", d), d) == "four"
    assert _v("Ks 2d 2c 2h 9h", d) > _v("Kc Kd Kh 2s 5s", d)  # four kings with a 9 beat four kings with a 5
    assert describe(_v("2c 2d 2h 2s 6d", d), d) == "five" and _v("2c 2d 2h 2s 6d", d) == _v("2c 2d 2h 6s 6d", d)
    assert describe(_v("Ah 3h 2h 2s 2d", d), d) == "straight_flush"  # CP-3.2: the deuces may be 2h 4h 5h


def test_cp14_6_four_flush() -> None:
    m = Mode(four_flush=True)
    ff = _v("9h 7h 5h 2h Kc", m)
    assert describe(ff, m) == "four_flush"
    assert ff > _v("Kd Ks Qc Jd 3s", m) and ff < _v("3c 3d 2s 2c 4h", m) and ff < _v("As Js 8s 6s 4d", m)
    bug = Mode(wild="bug", bug_flush="ace_only", four_flush=True)
    assert describe(_v("9h 7h 5h Kc Jk", bug), bug) == "four_flush"  # CP-4.6


def test_cp14_7_short_deck() -> None:
    m = Mode(ranking="short-deck", wild="jokers")
    assert describe(_v("As 6d 7c 8h 9h", m), m) == "straight"
    assert _v("As 6d 7c 8h 9h", m) < _v("6c 6h 6s 8s Kd", m)
    assert _v("7h Th Jh Qh Kh", m) > _v("Ac Ad Ah Ks Kc", m)


def test_low_worked_examples() -> None:
    # CP-5.5: A-2-3-4 + bug is 5-4-3-2-A under ace_to_five; 3-4-5-6 + bug is 8-6-5-4-3 (ace_high), 6-5-4-3-A (either).
    a5 = Mode(wild="bug", low="ace_to_five")
    assert _v("As 2d 3c 4h Jk", a5) == _v("As 2d 3c 4h 5s", a5)
    hi = Mode(wild="bug", low="ace_high")
    assert _v("3c 4d 5h 6s Jk", hi) == _v("3c 4d 5h 6s 8c", hi)
    either = Mode(wild="bug", low="ace_either")
    assert _v("3c 4d 5h 6s Jk", either) == _v("3c 4d 5h 6s Ac", either)
    # CP-5.2: ace_high's best low is 7-5-4-3-2; A-2-3-4-5 is a straight, a bad low.
    plain = Mode(low="ace_high")
    assert _v("7c 5d 4h 3s 2c", plain) > _v("8c 5d 4h 3s 2c", plain) > _v("Ac 2d 3h 4s 5c", plain)


def test_sampling_is_seeded_and_close_to_exact() -> None:
    m = Mode(wild="jokers")
    a = sample_counts_mode(m, 5, 300_000, 5, jokers=1)
    assert a == sample_counts_mode(m, 5, 300_000, 5, jokers=1, workers=2)
    assert sum(a.values()) == 300_000
    p = C53_WILD["three"] / 2869685
    assert abs(a["three"] / 300_000 - p) < 5 * (p * (1 - p) / 300_000) ** 0.5


@pytest.mark.parametrize(("mode", "jokers", "message"), [
    (Mode(wild="none", four_flush=True), 1, "need wild mode"),
])
def test_bad_joker_count(mode: Mode, jokers: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        category_counts_mode(mode, 5, jokers=jokers)


def test_bad_hands_name_the_card() -> None:
    with pytest.raises(ValueError, match="joker Jk in hand 0 is not in play"):
        evaluate_mode(parse_hand("As Kd Qh Jc Jk"), Mode(wild="deuces"))
    with pytest.raises(ValueError, match="duplicate card As in hand 1"):
        evaluate_mode([parse_hand("As Kd Qh Jc Jk"), parse_hand("As As Qh Jc Jk")], Mode(wild="jokers"))
    with pytest.raises(ValueError, match="unknown wild mode"):
        Mode(wild="sevens")


def test_the_kernel_rejects_repeated_wild_cards_and_cards_outside_the_deck() -> None:
    # The wild tables check a hand by one bit per card id (a repeated joker or deuce sets one bit).
    with pytest.raises(ValueError, match="duplicate card Jk in hand 1"):
        evaluate_mode([parse_hand("As Kd Qh Jc Jk"), [51, 50, 52, 52, 49]], Mode(wild="jokers"))
    with pytest.raises(ValueError, match="duplicate card 2c in hand 0"):
        evaluate_mode([[0, 0, 51, 47, 43, 39, 35]], Mode(wild="deuces"))
    with pytest.raises(ValueError, match="card 5c in hand 0 is not in the 36-card deck"):
        evaluate_mode([[12, 51, 47, 43, 39]], Mode(ranking="short-deck", wild="jokers"))
    with pytest.raises(ValueError, match="unknown card id 200 in hand 0"):
        evaluate_mode(np.asarray([[200, 51, 47, 43, 39]], dtype=np.uint8), Mode(wild="jokers"))
    # Two distinct jokers and two deuces are a valid hand: five aces (both jokers and deuces wild).
    v = evaluate_mode([[52, 53, 0, 1, 51]], Mode(wild="deuces+jokers"))
    assert describe(int(v[0]), Mode(wild="deuces+jokers")) == "five"
    # More than twelve wild ids (no spare flush bit each): the same checks by one bit per card id.
    many = Mode(wild="jokers", wild_cards=tuple(range(4, 20)))
    with pytest.raises(ValueError, match="duplicate card 3c in hand 0"):
        evaluate_mode([[4, 4, 51, 47, 43]], many)
    assert describe(int(evaluate_mode([[4, 8, 12, 52, 51]], many)[0]), many) == "five"
