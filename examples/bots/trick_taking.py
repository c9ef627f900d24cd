"""Example bots of the trick-taking family (docs/bots.md): Raspisnoy and Preferans.

``raspisnoy/example-counter`` bids the tricks its aces and trumps should take and then plays to make
exactly that bid; ``preferans/example-cautious`` never buys a contract and plays its cards low. Both
read only their view, choose among the legal tokens, and use no randomness (so ``rng`` is unused and
the same seed trivially gives the same actions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_id

RASPISNOY = "raspisnoy/example-counter"
PREFERANS = "preferans/example-cautious"

RASPISNOY_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "dark": {"type": "boolean", "default": False,
                 "description": "bid dark (the smallest dark bid) whenever a dark bid is offered"},
    },
}
PREFERANS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "whist": {"type": "boolean", "default": False, "description": "whist whenever whisting is offered"},
    },
}


def rank(card: str) -> int:
    """0 for a two ... 12 for an ace (the card ids of games.core.cards are 4 * rank + suit)."""
    return card_id(card) // 4


def played_card(token: str) -> str:
    """The card of a ``play:`` token (``play:Ah``; a Raspisnoy joker adds a mode: ``play:7s:high:h``)."""
    return token.split(":")[1]


class RaspisnoyCounter:
    """Bids its aces and trumps (the size of the hand over the seats when it bids blind), then wins
    tricks with its highest legal card while it needs tricks and ducks with its lowest after."""

    def __init__(self, dark: bool = False) -> None:
        self.dark = dark

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        legal = list(legal_actions)  # Raspisnoy lists its tokens: a short list of strings
        darks = [t for t in legal if t.startswith("dark:")]
        if "look" in legal:
            return min(darks, key=lambda t: int(t.split(":")[1])) if self.dark and darks else "look"
        bids = [t for t in legal if t.startswith(("bid:", "dark:"))]
        if bids:
            if view["hand"] is None:  # a dark bid: the hand is not seen yet
                want = view["cards"] // view["players"]
            else:
                want = sum(1 for c in view["hand"] if c // 4 == 12 or c % 4 == view["trump"])
            return min(bids, key=lambda t: (abs(int(t.split(":")[1]) - want), int(t.split(":")[1])))
        seat = view["seat"]
        bid = view["bids"][seat]
        if view["kind"] == "golden":
            need = True  # every trick is worth taking
        elif view["kind"] == "misere" or bid is None:
            need = False
        else:
            need = view["taken"][seat] < bid
        plays = [t for t in legal if t.startswith("play:")]
        if plays:
            key = lambda t: rank(played_card(t))  # noqa: E731
            return max(plays, key=key) if need else min(plays, key=key)
        return legal[0]


class PreferansCautious:
    """Passes in the auction, passes (or whists) when asked to defend, discards its two lowest cards
    when it must, declares the first contract offered, and plays its lowest legal card."""

    def __init__(self, whist: bool = False) -> None:
        self.whist = whist

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        legal = list(legal_actions)
        if self.whist and "whist" in legal:
            return "whist"
        if "pass" in legal:
            return "pass"
        discards = [t for t in legal if t.startswith("discard:")]
        if discards:  # discard:Qc,Ah: the two lowest cards go
            return min(discards, key=lambda t: sum(rank(c) for c in t.split(":")[1].split(",")))
        plays = [t for t in legal if t.startswith("play:")]
        if plays:
            return min(plays, key=lambda t: rank(played_card(t)))
        return legal[0]  # a declaration, hold, open or closed: the first offered


def as_fast_as_random(game: str) -> Callable[[Mapping[str, Any], Any, int], float]:
    """A declared cost (units per second under ``rules`` with ``players`` seats): that of the game's
    random bot, whose matches are as long (a Raspisnoy schedule, a pulka); check-bot measures it."""
    def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
        from games.core import registry

        return registry.get(f"{game}/random").cost({}, rules, players)
    return cost


def register() -> None:
    """Register both bots (a ``rasklad.bots`` entry point names this function)."""
    from games.core import registry

    registry.register(RASPISNOY, registry.bot_factory(RASPISNOY, RaspisnoyCounter, RASPISNOY_SCHEMA),
                      RASPISNOY_SCHEMA, "bids its aces and trumps, then plays to make the bid",
                      as_fast_as_random("raspisnoy"))
    registry.register(PREFERANS, registry.bot_factory(PREFERANS, PreferansCautious, PREFERANS_SCHEMA),
                      PREFERANS_SCHEMA, "never buys a contract; plays its lowest legal card",
                      as_fast_as_random("preferans"))
