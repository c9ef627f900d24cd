"""Every registered fast path against its game's readable engine (DESIGN.md: "Fast paths").

For each game of the registry, each fast path it declares, each seat count, each preset and each
table of bots the path names (``FastPath.bots_for_test``), many seeded deals:

* whole deals: ``fp.play_out`` and the readable ``view -> act -> apply`` loop, with the same bots
  and one generator of the same seed dealing and playing, give equal records, and the generators
  end in the same state (the kernel drew exactly what the bots draw);
* step by step: the kernel's record replayed through a fresh ``State`` (``entry.from_record``):
  every action it chose is in the readable ``legal_actions()``, and where the path lists its own
  legal actions (``FastPath.legal_trace``) the two lists are equal, in order (a lazy space too large to
  list, as Quintet's layouts, is compared by its length and items at seeded positions).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.entry import FastPath, GameEntry

#: ``FAST_PATH_DEPTH=20`` plays every count below twenty times over (``make conformance-deep``).
DEPTH = max(1, int(os.environ.get("FAST_PATH_DEPTH", "1")))
#: Per (seat count, preset, table): 200 deals, about 2,500 kernel deals for Order Poker. It was 400 until the
#: parity cases of every classic preset and blackjack table took ``make test`` past its 15 minutes (984 s of
#: CPU in the two files); the rare branches have tests of their own, and ``make conformance-deep`` plays 4,000.
DEALS = 200 * DEPTH
MATCHES = 10 * DEPTH  # the same for a game whose unit is a match (a Raspisnoy match is 20 to 70 deals)
#: Games whose matches are long: a Preferans pulka of random bidders runs to about 220 deals, so 2 pulkas a
#: case (about 440 deals through the readable loop; 10 took 40-140 s a case, half of the file's time).
MATCHES_OF = {"preferans": 2 * DEPTH}


#: Games whose parity cases run in a file of their own (tests/test_fast_paths_classic.py): ``make test`` spreads
#: whole files over its workers, and classic poker's twelve presets at nine seat counts are half of this file's time.
OWN_FILE = frozenset({"classic-poker"})


def _cases(games: frozenset[str] | None = None) -> list[Any]:
    """The parity cases of the fast paths of ``games`` (None: every game but ``OWN_FILE``'s)."""
    out = []
    for c in registry.fast_path_tables():
        if (c.entry.name in OWN_FILE) if games is None else (c.entry.name not in games):
            continue
        # a preset the path refuses (its supports says so) is the readable engine's alone
        marks = () if c.path.supports(c.rules, _bots(c.table)) else \
            pytest.mark.skip(reason=f"{c.path.name} does not play preset {c.preset} (supports)")
        out.append(pytest.param(c.entry, c.path, c.rules, list(c.table), marks=marks,
                                id=f"{c.entry.name}-{c.path.name}-{c.preset}-{c.players}p-table{c.number}"))
    return out


def _bots(table: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Any]:
    return [registry.make(name, dict(params)) for name, params in table]  # fresh: bots may cache


def check_parity(entry: GameEntry, fp: FastPath, rules: Any, table: Sequence[tuple[str, Mapping[str, Any]]],
                 deals: int = DEALS, seed: int = 17) -> None:
    """The parity checks of the module docstring on ``deals`` deals of ``table`` under ``rules``."""
    players = len(table)
    fast_bots, loop_bots = _bots(table), _bots(table)
    assert fp.supports(rules, fast_bots), f"{fp.name} names a table it does not support: {table}"
    fast_rng, loop_rng = np.random.default_rng(seed + players), np.random.default_rng(seed + players)
    traced = 0
    for d in range(deals):
        dealer = entry.dealer_of(d, players)
        fast = entry.deal(rules, players, dealer, fast_rng)
        loop = entry.deal(rules, players, dealer, loop_rng)
        trace = fp.legal_trace(fast, fast_bots, fast_rng) if d % 2 else None
        if not d % 2:
            fp.play_out(fast, fast_bots, fast_rng)
        while not loop.is_over():
            seat = loop.to_act()
            loop.apply(loop_bots[seat].act(loop.view(seat), loop.legal_actions(), loop_rng))
        record = fast.record()
        assert record == loop.record(), f"deal {d}: the records differ"
        assert fast_rng.bit_generator.state == loop_rng.bit_generator.state, f"deal {d}: different draws"
        replay = entry.state_from_record(record)
        actions = _flat(entry, record["actions"])
        for i, obj in enumerate(actions):
            action = entry.decode_action(replay, obj, i)
            legal = replay.legal_actions()  # a list, or a lazy space too large to list (Quintet's layouts)
            if isinstance(obj, Mapping) and "event" in obj and "act" not in obj:
                # an engine event listed among the actions (blackjack, BJ-8.2): nobody chose it; the
                # state accepts it only where the engine produced the same event
                replay.apply(action)
                continue
            assert action in legal, f"deal {d}, action {i}: the kernel chose {obj}, not legal in the engine"
            if trace is not None:
                assert _same_actions(trace[i], legal), f"deal {d}, action {i}: the kernel's legal list differs"
            replay.apply(action)
        if trace is not None:
            assert len(trace) == len(actions)
            traced += 1
        assert replay.is_over() and replay.scores() == fast.scores()
    assert deals < 2 or traced, "no deal was traced"


def _same_actions(kernel: Sequence[Any], engine: Sequence[Any]) -> bool:
    """The same actions in the same order; a space of more than 10,000 (``LayoutSpace``) is compared by its
    length and its items at 200 seeded positions."""
    if len(kernel) != len(engine):
        return False
    if len(engine) <= 10_000:
        return list(kernel) == list(engine)
    at = np.random.default_rng(len(engine) % 2**32).integers(len(engine), size=200).tolist()
    return all(kernel[i] == engine[i] for i in [0, len(engine) - 1, *at])


def _flat(entry: GameEntry, actions: Sequence[Any]) -> list[Any]:
    """The record's actions in play order: a match record lists one action list per deal (R-8.5, LP-7.1)."""
    return [a for deal in actions for a in deal] if entry.unit == "match" else list(actions)


@pytest.mark.parametrize("entry, fp, rules, table", _cases())
def test_fast_path_equals_the_readable_engine(entry: GameEntry, fp: FastPath, rules: Any,
                                              table: list[tuple[str, Mapping[str, Any]]]) -> None:
    check_parity(entry, fp, rules, table, MATCHES_OF.get(entry.name, MATCHES) if entry.unit == "match" else DEALS)


def test_every_fast_path_names_tables_to_test() -> None:
    paths = [(e.name, fp) for e in registry.games().values() for fp in e.fast_paths]
    assert paths, "no game declares a fast path"
    for game, fp in paths:
        lo, hi = registry.game(game).seats(registry.game(game).rules({}))
        assert all(fp.bots_for_test(n) for n in range(lo, hi + 1)), f"{game}: {fp.name} names no test tables"
