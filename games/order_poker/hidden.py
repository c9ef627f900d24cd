"""What a seat cannot see in Order Poker, for the conformance suite's hidden-information check.

A seat sees its own hand, the robot (OP-1.4), every action (bids and roles are spoken, swaps move
cards to or from face-up hands) and, from the exchange on, the hands of the `for` players (OP-5.2);
everything shows once the deal is over (OP-7). So what it cannot see is the rest of the closed
hands, less the cards their owners have given to the robot (those were shown as they moved), and
the cards nobody was dealt.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

import numpy as np

from games.order_poker.phases import EXCHANGE, OVER
from games.order_poker.rules import DECK, HAND
from games.order_poker.state import State


def cards_in_play(state: State) -> Counter[int]:
    """Every dealt card, wherever swaps have moved it: the hands and the robot (OP-6.6 keeps them distinct)."""
    return Counter(chain(*state.hands, state.robot))


def _shown_from_hand(state: State, seat: int) -> list[int]:
    """Cards of ``seat``'s dealt hand that its swaps have shown (given away before it took them)."""
    taken: set[int] = set()
    shown: list[int] = []
    for a in state.actions:
        if a.type == "swap" and a.seat == seat:
            if a.give in taken:
                taken.discard(a.give)
            else:
                shown.append(a.give)
            taken.add(a.take)
    return shown


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """The same deal and actions with every card ``seat`` cannot see dealt again at random."""
    if state.phase == OVER:
        return state.copy()
    open_seats = {i for i, r in enumerate(state.roles) if r == "for"} if state.phase == EXCHANGE else set()
    hidden = [h for h in range(state.players) if h != seat and h not in open_seats]
    shown = {h: _shown_from_hand(state, h) for h in hidden}
    fixed = set(state.dealt_robot).union(*(state.dealt[i] for i in range(state.players) if i not in hidden),
                                         *shown.values())
    pool = [int(c) for c in rng.permutation([c for c in DECK if c not in fixed])]
    hands = [list(h) for h in state.dealt]
    for h in hidden:
        need = HAND - len(shown[h])
        hands[h], pool = shown[h] + pool[:need], pool[need:]
    st = State.from_hands(state.rules, state.players, state.dealer, hands, state.dealt_robot)
    for a in state.actions:
        st.apply(a)
    return st
