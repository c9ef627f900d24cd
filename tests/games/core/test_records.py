"""``check_outcome``: a stored outcome is checked only where it says something, at every depth."""

from __future__ import annotations

import pytest

from games.core.protocol import IllegalAction
from games.core.records import check_outcome

REPLAYED = {"scores": [-1, 1], "games": [{"hands": [[6, 6, 6, 4, 4], [5, 5, 5, 5, 3]], "winners": [1],
                                          "scores": [-1, 1]}]}


def test_keys_left_out_are_not_checked_at_any_depth() -> None:
    check_outcome(None, REPLAYED, "X-8")
    check_outcome({}, REPLAYED, "X-8")
    check_outcome({"scores": [-1, 1]}, REPLAYED, "X-8")
    check_outcome({"games": [{"winners": [1]}]}, REPLAYED, "X-8")  # DP-8.2 / LP-7.2: the rest is not compared


@pytest.mark.parametrize("given, message", [
    ({"scores": [1, -1]}, "outcome scores is [1, -1] in the record, the replay gives [-1, 1]"),
    ({"games": [{"winners": [0]}]}, "outcome games[0].winners is [0] in the record, the replay gives [1]"),
    ({"games": [{"bonus": 3}]}, "unknown outcome field 'games[0].bonus'"),
    ({"games": []}, "outcome games is [] in the record"),
    ({"total": 0}, "unknown outcome field 'total'"),
])
def test_a_difference_names_the_field_and_the_rule(given: dict[str, object], message: str) -> None:
    with pytest.raises(IllegalAction) as e:
        check_outcome(given, REPLAYED, "X-8")
    assert e.value.rule == "X-8" and e.value.index is None and str(e.value).startswith(message)


def test_an_outcome_must_be_an_object() -> None:
    with pytest.raises(IllegalAction, match="outcome must be an object"):
        check_outcome([1, 2], REPLAYED, "X-8")
