"""``rasklad replay --steps`` for Order Poker: the hands, the robot, the bidding and the exchanges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.entry import Playthrough
from games.core.shown import cards, seats


def _private(view: Mapping[str, Any]) -> dict[str, str]:
    return {"hand": cards(view["hand"])}


def _public(view: Mapping[str, Any]) -> dict[str, str]:
    out = {"robot": f"{cards(view['robot'])} (combination {view['robot_combination']})",
           "phase": str(view["phase"])}
    if view["bids"]:
        out["bids"] = " ".join(f"{b}:{c}" for b, c in zip(view["bidders"], view["bids"], strict=True))
    if view["orderer"] >= 0:
        out["order"] = f"seat {view['orderer']} orders {view['order']} at stake {view['stake']}"
        out["roles"] = seats(view["roles"])
    for s, hand in sorted(view["open_hands"].items()):
        out[f"open hand of seat {s}"] = cards(hand)
    return out


PLAYTHROUGH = Playthrough(private=_private, public=_public)
