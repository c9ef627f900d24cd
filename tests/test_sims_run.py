"""The shard runner (docs/jobs.md, "Randomness and shards").

Pure; duplicate seating replays the same cards under every rotation.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("games.order_poker.bots") is None,
                                reason="games.order_poker is not installed yet")

from games.core import registry  # noqa: E402
from sims.run import run_shard  # noqa: E402
from sims.spec import parse_spec  # noqa: E402
from sims.tables import RECORDS, deals_schema, seats_schema  # noqa: E402

# Bots with different parameters play differently: enough to see seats and rotations move.
BOTS: list[Any] = ["order-poker/random", {"name": "order-poker/random", "params": {"pass_prob": 0.2}},
                   {"name": "order-poker/random", "params": {"pass_prob": 0.9, "keep_prob": 0.5}}, "order-poker/random"]


def spec(**over: Any) -> Any:
    data: dict[str, Any] = {"kind": "tournament", "game": "order-poker", "players": 4, "bots": BOTS,
                            "deals": 12, "shard_deals": 5, "seating": "duplicate", "seed": 99, "record": "full"}
    data.update(over)
    return parse_spec(data)


def test_a_shard_is_a_pure_function_of_spec_and_k() -> None:
    s = spec()
    a, b = run_shard(s, 1), run_shard(s.canonical(), 1)
    assert set(a) == {"deals", "seats", "records"}
    for name in a:
        assert a[name].equals(b[name])
    op = registry.game("order-poker")
    assert a["deals"].schema == deals_schema(op) and a["seats"].schema == seats_schema(op)
    assert a["records"].schema == RECORDS
    # The common keys, then the game's columns from its entry (the contract of docs/storage.md).
    assert a["deals"].schema.names == ["deal", "rotation", "dealer", "seating", "orderer", "order", "stake", "open",
                                       "robot_combination", "rounds", "n_actions"]
    assert a["seats"].schema.names == ["deal", "rotation", "seat", "bot_index", "bot", "role", "combination",
                                       "fulfilled", "score", "adjusted_score", "remote_faults"]
    assert not a["records"].equals(run_shard(s, 0)["records"])


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_rows_name_the_game_and_its_version(game: str) -> None:
    """The deals and seats schemas carry the game and its version in their metadata, so rows written
    before a behaviour change (a version bump) can be told from rows written after it."""
    entry = registry.game(game)
    for schema in (deals_schema(entry), seats_schema(entry)):
        assert schema.metadata == {b"rasklad.game": game.encode(), b"rasklad.game_version": str(entry.version).encode(),
                                   b"rasklad.deal_streams": b"2"}


def test_shard_tables_carry_the_version() -> None:
    a = run_shard(spec(record="summary"), 0)
    for name in ("deals", "seats"):
        assert a[name].schema.metadata[b"rasklad.game_version"] == str(registry.game("order-poker").version).encode()


def test_rows_and_keys_of_a_shard() -> None:
    s = spec()
    last = run_shard(s, 2)  # deals 10 and 11
    assert sorted(set(last["deals"].column("deal").to_pylist())) == [10, 11]
    assert last["deals"].num_rows == 2 * 4  # one row per deal and rotation
    assert last["seats"].num_rows == 2 * 4 * 4
    keys = list(zip(*(last["seats"].column(c).to_pylist() for c in ("deal", "rotation", "seat")), strict=True))
    assert len(set(keys)) == len(keys)
    with pytest.raises(ValueError, match="shard 3 does not exist"):
        run_shard(s, 3)


def test_duplicate_seating_rotates_the_bots_over_the_same_cards() -> None:
    t = run_shard(spec(), 0)
    records = [json.loads(r) for r in t["records"].column("record").to_pylist()]
    deals = t["deals"].to_pylist()
    by_deal: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for d, rec in zip(deals, records, strict=True):
        by_deal.setdefault(d["deal"], []).append((d, rec))
    assert len(by_deal) == 5
    for deal, plays in by_deal.items():
        assert sorted(d["rotation"] for d, _ in plays) == [0, 1, 2, 3]
        assert {json.dumps(rec["deal"]["hands"]) for _, rec in plays} == {json.dumps(plays[0][1]["deal"]["hands"])}
        assert {json.dumps(rec["deal"]["robot"]) for _, rec in plays} == {json.dumps(plays[0][1]["deal"]["robot"])}
        assert {d["dealer"] for d, _ in plays} == {deal % 4}  # OP-1.3: the deal passes clockwise
        for d, _ in plays:
            assert d["seating"] == [(s + d["rotation"]) % 4 for s in range(4)]
        # Every bot holds every seat's cards once.
        seats_of_bot = {b: sorted(d["seating"].index(b) for d, _ in plays) for b in range(4)}
        assert all(v == [0, 1, 2, 3] for v in seats_of_bot.values())


def test_seats_rows_follow_the_engine_outcome() -> None:
    t = run_shard(spec(), 0)
    seats = t["seats"].to_pylist()
    for d, rec in zip(t["deals"].to_pylist(), t["records"].column("record").to_pylist(), strict=True):
        out = json.loads(rec)["outcome"]
        rows = [r for r in seats if r["deal"] == d["deal"] and r["rotation"] == d["rotation"]]
        assert [r["score"] for r in rows] == out["scores"]
        assert [r["bot_index"] for r in rows] == d["seating"]
        assert [r["role"] for r in rows] == out["roles"]
        assert d["stake"] == out["stake"] and d["order"] == out["order"]
    labels = {r["bot_index"]: r["bot"] for r in seats}
    # Repeated names are told apart by the parameters that differ from the defaults; alike bots by #n.
    assert labels == {0: "order-poker/random#1", 1: "order-poker/random(pass_prob=0.2)",
                      2: "order-poker/random(pass_prob=0.9, keep_prob=0.5)", 3: "order-poker/random#2"}


def test_cards_do_not_depend_on_the_bots() -> None:
    a = run_shard(spec(), 0)["records"].column("record").to_pylist()
    b = run_shard(spec(bots=["order-poker/random"] * 4), 0)["records"].column("record").to_pylist()
    assert [json.loads(r)["deal"]["hands"] for r in a] == [json.loads(r)["deal"]["hands"] for r in b]
    assert [json.loads(r)["actions"] for r in a] != [json.loads(r)["actions"] for r in b]


def test_fixed_and_random_seating_play_each_deal_once() -> None:
    fixed = run_shard(spec(seating="fixed", record="summary"), 0)
    assert set(fixed) == {"deals", "seats"}
    assert fixed["deals"].column("rotation").to_pylist() == [0] * 5
    assert fixed["deals"].column("seating").to_pylist() == [[0, 1, 2, 3]] * 5
    rnd = run_shard(spec(seating="random", deals=40, shard_deals=40, record="summary"), 0)
    seatings = rnd["deals"].column("seating").to_pylist()
    assert all(sorted(s) == [0, 1, 2, 3] for s in seatings)
    assert len({tuple(s) for s in seatings}) > 1


def test_should_stop_cancels_a_shard_between_deals() -> None:
    from sims.run import ShardCancelled

    calls: list[int] = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(ShardCancelled, match="stopped at deal 2"):
        run_shard(spec(), 0, should_stop=stop)
    assert run_shard(spec(), 0, should_stop=lambda: False)["deals"].equals(run_shard(spec(), 0)["deals"])


def test_random_seating_draws_from_a_larger_pool() -> None:
    pool: list[Any] = ["order-poker/random", {"name": "order-poker/random", "params": {"pass_prob": 0.2}},
                       {"name": "order-poker/random", "params": {"pass_prob": 0.9}}, "order-poker/heuristic",
                       {"name": "order-poker/random", "params": {"keep_prob": 0.1}}]
    s = spec(players=3, bots=pool, seating="random", deals=60, shard_deals=60, record="full")
    t = run_shard(s, 0)
    seatings = t["deals"].column("seating").to_pylist()
    assert all(len(x) == 3 and len(set(x)) == 3 and set(x) <= set(range(5)) for x in seatings)
    assert {b for x in seatings for b in x} == set(range(5))  # every bot of the pool plays
    seats = t["seats"].to_pylist()
    assert {r["bot_index"]: r["bot"] for r in seats} == {
        0: "order-poker/random", 1: "order-poker/random(pass_prob=0.2)", 2: "order-poker/random(pass_prob=0.9)",
        3: "order-poker/heuristic", 4: "order-poker/random(keep_prob=0.1)"}
    # The cards of a deal do not depend on the seating: same seed, a 3-bot pool, the same hands.
    small = run_shard(spec(players=3, bots=pool[:3], seating="random", deals=60, shard_deals=60, record="full"), 0)
    hands = [json.loads(r)["deal"]["hands"] for r in t["records"].column("record").to_pylist()]
    assert hands == [json.loads(r)["deal"]["hands"] for r in small["records"].column("record").to_pylist()]


@pytest.mark.parametrize("seating", ["duplicate", "random"])
def test_rows_do_not_depend_on_how_the_job_is_cut_into_shards(seating: str) -> None:
    """A deal's streams are keyed by its number in the job (sims.plan.deal_seed), so shards of 5, 3 or 12
    deals give the same rows: a planner that sizes shards otherwise (declared costs) changes no row."""
    import pyarrow as pa

    def all_rows(shard_deals: int) -> dict[str, pa.Table]:
        s = spec(shard_deals=shard_deals, seating=seating, record="summary")
        assert s.shard_deals is not None
        shards = [run_shard(s, k) for k in range(-(-s.deals // s.shard_deals))]
        return {t: pa.concat_tables([x[t] for x in shards]) for t in ("deals", "seats")}

    a, b, c = all_rows(5), all_rows(3), all_rows(12)
    for t in ("deals", "seats"):
        assert a[t].equals(b[t]) and a[t].equals(c[t])


def test_a_spec_may_set_the_units_of_a_match() -> None:
    """``match_length``: each deal of the job is a match of that many units, for a game whose match holds
    any number of them (GameEntry.deal_series): dice poker's games (DP-1.3), liar's poker's rounds (LP-5.4)."""
    from games.core.replay import replay

    base = {"kind": "tournament", "players": 2, "deals": 4, "seed": 5, "seating": "duplicate", "record": "full"}
    dp = parse_spec({**base, "game": "dice-poker", "rules": {"preset": "simple"}, "match_length": 3,
                     "bots": ["dice-poker/greedy", "dice-poker/random"]})
    t = run_shard(dp, 0)
    assert sorted(set(t["deals"].column("deal_no").to_pylist())) == [0, 1, 2]
    assert t["deals"].num_rows == 4 * 2 * 3 and t["seats"].num_rows == 4 * 2 * 2
    for text in t["records"].column("record").to_pylist():
        rec = json.loads(text)
        assert len(rec["deal"]) == 3 and replay(rec)["scores"] == rec["outcome"]["scores"]
    # liar's poker: match_length is the rounds option said once, the same rows either way
    lp = {**base, "game": "liars-poker", "bots": ["liars-poker/truthful", "liars-poker/random"], "shard_deals": 4}
    a = run_shard(parse_spec({**lp, "match_length": 3}), 0)
    b = run_shard(parse_spec({**lp, "rules": {"rounds": 3}}), 0)
    for name in ("deals", "seats"):
        assert a[name].equals(b[name])
