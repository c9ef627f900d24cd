"""Example specs for the submit page, made from the registry: every game gets them with no edit here."""

from __future__ import annotations

from typing import Any

from games.core import registry


def examples() -> list[dict[str, Any]]:
    """One small duplicate tournament per game (its fastest bots, the fewest seats) and one sampled
    deal-stats job per question of a game; every one is a valid spec as it stands."""
    out: list[dict[str, Any]] = []
    for name, entry in sorted(registry.games().items()):
        lo, _hi = entry.seats(entry.rules_class())
        infos = registry.bots(name)
        # The fastest bots (their declared speed), so an example finishes in seconds (Preferans's
        # pimc plays a pulka in minutes); ties by name.
        bots = sorted(infos, key=lambda b: (-infos[b].speed({}), b))
        if bots:  # and none 100 times slower than the fastest (a seat may repeat a bot)
            bots = [b for b in bots if infos[b].speed({}) * 100 >= infos[bots[0]].speed({})]
            chosen = [bots[i % len(bots)] for i in range(lo)]
            out.append({"title": f"{entry.title}: a tournament of {', '.join(chosen)}", "spec": {
                "kind": "tournament", "name": f"{entry.title} example", "game": entry.name, "players": lo,
                "bots": chosen, "deals": 200, "seating": "duplicate", "seed": 1}})
        for q in sorted(entry.questions):
            out.append({"title": f"{entry.title}: deal statistics, {q}", "spec": {
                "kind": "deal-stats", "name": f"{entry.title} {q}", "game": entry.name, "question": q,
                "method": "sample", "samples": 20_000, "seed": 1}})
    return [e for e in out if _valid(e["spec"])]


def _valid(spec: dict[str, Any]) -> bool:
    """Whether ``spec`` parses (a question that needs parameters of its own is left out)."""
    from sims.spec import SpecError, parse_spec

    try:
        parse_spec(spec)
    except SpecError:
        return False
    return True
