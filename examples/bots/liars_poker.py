"""An example bot of liar's poker (docs/bots.md).

``liars-poker/example-expectation`` counts on the other notes holding their share of every digit:
the expected count of digit d is its count on its own note plus (n - 1) * L / D (n notes of L digits
over D digit values). It challenges a standing bid above that expectation by more than ``margin``,
otherwise makes the lowest legal bid of its best digit that the expectation covers, and challenges
when no such bid is left. A raise of a challenged bid (``rebid`` rules) is answered the same way;
``accept`` ends the round when it must. No randomness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

NAME = "liars-poker/example-expectation"

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "margin": {"type": "number", "minimum": 0, "default": 1.0,
                   "description": "challenge a standing bid whose quantity exceeds its expected count by more"},
    },
}


class ExpectationBot:
    """Bids and challenges by expected digit counts; see the module's docstring."""

    def __init__(self, margin: float = 1.0) -> None:
        self.margin = margin

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        rules = view["rules"]
        n, length, values = view["players"], rules.digits_per_note, rules.digit_values
        share = (n - 1) * length / values
        digits = range(10) if values == 10 else range(1, values + 1)
        expected = {d: view["note"].count(str(d)) + share for d in digits}
        standing = view["bid"]  # a Bid (q, d), or None before the first bid
        can_challenge = "challenge" in legal_actions
        if standing is not None and can_challenge and standing.q > expected[standing.d] + self.margin:
            return "challenge"
        # legal_actions is a lazy sequence of every higher bid (Bid(q, d), lowest first) and the
        # words; its bids are few enough here to scan, but never list() a Quintet layout space.
        covered = [a for a in legal_actions if not isinstance(a, str) and a.q <= expected[a.d]]
        if covered:
            return max(covered, key=lambda b: (expected[b.d] - b.q, -b.q))
        for word in ("challenge", "accept"):
            if word in legal_actions:
                return word
        return legal_actions[0]


def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    """Matches per second of a table of such bots (sizes shards): about the random bot's."""
    from games.core import registry

    return registry.get("liars-poker/random").cost({}, rules, players)


def register() -> None:
    """Register the bot (a ``rasklad.bots`` entry point names this function)."""
    from games.core import registry

    registry.register(NAME, registry.bot_factory(NAME, ExpectationBot, SCHEMA), SCHEMA,
                      "bids and challenges by expected digit counts", cost)
