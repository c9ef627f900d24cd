"""Bad input raises ``ValueError`` with a message naming the card and the hand index."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ext.handeval import category, category_counts, evaluate, sample_counts

GOOD = "As Kd Qh Jc Ts"


def _ids(*rows: list[int], dtype: type = np.uint8) -> np.ndarray:
    return np.asarray(rows, dtype=dtype)


def test_unknown_card_string_names_the_card() -> None:
    with pytest.raises(ValueError, match="'Xx'"):
        evaluate("As Kd Qh Jc Xx")
    with pytest.raises(ValueError, match="'1s'"):
        evaluate([["As", "Kd", "Qh", "Jc", "Ts"], ["As", "Kd", "Qh", "Jc", "1s"]])


def test_unknown_card_string_names_the_hand() -> None:
    # evaluate's contract: the message names the card and the hand index, for strings too.
    with pytest.raises(ValueError, match=r"'Xx'.*hand 1|hand 1.*'Xx'"):
        evaluate([GOOD, "As Kd Qh Jc Xx"])


@pytest.mark.parametrize("bad", [52, 99, 255])
def test_card_id_out_of_range_uint8(bad: int) -> None:
    with pytest.raises(ValueError, match=rf"unknown card id {bad} in hand 1\b"):
        evaluate(_ids([0, 1, 2, 3, 4], [5, 6, 7, 8, bad]))


@pytest.mark.parametrize("bad", [300, -1])
def test_card_id_out_of_range_int64(bad: int) -> None:
    with pytest.raises(ValueError, match=rf"unknown card id {bad} in hand 1\b"):
        evaluate(_ids([0, 1, 2, 3, 4], [5, 6, 7, 8, bad], dtype=np.int64))


def test_duplicate_card() -> None:
    with pytest.raises(ValueError, match=r"duplicate card 2s in hand 1\b"):
        evaluate(_ids([0, 1, 2, 3, 4], [0, 1, 2, 3, 3]))
    with pytest.raises(ValueError, match=r"duplicate card 6c in hand 2\b"):
        category(["6c 7d 8h 9s Jc", "6d 7d 8h 9s Jc", "6c 6c 8h 9s Jc"], "order-poker")
    with pytest.raises(ValueError, match=r"duplicate card As in hand 0\b"):
        evaluate("As Kd Qh Jc Ts 9c As")


@pytest.mark.parametrize(("ranking", "deck", "hands", "card", "index"), [
    ("order-poker", None, ["6c 7d 8h 9s Jc", "2c 7d 8h 9s Jc"], "2c", 1),
    ("short-deck", None, ["5h 7d 8h 9s Jc Qc"], "5h", 0),
    ("quintet", None, ["7c 7d 8h 9s Jc", "Ac 7d 8h 9s Jc", "6c 7d 8h 9s Jc"], "6c", 2),
    ("classic", "36", ["2c 7d 8h 9s Jc"], "2c", 0),
    ("classic", "32", ["7c 7d 8h 9s Jc", "6c 7d 8h 9s Jc"], "6c", 1),
])
def test_card_outside_the_deck(
    ranking: str, deck: str | None, hands: list[str], card: str, index: int
) -> None:
    with pytest.raises(ValueError, match=rf"card {card} in hand {index} is not in the"):
        evaluate(hands, ranking, deck)


@pytest.mark.parametrize("shape", [(3, 4), (3, 8), (2, 0)])
def test_wrong_hand_size(shape: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match=rf"5, 6 or 7 cards, got {shape[1]}"):
        evaluate(np.zeros(shape, dtype=np.uint8))


def test_wrong_dimensions() -> None:
    with pytest.raises(ValueError, match=re.escape("got shape (3, 5, 5)")):
        evaluate(np.zeros((3, 5, 5), dtype=np.uint8))


def test_hands_of_different_sizes() -> None:
    with pytest.raises(ValueError, match="hand 1 has 4 cards"):
        evaluate([GOOD, "As Kd Qh Jc"])


def test_non_integer_ids_rejected() -> None:
    with pytest.raises(ValueError):
        evaluate(np.asarray([[0, 1, 2, 3, 4.5]]))


@pytest.mark.parametrize("call", [
    lambda: evaluate(GOOD, "texas"),
    lambda: category(GOOD, "Classic"),
    lambda: category_counts("holdem", 5),
    lambda: sample_counts("", 5, 10, 1),
])
def test_bad_ranking(call: object) -> None:
    with pytest.raises(ValueError, match="unknown ranking"):
        call()  # type: ignore[operator]


def test_bad_deck() -> None:
    with pytest.raises(ValueError, match="unknown deck '40'"):
        evaluate(GOOD, "classic", deck="40")
    # A ranking cannot be widened to a larger deck than its own.
    with pytest.raises(ValueError, match="quintet is defined on the 32-card deck"):
        evaluate("8c 7d 8h 9s Jc", "quintet", deck="36")
    with pytest.raises(ValueError, match="short-deck is defined on the 36-card deck"):
        category_counts("short-deck", 5, deck="52")


def test_dead_card_twice() -> None:
    with pytest.raises(ValueError, match="dead card As is given twice"):
        category_counts("classic", 5, dead="As Ks As")
    with pytest.raises(ValueError, match="dead card As is given twice"):
        sample_counts("classic", 5, 10, 1, dead=["As", 51])


def test_dead_card_outside_deck() -> None:
    with pytest.raises(ValueError, match="dead card 2c is not in the 36-card deck"):
        category_counts("order-poker", 5, dead="2c")
    with pytest.raises(ValueError, match="dead card 6h is not in the 32-card deck"):
        sample_counts("quintet", 5, 10, 1, dead="Ah 6h")
    with pytest.raises(ValueError, match="unknown dead card id 60"):
        category_counts("order-poker", 5, dead=[60])
    with pytest.raises(ValueError, match="'Xx'"):
        category_counts("order-poker", 5, dead="Xx")


def test_too_few_live_cards() -> None:
    dead = list(range(20, 46))  # the 32-card deck (ids 20..51) minus 26 cards = 6 live cards
    with pytest.raises(ValueError, match="only 6 live cards"):
        category_counts("quintet", 7, dead=dead)
    with pytest.raises(ValueError, match="only 6 live cards"):
        sample_counts("quintet", 7, 10, 1, dead=dead)
    # Exactly k live cards is fine: one hand.
    assert sum(category_counts("quintet", 6, dead=dead).values()) == 1


@pytest.mark.parametrize("k", [4, 8])
def test_bad_hand_size_for_counts(k: int) -> None:
    with pytest.raises(ValueError, match=f"cards must be 5, 6 or 7, not {k}"):
        category_counts("classic", k)
    with pytest.raises(ValueError, match=f"cards must be 5, 6 or 7, not {k}"):
        sample_counts("classic", k, 10, 1)


def test_bad_samples_and_seed() -> None:
    with pytest.raises(ValueError, match="samples must be >= 0"):
        sample_counts("classic", 5, -1, 1)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        sample_counts("classic", 5, 10, -1)


def test_layout_of_the_input_array_does_not_matter() -> None:
    rows = np.asarray([[0, 1, 2, 3, 4], [8, 13, 18, 23, 28], [51, 47, 43, 39, 35]], dtype=np.uint8)
    expected = evaluate(rows)
    assert (evaluate(rows[:, ::-1]) == expected).all()  # non-contiguous view, cards reversed
    assert (evaluate(np.asfortranarray(rows)) == expected).all()
    assert (evaluate(rows.astype(np.int64)) == expected).all()
    assert (evaluate(rows[::2]) == expected[::2]).all()
