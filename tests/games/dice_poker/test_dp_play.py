"""Dice Poker random playthroughs (every preset, seat count and option), views, copies, tables and the
job pipeline (``rasklad run``)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.replay import replay
from games.dice_poker.bots import GreedyBot, RandomBot
from games.dice_poker.rules import LINES, PRESET_OPTIONS, SEATS, Rules
from games.dice_poker.state import State

ENTRY = registry.game("dice-poker")
OPTION_SETS: list[dict[str, Any]] = [
    {"preset": "simple"}, {"preset": "simple", "tie_rule": "rethrow", "kickers": False},
    {"preset": "simple", "payout": "pairwise", "reroll_rule": "free"},
    {"preset": "full"}, {"preset": "full", "school_order": "fixed", "school_bonus": "both",
                         "first_throw_double": "except_chance", "payout": "pairwise"},
    {"preset": "mixed"}, {"preset": "mixed", "reroll_rule": "free", "poker_bonus": 0, "school_bonus": "minus",
                          "first_throw_double": "none"},
]


def play(st: State, bots: list[Any], rng: np.random.Generator) -> State:
    while not st.is_over():
        legal = st.legal_actions()
        assert legal, "no legal action before the end"
        seat = st.to_act()
        st.apply(bots[seat].act(st.view(seat), legal, rng))
    assert st.legal_actions() == [] and st.to_act() == -1
    return st


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_random_and_greedy_playthroughs_replay(options: dict[str, Any]) -> None:
    rules = ENTRY.rules(options)
    lo, hi = SEATS[rules.preset]
    rng = np.random.default_rng(11)
    for n, bot in itertools.product(range(lo, hi + 1), (RandomBot(), GreedyBot())):
        for dealer in range(min(n, 2)):
            st = play(ENTRY.deal(rules, n, dealer, rng), [bot] * n, rng)
            record = json.loads(json.dumps(st.record()))
            assert record["rules"] == {"preset": rules.preset, **{k: getattr(rules, k)
                                                                  for k in PRESET_OPTIONS[rules.preset]}}
            assert replay(record) == st.outcome()
            game = st.outcome()["games"][0]
            if rules.simple or rules.payout == "pairwise":
                assert sum(st.scores()) == 0
            if not rules.simple:
                assert len(game["turns"]) == 15 * n
                for sheet in game["sheets"]:
                    assert all(isinstance(sheet[line], int) for line in LINES)
                    assert sheet["total"] == sum(sheet[line] for line in LINES) + sheet["school_bonus"] + \
                        sheet["poker_bonus"]
            for turn in game["turns"]:
                assert 1 <= len(turn["throws"]) <= 3 and len(turn["masks"]) == len(turn["throws"]) - 1
                if rules.locked and len(turn["masks"]) == 2:
                    assert turn["masks"][1] & ~turn["masks"][0] == 0
            (dealer_row, values), = ENTRY.tables.deal_rows(st)
            assert dealer_row == dealer and len(values) == len(ENTRY.tables.deals)
            rows = ENTRY.tables.seat_rows(st)
            assert len(rows) == n and all(len(r) == len(ENTRY.tables.seats) for r in rows)
            assert [r[0] for r in rows] == st.scores()


def test_full_school_then_main() -> None:
    rng = np.random.default_rng(2)
    st = play(State.deal(Rules(preset="full"), 2, 0, rng), [RandomBot(), RandomBot()], rng)
    turns = st.outcome()["games"][0]["turns"]
    assert all((t["write"] in LINES[:6]) == (t["round"] <= 6) for t in turns)
    st = play(State.deal(Rules(preset="full", school_order="fixed"), 1, 0, rng), [RandomBot()], rng)
    assert [t["write"] for t in st.outcome()["games"][0]["turns"][:6]] == list(LINES[:6])


def test_copy_is_independent_and_views_show_everything() -> None:
    rng = np.random.default_rng(4)
    st = ENTRY.deal(ENTRY.rules({"preset": "mixed"}), 2, 0, rng)
    fresh = st.copy()
    play(st, [GreedyBot(), GreedyBot()], rng)
    assert not fresh.is_over() and fresh.dice == fresh.copy().dice
    again = play(fresh, [GreedyBot(), GreedyBot()], rng)
    assert again.outcome() == st.outcome()  # greedy is deterministic: the same dice, the same game
    view = st.view(1)
    assert len(view["sheets"]) == 2  # DP-1.4: every sheet is visible


def test_greedy_beats_random_in_full() -> None:
    rng = np.random.default_rng(8)
    rules = Rules(preset="full")
    g = [play(State.deal(rules, 1, 0, rng), [GreedyBot()], rng).scores()[0] for _ in range(40)]
    r = [play(State.deal(rules, 1, 0, rng), [RandomBot()], rng).scores()[0] for _ in range(40)]
    assert np.mean(g) > np.mean(r) + 50


@pytest.mark.parametrize("example", sorted(p.name for p in (Path(__file__).resolve().parents[3] / "examples")
                                           .glob("dice-poker-*.yaml")))
def test_examples_validate(example: str) -> None:
    import yaml

    from sims.spec import parse_spec

    root = Path(__file__).resolve().parents[3]
    spec = parse_spec(yaml.safe_load((root / "examples" / example).read_text()))
    assert spec.game == "dice-poker"


def test_rasklad_run_dice_poker(tmp_path: Path) -> None:
    spec = {"kind": "tournament", "game": "dice-poker", "rules": {"preset": "full"}, "players": 2,
            "bots": [{"name": "dice-poker/greedy"}, {"name": "dice-poker/random"}],
            "deals": 20, "shard_deals": 10, "seating": "duplicate", "seed": 5, "record": "full"}
    path = tmp_path / "dp.json"
    path.write_text(json.dumps(spec))
    r = subprocess.run([sys.executable, "-m", "rasklad", "run", str(path), "--data", str(tmp_path / "d"),
                        "--workers", "1", "--quiet"], capture_output=True, text=True, timeout=300, env={**os.environ})
    assert r.returncode == 0, r.stderr
    assert "dice-poker/greedy" in r.stdout
    import pyarrow.parquet as pq

    (job,) = list((tmp_path / "d" / "jobs").iterdir())
    seats = [row for f in sorted((job / "seats").glob("shard-*.parquet")) for row in pq.read_table(f).to_pylist()]
    assert len(seats) == 20 * 2 * 2
    greedy = np.mean([s["score"] for s in seats if s["bot"] == "dice-poker/greedy"])
    rand = np.mean([s["score"] for s in seats if s["bot"] == "dice-poker/random"])
    assert greedy > rand
    records = [row for f in sorted((job / "records").glob("shard-*.parquet")) for row in pq.read_table(f).to_pylist()]
    for row in records[:5]:
        replay(json.loads(row["record"]))
