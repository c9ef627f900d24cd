"""An example bot of blackjack (docs/bots.md): every preset (``home``, ``ochko``, ``casino``).

``blackjack/example-threshold`` bets or stakes the least it may, draws while its hand totals less
than ``stand_on`` and stands after; it never doubles, redoubles or splits. As the dealer or banker
of ``home`` and ``ochko`` it plays by the same threshold. No randomness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

NAME = "blackjack/example-threshold"

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "stand_on": {"type": "integer", "minimum": 12, "maximum": 21, "default": 17,
                     "description": "stand once the hand totals this much or more"},
    },
}

#: Card values: ``home`` and ``casino`` count J, Q, K as 10 (BJ-3); ``ochko`` as 2, 3, 4 (BJ-6.1).
VALUES = {"home": {"J": 10, "Q": 10, "K": 10}, "casino": {"J": 10, "Q": 10, "K": 10},
          "ochko": {"J": 2, "Q": 3, "K": 4}}


def total(cards: Sequence[str], preset: str) -> int:
    """The best total of ``cards`` (names; ``??`` is a card this seat cannot see): aces count 11,
    or 1 while the total is over 21 (except in ochko's default rules, where an ace is always 11)."""
    faces = VALUES[preset]
    values = [11 if c[0] == "A" else 10 if c[0] == "T" else faces.get(c[0], 0) or int(c[0])
              for c in cards if c != "??"]
    t, aces = sum(values), values.count(11)
    while t > 21 and aces and preset != "ochko":
        t, aces = t - 10, aces - 1
    return t


class ThresholdBot:
    """Draws below ``stand_on``; see the module's docstring."""

    def __init__(self, stand_on: int = 17) -> None:
        self.stand_on = stand_on

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        amounts = [a for a in legal_actions if isinstance(a, tuple)]  # ("bet", n) or ("stake", n)
        if amounts:
            return min(amounts, key=lambda a: a[1])
        for no in ("no_double", "no_redouble"):
            if no in legal_actions:
                return no
        mine = view["hands"][str(view["seat"])]
        if view["preset"] != "ochko":  # home and casino: a list of hands, the one in play is hand_index
            mine = mine[view.get("hand_index") or 0]
        draw = total(mine, view["preset"]) < self.stand_on
        for word in (("hit", "more") if draw else ("stand", "enough")):
            if word in legal_actions:
                return word
        return legal_actions[0]


def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    """Deals per second of a table of such bots (sizes shards): about the random bot's."""
    from games.core import registry

    return registry.get("blackjack/random").cost({}, rules, players)


def register() -> None:
    """Register the bot (a ``rasklad.bots`` entry point names this function)."""
    from games.core import registry

    registry.register(NAME, registry.bot_factory(NAME, ThresholdBot, SCHEMA), SCHEMA,
                      "draws below a threshold, bets the least", cost)
