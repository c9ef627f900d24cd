"""``rasklad replay --steps [--seat S]`` (GameEntry.playthrough) for all eight games.

For a randomly played record of each game: the deal section (between ``deal:`` and ``actions:``) lists
exactly the cards the record deals before the first action (every seat's hand, the robot's, the talon;
the notes of liar's poker, the first throw of dice poker; blackjack deals only after the bets, so none),
and with ``--seat S`` no card of another seat's hand appears in it and no line of another seat's own
(``seat T ...``) appears anywhere. The CLI takes ``--seat`` with ``--steps`` only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from games.core import registry, replay
from rasklad.cli import app

CARD = re.compile(r"(?<![\w?])(?:[2-9TJQKA][cdhs]|Jk2?)(?![\w])")
GAMES = ("order-poker", "quintet", "raspisnoy", "preferans", "classic-poker", "blackjack", "dice-poker",
         "liars-poker")


def _record(name: str, seed: int = 1) -> dict[str, Any]:
    e = registry.game(name)
    rules = e.rules_class()
    players = 2 if name in ("quintet", "dice-poker", "raspisnoy", "liars-poker", "classic-poker") else 3
    st = e.deal(rules, players, 0, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while not st.is_over():
        legal = st.legal_actions()
        st.apply(legal.sample(rng) if hasattr(legal, "sample") else legal[int(rng.integers(len(legal)))])
    return st.record()


def _deal_section(lines: list[str]) -> list[str]:
    return lines[lines.index("deal:") + 1:lines.index("actions:")]


def _hands(name: str, record: dict[str, Any]) -> list[list[str]]:
    """Each seat's cards as dealt before the first action, from the record's chance stub."""
    deal, n = record["deal"], record["players"]
    if name == "order-poker":
        return [list(h) for h in deal["hands"]]
    if name == "preferans":
        return [list(h) for h in deal[0]["hands"]]
    if name == "raspisnoy":  # the first deal of the schedule: one card each
        return [[c] for c in deal[0]["deck"][:n]]
    if name == "classic-poker":  # five cards each, one at a time from the dealer's left (CP-11.3)
        order, first = deal["deck_order"][:5 * n], (record["dealer"] + 1) % n
        return [order[(s - first) % n::n] for s in range(n)]
    return [[] for _ in range(n)]


def _dealt(name: str, record: dict[str, Any]) -> set[str]:
    deal = record["deal"]
    cards = {c for h in _hands(name, record) for c in h}
    if name == "order-poker":
        cards |= set(deal["robot"])
    if name == "preferans":
        cards |= set(deal[0]["talon"])
    if name == "quintet":  # both seats hold the 25 cards not removed from the 32
        cards = {r + s for r in "789TJQKA" for s in "cdhs"}
    return cards


@pytest.mark.parametrize("name", GAMES)
def test_deal_section_lists_exactly_the_dealt_cards(name: str) -> None:
    record = _record(name)
    lines = list(replay.steps(record))
    shown = set(CARD.findall("\n".join(_deal_section(lines))))
    assert shown == _dealt(name, record)
    text = "\n".join(_deal_section(lines))
    if name == "liars-poker":
        for note in record["deal"][0]:
            assert note in text
    if name == "dice-poker":
        assert "dice: " + " ".join(str(d) for d in record["deal"][0][:5]) in text
    assert lines[-1].startswith("scores: ")


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_sees_no_other_seats_hand(name: str) -> None:
    record = _record(name, seed=5)
    hands = _hands(name, record)
    for seat in range(record["players"]):
        lines = list(replay.steps(record, seat))
        assert lines[1] == f"as seat {seat} sees it"
        shown = set(CARD.findall("\n".join(_deal_section(lines))))
        for other, hand in enumerate(hands):
            if other != seat:
                assert not shown & set(hand), (seat, other)
                # what a playthrough shows is indented 7; action lines start with their number
                assert not any(line.startswith(" " * 7 + f"seat {other} ") for line in lines), (seat, other)
        if name == "preferans":  # the talon lies face down at the deal
            assert not shown & set(record["deal"][0]["talon"])
        assert not any("unseen" in line for line in lines)


def test_cli_seat_goes_with_steps(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_record("order-poker")), encoding="utf-8")
    runner = CliRunner()
    ok = runner.invoke(app, ["replay", str(path), "--steps", "--seat", "1"])
    assert ok.exit_code == 0 and "as seat 1 sees it" in ok.output and "seat 1 hand:" in ok.output
    assert "seat 0 hand:" not in ok.output
    bad = runner.invoke(app, ["replay", str(path), "--seat", "1"])
    assert bad.exit_code == 2
    out_of_range = runner.invoke(app, ["replay", str(path), "--steps", "--seat", "7"])
    assert out_of_range.exit_code == 2
