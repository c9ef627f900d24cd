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
