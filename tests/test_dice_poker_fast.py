"""Dice Poker's compiled play-out (games/dice_poker/fast) against the readable engine, for every option.

``tests/test_fast_paths.py`` covers every preset at its defaults; here every option value of DP-9 is
played (records, generator states and legal lists through the same ``check_parity``), and
``play_rows`` gives exactly the row functions' values of the readable game, rotation by rotation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.dice_poker.fast.playout import FAST
from games.dice_poker.rules import Rules
from games.dice_poker.state import State
from games.dice_poker.tables import TABLES
from sims.run import play_deal
from tests.test_fast_paths import check_parity

ENTRY = registry.game("dice-poker")
OPTIONS: list[dict[str, Any]] = [
    {"preset": "simple", "reroll_rule": "free"},
    {"preset": "simple", "kickers": False},
    {"preset": "simple", "tie_rule": "rethrow"},
    {"preset": "simple", "tie_rule": "rethrow", "max_rethrows": 0},
    {"preset": "simple", "tie_rule": "rethrow", "kickers": False, "max_rethrows": 2},
    {"preset": "simple", "payout": "pairwise", "kickers": False},
    {"preset": "full", "reroll_rule": "free"},
    {"preset": "full", "first_throw_double": "except_chance", "poker_bonus": 0},
    {"preset": "full", "first_throw_double": "none", "school_bonus": "both"},
    {"preset": "full", "school_bonus": "minus", "school_order": "fixed"},
    {"preset": "full", "school_bonus": "none", "payout": "pairwise"},
    {"preset": "mixed", "reroll_rule": "free", "first_throw_double": "except_chance"},
    {"preset": "mixed", "poker_bonus": 100, "school_bonus": "both", "payout": "pairwise"},
]
TABLES_OF_BOTS = [["dice-poker/random"], ["dice-poker/greedy"], ["dice-poker/greedy", "dice-poker/random"]]


def _table(names: list[str], players: int) -> list[tuple[str, dict[str, Any]]]:
    return [(names[s % len(names)], {}) for s in range(players)]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("names", TABLES_OF_BOTS, ids=lambda n: "+".join(x.split("/")[1] for x in n))
def test_every_option_plays_as_the_engine(opts: dict[str, Any], names: list[str]) -> None:
    rules = Rules.from_dict(opts)
    for players in ((2, 3, 5) if rules.simple else (1, 2, 4)):
        check_parity(ENTRY, FAST, rules, _table(names, players), deals=30, seed=players)


@pytest.mark.parametrize("opts", [{"preset": "simple", "tie_rule": "rethrow", "kickers": False},
                                  {"preset": "simple", "payout": "pairwise"},
                                  {"preset": "full"}, {"preset": "mixed", "payout": "pairwise"}],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_play_rows_are_the_row_functions_of_the_engine(opts: dict[str, Any]) -> None:
    rules = Rules.from_dict(opts)
    players = 3
    bots = [registry.make(n, {}) for n in ("dice-poker/greedy", "dice-poker/random", "dice-poker/random")]
    rotations = [[bots[(s + r) % players] for s in range(players)] for r in range(players)]
    for d in range(60):
        dealt = State.deal(rules, players, d % players, np.random.default_rng(d))
        seeds = [1000 * d + r for r in range(players)]
        got = FAST.play_rows(dealt, TABLES, rotations, lambda r, seeds=seeds: np.random.default_rng(seeds[r]))
        for r, seat_bots in enumerate(rotations):
            st = dealt.copy()
            play_deal(st, seat_bots, np.random.default_rng(seeds[r]))  # the readable loop
            assert got[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"


@pytest.mark.parametrize("opts", [o for o in OPTIONS if o["preset"] == "full"],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_optimal_seats_play_as_the_engine(opts: dict[str, Any], tmp_path: Any) -> None:
    """The kernel's optimal seats (a full strategy solves in a tenth of a second: each option's own, in
    ``tmp_path``); both presets at their defaults are in ``tests/test_fast_paths.py``."""
    rules = Rules.from_dict(opts)
    opt = ("dice-poker/optimal", {"cache_dir": str(tmp_path)})
    for table in ([opt], [opt, ("dice-poker/greedy", {})], [("dice-poker/random", {}), opt, opt]):
        check_parity(ENTRY, FAST, rules, table, deals=10, seed=len(table))


def test_optimal_seats_only_where_they_are_a_look_up(tmp_path: Any) -> None:
    """``simple``: the registered optimal bot plays optimal-race (not a look-up); two optimal seats with
    strategies from different places; a subclass: the readable engine's."""
    from games.dice_poker.optimal import OptimalBot

    class Mine(OptimalBot):
        pass

    opt, greedy = registry.make("dice-poker/optimal", {}), registry.make("dice-poker/greedy", {})
    assert FAST.supports(Rules.from_dict({"preset": "full"}), [opt, greedy])
    assert FAST.supports(Rules.from_dict({"preset": "mixed"}), [OptimalBot(), greedy])
    assert not FAST.supports(Rules.from_dict({"preset": "simple"}), [opt, greedy])
    assert not FAST.supports(Rules.from_dict({"preset": "full"}),
                             [opt, registry.make("dice-poker/optimal", {"cache_dir": str(tmp_path)})])
    assert not FAST.supports(Rules.from_dict({"preset": "full"}), [Mine(), greedy])
    assert not FAST.supports(Rules.from_dict({"preset": "full"}), [registry.make("dice-poker/optimal-race", {})])


@pytest.mark.parametrize("preset", ["full", "mixed"])
def test_play_rows_with_optimal_seats(preset: str) -> None:
    """``play_rows`` of tables with an optimal seat (the default strategies, as tests/test_fast_paths.py's)."""
    rules = Rules.from_dict({"preset": preset})
    players = 3
    bots = [registry.make(n, {}) for n in ("dice-poker/optimal", "dice-poker/greedy", "dice-poker/random")]
    rotations = [[bots[(s + r) % players] for s in range(players)] for r in range(players)]
    for d in range(8):
        dealt = State.deal(rules, players, d % players, np.random.default_rng(d))
        seeds = [1000 * d + r for r in range(players)]
        got = FAST.play_rows(dealt, TABLES, rotations, lambda r, seeds=seeds: np.random.default_rng(seeds[r]))
        for r, seat_bots in enumerate(rotations):
            st = dealt.copy()
            play_deal(st, seat_bots, np.random.default_rng(seeds[r]))  # the readable loop
            assert got[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"


# ---------------------------------------------------------------------------- the compiled luck correction
LUCK_OPTIONS: list[dict[str, Any]] = [
    {"preset": "full"},
    {"preset": "mixed"},
    {"preset": "full", "reroll_rule": "free"},
    {"preset": "full", "school_order": "fixed", "school_bonus": "both", "first_throw_double": "none"},
    {"preset": "full", "school_bonus": "minus", "first_throw_double": "except_chance", "poker_bonus": 0},
]
LUCK_TABLES = [["dice-poker/random"], ["dice-poker/greedy"], ["dice-poker/optimal"],
               ["dice-poker/optimal", "dice-poker/greedy", "dice-poker/random"]]


def _bits(corrections: Any) -> list[list[str]]:
    """The corrections' floats, bit for bit."""
    return [[float(x).hex() for x in seats] for seats in corrections]


@pytest.mark.parametrize("opts", LUCK_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_compiled_corrections_are_the_estimators_floats(opts: dict[str, Any]) -> None:
    """``play_rows_corrected``: the rows of ``play_rows`` and, per rotation, each seat's correction bit for bit
    ``luck.unit_corrections`` of the finished states (the readable estimator), for random, greedy and optimal
    seats, 1 to 3 players, every rotation of many deals (the kernel notes each turn's throws and keeps and
    reads the turn's values from the luck's strategy, memoised: a state met again is read back)."""
    from games.dice_poker.luck import LUCK, unit_corrections

    rules = Rules.from_dict(opts)
    checked = 0
    for players in (1, 2, 3):
        for names in LUCK_TABLES[:3] if players == 1 else LUCK_TABLES:
            bots = [registry.make(names[s % len(names)], {}) for s in range(players)]
            rotations = [[bots[(s + r) % players] for s in range(players)] for r in range(players)]
            for d in range(10 if players < 3 else 6):
                dealt = State.deal(rules, players, d % players, np.random.default_rng(d))
                seeds = [1000 * d + 10 * players + r for r in range(players)]
                got = FAST.play_rows_corrected(dealt, TABLES, rotations,
                                               lambda r, seeds=seeds: np.random.default_rng(seeds[r]), LUCK)
                assert got is not None
                rows, corrections = got
                finished = []
                for r, seat_bots in enumerate(rotations):
                    st = dealt.copy()
                    play_deal(st, seat_bots, np.random.default_rng(seeds[r]), FAST)
                    finished.append(st)
                assert rows == [(TABLES.deal_rows(st), TABLES.seat_rows(st)) for st in finished], f"deal {d}"
                assert _bits(corrections) == _bits(unit_corrections(finished)), f"{names}, {players} players, deal {d}"
                checked += sum(1 for c in corrections for x in c if x != 0.0)
    assert checked > 100  # non-trivial corrections were compared


def test_compiled_corrections_only_where_the_estimator_corrects() -> None:
    """None (the runner then corrects the finished states) for another estimator, rules the estimator leaves
    alone (``simple``, ``payout: pairwise``) and a table ``play_rows`` gives to the readable loop."""
    from games.core.entry import LuckEstimator
    from games.dice_poker.luck import LUCK

    greedy, race = registry.make("dice-poker/greedy", {}), registry.make("dice-poker/optimal-race", {})
    other = LuckEstimator(method="m", unbiased_by="u", corrections=LUCK.corrections)

    def ask(opts: dict[str, Any], bots: list[Any], luck: Any = LUCK) -> Any:
        dealt = State.deal(Rules.from_dict(opts), 2, 0, np.random.default_rng(5))
        return FAST.play_rows_corrected(dealt, TABLES, [bots, bots[::-1]], lambda r: np.random.default_rng(r), luck)

    assert ask({"preset": "full"}, [greedy, greedy]) is not None
    assert ask({"preset": "full"}, [greedy, greedy], other) is None
    assert ask({"preset": "full", "payout": "pairwise"}, [greedy, greedy]) is None
    assert ask({"preset": "simple"}, [greedy, greedy]) is None
    assert ask({"preset": "full"}, [greedy, race]) is None


def test_shard_faces_are_numpys_draw() -> None:
    """``play_shard`` draws a deal's faces in C from the stream (d, 0) exactly as ``State.deal`` does
    (``DiceStream.draw``: ``Generator.integers(1, 7, size=count)``, numpy's buffered Lemire on 32-bit draws,
    DP-2.5), and as many as it (``faces_per_game``)."""
    from games.core.streams import Streams
    from games.dice_poker.fast._play import deal_faces
    from games.dice_poker.fast.playout import faces_per_game
    from sims.plan import deal_seed

    for seed in range(40):
        streams = Streams(deal_seed(seed))
        for item in (0, 1, 7 + seed, 2**40 + seed):
            for count in (0, 1, 5, 31, 32, 33, 150 + seed, 900, 4920):
                want = streams.at(item, 0).integers(1, 7, size=count)
                assert deal_faces(streams.bits, item, count).tolist() == want.tolist(), (seed, item, count)
    for opts in OPTIONS:
        rules = Rules.from_dict(opts)
        for players in (2, 3, 8):
            dealt = State.deal(rules, players, 0, np.random.default_rng(players))
            assert faces_per_game(rules, players) == len(dealt.streams[0].faces)


def _shard_path(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the units ``play_shard`` played (``add_columns`` of the runner's rows); returns the list."""
    from sims.tables import TournamentRows

    add = TournamentRows.add_columns
    played: list[int] = []

    def add_columns(self: Any, deals: range, plays: Any, labels: Any, columns: Any) -> None:
        assert "deal_no" in columns[0]
        add(self, deals, plays, labels, columns)
        played.append(len(deals))

    monkeypatch.setattr(TournamentRows, "add_columns", add_columns)
    return played


def _unit_by_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-unit path: ``play_shard`` declines (the runner deals each unit and calls ``play_rows``)."""
    monkeypatch.setattr(type(FAST), "play_shard", lambda self, *a, **k: None)


SHARD_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"preset": "simple"}, ["random"]),
    ({"preset": "simple", "tie_rule": "rethrow", "kickers": False}, ["greedy", "random"]),
    ({"preset": "simple", "payout": "pairwise", "reroll_rule": "free"}, ["greedy"]),
    ({"preset": "full"}, ["greedy"]),
    ({"preset": "full"}, ["optimal", "random", "greedy"]),
    ({"preset": "full", "first_throw_double": "none", "school_bonus": "both", "school_order": "fixed"},
     ["random", "greedy"]),
    ({"preset": "full", "payout": "pairwise"}, ["greedy", "optimal"]),
    ({"preset": "mixed"}, ["random"]),
    ({"preset": "mixed", "reroll_rule": "free", "poker_bonus": 100}, ["optimal", "greedy", "random"]),
]


@pytest.mark.parametrize(("opts", "names"), SHARD_CASES,
                         ids=lambda x: ",".join(f"{k}={v}" for k, v in x.items()) if isinstance(x, dict) else
                         "+".join(x))
@pytest.mark.parametrize("variance", ["none", "auto"])
def test_play_shard_tables_are_the_per_unit_paths(opts: dict[str, Any], names: list[str], variance: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary job's shard through ``play_shard`` (faces dealt and every rotation played in C, the columns
    and, under ``auto``, the corrections from the kernel) gives the tables of the per-unit path (``State.deal``
    and ``play_rows`` / ``play_rows_corrected`` per unit), column by column and to the bit, for 1 to 4 seats,
    duplicate and fixed seating, shards not starting at deal 0, cut into batches of 7 deals."""
    import sims.run
    from sims.run import run_shard
    from sims.spec import TournamentSpec, parse_spec

    simple = opts["preset"] == "simple"
    for players in (2, 3, 4) if simple else (1, 2, 3, 4):
        for seating, seed, k in (("duplicate", 11 + players, 1), ("fixed", 3 * players, 2)):
            spec = parse_spec({"kind": "tournament", "name": "t", "game": "dice-poker", "rules": opts,
                               "players": players, "bots": [{"name": f"dice-poker/{names[s % len(names)]}"}
                                                            for s in range(players)],
                               "deals": 75, "shard_deals": 30, "seating": seating, "seed": seed, "record": "summary",
                               "variance_reduction": variance})
            assert isinstance(spec, TournamentSpec)
            with monkeypatch.context() as m:
                _unit_by_unit(m)
                want = run_shard(spec, k)  # the per-unit path: State.deal and play_rows per unit
            with monkeypatch.context() as m:
                played = _shard_path(m)
                m.setattr(sims.run, "SHARD_BATCH", 7)
                got = run_shard(spec, k)
            assert sum(played) == (30 if k == 1 else 15), "play_shard played the shard"
            for t in ("deals", "seats"):
                assert got[t].schema == want[t].schema
                for c in got[t].column_names:
                    assert got[t][c].to_pylist() == want[t][c].to_pylist(), (players, seating, t, c)
            if variance == "auto" and not simple and opts.get("payout") != "pairwise":
                seats = got["seats"]
                assert seats["adjusted_score"].to_pylist() != seats["score"].cast("float64").to_pylist()


def test_play_shard_declines_what_it_does_not_play() -> None:
    """None (the runner deals unit by unit) for a seat the kernel does not play (``optimal-race``; ``optimal``
    in simple), rules the luck does not cover when asked for it, and a generator the kernel cannot re-point."""
    from games.core.streams import Streams
    from sims.plan import deal_seed

    streams = Streams(deal_seed(1))
    greedy, race = registry.make("dice-poker/greedy", {}), registry.make("dice-poker/optimal-race", {})
    optimal = registry.make("dice-poker/optimal", {})
    full = Rules.from_dict({"preset": "full"})
    got = FAST.play_shard(full, 2, range(3, 9), streams, [[greedy, greedy]], False)
    assert got is not None and len(got[1]["score"]) == 12
    assert FAST.play_shard(full, 2, range(3, 9), streams, [[greedy, race]], False) is None
    assert FAST.play_shard(Rules.from_dict({"preset": "simple"}), 2, range(3), streams, [[optimal, greedy]],
                           False) is None
    assert FAST.play_shard(Rules.from_dict({"preset": "full", "payout": "pairwise"}), 2, range(3), streams,
                           [[greedy, greedy]], True) is None

    class Other:
        direct = False
        bits = streams.bits

    assert FAST.play_shard(full, 2, range(3), Other(), [[greedy, greedy]], False) is None
