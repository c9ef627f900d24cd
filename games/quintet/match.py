"""Match play (Q-1.5): several deals, the dealer alternating, totals per player.

Player i sits at seat i for the whole match; the dealer of deal d is seat ``(first_dealer + d) % 2``.
The player with the higher total wins the match; equal totals are a drawn match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.quintet.rules import PLAYERS, Rules
from games.quintet.state import State


@dataclass
class MatchResult:
    """Per-deal scores, totals and the winner (``None`` for equal totals) of a match."""

    deals: list[list[int]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def totals(self) -> list[int]:
        """Q-1.5: each player's points summed over the deals."""
        return [sum(d[p] for d in self.deals) for p in range(PLAYERS)]

    @property
    def winner(self) -> int | None:
        """The player with the higher total, ``None`` when the totals are equal."""
        a, b = self.totals
        return None if a == b else (0 if a > b else 1)


def play_deal(state: State, bots: Sequence[Any], rng: np.random.Generator) -> State:
    """Let each seat's bot lay out from its own view; returns the finished ``state``."""
    while not state.is_over():
        seat = state.to_act()
        state.apply(bots[seat].act(state.view(seat), state.legal_actions(), rng))
    return state


def play_match(rules: Rules, bots: Sequence[Any], deals: int, rng: np.random.Generator,
               first_dealer: int = 0, keep_records: bool = False) -> MatchResult:
    """Play ``deals`` deals between ``bots[0]`` (seat 0) and ``bots[1]`` (seat 1), dealer alternating."""
    if len(bots) != PLAYERS:
        raise ValueError(f"a quintet match has {PLAYERS} bots, not {len(bots)}")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be an integer >= 1, not {deals!r}")
    result = MatchResult()
    for d in range(deals):
        st = play_deal(State.deal(rules, PLAYERS, (first_dealer + d) % PLAYERS, rng), bots, rng)
        result.deals.append(st.scores())
        if keep_records:
            result.records.append(st.record())
    return result
