"""Liar's poker records (LP-7): the shape, replay through the platform, and every fault reported under
the rule and index LP-7.3 to LP-7.5 fix."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest

from games.core import replay as generic
from games.core.protocol import IllegalAction, RulesError
from games.liars_poker import record
from games.liars_poker.bids import CHALLENGE, Bid
from games.liars_poker.entry import ENTRY
from games.liars_poker.rules import PRESETS
from games.liars_poker.state import State

LP7: dict[str, Any] = {
    "format": "rasklad-record/1", "game": "liars-poker", "version": 1,
    "rules": {"preset": "classic", "digits_per_note": 8, "digit_values": 10, "digit_order": "natural",
              "rebid": "off", "rebid_stake": 1, "stake": 1, "next_opener": "rotate"},
    "players": 3, "dealer": 0, "round": 0,
    "deal": [["31415926", "53589793", "23846264"]],
    "actions": [[{"seat": 0, "bid": [2, 5]}, {"seat": 1, "bid": [3, 3]}, {"seat": 2, "challenge": True},
                 {"seat": 0, "bid": [3, 9]}, {"seat": 1, "bid": [4, 3]}, {"seat": 2, "challenge": True},
                 {"seat": 0, "challenge": True}]],
    "outcome": {"rounds": [{"round": 0, "opener": 0, "holder": 1, "bid": [4, 3], "rebid": False,
                            "count": 4, "holder_wins": True, "stake": 1, "scores": [-1, 2, -1]}],
                "scores": [-1, 2, -1]},
}


def two_rounds() -> dict[str, Any]:
    """A match of two rounds of 3 players (round 1 opened by seat 1 under rotate)."""
    st = State(PRESETS["classic"], 3, 0, [LP7["deal"][0], ["11111111", "22222222", "33333333"]])
    for a in (Bid(2, 5), CHALLENGE, CHALLENGE, Bid(8, 2), CHALLENGE, CHALLENGE):
        st.apply(a)
    return json.loads(json.dumps(st.record()))


def test_the_engine_writes_the_record_of_lp_7() -> None:
    st = State(PRESETS["classic"], 3, 0, LP7["deal"])
    for a in LP7["actions"][0]:
        st.apply(record.decode_action(st, a, 0))
    assert json.loads(json.dumps(st.record())) == LP7
    assert list(st.record()) == ["format", "game", "version", "rules", "players", "dealer", "round", "deal",
                                 "actions", "outcome"]


def test_replay_generic_and_strict() -> None:
    assert generic.replay(LP7) == LP7["outcome"]
    assert record.replay(LP7) == LP7["outcome"]
    rec = two_rounds()
    assert rec["outcome"]["scores"] == [2 - 1, -1 + 2, -1 - 1]
    assert rec["outcome"]["rounds"][1]["opener"] == 1
    assert generic.replay(rec) == rec["outcome"]
    lines = list(generic.steps(rec))
    acts = [line for line in lines if re.match(r"\s*\d+ ", line)]  # the action lines, not what they changed
    assert lines[-1] == "scores: [1, 1, -2]" and "LP-5.2" in acts[-1]


def test_outcome_keys_left_out_are_not_checked() -> None:
    rec = copy.deepcopy(LP7)
    del rec["outcome"]["rounds"][0]["count"], rec["outcome"]["scores"]
    assert record.replay(rec) == LP7["outcome"]
    rec["outcome"] = {}
    assert record.replay(rec) == LP7["outcome"]


def test_a_record_in_progress_gives_its_state() -> None:
    st = ENTRY.deal(PRESETS["classic"], 3, 0, np.random.default_rng(1))
    st.apply(Bid(1, 1))
    rec = json.loads(json.dumps(st.record()))
    assert "outcome" not in rec and rec["actions"] == [[{"seat": 0, "bid": [1, 1]}]]
    assert ENTRY.state_from_record(rec).record()["actions"] == [[]]
    with pytest.raises(IllegalAction) as e:
        record.replay(rec)  # the strict reading: LP-7.4
    assert (e.value.rule, e.value.index) == ("LP-4.4", 1)


def fault(mutate: Any, rec: dict[str, Any] | None = None) -> tuple[str | None, int | None]:
    rec = copy.deepcopy(rec or LP7)
    mutate(rec)
    with pytest.raises((IllegalAction, RulesError)) as e:
        record.replay(rec)
    return e.value.rule, getattr(e.value, "index", None)


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def f(rec: dict[str, Any]) -> None:
        obj = rec
        for p in path[:-1]:
            obj = obj[p]
        obj[path[-1]] = value
    return f


def _del(path: tuple[Any, ...]) -> Any:
    def f(rec: dict[str, Any]) -> None:
        obj = rec
        for p in path[:-1]:
            obj = obj[p]
        del obj[path[-1]]
    return f


@pytest.mark.parametrize(("mutate", "rule", "index"), [
    # the envelope and the rules (LP-7.3)
    (_set(("format",), "x"), "LP-7", None),
    (_set(("extra",), 1), "LP-7", None),
    (_del(("dealer",)), "LP-7", None),
    (_del(("rules", "stake")), "LP-7", None),
    (_set(("rules", "jokers"), 1), "LP-7", None),
    (_set(("rules", "digits_per_note"), 21), "LP-1.2", None),
    (_set(("rules", "digit_values"), 1), "LP-1.3", None),
    (_set(("rules", "digit_order"), "x"), "LP-3.3", None),
    (_set(("rules", "rebid"), "twice"), "LP-4.6", None),
    (_set(("rules", "rebid_stake"), 3), "LP-4.6", None),
    (_set(("rules", "stake"), 0), "LP-5.2", None),
    (_set(("rules", "next_opener"), "x"), "LP-1.5", None),
    (_set(("players",), 11), "LP-1.1", None),
    (_set(("deal",), [LP7["deal"][0], LP7["deal"][0]]), "LP-7", None),
    (_set(("outcome", "rounds"), []), "LP-7", None),
    # the notes and the opener
    (_set(("deal", 0), ["31415926", "53589793"]), "LP-1.2", None),
    (_set(("deal", 0, 1), "5358979"), "LP-1.2", None),
    (_set(("deal", 0, 1), "5358979x"), "LP-1.3", None),
    (_set(("dealer",), 1), "LP-1.5", None),
    (_set(("dealer",), 5), "LP-1.5", None),
    # the actions, in LP-7.5.1-7's order
    (_set(("actions", 0, 3), {"seat": 0}), "LP-7", 3),
    (_set(("actions", 0, 3), {"seat": 0, "bid": [3, 9], "challenge": True}), "LP-7", 3),
    (_set(("actions", 0, 3), {"seat": 3, "bid": [3, 9]}), "LP-1.1", 3),
    (_set(("actions", 0, 3), {"seat": 0, "accept": True}), "LP-4.6", 3),
    (_set(("actions", 0, 3), {"seat": 1, "bid": [3, 9]}), "LP-4.5", 3),
    (_set(("actions", 0, 3), {"seat": 2, "bid": [3, 9]}), "LP-4.2", 3),
    (_set(("actions", 0, 0), {"seat": 0, "challenge": True}), "LP-4.1", 0),
    (_set(("actions", 0, 0), {"seat": 1, "challenge": True}), "LP-4.2", 0),
    (_set(("actions", 0, 3), {"seat": 0, "bid": [3]}), "LP-7", 3),
    (_set(("actions", 0, 3), {"seat": 0, "bid": [25, 9]}), "LP-3.1", 3),
    (_set(("actions", 0, 3), {"seat": 0, "bid": [0, 99]}), "LP-3.1", 3),
    (_set(("actions", 0, 3), {"seat": 0, "bid": [3, 2]}), "LP-3.2", 3),
    (_set(("actions", 0, 3), {"seat": 1, "bid": [2, 0]}), "LP-4.5", 3),  # turn before the bid's height
    # the end of the round (LP-7.4)
    (_set(("actions", 0), []), "LP-4.1", 0),
    (_set(("actions", 0), LP7["actions"][0][:6]), "LP-4.4", 6),
    (_set(("actions", 0), [*LP7["actions"][0], {"seat": 1, "bid": [5, 5]}]), "LP-4.6", 7),
    (_set(("actions", 0), [*LP7["actions"][0], {"seat": 2, "bid": [5, 5]}]), "LP-4.4", 7),
    # the outcome entries (LP-7.2, LP-7.3)
    (_set(("outcome", "rounds", 0, "round"), 1), "LP-1.4", None),
    (_set(("outcome", "rounds", 0, "opener"), 1), "LP-1.5", None),
    (_set(("outcome", "rounds", 0, "count"), 5), "LP-5.1", None),
    (_set(("outcome", "rounds", 0, "holder_wins"), False), "LP-5.2", None),
    (_set(("outcome", "rounds", 0, "scores"), [1, -2, 1]), "LP-5.2", None),
    (_set(("outcome", "scores"), [1, -2, 1]), "LP-5.4", None),
])
def test_faults_name_their_rule_and_index(mutate: Any, rule: str, index: int | None) -> None:
    assert fault(mutate) == (rule, index)


def test_the_first_fault_is_reported() -> None:
    # a bad bid in round 0 comes before a bad note of round 1 (LP-7.5: round by round)
    rec = two_rounds()
    rec["actions"][0][0] = {"seat": 0, "bid": [0, 5]}
    rec["deal"][1][0] = "1111111"
    assert fault(lambda r: None, rec) == ("LP-3.1", 0)
    rec = two_rounds()
    rec["deal"][1][0] = "1111111"
    rec["actions"][1][0] = {"seat": 1, "bid": [0, 5]}
    assert fault(lambda r: None, rec) == ("LP-1.2", None)


def test_indices_run_over_the_joined_lists_of_lp_7_4() -> None:
    rec = two_rounds()
    assert fault(_set(("actions", 1, 1), {"seat": 1, "challenge": True}), rec) == ("LP-4.2", 4)
    assert fault(_set(("actions", 1), rec["actions"][1][:2]), rec) == ("LP-4.4", 5)
    with pytest.raises(IllegalAction) as e:
        record.replay({**rec, "actions": [rec["actions"][0], [{"seat": 1, "bid": [8, 2]}, {"seat": 2, "bid": [1, 1]}]]})
    assert (e.value.rule, e.value.index, e.value.deal) == ("LP-3.2", 4, 1)


def test_round_and_dealer_under_both_opener_options() -> None:
    rec = copy.deepcopy(LP7)
    rec["round"], rec["dealer"] = 4, 1
    del rec["outcome"]  # the openers changed: the outcome would differ
    rec["actions"] = [[{"seat": 1, "bid": [1, 1]}, {"seat": 2, "challenge": True}, {"seat": 0, "challenge": True}]]
    assert generic.replay(rec)["rounds"][0]["round"] == 4
    rec["dealer"] = 2
    with pytest.raises(IllegalAction) as e:
        generic.replay(rec)
    assert e.value.rule == "LP-1.5"
    rec["rules"]["next_opener"] = "last_bidder"  # the first round of a record from round r > 0: any opener
    rec["actions"] = [[{"seat": 2, "bid": [1, 1]}, {"seat": 0, "challenge": True}, {"seat": 1, "challenge": True}]]
    assert generic.replay(rec)["rounds"][0]["opener"] == 2
    rec["round"] = 0
    with pytest.raises(IllegalAction) as e:
        generic.replay(rec)
    assert e.value.rule == "LP-1.5"


def test_reduced_digit_sets_and_rebids_round_trip() -> None:
    rng = np.random.default_rng(5)
    for preset in ("trading-floor", "openspiel"):
        r = ENTRY.rules({"preset": preset, "rounds": 3, "digit_values": 4, "digits_per_note": 3})
        for n in (2, 4):
            st = ENTRY.deal(r, n, 0, rng)
            while not st.is_over():
                st.apply(st.legal_actions().sample(rng))
            rec = json.loads(json.dumps(st.record()))
            assert "rounds" not in rec["rules"] and len(rec["deal"]) == 3
            assert generic.replay(rec) == rec["outcome"] == record.replay(rec)
