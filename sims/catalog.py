"""The catalogue: games with their rule options, presets and tables, bots with schemas (API and CLI).

Everything comes from the games' entries (``games.core.registry``): only metadata is read here;
no game is played in the API process.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from games.core import registry
from games.core.entry import GameEntry

__all__ = ["bots", "game", "games", "questions", "rule_options"]


def _type_name(t: Any) -> str:
    return getattr(t, "__name__", str(t))


def rule_options(entry: GameEntry) -> list[dict[str, Any]]:
    """Every rule option: name, type, default, allowed values and description (from the rules class).

    A rules dataclass documents its options in field metadata (``doc``, ``choices``) when it has
    them; otherwise the class docstring is the description of every option.
    """
    default = entry.rules_class()
    out = []
    for f in dataclasses.fields(entry.rules_class):
        value = getattr(default, f.name)
        meta = dict(f.metadata)
        out.append({"name": f.name, "type": _type_name(f.type),
                    "default": list(value) if isinstance(value, tuple) else value,
                    "allowed": meta.get("choices"), "description": meta.get("doc", "")})
    return out


def questions(entry: GameEntry) -> list[dict[str, Any]]:
    """The game's own deal-stats questions: name, description, methods and the JSON schema of the
    parameters (the generic ``categories`` question, which every hand ranking answers, is not listed)."""
    return [{"name": q.name, "description": q.doc, "methods": list(q.methods), "params_schema": dict(q.schema)}
            for _, q in sorted(entry.questions.items())]


def _summary(entry: GameEntry) -> dict[str, Any]:
    lo, hi = entry.seats(entry.rules_class())
    return {"name": entry.name, "title": entry.title, "description": entry.description,
            "version": entry.version, "unit": entry.unit, "players": {"min": lo, "max": hi},
            "rules_doc": entry.rules_doc, "presets": sorted(entry.presets)}


def games() -> list[dict[str, Any]]:
    """Every installed game with its title, description, seats and presets."""
    return [_summary(e) for e in registry.games().values()]


def game(name: str) -> dict[str, Any] | None:
    """One game's rule options, presets, tables and bots; None when unknown."""
    entry = registry.games().get(name)
    if entry is None:
        return None
    return {**_summary(entry), "options": rule_options(entry),
            "presets": {p: entry.rules_dict(r) for p, r in entry.presets.items()},
            "players_by_preset": {p: dict(zip(("min", "max"), entry.seats(r), strict=True))
                                  for p, r in entry.presets.items()},
            "tables": {t: [{"name": c.name, "type": c.type, "role": c.role, "doc": c.doc} for c in cols]
                       for t, cols in (("deals", entry.tables.deals), ("seats", entry.tables.seats))},
            "questions": questions(entry),
            "bots": sorted(registry.bots(name))}


def bots(game_name: str | None = None) -> list[dict[str, Any]]:
    """Every registered bot (of one game, when given) with the JSON schema of its parameters and
    ``games``, the games it plays: its own game, or every game a game-generic bot (``openspiel/ismcts``)
    plays here (one entry for all of them in the full list)."""
    out = [{"name": b.name, "description": b.description, "params_schema": dict(b.schema),
            "games": [b.game]} for b in registry.bots(game_name).values()]
    if game_name is None:
        out += [{"name": g.name, "description": g.description, "params_schema": dict(g.schema),
                 "games": g.games()} for g in registry.generic_bots().values()]
    return sorted(out, key=lambda b: str(b["name"]))
