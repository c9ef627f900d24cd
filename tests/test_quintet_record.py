"""Quintet deal records (Q-4): engine-made records replay, bad records name the rule, ``rasklad replay``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.protocol import IllegalAction, RulesError
from games.quintet import Rules, State
from games.quintet.match import play_deal
from games.quintet.record import replay

# Q-3 as the Q-4 record of the source's deal (A, the dealer, is seat 0).
EXAMPLE: dict[str, Any] = {
    "game": "quintet", "dealer": 0,
    "removed": ["8h", "7h", "9d", "Ts", "7s", "Qc", "Jc"],
    "layouts": [
        [["9s", "9c", "8s", "8c", "7c"], ["Ks", "Kd", "Kc", "Js", "Tc"], ["Qd", "Jd", "Td", "8d", "7d"],
         ["As", "Ac", "Ah", "Ad", "Qs"], ["Kh", "Qh", "Jh", "Th", "9h"]],
        [["As", "Ac", "Ah", "8d", "8c"], ["Ks", "Qs", "Js", "9s", "8s"], ["Kh", "Qh", "Jh", "Th", "9h"],
         ["Ad", "Kd", "Qd", "Jd", "Td"], ["7d", "7c", "Kc", "Tc", "9c"]],
    ],
    "outcome": {"scores": [7, 18], "winners": [1, 1, 1, 1, 0]},
}


def misprint() -> dict[str, Any]:
    rec = json.loads(json.dumps(EXAMPLE))
    rec["layouts"][1][4][4] = "8c"  # the source's literal text
    del rec["outcome"]
    return rec


def test_engine_records_replay_to_the_same_outcome() -> None:
    names = ["random", "greedy", "blotto", "equilibrium"]
    bots = [registry.make(f"quintet/{n}", {"k": 12} if n == "equilibrium" else {}) for n in names]
    rng = np.random.default_rng(21)
    for d in range(8):
        st = State.deal(Rules(), 2, d % 2, rng)
        play_deal(st, [bots[d % 4], bots[(d + 1) % 4]], rng)
        rec = json.loads(json.dumps(st.record()))  # through JSON, as a file would
        assert rec["format"] == "rasklad-record/1" and rec["version"] == 1 and rec["players"] == 2
        assert rec["game"] == "quintet" and rec["dealer"] == d % 2 and len(rec["deal"]["removed"]) == 7
        assert [a["seat"] for a in rec["actions"]] == [0, 1]
        assert [len(p) for a in rec["actions"] for p in a["layout"]] == [5] * 10
        assert replay(rec) == st.outcome()
        assert sum(st.scores()) == sum(p for p, w in zip((3, 4, 5, 6, 7), rec["outcome"]["winners"], strict=True)
                                       if w is not None)


def test_the_example_record_and_a_wrong_outcome() -> None:
    assert replay(EXAMPLE)["scores"] == [7, 18]
    wrong = {**EXAMPLE, "outcome": {"scores": [18, 7]}}
    with pytest.raises(IllegalAction, match=r"outcome scores is \[18, 7\].*\(Q-4\)"):
        replay(wrong)
    with pytest.raises(RulesError, match=r"Q-1\.4") as e:
        replay({**EXAMPLE, "rules": {"points": [1, 2, 3]}})
    assert e.value.field == "points"
    assert replay({**EXAMPLE, "rules": {"points": [1, 1, 1, 1, 10]}, "outcome": None})["scores"] == [10, 4]
    with pytest.raises(IllegalAction, match=r"action 1: the record ends before the deal does.*\(Q-4\)"):
        replay({**EXAMPLE, "layouts": EXAMPLE["layouts"][:1]})
    with pytest.raises(IllegalAction, match=r"removed card 9d is given twice.*Q-1\.2"):
        replay({**EXAMPLE, "removed": ["8h", "7h", "9d", "9d", "7s", "Qc", "Jc"]})


def rasklad(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, input=stdin,
                          timeout=120)


def test_cli_replay_example_exit_0_misprint_exit_2(tmp_path: Path) -> None:
    good = tmp_path / "q3.json"
    good.write_text(json.dumps(EXAMPLE))
    r = rasklad("replay", str(good))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["scores"] == [7, 18] and out["winners"] == [1, 1, 1, 1, 0]
    r = rasklad("replay", "-", stdin=json.dumps(misprint()))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "8c" in lines[0] and "(Q-1.3)" in lines[0] and lines[0].startswith("error: action 1:")
    r = rasklad("replay", "-", stdin='{"game": "quintet", "dealer": 0}')
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "(Q-4)" in r.stderr
