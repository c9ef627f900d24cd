"""A fresh blackjack deal of any preset: the chance stub drawn up front (BJ-8.1) and the preset's state."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from games.blackjack.casino import CasinoState
from games.blackjack.home import HomeState
from games.blackjack.ochko import OchkoState
from games.blackjack.rules import SEATS, Rules
from games.blackjack.state import Table, draw_stub
from games.core.protocol import IllegalAction

__all__ = ["deal", "make"]


def deal(rules: Rules, players: int, dealer: int | None, rng: np.random.Generator) -> Table:
    """A fresh deal of ``rules.preset`` (the whole chance stub drawn from ``rng``, BJ-8.1)."""
    lo, hi = SEATS[rules.preset]
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        raise IllegalAction(f"{rules.preset} is played by {lo} to {hi} players, not {players!r}",
                            {"home": "BJ-3.1", "ochko": "BJ-6.3", "casino": "BJ-3.1"}[rules.preset])
    order, reshuffle = draw_stub(rules, rng)
    return make(rules, players, dealer, order, reshuffle)


def make(rules: Rules, players: int, dealer: int | None, order: Sequence[int],
         reshuffle: Sequence[int] | None) -> Table:
    """The fresh state of a given stub."""
    if rules.preset == "casino":
        return CasinoState(rules, players, None, order, reshuffle)
    if dealer is None or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "BJ-8")
    if rules.preset == "ochko":
        return OchkoState(rules, players, dealer, order, reshuffle)
    return HomeState(rules, players, dealer, order, reshuffle)
