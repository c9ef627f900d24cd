"""Views hold exactly what they held, cost what changed, and are the bot's own (issue 30 item 2).

``test_views_unchanged``: every seat's view before every action of seeded random deals, as JSON with
its type note, hashes to the digests stored from the engines before views stopped deep-copying the
history (``tests/view_golden.py``). ``test_a_bot_mutating_its_view_changes_nothing``: a bot that
scribbles over every list, dict and set of its view leaves the state (its record, every view, the
legal actions) as it was. ``test_copies_are_independent``: a copy played on leaves the original as
it was, and the original played on leaves the copy as it was.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from view_golden import CASES, GOLDEN, digest, view_text

from games.core import registry

_STORED: dict[str, str] = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize(("game", "preset", "players", "units"), CASES)
def test_views_unchanged(game: str, preset: str, players: int, units: int) -> None:
    assert digest(game, preset, players, units) == _STORED[f"{game}/{preset}/{players}/{units}"]


def _scribble(x: Any, depth: int = 0) -> None:
    """Mutate every mutable container reachable from ``x`` (what a careless bot might do)."""
    if depth > 8:
        return
    if isinstance(x, dict):
        for v in list(x.values()):
            _scribble(v, depth + 1)
        x["__scribbled__"] = [1]
    elif isinstance(x, list):
        for v in x:
            _scribble(v, depth + 1)
        x.append("__scribbled__")
    elif isinstance(x, set):
        x.add("__scribbled__")
    elif isinstance(x, tuple):
        for v in x:
            _scribble(v, depth + 1)


def _snapshot(st: Any, players: int) -> tuple[str, ...]:
    views = tuple(view_text(st.view(s)) for s in range(players))
    legal = repr(st.legal_actions()) if not st.is_over() else ""
    return (json.dumps(st.record(), sort_keys=True, default=str), legal, *views)


def _play(game: str, preset: str, players: int, unit: int, max_steps: int = 150):  # type: ignore[no-untyped-def]
    entry = registry.game(game)
    bot = registry.make(f"{game}/random")
    rng = np.random.default_rng([unit, players, 7])
    st = entry.deal(entry.presets[preset], players, unit % players, rng)
    steps = 0
    while not st.is_over() and steps < max_steps:
        yield st, bot, rng
        seat = st.to_act()
        st.apply(bot.act(st.view(seat), st.legal_actions(), rng))
        steps += 1
    yield st, bot, rng


@pytest.mark.parametrize(("game", "preset", "players"), sorted({(g, p, n) for g, p, n, _ in CASES}))
def test_a_bot_mutating_its_view_changes_nothing(game: str, preset: str, players: int) -> None:
    for unit in range(2):
        for step, (st, _, _) in enumerate(_play(game, preset, players, unit)):
            if step % 3:
                continue
            before = _snapshot(st, players)
            for s in range(players):
                _scribble(st.view(s))
            assert _snapshot(st, players) == before, f"{game} {preset}: a view shares the state's objects"


@pytest.mark.parametrize(("game", "preset", "players"), sorted({(g, p, n) for g, p, n, _ in CASES}))
def test_copies_are_independent(game: str, preset: str, players: int) -> None:
    for unit in range(2):
        kept: list[tuple[Any, tuple[str, ...]]] = []
        for step, (st, bot, _) in enumerate(_play(game, preset, players, unit)):
            if step % 4 or st.is_over():
                continue
            before = _snapshot(st, players)
            c = st.copy()
            assert _snapshot(c, players) == before
            rng = np.random.default_rng(step)
            for _ in range(6):  # the copy plays on: the original does not move
                if c.is_over():
                    break
                c.apply(bot.act(c.view(c.to_act()), c.legal_actions(), rng))
            assert _snapshot(st, players) == before, f"{game} {preset}: playing a copy changed the original"
            kept.append((st.copy(), before))
        for c, snap in kept:  # the original played on to the end: the copies did not move
            assert _snapshot(c, players) == snap, f"{game} {preset}: playing the original changed a copy"


def test_a_shared_history_keeps_each_copy_its_own_entries() -> None:
    from games.core.history import History

    a: History[int] = History()
    for x in (1, 2, 3):
        a.append(x)
    b = a.copy()
    a.append(4)  # a appends in place; b still ends at 3
    b.append(40)  # b takes its own prefix first
    a.append(5)
    c = b.copy()
    c.append(400)
    assert a.entries() == [1, 2, 3, 4, 5] and list(b) == [1, 2, 3, 40] and c[:] == [1, 2, 3, 40, 400]
    assert len(a) == 5 and b[-1] == 40 and c[3] == 40
