"""The single-hand kernels (``value_of``, ``swap_values``) agree with batch ``evaluate``."""

from __future__ import annotations

import numpy as np
import pytest

from ext.handeval import evaluate, tables
from games.core.cards import deck_cards, parse_cards


@pytest.mark.parametrize("ranking", ["classic", "short-deck", "order-poker", "quintet"])
def test_value_of_and_swap_values_match_batch(ranking: str) -> None:
    rng = np.random.default_rng(11)
    deck = np.asarray(deck_cards({"classic": "52", "quintet": "32"}.get(ranking, "36")), dtype=np.uint8)
    t = tables(ranking, 5)
    for _ in range(300):
        ten = rng.choice(deck, 10, replace=False)
        hand, other = [int(c) for c in ten[:5]], [int(c) for c in ten[5:]]
        assert t.value_of(hand) == int(evaluate(np.asarray([hand], dtype=np.uint8), ranking)[0])
        hv, ov = t.swap_values(hand, other)
        rows_h, rows_o = [], []
        for i in range(5):
            for j in range(5):
                h2, o2 = list(hand), list(other)
                h2[i], o2[j] = other[j], hand[i]
                rows_h.append(h2)
                rows_o.append(o2)
        assert hv == evaluate(np.asarray(rows_h, dtype=np.uint8), ranking).tolist()
        assert ov == evaluate(np.asarray(rows_o, dtype=np.uint8), ranking).tolist()


def test_value_of_rejects_invalid_hands() -> None:
    t = tables("order-poker", 5)
    assert t.value_of(parse_cards("2c 6d 8h 9s Jc")) == -1  # 2c is not on the 36-card deck
    assert t.value_of(parse_cards("6c 6c 8h 9s Jc")) == -1  # duplicate
    assert t.value_of(parse_cards("6c 7c 8h 9s")) == -1  # four cards
    assert t.value_of([6 * 4, 300, 30, 31, 32]) == -1


def test_swap_values_rejects_overlapping_hands() -> None:
    t = tables("order-poker", 5)
    with pytest.raises(ValueError):
        t.swap_values(parse_cards("6c 6d 8h 9s Jc"), parse_cards("6c Ah 7c 8d Kc"))
    with pytest.raises(ValueError):
        t.swap_values(parse_cards("6c 6d 8h 9s"), parse_cards("As Ah 7c 8d Kc"))
