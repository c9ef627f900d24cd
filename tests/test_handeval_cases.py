"""Hand-written hands: tie-breaks of Q-2, wheels, OP-2 combinations and category names.

Each comparison is checked on ext and on the reference evaluator, so both are held to the
rule texts and not only to each other.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_eval import key

from ext.handeval import CATEGORIES, category, evaluate
from games.core.cards import parse_cards

# (ranking, hand a, relation, hand b, why)
COMPARISONS = [
    # Q-2 (docs/rules/quintet.md): kickers ignored for four / full house / three.
    ("quintet", "Ah Ad Ac As 7c", "==", "Ah Ad Ac As Kc", "Q-2 four: the fifth card is not compared"),
    ("quintet", "Kh Kd Kc Ks 7c", "<", "Ah Ad Ac As 7d", "Q-2 four: higher rank of the four"),
    ("quintet", "Kh Kd Kc 7s 7c", "==", "Ks Kd Kc As Ac", "Q-2 full house: the pair is not compared"),
    ("quintet", "Qh Qd Qc As Ac", "<", "Kh Kd Kc 7s 7c", "Q-2 full house: higher rank of the three"),
    ("quintet", "9h 9d 9c 7s 8c", "==", "9h 9d 9s As Kc", "Q-2 three: kickers not compared"),
    ("quintet", "9h 9d 9c As Kc", "<", "Th Td Tc 7s 8c", "Q-2 three: higher rank of the three"),
    ("quintet", "Kh Kd 7c 7s 8c", "<", "Kh Kd 7c 7s 9c", "Q-2 two pair: the fifth card decides"),
    ("quintet", "Kh Kd 7c 7s Ac", "<", "Kh Kd 8c 8s 7c", "Q-2 two pair: lower pair before the fifth card"),
    ("quintet", "Qh Qd Jc Js Ac", "<", "Kh Kd 7c 7s 8c", "Q-2 two pair: higher pair first"),
    ("quintet", "Kh Kd 7c 7s 8c", "==", "Ks Kc 7d 7h 8s", "Q-2 two pair: all equal is a tie"),
    ("quintet", "Jh Jd Ac 9s 7c", "<", "Jh Jd Ac 9s 8c", "Q-2 pair: the third kicker decides"),
    ("quintet", "Jh Jd Kc Qs Tc", "<", "Jh Jd Ac 8s 7c", "Q-2 pair: first kicker before the others"),
    ("quintet", "Th Td Ac Ks Qc", "<", "Jh Jd 7c 8s 9c", "Q-2 pair: pair rank first"),
    ("quintet", "Jh Jd Ac 9s 8c", "==", "Js Jc Ad 9h 8d", "Q-2 pair: suits never break ties"),
    ("quintet", "Ah Qh Th 9h 7h", "<", "As Qs Ts 9s 8s", "Q-2 flush: compare all cards, the lowest decides"),
    ("quintet", "Ah Qh Th 9h 7h", "==", "As Qs Ts 9s 7s", "Q-2 flush: all equal is a tie"),
    ("quintet", "Ah Kd Qc Js 8c", "<", "Ah Kd Qc Js 9c", "Q-2 high card: the lowest card decides"),
    ("quintet", "7h 8d 9c Ts Jc", "<", "8h 9d Tc Js Qc", "Q-2 straight: higher top card"),
    ("quintet", "7h 8d 9c Ts Jc", "==", "7s 8s 9s Th Jh", "Q-2 straight: same top card is a tie"),
    ("quintet", "Ah Kd Qc Js 9c", "<", "7h 8d 9c Ts Jc", "Q-2: 7-8-9-T-J is a straight"),
    ("quintet", "Ah 7d 8c 9s Tc", "<", "Ah Ad 7c 8s 9c", "Q-2: A-7-8-9-T is not a straight (no wrap-around)"),
    ("quintet", "9h Th Jh Qh Kh", "<", "Ts Js Qs Ks As", "Q-2 straight flush: higher top card"),
    ("quintet", "9h Th Jh Qh Kh", "==", "9d Td Jd Qd Kd", "Q-2 straight flush: same top card is a tie"),
    ("quintet", "Ah Ad Ac As Kc", "<", "7h 8h 9h Th Jh", "Q-2 order: straight flush beats four"),
    ("quintet", "Ah Ad Ac Ks Kc", "<", "Ah Ad Ac As 7c", "Q-2 order: four beats full house"),
    ("quintet", "Ah Qh Th 9h 7h", "<", "7h 7d 7c 8s 8c", "Q-2 order: full house beats flush"),
    ("quintet", "Ts Js Qs Ks Ad", "<", "7h 9h Th Jh Kh", "Q-2 order: flush beats straight"),
    ("quintet", "Ah Ad Ac Ks Qc", "<", "7h 8d 9c Ts Jc", "Q-2 order: straight beats three"),
    # Classic (seed 004): every kicker counts, A-2-3-4-5 is the lowest straight.
    ("classic", "Ah 2d 3c 4s 5h", "<", "2d 3c 4s 5h 6c", "seed 004: 5-4-3-2-A is the lowest straight"),
    ("classic", "Ah Ad Ac Ks Qh", "<", "Ah 2d 3c 4s 5h", "seed 004: the wheel is a straight"),
    ("classic", "Ah 2d 3c 4s 5h", "==", "As 2c 3d 4h 5c", "wheel vs wheel is a tie"),
    ("classic", "Ah 2h 3h 4h 5h", "<", "2h 3h 4h 5h 6h", "seed 004: 6-5-4-3-2 beats 5-4-3-2-A (suited)"),
    ("classic", "Ah Ad Ac As Kh", "<", "Ah 2h 3h 4h 5h", "steel wheel is a straight flush"),
    ("classic", "Kh Ad 2c 3s 4h", "<", "2h 2d 3c 4s 5h", "K-A-2-3-4 is not a straight"),
    ("classic", "Ah Ad Ac As Qh", "<", "Ah Ad Ac As Kh", "classic four: the kicker counts"),
    ("classic", "Kh Kd Kc 7s 7c", "<", "Kh Kd Kc As Ac", "classic full house: the pair counts"),
    ("classic", "9h 9d 9c 7s 8c", "<", "9h 9d 9c As 2c", "classic three: kickers count"),
    ("classic", "As Qs Ts 3s 2s", "<", "As Qs Ts 9s 3s", "seed 004: A-Q-10-9-3 beats A-Q-10-3-2"),
    ("classic", "As Ks Qs Js 9s", "<", "2h 2d 2c 3s 3c", "full house beats flush"),
    # Short deck (seed 003): A-6-7-8-9 is the lowest straight; flush > full house, three > straight.
    ("short-deck", "Ah 6d 7c 8s 9h", "<", "6d 7c 8s 9h Tc", "A-6-7-8-9 is the lowest straight"),
    ("short-deck", "Ah Ad Kc Ks Qh", "<", "Ah 6d 7c 8s 9h", "A-6-7-8-9 beats two pair"),
    ("short-deck", "Ah 6d 7c 8s 9h", "<", "6h 6d 6c 7s 8h", "seed 003: three beats a straight"),
    ("short-deck", "Ah Ad Ac Ks Kh", "<", "6h 7h 8h 9h Jh", "seed 003: flush beats full house"),
    ("short-deck", "Ah Ad Ac As Kh", "<", "Ah 6h 7h 8h 9h", "A-6-7-8-9 suited is a straight flush"),
    ("short-deck", "Ah 6h 7h 8h 9h", "<", "6h 7h 8h 9h Th", "A-6-7-8-9 suited is the lowest straight flush"),
    ("short-deck", "Ah Ad Ac As Qh", "<", "Ah Ad Ac As Kh", "short deck four: the kicker counts"),
    # Order poker (OP-2): only the combination matters, no wrap-around.
    ("order-poker", "6c 6d 7h 8s 9c", "==", "Ac Ad Kh Qs Jc", "OP-2: every pair is equal"),
    ("order-poker", "6c 7d 8h 9s Tc", "==", "Tc Jd Qh Ks Ac", "OP-2: every straight is equal"),
    ("order-poker", "Ac Kd Qh Js 9c", "==", "Ah 6d 7c 8s 9h", "OP-2: A-6-7-8-9 is none, like any none"),
    ("order-poker", "Ah 6d 7c 8s 9h", "<", "6c 6d 7h 8s 9c", "OP-2: none is below pair"),
    ("order-poker", "6h 6d 6c 7s 8h", "<", "6d 7c 8s 9h Tc", "OP-2: straight beats three"),
    ("order-poker", "Ah Ad Ac Ks Kh", "<", "Ah 6h 7h 8h 9h", "OP-2: flush (suited A-6-7-8-9) > full house"),
    ("order-poker", "6h 6d 6c 6s 7h", "<", "6h 7h 8h 9h Th", "OP-2: straight flush beats four"),
]


def _v(hand: str, ranking: str) -> int:
    return int(evaluate(hand, ranking)[0])


def _holds(a: object, rel: str, b: object) -> bool:
    return {"<": a < b, "==": a == b, ">": a > b}[rel]  # type: ignore[operator]


@pytest.mark.parametrize(("ranking", "a", "rel", "b", "why"), COMPARISONS, ids=[c[4] for c in COMPARISONS])
def test_comparison(ranking: str, a: str, rel: str, b: str, why: str) -> None:
    va, vb = _v(a, ranking), _v(b, ranking)
    assert _holds(va, rel, vb), f"ext: {a} ({va}) {rel} {b} ({vb}) fails: {why}"
    ka, kb = key(parse_cards(a), ranking), key(parse_cards(b), ranking)
    assert _holds(ka, rel, kb), f"reference: {a} {ka} {rel} {b} {kb} fails: {why}"


def test_quintet_worked_example_q3() -> None:
    # B wins comparisons 1-4, A wins 5 (with the source's misprinted 8c corrected to 9c).
    a = ["9s 9c 8s 8c 7c", "Ks Kd Kc Js Tc", "Qd Jd Td 8d 7d", "As Ac Ah Ad Qs", "Kh Qh Jh Th 9h"]
    b = ["As Ac Ah 8d 8c", "Ks Qs Js 9s 8s", "Kh Qh Jh Th 9h", "Ad Kd Qd Jd Td", "7d 7c Kc Tc 9c"]
    va, vb = evaluate(a, "quintet"), evaluate(b, "quintet")
    assert [bool(x) for x in vb > va] == [True, True, True, True, False]
    assert va[4] > vb[4]
    names = CATEGORIES["quintet"]
    assert [names[c] for c in category(a, "quintet")] == [
        "two_pair", "three", "flush", "four", "straight_flush"]
    assert [names[c] for c in category(b, "quintet")] == [
        "full_house", "flush", "straight_flush", "straight_flush", "pair"]


def test_order_poker_value_is_the_category() -> None:
    hands = ["Ah 6d 7c 8s 9h", "6c 6d 7h 8s 9c", "Ah Ad Ac Ks Kh", "Ah 6h 7h 8h 9h"]
    values = evaluate(hands, "order-poker")
    assert values.tolist() == (category(hands, "order-poker").astype(int) << 20).tolist()


# One hand of every category per ranking, in the ranking's own category order.
NAMED = {
    "classic": {
        "high": "Ah Kd 9c 4s 2h", "pair": "2h 2d Ac Ks Qh", "two_pair": "2h 2d 3c 3s Ah",
        "three": "5h 5d 5c As Kh", "straight": "Ah 2d 3c 4s 5h", "flush": "2s 4s 6s 8s Ts",
        "full_house": "3h 3d 3c 2s 2h", "four": "7h 7d 7c 7s 2h", "straight_flush": "Ah 2h 3h 4h 5h",
    },
    "short-deck": {
        "high": "Ah Kd 9c 7s 6h", "pair": "6h 6d Ac Ks Qh", "two_pair": "6h 6d 7c 7s Ah",
        "straight": "Ah 6d 7c 8s 9h", "three": "6h 6d 6c 7s 8h", "full_house": "Ah Ad Ac Ks Kh",
        "flush": "6h 7h 8h 9h Jh", "four": "Ah Ad Ac As Kh", "straight_flush": "Ah 6h 7h 8h 9h",
    },
    "order-poker": {
        "none": "Ah 6d 7c 8s 9h", "pair": "6h 6d Ac Ks Qh", "two_pair": "6h 6d 7c 7s Ah",
        "three": "6h 6d 6c 7s 8h", "straight": "6d 7c 8s 9h Tc", "full_house": "Ah Ad Ac Ks Kh",
        "flush": "Ah 6h 7h 8h 9h", "four": "6h 6d 6c 6s 7h", "straight_flush": "Th Jh Qh Kh Ah",
    },
    "quintet": {
        "high": "Ah 7d 8c 9s Tc", "pair": "7h 7d Ac Ks Qh", "two_pair": "7h 7d 8c 8s Ah",
        "three": "Ah Ad Ac 7s 8h", "straight": "7h 8d 9c Ts Jc", "flush": "7s 9s Js Ks As",
        "full_house": "7h 7d 7c 8s 8h", "four": "Ah Ad Ac As 7h", "straight_flush": "7h 8h 9h Th Jh",
    },
}


@pytest.mark.parametrize("ranking", list(NAMED))
def test_category_names(ranking: str) -> None:
    names = list(NAMED[ranking])
    assert names == list(CATEGORIES[ranking])  # one hand per category, in the ranking's order
    hands = list(NAMED[ranking].values())
    got = [CATEGORIES[ranking][c] for c in category(hands, ranking)]
    assert got == names
    # Batch evaluation in that order is strictly increasing: the category is the leading part of a value.
    values = evaluate(hands, ranking)
    assert (np.diff(values) > 0).all()


def test_category_of_seven_cards() -> None:
    # A straight beside trips: three of a kind outranks the straight in short-deck (seed 003), not in classic.
    hand = "Th Td Tc Js Qd Kh 9s"
    assert CATEGORIES["short-deck"][category(hand, "short-deck")[0]] == "three"
    assert CATEGORIES["classic"][category(hand, "classic")[0]] == "straight"
    assert CATEGORIES["order-poker"][category(hand, "order-poker")[0]] == "straight"
    # Trips, a straight and a straight flush in seven cards: the straight flush is the best five.
    hand2 = "6h 6d 6c 7h 8h 9h Th"
    for ranking in ("classic", "short-deck", "order-poker"):
        assert CATEGORIES[ranking][category(hand2, ranking)[0]] == "straight_flush", ranking
    # Six cards: a flush and a pair; the flush counts.
    hand3 = "Ah Kh 9h 7h 6h 6d"
    for ranking in ("classic", "short-deck", "order-poker"):
        assert CATEGORIES[ranking][category(hand3, ranking)[0]] == "flush", ranking


def test_input_forms_agree() -> None:
    text = "As Kd Qh Jc Ts"
    ids = parse_cards(text)
    expected = _v(text, "classic")
    assert int(evaluate([text], "classic")[0]) == expected
    assert int(evaluate([text.split()], "classic")[0]) == expected
    assert int(evaluate([ids], "classic")[0]) == expected
    assert int(evaluate(ids, "classic")[0]) == expected
    assert evaluate(np.zeros((0, 5), dtype=np.uint8), "classic").shape == (0,)
