"""``rasklad replay --steps`` for Preferans: each deal's hands and talon, the contract, whists, tricks, the sheet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough
from games.core.shown import cards, seats


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    d = view.get("deal")
    if d is None:  # the pulka is over
        return {}
    out = {"hand": cards(d["hand"])}
    if d.get("discard"):
        out["discard"] = cards(d["discard"])
    return out


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    d = view.get("deal")
    sheet = view["sheet"]
    if d is None:  # the pulka is over: the sheet only
        return {"pulka": seats(sheet["pulka"]), "mountain": seats(sheet["mountain"])}
    out = {"deal": f"{d['index']}: {d['phase']}, dealer {d['dealer']}, {d['step']}",
           "talon": cards(d["talon"]) if d["talon"] is not None else "(face down)"}
    if d["contract"] is not None or d["bought"] is not None:
        kind = f" ({d['kind']})" if d["kind"] is not None else ""
        out["contract"] = f"seat {d['declarer']}: {d['contract'] or d['bought']}{kind}"
    if d["whisters"]:
        out["whist"] = f"{', '.join(str(s) for s in d['whisters'])} ({d['mode']})"
    for s, hand in sorted(d["open_hands"].items()):
        out[f"open hand of seat {s}"] = cards(hand)
    out["trick"] = " ".join(f"{s}:{c}" for s, c in d["trick"]) or "-"
    out["tricks"] = seats(d["tricks"])
    out["pulka"] = seats(sheet["pulka"])
    out["mountain"] = seats(sheet["mountain"])
    return out


def _hidden(state: Any) -> dict[str, str]:
    """The talon while it lies face down (PF-3) is in no view."""
    if state.is_over() or state.view(0).get("deal", {}).get("talon") is not None:
        return {}
    talon = state.current.talon
    return {"talon": cards(talon)} if talon else {}


PLAYTHROUGH = Playthrough(private=_private, public=_public, hidden=_hidden)
