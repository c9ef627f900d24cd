"""Whole summary shards of match-unit games through ``CodedMatchPlayout.play_shard`` (games/core/fastplay.py).

The kernel writes every match's deal and seat rows into the C buffers of one builder (``Shard``), and
``sims.tables.TournamentRows.add_columns`` keys them per deal of each match (``deal_no``); the tables must be
the per-unit path's (``entry.deal`` from the stream (d, 0), then ``play_rows`` per match, its tuples moved
into Arrow by ``add_rotations``) column by column, nulls included, in row order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from games.core import registry
from games.core.entry import Coded, Column, GameEntry, Listed, Masked, TableSpec
from games.core.streams import Streams
from sims.plan import deal_seed
from sims.tables import TournamentRows


def _per_unit(monkeypatch: pytest.MonkeyPatch, fast: Any) -> None:
    """The per-unit path: ``play_shard`` declines (the runner deals each match and calls ``play_rows``)."""
    monkeypatch.setattr(type(fast), "play_shard", lambda self, *a, **k: None)


def _shard_path(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the matches the runner added by ``add_columns`` (``play_shard``'s columns); returns the list."""
    add = TournamentRows.add_columns
    played: list[int] = []

    def counting(self: TournamentRows, deals: range, *a: Any) -> None:
        played.append(len(deals))
        add(self, deals, *a)

    monkeypatch.setattr(TournamentRows, "add_columns", counting)
    return played


def _assert_same(got: dict[str, pa.Table], want: dict[str, pa.Table], where: Any) -> None:
    for t in ("deals", "seats"):
        assert got[t].schema == want[t].schema, (where, t)
        assert got[t].num_rows == want[t].num_rows, (where, t)
        for c in got[t].column_names:
            assert got[t][c].to_pylist() == want[t][c].to_pylist(), (where, t, c)
        assert got[t].equals(want[t]), (where, t)


def _spec(game: str, rules: dict[str, Any], players: int, bots: list[str], seating: str, seed: int,
          deals: int, shard: int) -> Any:
    from sims.spec import TournamentSpec, parse_spec

    spec = parse_spec({"kind": "tournament", "name": "t", "game": game, "rules": rules, "players": players,
                       "bots": [{"name": f"{game}/{bots[s % len(bots)]}"} for s in range(players)],
                       "deals": deals, "shard_deals": shard, "seating": seating, "seed": seed,
                       "record": "summary"})
    assert isinstance(spec, TournamentSpec)
    return spec


RASPISNOY_CASES: list[tuple[dict[str, Any], tuple[int, ...]]] = [
    ({"preset": "classic"}, (3, 4, 5)),
    ({"preset": "classic", "trump": "turned", "jokers": 2, "cap": 6, "first_dealer": 1}, (2, 4)),
    ({"preset": "classic", "rotating_trumps": True, "dark_pass": True, "joker_low": True}, (3,)),
    ({"preset": "odessa"}, (3, 6)),
    ({"preset": "odessa", "special_factor": 1.5, "trump": "fixed"}, (4,)),  # halves: points null
]
TABLES = (["random"], ["heuristic"], ["heuristic", "random"])


@pytest.mark.parametrize(("opts", "seats"), RASPISNOY_CASES,
                         ids=lambda x: ",".join(f"{k}={v}" for k, v in x.items()) if isinstance(x, dict) else
                         "-".join(map(str, x)))
def test_raspisnoy_shard_tables_are_the_per_unit_paths(opts: dict[str, Any], seats: tuple[int, ...],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Random, heuristic and mixed tables, duplicate and fixed seating, shards not starting at match 0 and
    batches of 2 matches: ``play_shard``'s tables equal the per-unit path's."""
    import sims.run
    from games.raspisnoy.fast.playout import FAST
    from sims.run import run_shard

    halves = False
    for i, players in enumerate(seats):
        for j, (seating, k) in enumerate((("duplicate", 1), ("fixed", 2))):
            bots = TABLES[(i + j) % len(TABLES)]
            spec = _spec("raspisnoy", opts, players, bots, seating, 7 * players + j, 11, 4)
            with monkeypatch.context() as m:
                _per_unit(m, FAST)
                want = run_shard(spec, k)
            with monkeypatch.context() as m:
                played = _shard_path(m)
                m.setattr(sims.run, "SHARD_BATCH", 2)
                got = run_shard(spec, k)
            assert sum(played) == (4 if k == 1 else 3), "play_shard played the shard"
            _assert_same(got, want, (players, seating, bots))
            halves = halves or got["deals"]["points"].null_count > 0
            assert got["deals"]["bids"].null_count > 0 or opts["preset"] == "classic"  # golden/misere: no bids
    if opts.get("special_factor") == 1.5:
        assert halves, "a half point made a null points list"


def test_raspisnoy_play_shard_declines_what_it_does_not_play() -> None:
    """None (the runner's per-unit path) with ``luck``, or a seat the kernel does not play (``pimc``)."""
    from games.raspisnoy.fast.playout import FAST

    entry = registry.game("raspisnoy")
    rules = entry.rules({"preset": "classic"})
    streams = Streams(deal_seed(3))
    rand, heur = registry.make("raspisnoy/random", {}, "raspisnoy"), registry.make("raspisnoy/heuristic", {},
                                                                                    "raspisnoy")
    got = FAST.play_shard(rules, 3, range(5, 7), streams, [[rand, heur, rand]], False)
    assert got is not None and len(got[1]["score"]) == 6
    assert len(np.asarray(got[0]["deal_no"])) == 2 * len(entry.deal(rules, 3, 0, streams.at(0, 0)).plan)
    assert FAST.play_shard(rules, 3, range(5, 7), streams, [[rand, heur, rand]], True) is None
    pimc = registry.make("raspisnoy/pimc", {}, "raspisnoy")
    assert FAST.play_shard(rules, 3, range(2), streams, [[rand, heur, pimc]], False) is None


def _position(rng: np.random.Generator) -> tuple[Any, ...]:
    """Where a Philox generator is: its counter, buffer and spare 32 bits."""
    st = rng.bit_generator.state
    return (st["state"]["counter"].tolist(), st["buffer"].tolist(), st["buffer_pos"], st["has_uint32"],
            st["uinteger"])


@pytest.mark.parametrize(("game", "opts", "players"), [
    ("raspisnoy", {"preset": "classic", "trump": "turned", "jokers": 2}, 4),  # 4 x 9 = 36: drawn trumps
    ("raspisnoy", {"preset": "odessa"}, 6),
    ("raspisnoy", {"preset": "classic", "rotating_trumps": True}, 3),
    ("preferans", {"preset": "sochi", "pulka": 20}, 3),
    ("preferans", {"preset": "classic", "pulka": 10}, 4),
])
def test_deal_match_is_the_entrys_deal(game: str, opts: dict[str, Any], players: int) -> None:
    """``deal_match`` (the match dealt without a ``State``) draws what ``entry.deal`` draws and gives the kernel
    the same match: the same rows for the same seats and generator, and the generator left where it was."""
    entry = registry.game(game)
    fast = entry.fast_paths[0]
    rules = entry.rules(opts)
    streams = Streams(deal_seed(5))
    kinds = [s % 2 for s in range(players)]
    for d in range(12):
        want = fast.match_of(entry.deal(rules, players, 0, streams.at(d, 0)))
        after = _position(streams.rng)
        got = fast.deal_match(entry, rules, players, 0, streams.at(d, 0))
        assert _position(streams.rng) == after, (game, d)
        assert got.rows(kinds, streams.at(d, 1)) == want.rows(kinds, streams.at(d, 1)), (game, d)


def _match_entry() -> GameEntry:
    """A match-unit game of two columns for ``add_columns``: a nullable list and a nullable int."""
    base = registry.game("raspisnoy")
    tables = TableSpec((Column("xs", "list<int8>", "label", "a list, null in some rows"),
                        Column("n", "int16", "measure", "an int, null in some rows"),
                        Column("s", "string", "category", "a string, null in some rows")),
                       (Column("score", "float64", "measure", "the score", nullable=False),),
                       lambda st: [], lambda st: [])
    import dataclasses

    return dataclasses.replace(base, tables=tables)


def test_add_columns_keys_matches_of_many_deals_and_nulls() -> None:
    """``add_columns`` keys each deal row by its match (``deal_no`` from 0 starts a match), and makes nulls
    from the validity masks (``Masked``, ``Listed.valid``): the table ``add_rotations`` makes of the same rows."""
    entry = _match_entry()
    plays = [[0, 1], [1, 0]]
    labels = ["a", "b"]
    deals = range(5, 7)
    # 2 deals x 2 rotations = 4 matches of 3, 1, 2 and 2 deals
    lengths = [3, 1, 2, 2]
    rows: list[tuple[int, tuple[Any, ...]]] = []
    for u, m in enumerate(lengths):
        for i in range(m):
            xs = None if (u + i) % 3 == 0 else [u, i, -i]
            rows.append((u % 2, (xs, None if i == 1 else 10 * u + i, None if u == 2 else f"k{i}")))
    seat_scores = [[1.5 * u, -1.0 * u] for u in range(4)]

    want = TournamentRows(entry, False)
    at = 0
    for d in range(2):
        per_rot = []
        for r in range(2):
            u = 2 * d + r
            per_rot.append((rows[at:at + lengths[u]], [(s,) for s in seat_scores[u]]))
            at += lengths[u]
        want.add_rotations(deals[d], plays, labels, per_rot)

    valid_xs = np.array([v[0] is not None for _, v in rows])
    offsets = np.zeros(len(rows) + 1, dtype=np.int32)
    np.cumsum([0 if v[0] is None else len(v[0]) for _, v in rows], out=offsets[1:])
    names = ("k0", "k1", "k2")
    deal_cols = {
        "deal_no": np.array([i for m in lengths for i in range(m)], dtype=np.int16),
        "dealer": np.array([d for d, _ in rows], dtype=np.int8),
        "xs": Listed(offsets, np.array([x for _, v in rows if v[0] is not None for x in v[0]], dtype=np.int8),
                     valid_xs),
        "n": Masked(np.array([0 if v[1] is None else v[1] for _, v in rows], dtype=np.int16),
                    np.array([v[1] is not None for _, v in rows])),
        "s": Masked(Coded(np.array([0 if v[2] is None else names.index(v[2]) for _, v in rows], dtype=np.int8),
                          names), np.array([v[2] is not None for _, v in rows])),
    }
    seat_cols = {"score": np.array(seat_scores, dtype=np.float64).ravel()}
    got = TournamentRows(entry, False)
    got.add_columns(deals, plays, labels, (deal_cols, seat_cols))
    g, w = got.tables(), want.tables()
    assert g["deals"]["deal"].to_pylist() == [5, 5, 5, 5, 6, 6, 6, 6]
    assert g["deals"]["deal_no"].to_pylist() == [0, 1, 2, 0, 0, 1, 0, 1]
    assert g["deals"]["xs"].null_count == 3 and g["deals"]["n"].null_count == 3
    _assert_same(g, w, "add_columns")
    bad = dict(deal_cols, deal_no=np.zeros(len(rows), dtype=np.int16))
    with pytest.raises(ValueError, match="matches"):
        TournamentRows(entry, False).add_columns(deals, plays, labels, (bad, seat_cols))


PREFERANS_CASES: list[tuple[dict[str, Any], tuple[int, ...]]] = [
    ({"preset": "sochi", "pulka": 20}, (3, 4)),
    ({"preset": "classic", "pulka": 10, "consolation": "none", "whist_split": "per_half"}, (3,)),
    ({"preset": "sochi", "pulka": 10, "max_deals": 4, "writeoff": "declarer_choice", "lone_whist": "closed_only",
      "closing_whist_rate": 0.1}, (4,)),
]


@pytest.mark.parametrize(("opts", "seats"), PREFERANS_CASES,
                         ids=lambda x: ",".join(f"{k}={v}" for k, v in x.items()) if isinstance(x, dict) else
                         "-".join(map(str, x)))
def test_preferans_shard_tables_are_the_per_unit_paths(opts: dict[str, Any], seats: tuple[int, ...],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Preferans pulkas as Raspisnoy's matches above: ``play_shard``'s tables equal the per-unit path's, nulls
    (raspasy, no play) included."""
    import sims.run
    from games.preferans.fast.playout import FAST
    from sims.run import run_shard

    nulls = 0
    for i, players in enumerate(seats):
        for j, (seating, k) in enumerate((("duplicate", 1), ("fixed", 2))):
            bots = TABLES[(i + j + 1) % len(TABLES)]
            spec = _spec("preferans", opts, players, bots, seating, 5 * players + j, 5, 2)
            with monkeypatch.context() as m:
                _per_unit(m, FAST)
                want = run_shard(spec, k)
            with monkeypatch.context() as m:
                played = _shard_path(m)
                m.setattr(sims.run, "SHARD_BATCH", 1)
                got = run_shard(spec, k)
            assert sum(played) == (2 if k == 1 else 1), "play_shard played the shard"
            _assert_same(got, want, (players, seating, bots))
            nulls += got["deals"]["contract"].null_count
    assert nulls > 0, "a raspasy deal made nulls"


def test_a_shard_of_slow_units_is_played_in_batches_of_about_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sims.run._batch``: a call plays about ``BATCH_SECONDS`` of the path's declared speed (at least 16 units),
    so progress and cancellation are looked at between calls of a long shard of matches; the rows do not depend
    on the batches. Blackjack's rounds keep the largest batch."""
    import sims.run
    from games.raspisnoy.fast.playout import FAST
    from sims.run import SHARD_BATCH, _batch, _run_tournament, run_shard

    spec = _spec("raspisnoy", {"preset": "classic"}, 3, ["random"], "duplicate", 5, 40, 40)
    rules = registry.game("raspisnoy").rules({"preset": "classic"})
    bots = [[registry.make("raspisnoy/random", {})] * 3] * 3
    per_second = FAST.speed(rules, 3, bots[0])
    assert per_second is not None
    assert _batch(FAST, rules, 3, bots) == max(16, int(per_second / 3)) < SHARD_BATCH
    from games.blackjack.fast.playout import FAST as BLACKJACK

    casino = registry.game("blackjack").rules({"preset": "casino"})
    assert _batch(BLACKJACK, casino, 1, [[registry.make("blackjack/random", {})]]) == SHARD_BATCH
    whole = run_shard(spec, 0)
    monkeypatch.setattr(sims.run, "BATCH_SECONDS", 0.0)  # the floor: 16 matches a call
    progress: list[int] = []
    played = _shard_path(monkeypatch)
    got = _run_tournament(spec, 0, on_unit=progress.append)
    assert played == [16, 16, 8] and progress == [16, 32, 40]
    _assert_same(got, whole, "batches of 16")
