"""Raspisnoy match records (R-8): the worked deal of R-8.4 inside a match, replay of a match and of a
single deal, and every kind of fault reported with its index, deal and rule (R-8.3, R-8.6, R-8.7)."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest
from rasp_helpers import random_match, stub_of

from games.core import replay
from games.core.protocol import IllegalAction, RulesError
from games.raspisnoy.record import replay_deal
from games.raspisnoy.rules import CLASSIC, ODESSA, schedule
from games.raspisnoy.state import State, draw_stubs

R84_HANDS = ["7s Qh 8c", "Ah Kh 9d", "Tc 6h Jd"]
R84_ACTIONS = [[0, "bid:2"], [1, "bid:1"], [2, "bid:1"],
               [0, "play:7s:high:h"], [1, "play:Ah"], [2, "play:6h"],
               [0, "play:Qh"], [1, "play:Kh"], [2, "play:Tc"],
               [2, "play:Jd"], [0, "play:8c"], [1, "play:9d"]]


def r84_match() -> tuple[State, dict[str, Any]]:
    """R-8.4's deal as deal 3 of an odessa match of 3: before it seat 2 passed in deals 1 and 2, seat 1 in deal 2."""
    plan = schedule(ODESSA, 3)
    stubs = draw_stubs(ODESSA, 3, plan, np.random.default_rng(84))
    stubs[2] = stub_of(R84_HANDS, turned="Qc")
    st = State(ODESSA, 3, stubs)
    for bids in (["bid:1", "bid:0", "bid:1"], ["bid:0", "bid:1", "bid:0"]):  # deal 1: seats 1 2 0; deal 2: 2 0 1
        for b in bids:
            st.apply(b)
        while st.deal_no < 2 and st.current.bidding_open is False and not st.current.over:
            st.apply(st.legal_actions()[0])
            if st.current.index == 2 or (st.current.bidding_open and st.current.actions == []):
                break
    assert st.deal_no == 2 and list(st.current.pass_runs) == [0, 1, 2]
    assert st.legal_actions() == ["bid:0", "bid:1", "bid:2", "bid:3"]  # seat 0 first
    return st, st.record()


def test_r84_deal_through_the_engine() -> None:
    """R-8.4: bids, the joker's `highest h` lead, the trump duties, the points."""
    st, _ = r84_match()
    for i, (seat, tok) in enumerate(R84_ACTIONS):
        assert st.to_act() == seat
        if i == 2:
            assert st.legal_actions() == ["bid:1", "bid:2", "bid:3"]  # together
        if i == 4:
            assert st.legal_actions() == ["play:Ah"]  # the highest heart, not the Kh
        if i == 8:
            assert st.legal_actions() == ["play:Tc"]  # void in hearts: must trump
        if i == 10:
            assert st.legal_actions() == ["play:8c"]
        st.apply(tok)
    d = st.done[2]
    out = d.outcome(st.totals)
    assert out["trump"] == {"suit": "c", "card": "Qc", "source": "turned"}
    assert out["hands"] == [h.split() for h in R84_HANDS]
    assert out["dealer"] == 2 and out["pass_runs"] == [0, 1, 2]
    o = out["outcome"]
    assert o["bids"] == [2, 1, 1] and o["dark"] == [False] * 3
    assert [(t["leader"], t["winner"]) for t in o["tricks"]] == [(0, 0), (0, 2), (2, 0)]
    assert o["taken"] == [2, 0, 1] and o["points"] == [20, -10, 10] and o["pass_runs"] == [0, 0, 0]


def _finished_r84() -> dict[str, Any]:
    st, _ = r84_match()
    for _seat, tok in R84_ACTIONS:
        st.apply(tok)
    rng = np.random.default_rng(1)
    while not st.is_over():
        la = st.legal_actions()
        st.apply(la[int(rng.integers(len(la)))])
    return json.loads(json.dumps(st.record()))


def test_match_record_replays_and_single_deal_replays() -> None:
    """R-8.5: the whole match replays to its outcome; deal 3 alone gives R-8.4's entry."""
    rec = _finished_r84()
    assert replay.replay(rec) == rec["outcome"]
    entry = replay_deal(rec, 3)
    assert entry == rec["outcome"]["deals"][2]
    assert entry["outcome"]["points"] == [20, -10, 10]


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("classic", 5), ("odessa", 4), ("odessa", 6)])
def test_random_matches_replay(preset: str, players: int) -> None:
    """R-8.5: a random match's JSON record replays to the same outcome and the same record."""
    rules = CLASSIC if preset == "classic" else ODESSA
    st = random_match(rules, players, players)
    rec = json.loads(json.dumps(st.record()))
    assert replay.replay(rec) == rec["outcome"]
    assert json.loads(json.dumps(replay.replay_state(rec).record())) == rec


def _fault(rec: dict[str, Any]) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        replay.replay(rec)
    return e.value


@pytest.mark.parametrize(("index", "action", "rule"), [
    (0, [1, "bid:1"], "R-3.1"),            # out of turn
    (0, [0, "bid:4"], "R-3.1"),            # out of range
    (2, [2, "bid:0"], "R-3.4"),            # duty and restriction both: the duty is reported
    (0, [0, "dark:1"], "R-3.2"),           # no voluntary dark in odessa
    (0, [0, "look"], "R-3.7"),
    (3, [0, "play:7s"], "R-4.5"),          # a bare joker lead
    (3, [0, "play:7s:plain"], "R-4.5"),    # no plain mode in odessa
    (4, [1, "play:Kh"], "R-4.6"),          # not the highest heart
    (4, [1, "play:Ah:high"], "R-4.6"),     # a mode on a real card
    (4, [2, "play:6h"], "R-4.1"),          # out of turn
    (4, [1, "play:Xx"], "R-8.1"),          # not a card
    (4, [1, "play:Ac"], "R-4.6"),          # a card he does not hold
    (4, [1, "hello"], "R-8.1"),
    (4, [1], "R-8.1"),
    (3, [0, "bid:1"], "R-3.1"),            # a bid after the bidding
    (1, [1, "play:Ah"], "R-3.1"),          # a play while bids are due
])
def test_illegal_actions_name_index_deal_and_rule(index: int, action: list[Any], rule: str) -> None:
    """R-8.3, R-8.6: the action's index in its deal, the deal (index 2 = deal number 3) and the rule."""
    rec = _finished_r84()
    bad = copy.deepcopy(rec)
    bad["actions"][2][index] = action
    e = _fault(bad)
    assert (e.rule, e.index, e.deal) == (rule, index, 2), str(e)


def test_a_deal_that_stops_early_is_r41() -> None:
    """R-8.3: the index is one past the deal's last action."""
    rec = _finished_r84()
    rec["actions"][2] = rec["actions"][2][:-1]
    e = _fault(rec)
    assert (e.rule, e.index, e.deal) == ("R-4.1", 11, 2)


def test_an_action_after_the_last_trick_is_r41() -> None:
    rec = _finished_r84()
    rec["actions"][2].append([2, "play:Jd"])
    e = _fault(rec)
    assert (e.rule, e.index) == ("R-4.1", 12)


def test_record_faults_in_r87_order() -> None:
    """R-8.7: rules, deal count, deck, drawn card, pass runs, outcome fields, totals."""
    rec = _finished_r84()

    def fault(mutate: Any) -> str | None:
        bad = copy.deepcopy(rec)
        mutate(bad)
        with pytest.raises((IllegalAction, RulesError)) as e:
            replay.replay(bad)
        return e.value.rule

    assert fault(lambda r: r.__setitem__("players", 7)) == "R-1.1"
    assert fault(lambda r: r["rules"].__setitem__("jokerz", 1)) == "R-6"
    assert fault(lambda r: r.__setitem__("dealer", 1)) == "R-1.1"
    assert fault(lambda r: r["deal"].pop()) == "R-1.4"
    assert fault(lambda r: r["deal"][4]["deck"].__setitem__(0, r["deal"][4]["deck"][1])) == "R-1.9"
    assert fault(lambda r: r["deal"][4].__setitem__("drawn", "Ah")) == "R-2.2"
    assert fault(lambda r: r["outcome"]["deals"][2].__setitem__("pass_runs", [0, 0, 0])) == "R-3.4"
    assert fault(lambda r: r["outcome"]["deals"][2].__setitem__("dealer", 0)) == "R-1.6"
    assert fault(lambda r: r["outcome"]["deals"][2].__setitem__("kind", "dark")) == "R-1.4"
    assert fault(lambda r: r["outcome"]["deals"][2]["trump"].__setitem__("card", "Qh")) == "R-2.4"
    assert fault(lambda r: r["outcome"]["deals"][2]["trump"].__setitem__("card", "Qd")) == "R-2.2"
    assert fault(lambda r: r["outcome"]["deals"][2]["outcome"]["points"].__setitem__(0, 30)) == "R-8.2"
    assert fault(lambda r: r["outcome"]["scores"].__setitem__(0, 1)) == "R-5.6"


def test_a_deal_fault_comes_before_a_later_deck_fault() -> None:
    """R-8.7: each deal completely before the next: an illegal action in deal 3 is found before a bad deck in deal 5."""
    rec = _finished_r84()
    rec["deal"][4]["deck"][0] = rec["deal"][4]["deck"][1]
    rec["actions"][2][4] = [1, "play:Kh"]
    e = _fault(rec)
    assert (e.rule, e.deal) == ("R-4.6", 2)


def test_outcome_fields_may_be_given_in_part() -> None:
    """R-8.5: any part of the outcome, down to a trick's single field, is checked."""
    rec = _finished_r84()
    rec["outcome"] = {"deals": [{} for _ in rec["deal"]]}
    rec["outcome"]["deals"][2] = {"outcome": {"tricks": [{"winner": 0}, {}, {"leader": 2}]}}
    replay.replay(rec)
    rec["outcome"]["deals"][2]["outcome"]["tricks"][0]["winner"] = 1
    assert _fault(rec).rule == "R-8.2"


R84_RECORD = {
    "game": "raspisnoy",
    "rules": {"preset": "odessa", "cap": None, "top_repeats": 3, "specials_each": 3, "special_size": "max",
              "trump": "turned", "rotating_trumps": False, "jokers": 1, "joker_plain": False,
              "joker_low": True, "must_trump": True, "voluntary_dark": False, "dark_pass": True,
              "dark_factor": 1, "dealer_restriction": True, "max_passes_in_row": 2,
              "all_tricks_factor": 2, "special_factor": 2, "golden_trick": 20, "first_dealer": 0,
              "joker_leads": "any", "misere_trick": -10, "misere_zero": 50},
    "seats": 3, "deal": 3, "kind": "normal", "cards": 3, "dealer": 2, "pass_runs": [0, 1, 2],
    "hands": [["7s", "Qh", "8c"], ["Ah", "Kh", "9d"], ["Tc", "6h", "Jd"]],
    "trump": {"suit": "c", "card": "Qc", "source": "turned"},
    "actions": R84_ACTIONS,
    "outcome": {"bids": [2, 1, 1], "dark": [False, False, False],
                "tricks": [{"leader": 0, "winner": 0}, {"leader": 0, "winner": 2}, {"leader": 2, "winner": 0}],
                "taken": [2, 0, 1], "points": [20, -10, 10], "pass_runs": [0, 0, 0]},
}


def test_r84_deal_record_replays_as_written_in_the_rules() -> None:
    """R-8.4's record, exactly as the rules file prints it, replays alone to its outcome."""
    from games.raspisnoy.record import replay_deal_record

    out = replay_deal_record(R84_RECORD)
    assert out["points"] == [20, -10, 10] and out["taken"] == [2, 0, 1]
    bad = copy.deepcopy(R84_RECORD)
    bad["actions"][2] = [2, "bid:0"]  # the dealer's 0: duty and restriction, the duty reported
    with pytest.raises(IllegalAction) as e:
        replay_deal_record(bad)
    assert (e.value.rule, e.value.index) == ("R-3.4", 2)
    bad = copy.deepcopy(R84_RECORD)
    bad["outcome"]["points"] = [20, -10, 20]
    with pytest.raises(IllegalAction) as e:
        replay_deal_record(bad)
    assert e.value.rule == "R-8.2"
    bad = copy.deepcopy(R84_RECORD)
    bad["trump"]["card"] = "Qh"  # lies in seat 0's hand
    with pytest.raises(IllegalAction) as e:
        replay_deal_record(bad)
    assert e.value.rule == "R-2.4"


def _cli(tmp_path: Any, record: Any, *args: str) -> Any:
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    root = Path(__file__).resolve().parents[3]
    return subprocess.run([sys.executable, "-m", "rasklad", "replay", str(path), *args], cwd=root,
                          capture_output=True, text=True, timeout=120)


def test_cli_replays_one_deal_of_a_match_and_a_deal_written_alone(tmp_path: Any) -> None:
    """``rasklad replay --deal 3`` gives R-8.4's entry of the match; R-8.4's record as printed replays
    as it is; a deal the match does not have, or a broken one, exits 2 with the rule."""
    rec = _finished_r84()
    out = _cli(tmp_path, rec, "--deal", "3")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == rec["outcome"]["deals"][2] == replay.replay_deal(rec, 3)
    n = len(rec["outcome"]["deals"])
    out = _cli(tmp_path, rec, "--deal", str(n + 1))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"the match has deals 1..{n}, not {n + 1}" in out.stderr and "R-8.5" in out.stderr
    out = _cli(tmp_path, R84_RECORD)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["points"] == [20, -10, 10] == replay.replay(R84_RECORD)["points"]
    bad = copy.deepcopy(R84_RECORD)
    bad["actions"][2] = [2, "bid:0"]
    out = _cli(tmp_path, bad)
    assert out.returncode == 2 and "R-3.4" in out.stderr and "action 2" in out.stderr, out.stderr


def test_deal_option_on_a_deal_game_is_refused(tmp_path: Any) -> None:
    from sims.run import play_one
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "quintet", "players": 2, "deals": 1, "seed": 4,
                       "bots": ["quintet/greedy", "quintet/random"]})
    out = _cli(tmp_path, json.loads(json.dumps(play_one(spec, 0, 0).record())), "--deal", "1")
    assert out.returncode == 2 and "--deal needs a match game" in out.stderr and "quintet" in out.stderr
