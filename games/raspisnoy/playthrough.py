"""``rasklad replay --steps`` for Raspisnoy: each deal's hands and trump, the bids, the trick, the sheet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import SUITS
from games.core.entry import Playthrough
from games.core.shown import cards, seats


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    hand = view["hand"]
    return {"hand": "(not looked at)" if hand is None else cards(sorted(hand))}


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    trump = view["trump"]
    out = {"deal": f"{view['deal']} of {view['deals']}: {view['kind']}, {view['cards']} cards, dealer {view['dealer']}",
           "trump": ("none" if trump is None else SUITS[trump]) + (f" (card {cards([view['trump_card']])})"
                                                                   if view["trump_card"] is not None else "")}
    if any(b is not None for b in view["bids"]):
        out["bids"] = seats(f"{b}{' dark' if d else ''}" if b is not None else None
                            for b, d in zip(view["bids"], view["dark"], strict=True))
    out["trick"] = " ".join(f"{p.seat}:{cards([p.card])}" for p in view["trick"]) or "-"
    out["taken"] = seats(view["taken"])
    out["totals"] = seats(view["totals"])
    return out


def _hidden(state: Any) -> dict[str, str]:
    """Hands a seat has not looked at (a dark deal, R-3.7) are in no view: shown from the deal."""
    d = state.current
    if state.over:
        return {}
    return {f"hand of seat {s}": cards(sorted(h)) for s, h in enumerate(d.hands)
            if state.view(s)["hand"] is None}


PLAYTHROUGH = Playthrough(private=_private, public=_public, hidden=_hidden)
