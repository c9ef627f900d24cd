"""Every problem of a spec at once, each with its field (issue 34 §4): a spec whose ``deals`` and ``seed``
fail pydantic's checks still gets its game checks (an unknown bot), and ``rasklad run`` prints each
problem on its own line, exit code 2. (The API's 422 lists them too: tests/web/test_web_layout.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sims.spec import SpecError, parse_spec

THREE = {"kind": "tournament", "game": "order-poker", "players": 3, "deals": 0, "seed": -1,
         "bots": ["order-poker/heuristic", "order-poker/nosuchbot", "order-poker/random"]}
ROOT = Path(__file__).resolve().parent.parent


def test_a_spec_with_three_errors_reports_three() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec(THREE)
    assert [f for f, _m in e.value.errors] == ["deals", "seed", "bots[1].name"]
    assert "unknown bot 'order-poker/nosuchbot'" in e.value.errors[2][1]


def test_a_malformed_game_field_skips_the_game_checks_and_stand_ins_are_not_reported() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec({**THREE, "players": "three"})
    assert [f for f, _m in e.value.errors] == ["players", "deals", "seed"]  # no game check without players
    with pytest.raises(SpecError) as e:
        parse_spec({**THREE, "bots": ["order-poker/random"] * 3, "seating": "sideways"})
    assert [f for f, _m in e.value.errors] == ["deals", "seating", "seed"]


def test_rasklad_run_prints_each_problem_on_its_own_line(tmp_path: Path) -> None:
    spec = tmp_path / "bad.json"
    spec.write_text(json.dumps(THREE))
    p = subprocess.run([sys.executable, "-m", "rasklad", "run", str(spec), "--data", str(tmp_path / "d")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.splitlines()
    assert lines[0] == f"error: {spec}: 3 problems"
    assert [ln.split(":")[0].strip() for ln in lines[1:]] == ["deals", "seed", "bots[1].name"]
    assert lines[1] == "  deals: must be > 0"
