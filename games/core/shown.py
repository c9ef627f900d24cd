"""Small text helpers for the games' ``Playthrough`` functions (``rasklad replay --steps``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.core.cards import card_str

__all__ = ["cards", "seats"]


def cards(cs: Iterable[Any] | None) -> str:
    """Cards as records write them (``7h 6c As``), from ids or strings; ``-`` for none."""
    if cs is None:
        return "-"
    out = [c if isinstance(c, str) else card_str(int(c)) for c in cs]
    return " ".join(out) if out else "-"


def seats(values: Iterable[Any]) -> str:
    """One value per seat: ``0: 3  1: -  2: 5`` (None as ``-``)."""
    return "  ".join(f"{s}: {'-' if v is None else v}" for s, v in enumerate(values))
