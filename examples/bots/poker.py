"""An example bot of the poker family (docs/bots.md): classic poker (draw, stud, lowball presets).

``classic-poker/example-pairs`` plays a hand with a pair or better and gives up the others: it bets
(raises the smallest amount) with ``raise_with`` of a kind or better, checks or calls with a pair,
checks or folds without one, and at the draw keeps its largest group of equal ranks. The dealer's
choice (a ``choose`` action) takes the first preset offered. No randomness.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.classic_poker.hands import name as card_name

NAME = "classic-poker/example-pairs"

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "raise_with": {"type": "integer", "minimum": 2, "maximum": 5, "default": 3,
                       "description": "raise (the smallest raise) holding this many cards of one rank or more"},
    },
}


def best_group(cards: Sequence[str]) -> tuple[int, str | None]:
    """The size of the largest group of one rank among ``cards`` and that rank (``Jk`` never counts)."""
    ranks = Counter(c[0] for c in cards if not c.startswith("Jk"))
    if not ranks:
        return 0, None
    rank, size = max(ranks.items(), key=lambda kv: (kv[1], "23456789TJQKA".index(kv[0])))
    return size, rank


class PairsBot:
    """Plays on with a pair or better; see the module's docstring."""

    def __init__(self, raise_with: int = 3) -> None:
        self.raise_with = raise_with

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        legal = list(legal_actions)
        chooses = [a for a in legal if a.choose is not None]
        if chooses:
            return chooses[0]
        draws = [a for a in legal if a.discard is not None]
        if draws:
            return self.draw(view["hand"], draws)
        by_act = {a.bet.act.value: a for a in legal if a.bet is not None and a.bet.act.value != "raise"}
        raises = [a for a in legal if a.bet is not None and a.bet.act.value == "raise"]
        size, _ = best_group(view["hand"])
        if size >= self.raise_with and raises:
            return min(raises, key=lambda a: a.bet.amount)
        if size >= 2 and "call" in by_act:
            return by_act["call"]
        return by_act.get("check") or by_act.get("fold") or legal[0]

    @staticmethod
    def draw(hand: Sequence[str], draws: Sequence[Any]) -> Any:
        """The legal draw that throws the most of the cards outside the largest group (none: stand pat)."""
        _, keep = best_group(hand)
        throw = {c for c in hand if c[0] != keep and not c.startswith("Jk")}
        fitting = [a for a in draws if a.shown is None and {card_name(c) for c in a.discard} <= throw]
        return max(fitting, key=lambda a: len(a.discard)) if fitting else draws[0]


def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    """Deals per second of a table of such bots (sizes shards): about the random bot's."""
    from games.core import registry

    return registry.get("classic-poker/random").cost({}, rules, players)


def register() -> None:
    """Register the bot (a ``rasklad.bots`` entry point names this function)."""
    from games.core import registry

    registry.register(NAME, registry.bot_factory(NAME, PairsBot, SCHEMA), SCHEMA,
                      "plays on with a pair or better, raises with trips", cost)


