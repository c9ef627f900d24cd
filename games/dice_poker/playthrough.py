"""``rasklad replay --steps`` for dice poker: the dice thrown, the dice kept, the score sheets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    return {}  # every die is thrown on the table (DP-4): nothing is one seat's alone


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    out = {"game": f"{view['game'] + 1}, round {view['round']}, seat {view['to_act']} to throw"
           if view["to_act"] >= 0 else f"{view['game'] + 1}, over",
           "dice": " ".join(str(d) for d in view["dice"]) + f" (throw {view['throw']})"}
    if view["masks"]:
        kept = view["masks"][-1]
        out["kept"] = " ".join(str(d) for i, d in enumerate(view["dice"]) if not kept >> i & 1) or "-"
    for s, sheet in enumerate(view["sheets"]):
        out[f"sheet of seat {s}"] = " ".join("." if v is None else str(v) for v in sheet)
    out["scores"] = "  ".join(f"{s}: {v}" for s, v in enumerate(view["scores"]))
    return out


PLAYTHROUGH = Playthrough(private=_private, public=_public)
