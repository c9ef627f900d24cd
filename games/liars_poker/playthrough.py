"""``rasklad replay --steps`` for liar's poker: each seat's banknote, the bid ladder, the challenges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    return {"note": str(view["note"])}


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    bid = view["bid"]
    out = {"round": f"{view['round'] + 1}, opener {view['opener']}",
           "bid": "-" if bid is None else f"{bid.q} x {bid.d} by seat {view['holder']}",
           "challenges": str(view["challenges"]),
           "scores": "  ".join(f"{s}: {v}" for s, v in enumerate(view["scores"]))}
    return out


PLAYTHROUGH = Playthrough(private=_private, public=_public)
