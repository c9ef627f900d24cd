"""Preferans records that stop early or list an action under the wrong deal, through the generic replay:
PF-15 names no rule of the action due, so these stay faults of the record (PF-15.3), as the independent
referee reports them; Preferans declares no ``rule_due`` or ``rule_after_end`` and keeps per-deal
indices (PF-15.7). Pinned so that the generic changes of issue 29 leave Preferans as it agrees today."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.core import replay
from games.core.cards import parse_cards
from games.core.protocol import IllegalAction
from games.preferans.entry import ENTRY
from games.preferans.rules import SOCHI
from games.preferans.state import State

DECK = ["Ks", "7d", "Ad", "Ac", "Qd", "8h", "Th", "7h", "7c", "Qc", "9h", "8s", "8d", "Jc", "9s", "Ah",
        "Js", "Tc", "9d", "Ts", "Kd", "8c", "7s", "9c", "Qh", "Qs", "Td", "As", "Jh", "Kc", "Kh", "Jd"]
AUCTION = [[1, "pass"], [2, "bid:6s"], [0, "bid:6c"], [2, "hold"], [0, "pass"]]


def _record() -> dict[str, Any]:
    """The PF-15.8 deck as deal 0, and again as deal 1 (dealt by seat 1; ``hands``/``talon`` left out)."""
    rec: dict[str, Any] = json.loads(json.dumps(State(SOCHI, 3, 0, [parse_cards(DECK)] * 4).record()))
    rec["deal"] = [*rec["deal"][:1], {"deal_index": 1, "phase": "main", "dealer": 1, "deck": DECK}]
    return rec


def _fault(rec: dict[str, Any]) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        replay.replay(rec)
    return e.value


def test_the_entry_declares_per_deal_indices_and_no_rule_of_the_action_due() -> None:
    assert ENTRY.action_index == "deal" and ENTRY.rule_due is None and ENTRY.rule_after_end is None


def test_a_record_that_stops_in_a_deal_is_pf_15_3_without_index() -> None:
    rec = _record()
    rec["actions"] = [AUCTION]
    e = _fault(rec)
    assert (e.rule, e.index, e.deal) == ("PF-15.3", None, None)
    assert str(e).startswith("the record ends before the match does")


def test_an_action_listed_under_the_next_deal_is_pf_15_3_at_its_own_index() -> None:
    rec = _record()
    rec["actions"] = [AUCTION, [[1, "pass"]]]
    e = _fault(rec)
    assert (e.rule, e.index, e.deal) == ("PF-15.3", 0, 1)
