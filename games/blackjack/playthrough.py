"""``rasklad replay --steps`` for blackjack: the bets, every hand as the table sees it, the dealer's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough
from games.core.shown import cards


def _hands(hs: Any) -> str:
    return " | ".join(cards(h) for h in hs) if any(hs) else "-"


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    return {"hand": _hands(view["hands"][str(view["seat"])])}


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    dealer = str(view["dealer"])
    out = {"phase": str(view["phase"]), "bets": "  ".join(f"{s}: {b}" for s, b in view["bets"].items())}
    for s, hs in view["hands"].items():  # ``??``: a card face down to this view (a hole card)
        out["dealer" if s == dealer else f"seat {s}"] = _hands(hs)
    return out


PLAYTHROUGH = Playthrough(private=_private, public=_public)
