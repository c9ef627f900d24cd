"""Classic poker's showdown and pot splitting checked against PokerKit (a test dependency only).

PokerKit plays random hands of fixed-limit seven-card stud and of its eight-or-better high-low split
(same cards, its own random legal actions); for every hand our evaluator (``games.classic_poker.hands``)
and our pot settlement (``games.core.betting.settle``, CP-6.9 / CP-5) must pay exactly what PokerKit
pays, from the same hole cards and the same chips put in.

What is compared and what is set to PokerKit's rules (docs/classic-poker.md, "Checked against
PokerKit"): the betting flow itself is PokerKit's (its bring-in by the lowest door card differs from
CP-8.4, where the best showing hand must bet, so whole action sequences cannot be replayed in both);
our options are set to PokerKit's where the rules differ: ``low_ranking=ace_to_five`` with
``low_qualifier=8`` (CP-5.2, CP-5.4) for the split game, and the odd chip order starting at seat 0
(dealer = last seat, CP-6.9). PokerKit has no five-card draw for high hands (only deuce-to-seven
lowball draws, a low ranking CP-5 does not have), so draw is not compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pokerkit as pk
import pytest

from games.classic_poker import hands
from games.classic_poker.rules import Rules
from games.core import betting as bt

AUTO = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.CARD_BURNING,
        pk.Automation.HOLE_DEALING, pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING, pk.Automation.HAND_KILLING,
        pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING)
STACK = 10_000


def _card(c: pk.Card) -> int:
    return hands.parse(repr(c))


Played = tuple[list[list[int]], list[bool], list[int], list[int]]


def _play(game: Any, players: int, rng: np.random.Generator) -> Played:
    """One random PokerKit hand: (hole cards, folded, chips put in, PokerKit's payoffs)."""
    st = game.create_state(AUTO, True, 1, 1, 2, 4, STACK, players, mode=pk.Mode.CASH_GAME)
    folded = [False] * players
    holes: list[list[int]] = [[] for _ in range(players)]
    while st.status:
        for p in range(players):
            if st.hole_cards[p]:
                holes[p] = [_card(c) for c in st.hole_cards[p]]
        acts = []
        if st.can_fold() and rng.random() < 0.15:
            acts.append("f")
        if st.can_check_or_call():
            acts.append("c")
        if st.can_complete_bet_or_raise_to():
            acts.append("r")
        if st.can_post_bring_in():
            acts.append("b")
        if not acts:
            acts.append("f")
        a = acts[int(rng.integers(len(acts)))]
        if a == "f":
            folded[st.actor_index] = True
            st.fold()
        elif a == "c":
            st.check_or_call()
        elif a == "r":
            st.complete_bet_or_raise_to()
        else:
            st.post_bring_in()
    pulled = [0] * players
    for op in st.operations:
        if isinstance(op, pk.ChipsPulling):
            pulled[op.player_index] += op.amount
    committed = [STACK - st.stacks[p] + pulled[p] for p in range(players)]
    return holes, folded, committed, list(st.payoffs)


#: Random hands per variant (PokerKit plays about 50 a second): each seat count 2..7 a hundred times.
HANDS = 600


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "rules"), [
    (pk.FixedLimitSevenCardStud, Rules(form="stud7")),
    (pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
     Rules(form="stud7", pot="high_low", low_ranking="ace_to_five", low_qualifier="8")),
])
def test_same_payouts_as_pokerkit(game: Any, rules: Rules) -> None:
    rng = np.random.default_rng(2026)
    showdowns = 0
    for i in range(HANDS):
        players = 2 + i % 6
        holes, folded, committed, payoffs = _play(game, players, rng)
        live = [p for p in range(players) if not folded[p]]
        order = bt.odd_chip_order(players - 1, players)  # seat 0 first, as PokerKit
        if len(live) == 1:
            ours = [0] * players
            ours[live[0]] = sum(committed)
        else:
            showdowns += 1
            hi = [hands.high_value(rules, holes[p]) if p in live else None for p in range(players)]
            lo = None
            if rules.pot == "high_low":
                lo = [hands.low_value(rules, holes[p]) if p in live else None for p in range(players)]
            ours = bt.settle(committed, folded, hi, order, lo)
        assert [ours[p] - committed[p] for p in range(players)] == payoffs, (i, holes, folded, committed)
    assert showdowns > HANDS // 2  # most random hands reach a showdown (504 of 600 here)
