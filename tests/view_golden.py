"""Digests of every view on seeded random deals, for ``tests/test_view_contents.py``.

``python tests/view_golden.py --write`` (run from the repository root) stores, per game and case,
one SHA-256 over the JSON of every seat's view (``sims.jsonview.to_json``: the value and its type
note, so a list turned tuple is a change too) before every action of seeded random deals played
by the game's random bot. The stored digests were computed by the engines before views were made
cheap (issue 30 item 2); the test recomputes them with today's engines.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN = Path(__file__).with_name("golden_view_hashes.json")
#: (game, preset, players, units): small enough to run in seconds, every game and form.
CASES: list[tuple[str, str, int, int]] = [
    ("blackjack", "home", 4, 6), ("blackjack", "ochko", 4, 6), ("blackjack", "casino", 3, 6),
    ("classic-poker", "draw", 6, 6), ("classic-poker", "jackpots", 4, 6), ("classic-poker", "stud5", 5, 6),
    ("classic-poker", "stud7", 6, 6), ("classic-poker", "stud7-hilo", 4, 6),
    ("classic-poker", "short36-draw", 6, 6), ("classic-poker", "draw-joker", 3, 6),
    ("dice-poker", "full", 2, 1), ("dice-poker", "simple", 3, 1),
    ("liars-poker", "classic", 3, 1), ("liars-poker", "us", 2, 1),
    ("order-poker", "default", 4, 6), ("preferans", "sochi", 3, 1), ("preferans", "classic", 4, 1),
    ("quintet", "default", 2, 6), ("raspisnoy", "classic", 3, 1), ("raspisnoy", "odessa", 4, 1),
]


def view_text(view: Any) -> str:
    """A view as canonical JSON text: its JSON value and its type note."""
    from sims.jsonview import to_json

    value, note = to_json(view)
    return json.dumps([value, note], sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(game: str, preset: str, players: int, units: int, max_steps: int = 400) -> str:
    """One digest over every seat's view before each action of ``units`` seeded random units
    (a match unit is cut after ``max_steps`` actions)."""
    from games.core import registry

    entry = registry.game(game)
    rules = entry.presets[preset]
    bot = registry.make(f"{game}/random")
    h = hashlib.sha256()
    for u in range(units):
        rng = np.random.default_rng([u, players])
        st = entry.deal(rules, players, u % players, rng)
        steps = 0
        while not st.is_over() and steps < max_steps:
            for s in range(players):
                h.update(view_text(st.view(s)).encode())
            seat = st.to_act()
            st.apply(bot.act(st.view(seat), st.legal_actions(), rng))
            steps += 1
        for s in range(players):
            h.update(view_text(st.view(s)).encode())
    return h.hexdigest()


def compute() -> dict[str, str]:
    return {f"{g}/{p}/{n}/{u}": digest(g, p, n, u) for g, p, n, u in CASES}


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repository, not tests/ (tests/games)
    out = compute()
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(json.dumps(out, indent=1))
