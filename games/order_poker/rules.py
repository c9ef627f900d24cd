"""Order Poker rule options and constants (docs/rules/order-poker.md).

Rules are data (DESIGN.md): a frozen, keyword-only dataclass whose defaults are the spec's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ext.handeval import CATEGORIES
from games.core.cards import deck_cards
from games.core.protocol import RulesError
from games.core.records import rules_from_dict

#: The game's registry name and version (bumped only when behaviour changes; written into every record).
NAME = "order-poker"
VERSION = 1
#: OP-2: the combinations in ascending rank; the index is the rank (``COMBINATIONS[1] == "pair"``).
COMBINATIONS: tuple[str, ...] = CATEGORIES["order-poker"]
NONE, PAIR, TWO_PAIR, THREE, STRAIGHT, FULL_HOUSE, FLUSH, FOUR, STRAIGHT_FLUSH = range(9)
#: OP-1.1: the 36-card deck 6..A (card ids of games.core.cards).
DECK: tuple[int, ...] = tuple(deck_cards("36"))
#: OP-1.2: seats per table.
MIN_PLAYERS, MAX_PLAYERS = 3, 6
#: OP-1.4: cards per hand, the robot's included.
HAND = 5
#: The ``from`` of a swap with the robot (a ``for`` player's source is his seat number).
ROBOT = -1


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of docs/rules/order-poker.md.

    ``max_exchange_rounds`` (OP-6.8): the exchange phase ends after this many rounds.
    ``against_half_min`` (OP-7): the lowest combination with which an ``against`` player who
    matches the robot's rank still earns the half-stake: ``"pair"`` or ``"two_pair"``.
    """

    max_exchange_rounds: int = field(default=12, metadata={
        "doc": "the exchange phase ends after this many rounds (OP-6.8)", "choices": ">= 1"})
    against_half_min: str = field(default="pair", metadata={
        "doc": "lowest combination with which an `against` player matching the robot's rank still earns "
               "the half-stake (OP-7)", "choices": ["pair", "two_pair"]})

    def __post_init__(self) -> None:
        if isinstance(self.max_exchange_rounds, bool) or not isinstance(self.max_exchange_rounds, int) \
                or self.max_exchange_rounds < 1:
            raise RulesError(f"max_exchange_rounds must be an integer >= 1, not {self.max_exchange_rounds!r}",
                             field="max_exchange_rounds", rule="OP-6.8")
        if self.against_half_min not in ("pair", "two_pair"):
            raise RulesError(f"against_half_min must be 'pair' or 'two_pair', not {self.against_half_min!r}",
                             field="against_half_min", rule="OP-7")

    @property
    def half_min_rank(self) -> int:
        """Rank (OP-2) of ``against_half_min``."""
        return PAIR if self.against_half_min == "pair" else TWO_PAIR

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Rules:
        """Rules from a record's ``rules`` object (missing fields take the defaults).

        Raises ``RulesError`` naming the field for an unknown field or a bad value.
        """
        return rules_from_dict(cls, d)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of these rules (every option, OP-6.8 asks for the round cap in every record)."""
        return {"max_exchange_rounds": self.max_exchange_rounds, "against_half_min": self.against_half_min}


#: Named presets (``rules: {preset: default}``): the defaults are the source's rules.
PRESETS: dict[str, Rules] = {"default": Rules()}
