"""The pimc bot's bidding arithmetic: its declarer balance is PF-8/PF-13's, where its assumptions hold."""

from __future__ import annotations

import pytest

from games.core.cards import parse_cards
from games.preferans import scoring
from games.preferans.pimc import declarer_balance
from games.preferans.rules import SOCHI, VALUES
from games.preferans.scoring import ContractResult, Sheet


def _split(defence: int) -> list[int]:
    return [defence - defence // 2, defence // 2]


@pytest.mark.parametrize("level", [6, 7, 8, 9, 10, 11])
def test_declarer_balance_is_the_scored_balance(level: int) -> None:
    """For every trick count where both defenders whist and meet the obligation (PF-8.6), and no talon
    bonus applies, ``declarer_balance`` equals the balance PF-13 gives the scored deal exactly."""
    checked = 0
    for t in range(11):
        b, c = _split(10 - t)
        misere = level == 11
        whisters = [] if misere or level == 10 else [1, 2]
        if whisters and b + c < VALUES[level].o:
            continue  # an obligation missed: the bot's estimate leaves the whisters' penalty out
        if whisters and level <= 7 and min(b, c) < VALUES[level].o // 2:
            continue
        res = ContractResult(0, level, [t, b, c], whisters, None, 2, False, parse_cards("7s 8s"),
                             "misere" if misere else "contract")
        delta = scoring.score_contract(Sheet.fresh(3, 100), res, SOCHI, 3)
        assert declarer_balance(level, t, 3, SOCHI.consolation, SOCHI.whists_on_failure) == \
            pytest.approx(float(delta.balances()[0]), abs=1e-9), (level, t)
        checked += 1
    assert checked >= 4


def test_a_failed_six_costs_more_than_three_made_sixes_earn() -> None:
    """Why pimc bids only on a high chance of making (PF-8.1-8.5): one trick short of a six loses more
    than a made six with an overtrick wins."""
    made = declarer_balance(6, 7, 3, "all", True)
    short = declarer_balance(6, 5, 3, "all", True)
    assert made > 0 > short and -short > 3 * made
