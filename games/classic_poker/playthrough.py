"""``rasklad replay --steps`` for classic poker: the hands, up-cards, the pot and what each put in, draws."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough
from games.core.shown import cards, seats


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    return {"hand": cards(view["hand"])}


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    out = {"street": f"{view['street']} ({view['phase']})", "pot": str(view["pot"]),
           "put in": seats(view["committed"]), "in": seats("in" if x else "out" for x in view["in"])}
    for s, up in sorted(view["up"].items()):
        if up:
            out[f"up cards of seat {s}"] = cards(up)
    if view["common"]:
        out["common card"] = str(view["common"])
    if view["drawn"]:
        out["drawn"] = "  ".join(f"{s}: {n}" for s, n in sorted(view["drawn"].items()))
    return out


PLAYTHROUGH = Playthrough(private=_private, public=_public)
