"""``rasklad replay --steps`` for Quintet: the cards removed, the 25 each seat lays out, the layouts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough
from games.core.shown import cards


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    out = {"cards": cards(view["cards"])}
    if view["layout"] is not None:
        out["layout"] = " | ".join(cards(packet) for packet in view["layout"])
    return out


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    return {"removed": cards(view["removed"]), "laid out": " ".join(str(x) for x in view["laid"])}


PLAYTHROUGH = Playthrough(private=_private, public=_public)
