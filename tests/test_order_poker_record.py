"""Order Poker deal records (OP-9): the JSON form, replay, and ``rasklad replay`` errors."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_order_poker_helpers import deal, play
from typer.testing import CliRunner

from games.core.protocol import IllegalAction, RulesError
from games.order_poker.record import replay
from rasklad.cli import app

H0, H1, H2 = "6c 7d 8h 9s Jc", "6d 6h 8c Tc Qd", "Ks Kd Ah Ac 7s"
R_PAIR = "Qh Qc 9d Th 7c"
# The OP-8 bidding, played on to the end (tests/test_order_poker_rules.py::test_op_8_worked_example).
OP8 = ["pass", "order two_pair", "order three", "order full_house", "pass", "for", "against",
       "swap 8c Qh", "swap 7s Th", "keep", "swap Tc Qc", "keep", "keep"]


def op8_record() -> dict[str, Any]:
    return play(deal([H0, H1, H2], R_PAIR, dealer=2), *OP8).record()


def test_record_format_of_the_worked_example() -> None:
    rec = op8_record()
    assert rec["game"] == "order-poker" and rec["players"] == 3 and rec["dealer"] == 2
    assert rec["rules"] == {"max_exchange_rounds": 12, "against_half_min": "pair"}
    assert rec["deal"]["hands"][0] == H0.split() and rec["deal"]["robot"] == R_PAIR.split()
    assert rec["format"] == "rasklad-record/1" and rec["version"] == 1
    assert rec["actions"][:2] == [{"seat": 0, "type": "pass"},
                                  {"seat": 1, "type": "order", "combination": "two_pair"}]
    assert rec["actions"][5] == {"seat": 2, "type": "role", "role": "for"}
    assert rec["actions"][7] == {"seat": 1, "type": "swap", "give": "8c", "take": "Qh", "from": "robot"}
    assert rec["actions"][9] == {"seat": 0, "type": "keep"}
    out = rec["outcome"]
    assert out["scores"] == [0, 1, 0] and out["stake"] == 3 and out["orderer"] == 1
    assert out["order"] == "full_house" and out["open"] is True
    assert out["roles"] == ["against", "orderer", "for"]
    assert out["robot_combination"] == "pair" and out["rounds"] == 2 and len(rec["actions"]) == 13
    assert out["hands"][1] == ["6d", "6h", "Qh", "Qc", "Qd"]
    assert replay(rec) == out


def test_rules_may_be_omitted_and_outcome_is_optional() -> None:
    rec = op8_record()
    out = rec.pop("outcome")
    del rec["rules"]
    assert replay(rec) == out


def test_swap_with_a_for_player_in_a_record() -> None:
    st = play(deal([H0, H1, H2], R_PAIR, dealer=2), "order straight", "pass", "pass", "for", "against",
              "swap Jc Tc 1", "keep", "keep")
    rec = json.loads(json.dumps(st.record()))
    assert rec["actions"][5] == {"seat": 0, "type": "swap", "give": "Jc", "take": "Tc", "from": 1}
    out = replay(rec)
    assert out["partner"] == 1 and out["scores"] == [1, 1, 0]  # seat 1's card was used: +1 (OP-7)


def test_records_of_the_older_shape_still_replay() -> None:
    """Records written before the envelope (hands and robot at the top level) are read as before."""
    rec = op8_record()
    old = {"game": "order-poker", "players": rec["players"], "dealer": rec["dealer"], "rules": rec["rules"],
           "hands": rec["deal"]["hands"], "robot": rec["deal"]["robot"], "actions": rec["actions"],
           "outcome": rec["outcome"]}
    assert replay(old) == rec["outcome"]
    bad = {**old, "actions": [*old["actions"][:11], LOWER_OLD]}
    with pytest.raises(IllegalAction) as e:
        replay(bad)
    assert (e.value.index, e.value.rule) == (11, "OP-6.5")


LOWER_OLD = {"seat": 2, "type": "swap", "give": "Ks", "take": "7c", "from": "robot"}


def _set(rec: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    rec = copy.deepcopy(rec)
    node: Any = rec
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k) if k.isdigit() else k]
    last = keys[-1]
    node[int(last) if last.isdigit() else last] = value
    return rec


BASE = op8_record()
# Round 2, after the orderer's swap the robot holds 8c Tc 9d 7s 7c (a pair of sevens): seat 2
# giving Ks for 7c would leave it nothing.
LOWER = {"seat": 2, "type": "swap", "give": "Ks", "take": "7c", "from": "robot"}
BAD: list[tuple[str, dict[str, Any], int | None, str]] = [
    ("wrong turn", _set(BASE, "actions.1.seat", 2), 1, "OP-3.1"),
    ("robot's combination", _set(BASE, "actions.1.combination", "pair"), 1, "OP-3.2"),
    ("repeated bid", _set(BASE, "actions.3.combination", "two_pair"), 3, "OP-3.2"),
    ("role out of order", _set(BASE, "actions.5.seat", 0), 5, "OP-5.1"),
    ("swap of a card not held", _set(BASE, "actions.7.give", "As"), 7, "OP-6.3"),
    ("taking a card the robot lacks", _set(BASE, "actions.8.take", "As"), 8, "OP-6.5"),
    ("opponent lowers the robot", _set(BASE, "actions.11", LOWER), 11, "OP-6.5"),
    ("opponent swaps with a for player", _set(BASE, "actions.8", {"seat": 2, "type": "swap", "give": "7s",
                                                                   "take": "6c", "from": 0}), 8, "OP-6.5"),
    ("stop in round 1", _set(BASE, "actions.7", {"seat": 1, "type": "stop"}), 7, "OP-6.3"),
    ("same card given and taken", _set(BASE, "actions.7.take", "8c"), 7, "OP-6.6"),
    ("duplicate card in the deal", _set(BASE, "deal.hands.0.0", "Qh"), None, "OP-1.1"),
    ("foreign card in the deal", _set(BASE, "deal.hands.0.0", "2c"), None, "OP-1.1"),
    ("unknown card", _set(BASE, "deal.robot.0", "Zz"), None, "OP-1.1"),
    ("short hand", _set(BASE, "deal.hands.0", ["6c"]), None, "OP-1.4"),
    ("bad round cap", _set(BASE, "rules.max_exchange_rounds", 0), None, "OP-6.8"),
    ("bidding action in the exchange", _set(BASE, "actions.7", {"seat": 1, "type": "pass"}), 7, "OP-6.2"),
    ("outcome differs", _set(BASE, "outcome.scores", [0, 3, 0]), None, "OP-9"),
    ("record ends early", _set(BASE, "actions", BASE["actions"][:10]), 10, "OP-9"),
    ("action after the end", _set(BASE, "actions", [*BASE["actions"], {"seat": 1, "type": "stop"}]), 13,
     "OP-6.7"),
]


@pytest.mark.parametrize("name, rec, index, rule", BAD, ids=[b[0] for b in BAD])
def test_illegal_records_name_index_and_rule(name: str, rec: dict[str, Any], index: int | None,
                                             rule: str) -> None:
    with pytest.raises((IllegalAction, RulesError)) as e:
        replay(rec)
    assert (getattr(e.value, "index", None), e.value.rule) == (index, rule), str(e.value)
    assert rule in str(e.value)
    if index is not None:
        assert str(e.value).startswith(f"action {index}: ")


def test_cli_replay_prints_outcome(tmp_path: Path) -> None:
    f = tmp_path / "deal.json"
    f.write_text(json.dumps(BASE))
    r = CliRunner().invoke(app, ["replay", str(f)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == BASE["outcome"]
    r = CliRunner().invoke(app, ["replay", "-"], input=json.dumps(BASE))
    assert r.exit_code == 0 and json.loads(r.stdout) == BASE["outcome"]


@pytest.mark.parametrize("text, expected", [
    (json.dumps(_set(BASE, "actions.11", LOWER)), "error: action 11: "),
    (json.dumps(_set(BASE, "deal.hands.0.0", "Qh")), "error: record: duplicate card Qh"),
    ("{not json", "error: - is not JSON"),
    (json.dumps({"game": "no-such-game"}), "error: unknown game 'no-such-game'"),
    ("[1, 2]", "error: a record must be a JSON object"),
])
def test_cli_replay_errors_exit_2_with_one_line(text: str, expected: str) -> None:
    r = CliRunner().invoke(app, ["replay", "-"], input=text)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), r.stderr


def test_cli_replay_through_the_console_entry_point(tmp_path: Path) -> None:
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(_set(BASE, "actions.11", LOWER)))
    r = subprocess.run([sys.executable, "-m", "rasklad", "replay", str(f)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "error: action 11: the swap lowers the robot's combination from pair to none (OP-6.5)"]
