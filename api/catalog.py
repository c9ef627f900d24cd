"""What the service offers: games with their rule options and presets, bots with schemas.

Only metadata is read here (rules dataclasses, the bot registry's schemas); no game is
played in the API process.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from games.core import registry

#: Game name -> (package, description).
GAMES: dict[str, tuple[str, str]] = {
    "order-poker": ("games.order_poker", "Order Poker (Заказной покер): 3-6 players and a face-up robot hand; "
                                         "bidding for combinations, roles for/against, card exchanges."),
    "quintet": ("games.quintet", "Quintet (Параллельный покер): 2 players arrange the same 25 cards "
                                 "into five ordered poker hands."),
}


def _rules_info(package: str) -> dict[str, Any]:
    module = importlib.import_module(package)
    rules_cls = module.Rules
    options = []
    default = rules_cls()
    for f in dataclasses.fields(rules_cls):
        options.append({"name": f.name, "default": getattr(default, f.name),
                        "type": getattr(f.type, "__name__", str(f.type))})
    presets = getattr(module, "PRESETS", None)
    if presets is None:
        presets = {"default": default}
    return {
        "options": options,
        "presets": {name: (p.to_dict() if hasattr(p, "to_dict") else dataclasses.asdict(p))
                    for name, p in presets.items()},
    }


def games() -> list[dict[str, Any]]:
    """Every game that is installed, with its description."""
    out = []
    for name, (package, text) in GAMES.items():
        try:
            importlib.import_module(package)
        except ModuleNotFoundError:
            continue
        out.append({"name": name, "description": text})
    return out


def game(name: str) -> dict[str, Any] | None:
    """One game's rule options, presets and bots; None when unknown."""
    if name not in GAMES or name not in {g["name"] for g in games()}:
        return None
    package, text = GAMES[name]
    return {"name": name, "description": text, **_rules_info(package),
            "bots": sorted(registry.bots(name))}


def bots(game_name: str | None = None) -> list[dict[str, Any]]:
    """Every registered bot with the JSON schema of its parameters."""
    return [{"name": b.name, "description": b.description, "params_schema": dict(b.schema)}
            for b in registry.bots(game_name).values()]
