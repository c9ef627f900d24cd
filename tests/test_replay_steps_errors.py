"""``rasklad replay --steps`` names the action and the rule of an illegal record, as plain replay does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.core.protocol import IllegalAction
from games.core.replay import replay, steps
from sims.run import play_one
from sims.spec import parse_spec


def quintet_record() -> dict[str, Any]:
    spec = parse_spec({"kind": "tournament", "game": "quintet", "players": 2, "deals": 2, "seed": 4,
                       "bots": ["quintet/greedy", "quintet/random"]})
    record: dict[str, Any] = json.loads(json.dumps(play_one(spec, 1, 0).record()))
    return record


def test_steps_error_has_the_action_index_and_rule() -> None:
    bad = quintet_record()
    bad["actions"][0]["layout"][0][0] = bad["deal"]["removed"][0]  # a card nobody holds
    with pytest.raises(IllegalAction) as plain:
        replay(bad)
    with pytest.raises(IllegalAction) as stepped:
        list(steps(bad))
    assert str(stepped.value) == str(plain.value)
    assert stepped.value.index == 0 and str(stepped.value).startswith("action 0: ")
    assert stepped.value.rule.startswith("Q-1")
