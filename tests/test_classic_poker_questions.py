"""Exact draw-improvement odds (issue 17, deal statistics)."""

from __future__ import annotations

from games.classic_poker.questions import draw_outcomes
from games.classic_poker.rules import Rules


def test_four_flush_one_card() -> None:
    out = draw_outcomes(Rules(), ["Ah", "Kh", "7h", "2h", "9c"], ["9c"])
    assert sum(out.values()) == 47
    assert out["flush"] == 9 and out["pair"] == 12 and out["high"] == 26


def test_pair_draws_three() -> None:
    # The standard table: from 16,215 draws, two pair 2,592, three 1,854, full house 165, four 45.
    out = draw_outcomes(Rules(), ["Qs", "Qh", "8d", "5c", "2s"], ["8d", "5c", "2s"])
    assert sum(out.values()) == 16215
    assert (out["two_pair"], out["three"], out["full_house"], out["four"]) == (2592, 1854, 165, 45)
    assert out["pair"] == 16215 - 4656


def test_open_ended_straight_one_card_with_a_joker() -> None:
    # 53 cards, joker wild: 8 natural outs + the joker complete 9-8-7-6 (any 5 or T).
    out = draw_outcomes(Rules(deck="53"), ["9s", "8h", "7d", "6c", "Kc"], ["Kc"])
    assert sum(out.values()) == 48 and out["straight"] == 9


def test_wild_categories_question_exact_and_sampled() -> None:
    import numpy as np

    from games.core import registry

    q = registry.game("classic-poker").questions["wild-categories"]
    params = {"ranking": "classic", "cards": 5, "jokers": 1, "wild": "bug", "bug_flush": "ace_only",
              "four_flush": False, "low": None, "ace_low_straight": True}
    assert q.check(params, "exact") == []
    rows: dict[str, int] = {}
    for unit in range(q.units(params)):  # the shards of an exact job, summed
        for name, c, _ in q.run(params, "exact", unit, 1, np.random.SeedSequence(0))["counts"]:
            rows[name] = rows.get(name, 0) + c
    assert rows["flush"] == 6956 and rows["pair"] == 1215872 and sum(rows.values()) == 2869685  # CP-13
    a = q.run(params, "sample", 0, 20000, np.random.SeedSequence(4))
    assert a == q.run(params, "sample", 0, 20000, np.random.SeedSequence(4))
    bad = {**params, "wild": "none"}
    assert q.check(bad, "exact")[0][0] == "question.jokers"


def test_draw_odds_question() -> None:
    import numpy as np

    from games.core import registry

    q = registry.game("classic-poker").questions["draw-odds"]
    params = {"preset": "draw", "hand": ["Ah", "Kh", "7h", "2h", "9c"], "discard": ["9c"]}
    assert q.check(params, "exact") == []
    rows = {r[0]: (r[1], r[2]) for r in q.run(params, "exact", 0, 1, np.random.SeedSequence(0))["outcomes"]}
    assert rows["flush"] == (9, 47)
    assert q.check({**params, "discard": ["Qs"]}, "exact")[0][0] == "question.hand"
