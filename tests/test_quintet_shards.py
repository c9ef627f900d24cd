"""Quintet's ``FastPath.play_shard`` (games/quintet/fast/playout.py): whole summary shards dealt and played in C.

The shard's tables must be the per-unit path's (``State.deal`` from the stream (d, 0), Q-1.2, then
``play_rows`` / ``play_rows_corrected`` per deal) column by column and in row order; the kernel's dealing
must be numpy's ``permutation(32)[:7]`` to the card.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.streams import Streams
from games.quintet.fast._play import deal_removed
from games.quintet.fast.playout import FAST
from games.quintet.rules import Rules
from games.quintet.state import State
from sims.plan import deal_seed


def test_shard_dealing_is_numpys_permutation() -> None:
    """``play_shard`` deals the seven removed cards in C from the stream (d, 0) exactly as ``State.deal``
    does (``Generator.permutation(32)[:7]``, numpy's Fisher-Yates over ``random_interval``, Q-1.2)."""
    for seed in range(25):
        streams = Streams(deal_seed(seed))
        for item in [*range(0, 120), 7 + seed, 65_535 + seed, 2**40 + seed]:
            want = State.deal(Rules(), 2, item % 2, streams.at(item, 0)).removed
            assert deal_removed(streams.bits, item) == want, (seed, item)


def _shard_path(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the deals ``play_shard`` played (``add_columns`` of the runner's rows); returns the list."""
    from sims.tables import TournamentRows

    add = TournamentRows.add_columns
    played: list[int] = []

    def add_columns(self: Any, deals: range, plays: Any, labels: Any, columns: Any) -> None:
        add(self, deals, plays, labels, columns)
        played.append(len(deals))

    monkeypatch.setattr(TournamentRows, "add_columns", add_columns)
    return played


def _unit_by_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-unit path: ``play_shard`` declines (the runner deals each deal and calls ``play_rows``)."""
    monkeypatch.setattr(type(FAST), "play_shard", lambda self, *a, **k: None)


RANDOM = {"name": "quintet/random"}
GREEDY = {"name": "quintet/greedy"}
BLOTTO_RANDOM = {"name": "quintet/blotto", "params": {"sacrifice": "random"}}


def _blotto(slot: int) -> dict[str, Any]:
    return {"name": "quintet/blotto", "params": {"sacrifice": slot}}


SHARD_CASES: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
    ({}, [RANDOM, RANDOM]),
    ({}, [GREEDY, GREEDY]),
    ({}, [GREEDY, BLOTTO_RANDOM]),
    ({}, [BLOTTO_RANDOM, BLOTTO_RANDOM]),
    ({}, [_blotto(2), RANDOM]),
    ({"points": [1, 1, 1, 1, 1]}, [BLOTTO_RANDOM, RANDOM]),
    ({"points": [0, 2, 0, 9, 4]}, [_blotto(5), GREEDY]),
    ({"points": [7, 6, 5, 4, 3]}, [RANDOM, BLOTTO_RANDOM]),
]


@pytest.mark.parametrize(("rules", "bots"), SHARD_CASES,
                         ids=lambda x: ",".join(f"{k}={v}" for k, v in x.items()) or "default" if isinstance(x, dict)
                         else "+".join(b["name"].split("/")[1] + str(b.get("params", {}).get("sacrifice", ""))
                                       for b in x))
@pytest.mark.parametrize("variance", ["none", "auto"])
def test_play_shard_tables_are_the_per_unit_paths(rules: dict[str, Any], bots: list[dict[str, Any]], variance: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary job's shard through ``play_shard`` (the deals dealt and every rotation played in C, the
    columns and, under ``auto``, the corrections of blotto seats that draw their slot from the kernel) gives
    the tables of the per-unit path, column by column, in row order and to the bit: duplicate and fixed
    seating, shards not starting at deal 0 (odd starts: the other dealer first), cut into batches of 7."""
    import sims.run
    from sims.run import run_shard
    from sims.spec import TournamentSpec, parse_spec

    corrected = variance == "auto" and BLOTTO_RANDOM in bots
    for seating, seed, k in (("duplicate", 11, 1), ("fixed", 3, 2), ("duplicate", 5, 0)):
        spec = parse_spec({"kind": "tournament", "name": "t", "game": "quintet", "rules": rules, "players": 2,
                           "bots": bots, "deals": 69, "shard_deals": 29, "seating": seating, "seed": seed,
                           "record": "summary", "variance_reduction": variance})
        assert isinstance(spec, TournamentSpec)
        with monkeypatch.context() as m:
            _unit_by_unit(m)
            want = run_shard(spec, k)  # the per-unit path: State.deal and play_rows per deal
        with monkeypatch.context() as m:
            played = _shard_path(m)
            m.setattr(sims.run, "SHARD_BATCH", 7)
            got = run_shard(spec, k)
        assert sum(played) == (29 if k < 2 else 11), "play_shard played the shard"
        assert len(played) == (5 if k < 2 else 2), "in batches of 7"
        for t in ("deals", "seats"):
            assert got[t].schema == want[t].schema
            assert got[t].num_rows == want[t].num_rows > 0
            for c in got[t].column_names:
                assert got[t][c].to_pylist() == want[t][c].to_pylist(), (seating, t, c)
        seats = got["seats"]
        adjusted_differs = seats["adjusted_score"].to_pylist() != seats["score"].cast("float64").to_pylist()
        assert adjusted_differs == corrected
        winners = got["deals"]["winners"].to_pylist()
        assert all(len(w) == 5 for w in winners)
        if bots[0] == bots[1] == GREEDY:
            assert all(None in w for w in winners), "equal layouts tie every comparison"


def test_play_shard_declines_what_it_does_not_play() -> None:
    """None (the runner deals deal by deal) for a seat the kernel does not play (a subclass, the equilibrium
    bot) and a generator the kernel cannot re-point; the columns of a batch are one row a unit, two a seat."""
    from games.quintet.bots import GreedyBot

    streams = Streams(deal_seed(1))
    rules = Rules()
    greedy, blotto = registry.make("quintet/greedy", {}), registry.make("quintet/blotto", {"sacrifice": "random"})
    got = FAST.play_shard(rules, 2, range(3, 9), streams, [[greedy, blotto], [blotto, greedy]], True)
    assert got is not None
    deals_cols, seat_cols = got
    assert np.asarray(deals_cols["dealer"]).tolist() == [1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0]
    assert len(seat_cols["score"]) == 24 and len(seat_cols["correction"]) == 24
    assert "correction" not in FAST.play_shard(rules, 2, range(3, 9), streams, [[greedy, blotto]], False)[1]

    class Other(GreedyBot):
        pass

    assert FAST.play_shard(rules, 2, range(3), streams, [[greedy, Other()]], False) is None

    class Direct:
        direct = False
        bits = streams.bits

    assert FAST.play_shard(rules, 2, range(3), Direct(), [[greedy, greedy]], False) is None
