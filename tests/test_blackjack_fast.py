"""The compiled casino play-out (games/blackjack/fast/_play.pyx) against the readable engine: the same
generator gives the same scores in every round and ends in the same state (BJ-7, BJ-8.1); a whole shard
played by the kernel (``play_shard``) gives the readable engine's rows and AIVAT corrections (luck.py).
The home and ochko kernel (``_home.pyx``): records, draws and legal lists under every option (BJ-2.5, BJ-4,
BJ-6), and the rows it writes, against the readable engine."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from games.blackjack.dealing import deal
from games.blackjack.fast._play import play_random
from games.blackjack.luck import unit_corrections
from games.blackjack.rules import Rules
from games.blackjack.simple_bots import RandomBot
from games.core import registry
from games.core.streams import Streams
from sims.plan import deal_seed
from sims.run import run_shard
from sims.shards import ShardCancelled, seatings, shard_range
from sims.spec import TournamentSpec, bot_labels, parse_spec
from sims.tables import TournamentRows


@pytest.mark.parametrize(("decks", "players", "options"), [
    (1, 7, {}), (1, 1, {"das": "off"}), (2, 4, {"dealer_soft17": "hit"}), (6, 3, {"blackjack_pays": "6:5"}),
    (8, 7, {}), (4, 2, {"das": "off", "dealer_soft17": "hit"}),
])
def test_compiled_rounds_equal_the_readable_ones(decks: int, players: int, options: dict[str, str]) -> None:
    rules = Rules(preset="casino", decks=decks, **options)  # type: ignore[arg-type]
    fast_rng, loop_rng = np.random.default_rng(decks * 10 + players), np.random.default_rng(decks * 10 + players)
    rounds = 1500
    num, den = rules.natural_pays
    totals, per = play_random(fast_rng, players, decks, rules.bet, num, den, rules.das == "on",
                              rules.dealer_soft17 == "hit", rounds, True)
    assert per is not None
    bot = RandomBot()
    for i in range(rounds):
        st = deal(rules, players, None, loop_rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), loop_rng))
        assert list(per[i]) == st.scores(), f"round {i}"
    assert fast_rng.bit_generator.state == loop_rng.bit_generator.state
    assert list(totals) == list(per.sum(axis=0))


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError):
        play_random(np.random.default_rng(0), 8, 6, 10, 3, 2, True, False, 1)


def _rng(seed: list[int], r: int) -> np.random.Generator:
    return np.random.default_rng([*seed, r])


@pytest.mark.parametrize(("decks", "players"), [(1, 7), (6, 1), (2, 3)])
def test_play_rows_equal_the_row_functions(decks: int, players: int) -> None:
    """The fast path's rows straight from the kernel equal tables.py's rows of the readable engine's round."""
    from games.blackjack.fast.playout import FAST
    from games.blackjack.tables import TABLES

    rules = Rules(preset="casino", decks=decks)
    deal_rng = np.random.default_rng(99)
    bots = [RandomBot()] * players
    for d in range(400):
        fresh = deal(rules, players, None, deal_rng)
        seed = [d, decks, players]
        rows = FAST.play_rows(fresh, TABLES, [bots, bots], functools.partial(_rng, seed))
        for r in range(2):
            st = fresh.copy()
            rng = np.random.default_rng([*seed, r])
            while not st.is_over():
                st.apply(bots[0].act(st.view(st.to_act()), st.legal_actions(), rng))
            assert rows[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"


def _readable_tables(spec: TournamentSpec, k: int) -> dict[str, pa.Table]:
    """Shard ``k`` of ``spec`` built deal by deal from the readable engine: each deal dealt from the stream
    (d, 0), each rotation played by the bots' own ``act`` from (d, r + 1), the AIVAT corrections of
    ``games.blackjack.luck`` under ``variance_reduction: auto``, the rows by tables.py (``TournamentRows.add``)."""
    entry = registry.game("blackjack")
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, "blackjack") for b in spec.bots]
    labels = bot_labels(spec.bots, "blackjack")
    streams = Streams(deal_seed(spec.seed))
    plays = seatings(spec, streams.rng)
    rows = TournamentRows(entry, False)
    for d in shard_range(spec, k):
        fresh = entry.deal(rules, spec.players, 0, streams.at(d, 0))  # casino: the dealer is no seat
        finished: list[Any] = []
        for r, seating in enumerate(plays):
            st, rng = fresh.copy(), streams.at(d, r + 1)
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seating[seat]].act(st.view(seat), st.legal_actions(), rng))
            finished.append(st)
        corr = unit_corrections(finished) if spec.variance_reduction == "auto" else [None] * len(plays)
        for r, (seating, st) in enumerate(zip(plays, finished, strict=True)):
            rows.add(d, r, seating, labels, st, None, corr[r])
    return rows.tables()


@pytest.mark.parametrize(("decks", "bots", "variance", "options"), [
    (6, ["random"], "auto", {}),
    (6, ["random", "random", "random"], "none", {"dealer_soft17": "hit"}),
    (1, ["dealer-rule", "random"], "auto", {}),  # one deck: the reshuffle (BJ-3.4), terms left out after it
    (1, ["random"] * 7, "auto", {"das": "off"}),
    (2, ["dealer-rule", "basic", "random"], "auto", {"blackjack_pays": "6:5"}),
    (8, ["basic", "random"], "none", {}),
    (6, ["basic", "basic:infinite"], "auto", {"dealer_soft17": "hit"}),  # the chart of another deck
])
def test_shard_kernel_rows_equal_the_readable_engines(decks: int, bots: list[str], variance: str,
                                                      options: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``play_shard`` (stub drawn in C, every rotation, the columns, the AIVAT correction) gives shard 1's
    tables exactly as the readable engine, tables.py and luck.py make them, adjusted_score to the bit;
    batches of 7 deals, so the shard is cut across batches."""
    import sims.run

    spec = parse_spec({"kind": "tournament", "name": "t", "game": "blackjack",
                       "rules": {"preset": "casino", "decks": decks, **options}, "players": len(bots),
                       "bots": [{"name": f"blackjack/{b}"} if ":" not in b else
                                {"name": f"blackjack/{b.split(':')[0]}", "params": {"decks": b.split(":")[1]}}
                                for b in bots], "deals": 90, "shard_deals": 40,
                       "seating": "duplicate", "seed": 11, "record": "summary", "variance_reduction": variance})
    assert isinstance(spec, TournamentSpec)
    monkeypatch.setattr(sims.run, "SHARD_BATCH", 7)
    done: list[int] = []
    got = run_shard(spec, 1, on_unit=done.append)
    assert done == [7, 14, 21, 28, 35, 40]
    want = _readable_tables(spec, 1)
    for t in ("deals", "seats"):
        assert got[t].schema == want[t].schema
        for c in got[t].column_names:
            assert got[t][c].to_pylist() == want[t][c].to_pylist(), (t, c)
    if variance == "auto":
        seats = got["seats"]
        assert not seats["adjusted_score"].equals(seats["score"].cast(pa.float64()))


def test_shard_kernel_declines_home_and_stops_when_cancelled() -> None:
    """Home tables are dealt and played deal by deal (``play_shard`` gives None); a cancelled casino shard
    stops between batches."""
    from games.blackjack.fast.playout import FAST

    streams = Streams(deal_seed(3))
    assert FAST.play_shard(Rules(preset="home"), 2, range(0, 5), streams, [[RandomBot(), RandomBot()]], False) is None
    spec = parse_spec({"kind": "tournament", "name": "t", "game": "blackjack", "rules": {"preset": "casino"},
                       "players": 1, "bots": [{"name": "blackjack/random"}], "deals": 10_000, "seed": 1,
                       "record": "summary"})
    with pytest.raises(ShardCancelled):
        run_shard(spec, 0, should_stop=lambda: True)


# ---------------------------------------------------------------------------------------------- home and ochko
HOME_TABLES = {
    "random": ["blackjack/random"],
    "rules": ["blackjack/home/heuristic", "blackjack/dealer-rule", "blackjack/basic"],
    "mixed": ["blackjack/home/heuristic", "blackjack/random", "blackjack/dealer-rule", "blackjack/optimal"],
    "heuristic": ["blackjack/home/heuristic"],
}


@pytest.mark.parametrize(("preset", "options", "players", "table"), [
    ("home", {"doubling": "free"}, 4, "mixed"),  # BJ-2.5: the dealer's double and the redoubles are choices
    ("home", {"doubling": "free"}, 5, "random"),
    ("home", {"doubling": "off", "dealer_rule": "s17"}, 3, "mixed"),  # BJ-4.8: the dealer's draws automatic
    ("home", {"dealer_rule": "h17", "ties": "push"}, 6, "rules"),  # BJ-4.9
    ("home", {"dealer_rule": "h17"}, 4, "random"),
    ("home", {"bet_timing": "after_first_card", "min_bet": 2, "max_bet": 2}, 5, "mixed"),  # BJ-4.2: one bet
    ("home", {"bet_timing": "after_first_card", "max_bet": 9}, 3, "random"),
    ("home", {"split_pairs": "on"}, 8, "random"),  # BJ-4.10
    ("home", {"split_pairs": "on", "doubling": "free", "deal_passes": "natural"}, 7, "mixed"),
    ("home", {}, 8, "heuristic"),  # BJ-2.4: several players stood before him
    ("ochko", {"ace": "1_or_11"}, 4, "mixed"),  # BJ-6.1
    ("ochko", {"ace": "1_or_11"}, 6, "random"),
    ("ochko", {"bank": 2}, 6, "random"),  # BJ-6.4: players who cannot stake sit out
    ("ochko", {"bank": 3}, 5, "rules"),
    ("ochko", {"bank": 1}, 3, "mixed"),
])
def test_home_and_ochko_kernel_equals_the_readable_engine(preset: str, options: dict[str, Any], players: int,
                                                          table: str) -> None:
    """``_home.pyx`` under each option of BJ-2.5, BJ-4 and BJ-6 (the presets' defaults are in
    tests/test_fast_paths.py): records, generator states and legal lists equal the readable engine's."""
    from games.blackjack.fast.playout import FAST
    from tests.test_fast_paths import check_parity

    names = HOME_TABLES[table]
    check_parity(registry.game("blackjack"), FAST, Rules(preset=preset, **options),
                 [(names[s % len(names)], {}) for s in range(players)], deals=300, seed=players)


@pytest.mark.parametrize(("preset", "options", "players", "seed"), [
    ("home", {}, 3, 1), ("home", {}, 5, 2), ("home", {}, 8, 3), ("home", {"doubling": "free", "ties": "push"}, 4, 4),
    ("home", {"split_pairs": "on", "dealer_rule": "s17"}, 7, 5), ("ochko", {}, 2, 6), ("ochko", {}, 4, 7),
    ("ochko", {}, 6, 8), ("ochko", {"bank": 3, "ace": "1_or_11"}, 5, 9),
])
def test_home_and_ochko_play_rows_equal_the_row_functions(preset: str, options: dict[str, Any], players: int,
                                                          seed: int) -> None:
    """The rows ``_home.play_rows`` writes equal tables.py's rows of the readable engine's deal, rotation by
    rotation (random players, then the rule bots, then a mixed table), every dealer seat."""
    from games.blackjack.fast.playout import FAST
    from games.blackjack.tables import TABLES

    rules = Rules(preset=preset, **options)
    rotations = [[registry.make(names[s % len(names)], {}, "blackjack") for s in range(players)]
                 for names in (HOME_TABLES["random"], HOME_TABLES["rules"], HOME_TABLES["mixed"])]
    assert all(FAST.supports(rules, bots) for bots in rotations)
    deal_rng = np.random.default_rng(seed)
    for d in range(300):
        fresh = deal(rules, players, d % players, deal_rng)
        gens = [_rng([d, seed], r) for r in range(len(rotations))]
        rows = FAST.play_rows(fresh, TABLES, rotations, gens.__getitem__)
        for r, bots in enumerate(rotations):
            st = fresh.copy()
            rng = _rng([d, seed], r)
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
            assert rows[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"
            assert gens[r].bit_generator.state == rng.bit_generator.state, f"deal {d}, rotation {r}: other draws"
