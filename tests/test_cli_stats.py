"""``rasklad stats`` through the real console entry point (a subprocess per call)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def rasklad(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, timeout=120)


def test_categories_json_exact_order_poker() -> None:
    # OP-2 lists the exact counts of 5-card hands on 36 cards.
    r = rasklad("stats", "categories", "--ranking", "order-poker", "--cards", "5", "--exact", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ranking"] == "order-poker" and out["cards"] == 5 and out["total"] == 376992
    assert out["counts"] == {"none": 123420, "pair": 193536, "two_pair": 36288, "three": 16128, "straight": 5100,
                             "full_house": 1728, "flush": 484, "four": 288, "straight_flush": 20}


def test_categories_dead_cards_json() -> None:
    r = rasklad("stats", "categories", "-r", "classic", "-k", "5", "--dead", "As Kd", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["total"] == 2118760  # C(50, 5)
    assert out["dead"] == ["As", "Kd"]


def test_categories_sampled_is_deterministic() -> None:
    args = ("stats", "categories", "-r", "quintet", "-k", "5", "--samples", "20000", "--seed", "7", "--json")
    a, b = rasklad(*args), rasklad(*args)
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)
    assert json.loads(a.stdout)["total"] == 20000
    c = rasklad("stats", "categories", "-r", "quintet", "-k", "5", "--samples", "20000", "--seed", "8", "--json")
    assert json.loads(c.stdout)["counts"] != json.loads(a.stdout)["counts"]


def test_table_output_lists_every_category() -> None:
    r = rasklad("stats", "categories", "-r", "short-deck", "-k", "5")
    assert r.returncode == 0, r.stderr
    for name in ("straight_flush", "four", "flush", "full_house", "three", "straight", "two_pair", "pair", "high"):
        assert name in r.stdout


def test_rank_order_flags_36_card_classic() -> None:
    # Seed 003: on 36 cards a flush (484 hands) is rarer than a full house (1,728).
    r = rasklad("stats", "rank-order", "-r", "classic", "-k", "5", "--deck", "36", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert ["full_house", "flush"] in out["against_rarity"]
    assert out["rarity_order"][:3] == ["straight_flush", "four", "flush"]


def test_rank_order_classic_7_cards() -> None:
    # Best five of seven: high card (23,294,460) is rarer than pair and two pair.
    r = rasklad("stats", "rank-order", "-r", "classic", "-k", "7", "--json")
    out = json.loads(r.stdout)
    assert sorted(map(tuple, out["against_rarity"])) == [("pair", "high"), ("two_pair", "high")]


def test_short_deck_agrees_with_rarity_on_flush() -> None:
    r = rasklad("stats", "rank-order", "-r", "short-deck", "-k", "5", "--json")
    out = json.loads(r.stdout)
    assert ["flush", "full_house"] not in out["against_rarity"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--ranking", "nope"), "unknown ranking 'nope'"),
        (("--cards", "4"), "cards must be 5, 6 or 7"),
        (("--dead", "As As"), "dead card As is given twice"),
        (("--dead", "Zz"), "unknown card 'Zz'"),
        (("-r", "order-poker", "--dead", "2c"), "dead card 2c is not in the 36-card deck"),
        (("--samples", "10"), "--samples needs --seed"),
        (("--exact", "--samples", "10", "--seed", "1"), "--exact and --samples exclude each other"),
        (("--samples", "0", "--seed", "1"), "--samples must be > 0"),
        (("-r", "order-poker", "--deck", "52"), "defined on the 36-card deck"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: tuple[str, ...], needle: str) -> None:
    r = rasklad("stats", "categories", *args)
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert needle in lines[0]
