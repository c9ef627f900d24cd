"""The platform's commands: ``rasklad games``, ``rasklad bots``, ``rasklad record`` and ``replay --steps``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from games.core import registry
from rasklad.cli import app


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def rasklad(*args: str, data: Path | None = None) -> Result:
    """The command run in this process (the console entry point is tested once, below)."""
    extra = ["--data", str(data)] if data is not None else []
    r = CliRunner().invoke(app, [*args, *extra])
    return Result(r.exit_code, r.stdout, r.stderr)


def test_the_console_entry_point_runs_the_platform_commands() -> None:
    r = subprocess.run([sys.executable, "-m", "rasklad", "games", "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and {g["name"] for g in json.loads(r.stdout)["games"]} == set(registry.games())


def test_games_json_lists_every_registered_game_with_seats_presets_and_columns() -> None:
    r = rasklad("games", "--json")
    assert r.returncode == 0, r.stderr
    games = {g["name"]: g for g in json.loads(r.stdout)["games"]}
    assert set(games) == set(registry.games())
    op = games["order-poker"]
    assert op["players"] == {"min": 3, "max": 6} and op["unit"] == "deal" and op["version"] == 1
    assert op["rules_doc"] == "docs/rules/order-poker.md" and "default" in op["presets"]
    assert [c["name"] for c in op["tables"]["seats"]] == ["role", "combination", "fulfilled", "score"]
    assert {o["name"]: o["allowed"] for o in op["options"]}["against_half_min"] == ["pair", "two_pair"]
    assert games["quintet"]["players"] == {"min": 2, "max": 2}
    assert op["players_by_preset"] == {"default": {"min": 3, "max": 6}}
    table = rasklad("games")
    assert table.returncode == 0 and "order-poker" in table.stdout and "3-6" in table.stdout


def test_bots_json_gives_parameter_types_defaults_and_allowed_values() -> None:
    r = rasklad("bots", "order-poker", "--json")
    assert r.returncode == 0, r.stderr
    bots = {b["name"]: b for b in json.loads(r.stdout)["bots"]}
    own = {n for n in bots if n.startswith("order-poker/")}
    assert own == {"order-poker/random", "order-poker/heuristic", "order-poker/montecarlo"}
    # the others are game-generic bots that play order-poker too (openspiel/ismcts with open_spiel installed)
    assert all(bots[n]["games"] == ["order-poker"] for n in bots)
    pass_prob = bots["order-poker/random"]["params_schema"]["properties"]["pass_prob"]
    assert pass_prob["default"] == 0.6 and pass_prob["minimum"] == 0 and pass_prob["maximum"] == 1
    text = rasklad("bots", "order-poker")
    assert text.returncode == 0 and "pass_prob" in text.stdout and "0..1" in text.stdout
    bad = rasklad("bots", "chess")
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: unknown game 'chess'")


def _run(tmp_path: Path, record: str, game: str = "order-poker") -> str:
    spec: dict[str, Any] = {"kind": "tournament", "game": "order-poker", "players": 3, "deals": 6, "shard_deals": 4,
                            "seed": 11, "record": record,
                            "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]}
    if game == "quintet":
        spec.update(game="quintet", players=2, bots=["quintet/greedy", "quintet/random"])
    f = tmp_path / f"{game}-{record}.json"
    f.write_text(json.dumps(spec))
    r = rasklad("run", str(f), data=tmp_path / "data")
    assert r.returncode == 0, r.stderr
    jobs = sorted(p.name for p in (tmp_path / "data" / "jobs").iterdir())
    return jobs[-1] if len(jobs) == 1 else next(j for j in jobs if json.loads(
        (tmp_path / "data" / "jobs" / j / "spec.json").read_text())["record"] == record
        and json.loads((tmp_path / "data" / "jobs" / j / "spec.json").read_text())["game"] == game)


@pytest.mark.parametrize("game", ["order-poker", "quintet"])
def test_record_of_a_summary_job_equals_the_stored_record_of_a_full_job(tmp_path: Path, game: str) -> None:
    """A summary job keeps no records: ``rasklad record`` plays the deal again, as its shard did."""
    full, summary = _run(tmp_path, "full", game), _run(tmp_path, "summary", game)
    for deal, rotation in ((0, 0), (5, 1), (4, 0)):
        a = rasklad("record", full, str(deal), "--rotation", str(rotation), data=tmp_path / "data")
        b = rasklad("record", summary, str(deal), "-r", str(rotation), data=tmp_path / "data")
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        rec = json.loads(a.stdout)
        assert rec == json.loads(b.stdout)
        assert rec["format"] == "rasklad-record/1" and rec["game"] == game
        # The record's scores are the seats rows of that deal and rotation.
        q = rasklad("query", full, f"SELECT score FROM seats WHERE deal = {deal} AND rotation = {rotation} "
                                   "ORDER BY seat", "--format", "json", data=tmp_path / "data")
        assert [row["score"] for row in json.loads(q.stdout)] == rec["outcome"]["scores"]
    # sum() of integers is a DuckDB HUGEINT: the JSON output still writes it as a number.
    total = rasklad("query", full, "SELECT sum(score) AS s FROM seats", "--format", "json", data=tmp_path / "data")
    assert isinstance(json.loads(total.stdout)[0]["s"], int), total.stdout
    out = tmp_path / "r.json"
    w = rasklad("record", summary, "2", "-o", str(out), data=tmp_path / "data")
    assert w.returncode == 0 and json.loads(out.read_text())["format"] == "rasklad-record/1"
    replayed = rasklad("replay", str(out))
    assert replayed.returncode == 0 and json.loads(replayed.stdout) == json.loads(out.read_text())["outcome"]
    for bad, why in ((["99"], "deal 99 does not exist"), (["1", "--rotation", "7"], "rotation 7 does not exist")):
        r = rasklad("record", summary, *bad, data=tmp_path / "data")
        assert r.returncode == 2 and why in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_replay_steps_prints_a_playthrough_in_the_rules_words(tmp_path: Path) -> None:
    job = _run(tmp_path, "summary")
    rec = json.loads(rasklad("record", job, "3", data=tmp_path / "data").stdout)
    f = tmp_path / "deal.json"
    f.write_text(json.dumps(rec))
    r = rasklad("replay", "--steps", str(f))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("Order Poker — 3 players")
    # A header, the deal as dealt, one numbered line per action (each followed by what it changed), the scores.
    assert "deal:" in lines and "actions:" in lines
    acts = [line for line in lines if re.match(r"\s*\d+ ", line)]
    assert len(acts) == len(rec["actions"])
    assert lines[-1] == f"scores: {rec['outcome']['scores']}"
    first = rec["actions"][0]
    assert f"seat {first['seat']}" in acts[0] and ("passes" in acts[0] or "orders" in acts[0])
    # An illegal record: the playthrough stops with exit 2 and the action's index and rule.
    bad = {**rec, "actions": [{**rec["actions"][0], "seat": (rec["actions"][0]["seat"] + 1) % 3}]}
    f.write_text(json.dumps(bad))
    r = rasklad("replay", "--steps", str(f))
    assert r.returncode == 2 and r.stderr.strip().startswith("error: action 0: ") and "(OP-3.1)" in r.stderr
