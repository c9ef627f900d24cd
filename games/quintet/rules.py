"""Quintet rule options and constants (docs/rules/quintet.md).

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
NAME = "quintet"
VERSION = 1
#: Q-2: the categories lowest first; ``CATEGORIES[v >> 20]`` names an ``ext.handeval`` value.
QUINTET_CATEGORIES: tuple[str, ...] = CATEGORIES["quintet"]
#: Q-1.1: every player's own 32-card deck 7..A (card ids of games.core.cards).
DECK: tuple[int, ...] = tuple(deck_cards("32"))
#: Q-1.2: the dealer lays this many cards face up; they leave both decks.
REMOVED = 7
#: Q-1.3: five packets of five cards.
PACKETS = 5
PACKET = 5
HELD = PACKETS * PACKET
#: Q-1.1: exactly two players.
PLAYERS = 2
#: Q-1.4: points for winning comparison 1..5.
DEFAULT_POINTS: tuple[int, ...] = (3, 4, 5, 6, 7)
#: The ranking of ``ext.handeval`` that implements Q-2.
RANKING = "quintet"


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of docs/rules/quintet.md.

    ``points`` (Q-1.4): what winning comparison i (i = 1..5) scores; a tie scores nothing.
    The default is the source's 3, 4, 5, 6, 7 (25 points per deal).
    """

    points: tuple[int, ...] = field(default=DEFAULT_POINTS, metadata={
        "doc": "points for winning comparison 1..5; a tie scores nothing (Q-1.4)",
        "choices": "five integers >= 0"})

    def __post_init__(self) -> None:
        pts = self.points
        if isinstance(pts, list):
            object.__setattr__(self, "points", tuple(pts))  # JSON gives lists; keep Rules hashable
            pts = self.points
        if not isinstance(pts, tuple) or len(pts) != PACKETS or \
                not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pts):
            raise RulesError(f"points must be {PACKETS} non-negative integers, not {pts!r}", field="points",
                             rule="Q-1.4")

    @property
    def total(self) -> int:
        """Points at stake in one deal (25 by default)."""
        return sum(self.points)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Rules:
        """Rules from a record's or a spec's ``rules`` object (missing fields take the defaults).

        Raises ``ValueError`` naming the field for an unknown field or a bad value.
        """
        return rules_from_dict(cls, d)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of these rules."""
        return {"points": list(self.points)}


#: Named presets (the API's catalog lists them).
PRESETS: dict[str, Rules] = {"default": Rules()}
