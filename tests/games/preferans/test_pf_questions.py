"""Preferans deal-stats questions: the exact talon figures of PF-8.9 and sampled invariants."""

from __future__ import annotations

import numpy as np

from games.core.cards import parse_cards
from games.preferans import questions
from games.preferans.bots import misere_clean


def test_talon_exact_matches_pf_8_9() -> None:
    rows = questions.TALON.run({}, "exact", 0, 1, np.random.SeedSequence(1))
    assert sorted(rows["contents"]) == [("marriage", 4, 496), ("none", 374, 496), ("one_ace", 112, 496),
                                        ("two_aces", 6, 496)]
    assert sorted(rows["bonus"]) == [(0, 374, 496), (1, 116, 496), (3, 6, 496)]
    sampled = questions.TALON.run({}, "sample", 0, 2000, np.random.SeedSequence(1))
    assert sum(c for _, c, _ in sampled["contents"]) == 2000


def test_misere_shape() -> None:
    assert misere_clean(parse_cards("7s 9s Js 7c 8c 7d 9d 7h 8h 9h"))
    assert not misere_clean(parse_cards("8s 9s Js 7c 8c 7d 9d 7h 8h 9h"))  # 8s alone: no 7 under it
    hand = parse_cards("8s 9s 7c 8c 7d 9d 7h 8h 9h Jh")
    assert not misere_clean(hand) and questions._clean_after(hand + parse_cards("7s Ts"))  # throw 9s Ts
    rows = dict((k, (c, n)) for k, c, n in questions.MISERE_SHAPE.run({}, "sample", 0, 3000,
                                                                       np.random.SeedSequence(2))["shape"])
    before, after = rows["before_talon"][0], rows["after_talon"][0]
    assert 0 < before <= after < 3000  # a clean 10 stays clean with two more cards to throw


def test_dd_best_distribution() -> None:
    rows = questions.DD_BEST.run({}, "sample", 0, 20, np.random.SeedSequence(3))
    assert sum(c for _, c, _ in rows["best"]) == 20 and all(0 <= t <= 10 for t, _, _ in rows["best"])
    assert {s for s, _, _ in rows["strain"]} <= {"s", "c", "d", "h", "nt"}
