"""``rasklad stats categories`` with --jokers, --wild, --low (docs/rules/classic-poker.md CP-13)."""

from __future__ import annotations

import json
import subprocess
import sys


def rasklad(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, timeout=120)


def test_joker_wild_table_as_json() -> None:
    r = rasklad("stats", "categories", "--jokers", "1", "--wild", "jokers", "--ranking", "classic", "--cards", "5",
                "--exact", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["counts"]["five"] == 13 and out["counts"]["high"] == 1302540 and out["total"] == 2869685


def test_bug_and_low_tables() -> None:
    bug = json.loads(rasklad("stats", "categories", "--jokers", "1", "--wild", "bug", "--json").stdout)
    assert bug["counts"]["four"] == 828 and bug["counts"]["five"] == 1
    low = json.loads(rasklad("stats", "categories", "--low", "ace_to_five", "--json").stdout)
    assert low["counts"]["8-high"] == 35840 and low["counts"]["5-high"] == 1024


def test_sampled_wild_counts_are_seeded() -> None:
    args = ("stats", "categories", "--jokers", "2", "--wild", "deuces+jokers", "-k", "7", "--samples", "50000",
            "--seed", "3", "--json")
    a, b = rasklad(*args), rasklad(*args)
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout)["counts"] == json.loads(b.stdout)["counts"]
    assert sum(json.loads(a.stdout)["counts"].values()) == 50000


def test_bad_options_exit_2_with_one_line() -> None:
    for args, text in [(("--jokers", "1"), "need wild mode"), (("--wild", "sevens"), "unknown wild mode"),
                       (("--low", "ace_low"), "unknown low ranking"), (("--wild", "jokers", "-r", "quintet"),
                                                                         "need --ranking classic or short-deck"),
                       (("--jokers", "3", "--wild", "jokers"), "jokers must be 0, 1 or 2")]:
        r = rasklad("stats", "categories", *args)
        assert r.returncode == 2, args
        assert text in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
