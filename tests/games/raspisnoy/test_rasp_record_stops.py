"""Raspisnoy match records whose actions stop before the match is over, through the generic replay
(``rasklad replay``): R-8.7 puts a deal that stops before its last trick among the deal's checks and
R-8.3 reports it as R-4.1 one past the deal's last action, in that deal, with an outcome or without."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rasp_helpers import random_match

from games.core import replay
from games.core.protocol import IllegalAction
from games.raspisnoy.record import replay_deal
from games.raspisnoy.rules import ODESSA


def _match() -> dict[str, Any]:
    rec: dict[str, Any] = json.loads(json.dumps(random_match(ODESSA, 3, 8).record()))
    return rec


MATCH = _match()


def fault(rec: dict[str, Any]) -> tuple[str, int | None, int | None]:
    with pytest.raises(IllegalAction) as e:
        replay.replay(rec)
    return e.value.rule, e.value.index, e.value.deal


def _cut(k: int, keep: int | None, outcome: bool, lists: int | None = None) -> dict[str, Any]:
    rec = copy.deepcopy(MATCH)
    if keep is not None:
        rec["actions"][k] = rec["actions"][k][:keep]
    if lists is not None:
        rec["actions"] = rec["actions"][:lists]
    if not outcome:
        del rec["outcome"]
    return rec


@pytest.mark.parametrize("outcome", [True, False])
def test_a_deal_that_stops_inside_the_match_is_r41(outcome: bool) -> None:
    """R-8.3: deal 5 stops in its play and deal 6 is listed: R-4.1 at the number of deal 5's actions."""
    n = len(MATCH["actions"][4])
    assert fault(_cut(4, n - 1, outcome)) == ("R-4.1", n - 1, 4)
    assert fault(_cut(4, 1, outcome)) == ("R-4.1", 1, 4)   # in the bidding: the deal still stops before its last trick
    assert fault(_cut(4, 0, outcome)) == ("R-4.1", 0, 4)


def test_a_record_without_outcome_that_stops_in_its_last_listed_deal_is_r41() -> None:
    """The case issue 29 found: no outcome, the actions stop inside a deal; R-4.1 with the index and deal."""
    n = len(MATCH["actions"][4])
    assert fault(_cut(4, n - 3, False, lists=5)) == ("R-4.1", n - 3, 4)
    assert fault(_cut(4, 2, False, lists=5)) == ("R-4.1", 2, 4)
    # every listed deal complete, the next one not listed: it stops before its first action
    assert fault(_cut(4, None, False, lists=5)) == ("R-4.1", 0, 5)
    assert fault(_cut(0, None, False, lists=0)) == ("R-4.1", 0, 0)


def test_a_single_deal_of_a_record_that_stops_is_r41_with_its_index() -> None:
    rec = _cut(2, 4, False, lists=3)
    with pytest.raises(IllegalAction) as e:
        replay_deal(rec, 3)
    assert (e.value.rule, e.value.index, e.value.deal) == ("R-4.1", 4, 2)
    with pytest.raises(IllegalAction) as e:
        replay_deal(rec, 4)
    assert (e.value.rule, e.value.index, e.value.deal) == ("R-4.1", 4, 2)


def test_rasklad_replay_prints_the_index_and_rule(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_cut(4, 2, False, lists=5)))
    for args in ((), ("--steps",)):
        out = subprocess.run([sys.executable, "-m", "rasklad", "replay", str(path), *args], cwd=root,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith("error: deal 4, action 2: ") and out.stderr.rstrip().endswith("(R-4.1)")
