"""Quintet tournaments through the job pipeline: ``rasklad run`` with 1 and 2 workers, tables, records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from games.core import registry
from games.quintet.record import replay
from sims.spec import SpecError, parse_spec
from sims.tables import deals_schema, seats_schema

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "quintet", "players": 2,
    "bots": [{"name": "quintet/equilibrium", "params": {"k": 8}},
             {"name": "quintet/blotto", "params": {"sacrifice": "random"}}],
    "deals": 12, "shard_deals": 4, "seating": "duplicate", "seed": 77, "record": "full",
}


def rasklad(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ})


def read(root: Path, table: str) -> pa.Table:
    (job,) = list((root / "jobs").iterdir())
    files = sorted((job / table).glob("shard-*.parquet"))
    assert len(files) == 3
    return pa.concat_tables([pq.read_table(f) for f in files])


def test_rasklad_run_quintet_gives_identical_rows_with_1_and_2_workers(tmp_path: Path) -> None:
    spec = tmp_path / "q.json"
    spec.write_text(json.dumps(SPEC))
    for workers in ("1", "2"):
        r = rasklad("run", str(spec), "--data", str(tmp_path / workers), "--workers", workers, "--quiet")
        assert r.returncode == 0, r.stderr
        assert "quintet/equilibrium" in r.stdout and "quintet/blotto" in r.stdout
    tables = {}
    for name, keys in (("deals", ("deal", "rotation")), ("seats", ("deal", "rotation", "seat")),
                       ("records", ("deal", "rotation"))):
        one, two = read(tmp_path / "1", name), read(tmp_path / "2", name)
        rows = sorted(one.to_pylist(), key=lambda r: tuple(r[k] for k in keys))
        assert rows == sorted(two.to_pylist(), key=lambda r: tuple(r[k] for k in keys))
        tables[name] = one
    q = registry.game("quintet")
    assert tables["deals"].schema == deals_schema(q) and tables["seats"].schema == seats_schema(q)
    assert tables["deals"].schema.names == ["deal", "rotation", "dealer", "seating", "removed", "winners", "ties"]
    assert tables["seats"].schema.names == ["deal", "rotation", "seat", "bot_index", "bot", "score", "adjusted_score",
                                            "margin", "won", "categories", "layout", "remote_faults"]
    deals, seats = tables["deals"].to_pylist(), tables["seats"].to_pylist()
    assert len(deals) == 12 * 2 and len(seats) == 12 * 2 * 2  # two seat rotations, two seats
    for d in deals:
        # Both rotations of a deal: same removed cards and dealer (Q-1.5: alternating), seats swapped.
        assert d["dealer"] == d["deal"] % 2
        assert d["seating"] == ([0, 1] if d["rotation"] == 0 else [1, 0])
        assert d["ties"] == sum(w is None for w in d["winners"])
    by_key = {(d["deal"], d["rotation"]): d for d in deals}
    for deal in range(12):
        assert by_key[(deal, 0)]["removed"] == by_key[(deal, 1)]["removed"]
    by_seat = {(s["deal"], s["rotation"], s["seat"]): s for s in seats}
    for s in seats:
        other = by_seat[(s["deal"], s["rotation"], 1 - s["seat"])]
        assert s["margin"] == s["score"] - other["score"] and s["score"] + other["score"] <= 25
        assert s["bot_index"] == by_key[(s["deal"], s["rotation"])]["seating"][s["seat"]]
        assert s["won"] == sum(w == s["seat"] for w in by_key[(s["deal"], s["rotation"])]["winners"])
    for row in tables["records"].to_pylist():  # the stored engine records replay to their outcome
        rec = json.loads(row["record"])
        out = replay(rec)
        assert out == rec["outcome"]
        seat0 = by_seat[(row["deal"], row["rotation"], 0)]
        assert out["scores"][0] == seat0["score"] and out["categories"][0] == seat0["categories"]


def test_quintet_specs_are_checked() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec({**SPEC, "players": 3, "bots": [*SPEC["bots"], "quintet/random"]})
    assert e.value.errors[0] == ("players", "quintet is played by 2 players")
    with pytest.raises(SpecError) as e:
        parse_spec({**SPEC, "bots": ["quintet/random", "order-poker/random"]})
    assert e.value.errors[0][0] == "bots[1].name"
    with pytest.raises(SpecError) as e:
        parse_spec({**SPEC, "rules": {"points": [1, 2]}})
    assert e.value.errors[0][0] == "rules.points"
    with pytest.raises(SpecError) as e:
        parse_spec({**SPEC, "bots": ["quintet/random", {"name": "quintet/equilibrium", "params": {"k": 1}}]})
    assert e.value.errors[0][0] == "bots[1].params.k"
