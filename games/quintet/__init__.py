"""Quintet ("Параллельный покер", seed 001): rules engine, records, match play and bots.

The rules are docs/rules/quintet.md; code and tests cite its numbers (``Q-1.4``). Both players
hold the same 25 cards and lay them out as five ordered packets; a move is a whole layout.
"""

from games.quintet.layout import Layout, LayoutSpace, check_layout
from games.quintet.rules import PRESETS, Rules
from games.quintet.state import State

__all__ = ["PRESETS", "Layout", "LayoutSpace", "Rules", "State", "check_layout"]
