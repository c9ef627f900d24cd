"""The toy games through every layer of the command line, with no edit outside ``tests/toygames``.

Real ``rasklad`` processes with ``RASKLAD_GAME_MODULES`` naming the toy modules (``tests/`` on
``PYTHONPATH``): the catalogue lists them, ``run`` writes their Parquet tables with the common keys
and the games' own columns, ``query`` reads them, ``record`` gives any deal's record, ``replay``
checks it (an edited illegal record exits 2 naming the action and the rule), and duplicate seating
replays whole matches. One test registers a toy through the ``rasklad.games`` entry-point group.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TOYS = "toygames.draw,toygames.match"

DRAW_SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "toy-draw", "players": 3, "rules": {"preset": "long"},
    "bots": ["toy-draw/random", "toy-draw/threshold", {"name": "toy-draw/threshold", "params": {"stand_at": "Q"}}],
    "deals": 60, "shard_deals": 20, "seed": 5,
}
MATCH_SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "toy-match", "players": 3,
    "bots": ["toy-match/random", "toy-match/threshold", {"name": "toy-match/threshold", "params": {"bid_at": 2}}],
    "deals": 40, "shard_deals": 10, "seed": 6,
}


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RASKLAD_")}
    return {**env, "PYTHONPATH": str(TESTS), "RASKLAD_GAME_MODULES": TOYS, "RASKLAD_DATA": str(data), **extra}


def rasklad(env: dict[str, str], *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "rasklad", *args], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == code, f"rasklad {' '.join(args)} exited {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out


def _table(job_dir: Path, name: str) -> pa.Table:
    return pa.concat_tables([pq.read_table(f) for f in sorted((job_dir / name).glob("shard-*.parquet"))])


class Jobs:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.data = tmp / "data"
        self.env = _env(self.data)
        self.ids: dict[str, str] = {}

    def run(self, name: str, spec: dict[str, Any], *args: str) -> str:
        path = self.tmp / f"{name}.json"
        path.write_text(json.dumps(spec))
        out = rasklad(self.env, "run", str(path), "--quiet", *args)
        m = re.search(r"job (j-[0-9a-f]+): succeeded", out.stdout)
        assert m, out.stdout
        self.ids[name] = m.group(1)
        return m.group(1)

    def dir(self, name: str) -> Path:
        return self.data / "jobs" / self.ids[name]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Jobs:
    j = Jobs(tmp_path_factory.mktemp("toys"))
    j.run("draw", DRAW_SPEC)
    j.run("match", MATCH_SPEC, "--workers", "2")  # pool processes find the toys through the environment
    return j


def test_games_and_bots_list_the_toys(tmp_path: Path) -> None:
    env = _env(tmp_path)
    games = {g["name"]: g for g in json.loads(rasklad(env, "games", "--json").stdout)["games"]}
    assert {"toy-draw", "toy-match", "order-poker", "quintet"} <= set(games)
    assert games["toy-match"]["unit"] == "match" and games["toy-draw"]["unit"] == "deal"
    assert games["toy-draw"]["players"] == {"min": 2, "max": 4}
    assert set(games["toy-draw"]["presets"]) == {"default", "long"}
    assert [c["name"] for c in games["toy-match"]["tables"]["deals"]] == ["winner", "bidders", "high"]
    bots = {b["name"]: b for b in json.loads(rasklad(env, "bots", "toy-draw", "--json").stdout)["bots"]}
    assert set(bots) == {"toy-draw/random", "toy-draw/threshold"}
    assert bots["toy-draw/threshold"]["params_schema"]["properties"]["stand_at"]["default"] == "K"


def test_run_writes_the_common_keys_and_the_games_columns(jobs: Jobs) -> None:
    deals, seats = _table(jobs.dir("draw"), "deals"), _table(jobs.dir("draw"), "seats")
    assert deals.column_names == ["deal", "rotation", "dealer", "seating", "winner", "draws", "top"]
    # score and adjusted_score (docs/statistics.md), the game's own columns, remote_faults (docs/remote-bots.md)
    assert seats.column_names == ["deal", "rotation", "seat", "bot_index", "bot", "score", "adjusted_score", "won",
                                  "drew", "card", "remote_faults"]
    assert deals.num_rows == 60 * 3 and seats.num_rows == 60 * 3 * 3
    assert str(seats.schema.field("won").type) == "bool" and str(deals.schema.field("winner").type) == "int8"
    mdeals, mseats = _table(jobs.dir("match"), "deals"), _table(jobs.dir("match"), "seats")
    assert mdeals.column_names == ["deal", "rotation", "deal_no", "dealer", "seating", "winner", "bidders", "high"]
    assert mseats.column_names == ["deal", "rotation", "seat", "bot_index", "bot", "score", "adjusted_score", "bids",
                                   "won", "remote_faults"]
    assert mdeals.num_rows == 40 * 3 * 3 and mseats.num_rows == 40 * 3 * 3  # matches x rotations x (deals | seats)


def test_query_reads_the_toy_tables(jobs: Jobs) -> None:
    # DuckDB sums int32 into a 128-bit integer, which `-f json` writes as a string: cast it.
    sql = ("SELECT rotation, CAST(sum(score) AS BIGINT) AS total, count(*) AS n FROM seats "
           "GROUP BY rotation ORDER BY rotation")
    rows = json.loads(rasklad(jobs.env, "query", jobs.ids["match"], sql, "-f", "json").stdout)
    assert rows == [{"rotation": r, "total": 0, "n": 120} for r in range(3)]  # zero-sum matches (TOYM-4)
    sql = "SELECT deal_no, count(*) AS n FROM deals GROUP BY deal_no ORDER BY deal_no"
    rows = json.loads(rasklad(jobs.env, "query", jobs.ids["match"], sql, "-f", "json").stdout)
    assert rows == [{"deal_no": k, "n": 120} for k in range(3)]


def _record(jobs: Jobs, name: str, deal: int, rotation: int) -> tuple[Path, dict[str, Any]]:
    path = jobs.tmp / f"{name}-{deal}-{rotation}.json"
    rasklad(jobs.env, "record", jobs.ids[name], str(deal), "--rotation", str(rotation), "-o", str(path))
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("name", ["draw", "match"])
def test_record_replays_and_matches_the_rows(jobs: Jobs, name: str) -> None:
    path, rec = _record(jobs, name, 17, 2)
    out = json.loads(rasklad(jobs.env, "replay", str(path)).stdout)
    assert out == rec["outcome"]
    seats = _table(jobs.dir(name), "seats").to_pylist()
    assert [r["score"] for r in sorted((r for r in seats if r["deal"] == 17 and r["rotation"] == 2),
                                        key=lambda r: r["seat"])] == out["scores"]
    steps = rasklad(jobs.env, "replay", "--steps", str(path)).stdout.splitlines()
    flat = [a for acts in rec["actions"] for a in acts] if name == "match" else rec["actions"]
    # A title, the deal section (empty: the toys declare no playthrough), one line per action, the scores.
    assert steps[1:3] == ["deal:", "actions:"] and steps[-1] == f"scores: {out['scores']}"
    acts = steps[3:-1]
    assert len(acts) == len(flat) and all(line.strip()[:1].isdigit() for line in acts)
    assert "(TOYD-2)" in acts[0] or "(TOYM-2)" in acts[0]


def test_an_illegal_record_exits_2_naming_the_action_and_rule(jobs: Jobs) -> None:
    path, rec = _record(jobs, "draw", 3, 0)
    # Under the long preset a player draws at most twice (TOYD-3): make every action a draw.
    for a in rec["actions"]:
        a["action"] = "draw"
    path.write_text(json.dumps(rec))
    err = rasklad(jobs.env, "replay", str(path), code=2).stderr.strip()
    assert re.fullmatch(r"error: action 6: seat \d has drawn 2 times already, the most the rules allow \(TOYD-3\)",
                        err), err
    path, rec = _record(jobs, "match", 3, 0)
    rec["actions"][1][0]["action"] = "raise"
    path.write_text(json.dumps(rec))
    err = rasklad(jobs.env, "replay", str(path), code=2).stderr.strip()
    assert err == "error: deal 1, action 0: an action is 'bid' or 'pass', not 'raise' (TOYM-2)", err


def test_duplicate_seating_rotates_whole_matches(jobs: Jobs) -> None:
    deal = 9
    recs = [_record(jobs, "match", deal, r)[1] for r in range(3)]
    assert all(r["deal"] == recs[0]["deal"] and r["dealer"] == recs[0]["dealer"] for r in recs)  # every die
    assert len(recs[0]["deal"]) == 3 and all(len(r["actions"]) == 3 for r in recs)
    deals = [r for r in _table(jobs.dir("match"), "deals").to_pylist() if r["deal"] == deal]
    for r in range(3):
        mine = sorted((x for x in deals if x["rotation"] == r), key=lambda x: x["deal_no"])
        assert [x["dealer"] for x in mine] == [(deal + k) % 3 for k in range(3)]  # TOYM-1, same each rotation
        assert all(x["seating"] == [(s + r) % 3 for s in range(3)] for x in mine)


def test_a_game_installed_as_an_entry_point_is_found(tmp_path: Path) -> None:
    """A distribution's ``rasklad.games`` entry point is all the registry needs (no RASKLAD_GAME_MODULES)."""
    dist = tmp_path / "site" / "rasklad_toy_draw-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: rasklad-toy-draw\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[rasklad.games]\ntoy-draw = toygames.draw:ENTRY\n")
    env = _env(tmp_path / "data", PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(TESTS)]))
    del env["RASKLAD_GAME_MODULES"]
    names = [g["name"] for g in json.loads(rasklad(env, "games", "--json").stdout)["games"]]
    assert "toy-draw" in names and "toy-match" not in names
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({**DRAW_SPEC, "deals": 6, "shard_deals": None}))
    assert "succeeded" in rasklad(env, "run", str(spec), "--quiet").stdout
