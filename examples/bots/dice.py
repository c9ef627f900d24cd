"""An example bot of the dice family (docs/bots.md): dice poker (``simple``, ``full``, ``mixed``).

``dice-poker/example-collector`` chases the face it shows most (re-rolling every other die, at most
``rerolls`` times a turn) and then writes the allowed line that scores most for its dice
(``simple``: it stands). It reads the game's own scoring (``games.dice_poker.scoring.line_score``)
from the rules in its view. No randomness: the dice are the game's chance, not the bot's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.dice_poker.scoring import line_score

NAME = "dice-poker/example-collector"

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "rerolls": {"type": "integer", "minimum": 0, "maximum": 2, "default": 2,
                    "description": "the re-rolls a turn takes at most before it stands or writes"},
    },
}


class CollectorBot:
    """Keeps the most frequent face (the higher on a tie), re-rolls the rest, then writes its best line."""

    def __init__(self, rerolls: int = 2) -> None:
        self.rerolls = rerolls

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        dice = view["dice"]  # the five faces, position i is bit i of a re-roll mask
        rerolls = {a.mask: a for a in legal_actions if a.kind == "reroll"}
        if view["throw"] <= self.rerolls:
            face = max(Counter(dice).items(), key=lambda kv: (kv[1], kv[0]))[0]
            mask = sum(1 << i for i, f in enumerate(dice) if f != face)
            if mask in rerolls:
                return rerolls[mask]
        writes = [a for a in legal_actions if a.kind == "write"]
        if writes:
            return max(writes, key=lambda a: line_score(view["rules"], a.line, dice, view["throw"]))
        stands = [a for a in legal_actions if a.kind == "stand"]
        return stands[0] if stands else legal_actions[0]


def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    """Matches per second of a table of such bots (sizes shards): about the random bot's."""
    from games.core import registry

    return registry.get("dice-poker/random").cost({}, rules, players)


def register() -> None:
    """Register the bot (a ``rasklad.bots`` entry point names this function)."""
    from games.core import registry

    registry.register(NAME, registry.bot_factory(NAME, CollectorBot, SCHEMA), SCHEMA,
                      "chases its most frequent face, writes its best line", cost)
