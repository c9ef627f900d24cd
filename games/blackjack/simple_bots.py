"""The rule-of-thumb blackjack bots (``blackjack/random``, ``dealer-rule``, ``home/heuristic``; registered in
``games.blackjack.bots``, which describes them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.blackjack.rules import POINTS
from games.core.cards import RANKS

#: The mean points of a hidden card of the 52-card deck (aces counted 11): (4*(2+..+9) + 16*10 + 4*11) / 52.
HIDDEN_MEAN = 7


def hand_total(cards: Sequence[str]) -> int:
    """BJ-3.2 total of visible card names (``??`` counted ``HIDDEN_MEAN``)."""
    t, ace = 0, False
    for c in cards:
        if c == "??":
            t += HIDDEN_MEAN
            continue
        r = RANKS.index(c[0])
        t += POINTS[r]
        ace = ace or r == 12
    return t + 10 if ace and t + 10 <= 21 else t


def ochko_points(cards: Sequence[str]) -> int:
    """BJ-6.1 points of card names (aces 11)."""
    from games.blackjack.rules import OCHKO_POINTS
    return sum(OCHKO_POINTS[RANKS.index(c[0])] for c in cards)


def own_cards(view: Mapping[str, Any]) -> list[str]:
    """The cards of the hand the seat is playing."""
    h = view["hands"][str(view["seat"])]
    if view["preset"] == "ochko":
        return list(h)
    return list(h[view.get("hand_index", 0)])


def smallest(legal: Sequence[Any]) -> Any | None:
    """The smallest bet or stake on offer (None: not a betting step)."""
    amounts = [a for a in legal if isinstance(a, tuple)]
    return min(amounts, key=lambda a: a[1]) if amounts else None


class RandomBot:
    """A uniformly random legal action: ``legal[int(rng.random() * n)]``, one ``random()`` per decision
    (as ``order-poker/random``), so the compiled play-out (``fast/_play.pyx``) draws exactly the same."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """One legal action, uniformly."""
        return legal_actions[int(rng.random() * len(legal_actions))]


class DealerRuleBot:
    """Hits below 17 (BJ-7.6's rule for every hand); smallest bet; never doubles or splits."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The dealer's rule."""
        bet = smallest(legal_actions)
        if bet is not None:
            return bet
        for no in ("no_double", "no_redouble"):
            if no in legal_actions:
                return no
        cards = own_cards(view)
        if view["preset"] == "ochko":
            t = ochko_points(cards)
            return "more" if t < 17 else "enough"
        return "hit" if hand_total(cards) < 17 else "stand"


class HomeHeuristicBot(DealerRuleBot):
    """The seed's advice (BJ-2.4) as a player, the house rule and "drawing by the table" as dealer (BJ-2.3)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """See the module docstring."""
        if view["preset"] != "home":
            return super().act(view, legal_actions, rng)
        bet = smallest(legal_actions)
        if bet is not None:
            return bet
        own = view["hands"][str(view["seat"])][0]
        first = own[0][0] if own else ""
        if "double" in legal_actions:  # BJ-2.2 as a policy: double on J, Q, K, A
            return "double" if first in "JQKA" else "no_double"
        if "redouble" in legal_actions:
            return "redouble" if first == "A" else "no_redouble"
        t = hand_total(own_cards(view))
        if view["seat"] == view["dealer"]:
            return "hit" if self._dealer_hits(view, t) else "stand"
        stood = sum(1 for e in view["log"] if e.get("act") == "stand")
        if stood >= 2 and t in (12, 13):  # BJ-2.4: several before him stood
            return "stand"
        return "hit" if t < 17 else "stand"

    @staticmethod
    def _dealer_hits(view: Mapping[str, Any], t: int) -> bool:
        """BJ-2.3: draw below 12; below 18 while standing loses more chips than it wins (ties to the dealer)."""
        if t < 12:
            return True
        net = 0
        for s in view["standing"]:
            bet = sum(view["bets"][str(s)])
            for cards in view["hands"][str(s)]:
                net += bet if hand_total(cards) <= t else -bet
        return net < 0 and t < 18
