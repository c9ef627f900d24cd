"""Liar's poker match records of several rounds through the generic replay (``rasklad replay``): every
case of LP-7.5's order of checking and of LP-7.4's early stops, with the exact rule and the index
counted over the record's rounds joined (LP-7.4), for records with an outcome and without one."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.core import replay as generic
from games.core.protocol import IllegalAction, RulesError
from games.liars_poker.bids import ACCEPT, CHALLENGE, Bid
from games.liars_poker.rules import PRESETS, Rules
from games.liars_poker.state import State

NOTES = [["31415926", "53589793", "23846264"], ["11111111", "22222222", "33333333"]]


def match(rules: Rules, plays: list[list[Any]]) -> dict[str, Any]:
    """A record of two rounds, 3 players, seat 0 opening round 0 and seat 1 round 1 (LP-1.5 rotate)."""
    st = State(rules, 3, 0, NOTES)
    for rnd in plays:
        for a in rnd:
            st.apply(a)
    return json.loads(json.dumps(st.record()))


CLASSIC = PRESETS["classic"]
ONCE = Rules(rebid="once")
# round 0: indices 0-2; round 1 (opened by seat 1): indices 3-5
PLAIN = match(CLASSIC, [[Bid(2, 5), CHALLENGE, CHALLENGE], [Bid(8, 2), CHALLENGE, CHALLENGE]])
# rebid=once: round 0: indices 0-3 (seat 0 accepts in his rebid turn); round 1: indices 4-7
REBID = match(ONCE, [[Bid(2, 5), CHALLENGE, CHALLENGE, ACCEPT], [Bid(8, 2), CHALLENGE, CHALLENGE, ACCEPT]])


def fault(record: dict[str, Any]) -> tuple[str | None, int | None, int | None]:
    with pytest.raises((IllegalAction, RulesError)) as e:
        generic.replay(record)
    err = e.value
    return err.rule, getattr(err, "index", None), getattr(err, "deal", None)


def edit(base: dict[str, Any], k: int, actions: list[Any], outcome: bool = True) -> dict[str, Any]:
    rec = copy.deepcopy(base)
    rec["actions"][k] = actions
    if not outcome:
        del rec["outcome"]
    return rec


def test_the_two_round_records_replay() -> None:
    assert generic.replay(PLAIN) == PLAIN["outcome"]
    assert generic.replay(REBID) == REBID["outcome"]
    assert PLAIN["actions"][1][0] == {"seat": 1, "bid": [8, 2]}


A0, A1 = PLAIN["actions"]
R0, R1 = REBID["actions"]


@pytest.mark.parametrize("outcome", [True, False])
@pytest.mark.parametrize(("base", "k", "actions", "expected"), [
    # LP-7.5.1 the form: LP-7
    (PLAIN, 1, [{"seat": 1}], ("LP-7", 3, 1)),
    (PLAIN, 1, [{"seat": 1, "bid": [8, 2], "challenge": True}], ("LP-7", 3, 1)),
    # LP-7.5.2 the seat: LP-1.1
    (PLAIN, 1, [{"seat": 3, "bid": [8, 2]}], ("LP-1.1", 3, 1)),
    # LP-7.5.3 the bidding of round 0 has ended (listed under it): the holder's bid or accept LP-4.6,
    # anything else LP-4.4; and after the last round
    (PLAIN, 0, [*A0, {"seat": 0, "bid": [9, 9]}], ("LP-4.6", 3, 0)),
    (PLAIN, 0, [*A0, {"seat": 0, "accept": True}], ("LP-4.6", 3, 0)),
    (PLAIN, 0, [*A0, {"seat": 1, "challenge": True}], ("LP-4.4", 3, 0)),
    (PLAIN, 0, [*A0, {"seat": 2, "bid": [9, 9]}], ("LP-4.4", 3, 0)),
    (PLAIN, 1, [*A1, {"seat": 1, "bid": [9, 9]}], ("LP-4.6", 6, 1)),
    (PLAIN, 1, [*A1, {"seat": 0, "challenge": True}], ("LP-4.4", 6, 1)),
    (REBID, 0, [*R0, {"seat": 0, "bid": [9, 9]}], ("LP-4.6", 4, 0)),   # he has accepted
    # LP-7.5.4 an accept outside the rebid turn: LP-4.6
    (PLAIN, 1, [{"seat": 1, "accept": True}], ("LP-4.6", 3, 1)),
    (REBID, 1, [R1[0], {"seat": 2, "accept": True}], ("LP-4.6", 5, 1)),
    # LP-7.5.5 whose turn: the holder's bid LP-4.5, anything else out of turn LP-4.2
    (PLAIN, 1, [A1[0], {"seat": 1, "bid": [9, 2]}], ("LP-4.5", 4, 1)),
    (PLAIN, 1, [{"seat": 2, "bid": [8, 2]}], ("LP-4.2", 3, 1)),
    (PLAIN, 1, [A1[0], {"seat": 0, "challenge": True}], ("LP-4.2", 4, 1)),
    # LP-7.5.6 a challenge: no standing bid LP-4.1, in the rebid turn LP-4.6
    (PLAIN, 1, [{"seat": 1, "challenge": True}], ("LP-4.1", 3, 1)),
    (REBID, 1, [*R1[:3], {"seat": 1, "challenge": True}], ("LP-4.6", 7, 1)),
    # LP-7.5.7 a bid: its form LP-7; q, then d, in range LP-3.1; higher LP-3.2
    (PLAIN, 1, [{"seat": 1, "bid": [8]}], ("LP-7", 3, 1)),
    (PLAIN, 1, [{"seat": 1, "bid": [25, 2]}], ("LP-3.1", 3, 1)),
    (PLAIN, 1, [{"seat": 1, "bid": [0, 99]}], ("LP-3.1", 3, 1)),
    (PLAIN, 1, [{"seat": 1, "bid": [8, 10]}], ("LP-3.1", 3, 1)),
    (PLAIN, 1, [A1[0], {"seat": 2, "bid": [8, 1]}], ("LP-3.2", 4, 1)),
])
def test_lp_7_5_in_a_two_round_record(base: dict[str, Any], k: int, actions: list[Any],
                                      expected: tuple[str, int, int], outcome: bool) -> None:
    assert fault(edit(base, k, actions, outcome)) == expected


@pytest.mark.parametrize("outcome", [True, False])
@pytest.mark.parametrize(("base", "k", "actions", "expected"), [
    # LP-7.4 round 0 stops while round 1 is listed
    (PLAIN, 0, [], ("LP-4.1", 0, 0)),
    (PLAIN, 0, A0[:2], ("LP-4.4", 2, 0)),
    (REBID, 0, R0[:3], ("LP-4.6", 3, 0)),
    # ... the last round stops
    (PLAIN, 1, [], ("LP-4.1", 3, 1)),
    (PLAIN, 1, A1[:1], ("LP-4.4", 4, 1)),
    (PLAIN, 1, A1[:2], ("LP-4.4", 5, 1)),
    (REBID, 1, R1[:3], ("LP-4.6", 7, 1)),
])
def test_lp_7_4_a_round_that_stops_early(base: dict[str, Any], k: int, actions: list[Any],
                                         expected: tuple[str, int, int], outcome: bool) -> None:
    assert fault(edit(base, k, actions, outcome)) == expected


def test_lp_7_4_a_record_without_outcome_that_lists_fewer_rounds() -> None:
    """A match in progress whose next round is not listed yet: that round's opener must bid (LP-4.1)."""
    rec = copy.deepcopy(PLAIN)
    del rec["outcome"]
    rec["actions"] = rec["actions"][:1]
    assert fault(rec) == ("LP-4.1", 3, 1)
    rec["actions"] = []
    assert fault(rec) == ("LP-4.1", 0, 0)


def test_rasklad_replay_prints_the_index_and_rule(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    rec = edit(PLAIN, 1, A1[:1], outcome=False)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(rec))
    for args in ((), ("--steps",)):
        out = subprocess.run([sys.executable, "-m", "rasklad", "replay", str(path), *args], cwd=root,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith("error: deal 1, action 4: ") and out.stderr.rstrip().endswith("(LP-4.4)")
