"""Deal-stats questions (docs/jobs.md, "deal-stats"): exact known values, shard sums, seeded determinism."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import yaml

from ext import handeval
from games.order_poker import questions
from sims.plan import canonical_json, plan
from sims.run import run_shard
from sims.spec import parse_spec

# OP-2: counts of 5-card hands of the 36-card deck by combination.
OP2 = {"none": 123420, "pair": 193536, "two_pair": 36288, "three": 16128, "straight": 5100,
       "full_house": 1728, "flush": 484, "four": 288, "straight_flush": 20}


def all_shards(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Rows of every table over every shard of the job."""
    spec = parse_spec(data)
    out: dict[str, list[dict[str, Any]]] = {}
    for sh in plan(spec).shards:
        for name, t in run_shard(spec, sh.k).items():
            assert isinstance(t, pa.Table)
            out.setdefault(name, []).extend(t.to_pylist())
    return out


def summed(rows: list[dict[str, Any]], *keys: str) -> dict[Any, tuple[int, int]]:
    acc: dict[Any, list[int]] = {}
    for r in rows:
        k = r[keys[0]] if len(keys) == 1 else tuple(r[x] for x in keys)
        a = acc.setdefault(k, [0, 0])
        a[0] += r["count"]
        a[1] += r["n"]
    return {k: (c, n) for k, (c, n) in acc.items()}


def test_categories_exact_order_poker_is_op2() -> None:
    rows = all_shards({"kind": "deal-stats", "game": "order-poker", "question": "categories"})["counts"]
    assert {r["category"]: r["count"] for r in rows} == OP2
    assert all(r["n"] == 376992 and r["probability"] == r["count"] / 376992 for r in rows)


def test_categories_exact_seven_cards_sharded() -> None:
    spec = {"kind": "deal-stats", "ranking": "classic", "question": {"type": "categories", "cards": 7}}
    assert plan(parse_spec(spec)).shards_total > 1
    got = summed(all_shards(spec)["counts"], "category")
    # The classic 7-card frequencies.
    assert {k: c for k, (c, _) in got.items()} == {
        "high": 23294460, "pair": 58627800, "two_pair": 31433400, "three": 6461620, "straight": 6180020,
        "flush": 4047644, "full_house": 3473184, "four": 224848, "straight_flush": 41584}
    assert {n for _, n in got.values()} == {math.comb(52, 7)}


def test_categories_with_dead_cards_match_the_kernel() -> None:
    spec = {"kind": "deal-stats", "ranking": "short-deck", "question": {"type": "categories", "dead": "As Kd 6h"}}
    rows = all_shards(spec)["counts"]
    assert {r["category"]: r["count"] for r in rows} == handeval.category_counts("short-deck", 5, dead="As Kd 6h")
    assert rows[0]["n"] == math.comb(33, 5)


def test_categories_sampled_is_seeded_and_sharded() -> None:
    spec = {"kind": "deal-stats", "ranking": "order-poker", "question": "categories", "method": "sample",
            "samples": 300_000, "shard_samples": 100_000, "seed": 5}
    a, b = all_shards(spec)["counts"], all_shards(spec)["counts"]
    assert a == b  # a pure function of the spec
    per_shard = [sum(r["count"] for r in a[i:i + 9]) for i in range(0, len(a), 9)]
    assert per_shard == [100_000] * 3
    assert a[:9] != a[9:18]  # shards draw different hands
    got = summed(a, "category")
    for cat, (c, n) in got.items():  # within 5 standard errors of the exact OP-2 share
        p = OP2[cat] / 376992
        assert abs(c / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-9, cat
    other = all_shards({**spec, "seed": 6})["counts"]
    assert other != a


@pytest.fixture(scope="module")
def robot_exact() -> dict[str, list[dict[str, Any]]]:
    return all_shards({"kind": "deal-stats", "game": "order-poker", "question": "robot-combination"})


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def golden_specs() -> dict[str, dict[str, Any]]:
    """The three deal-stats examples and a variant of each (sampled, sharded, exact)."""
    ex = {n: yaml.safe_load((EXAMPLES / f"{n}.yaml").read_text()) for n in ("reach", "robot-combination", "categories")}
    return {
        **ex,
        "reach/exact-other": {**{k: v for k, v in ex["reach"].items() if k != "samples"}, "method": "exact",
                              "question": {**ex["reach"]["question"], "opponent_swaps": 0, "role": "other"}},
        "reach/sample-shards": {**ex["reach"], "samples": 300, "shard_samples": 100, "seed": 4},
        "robot-combination/sample": {**ex["robot-combination"], "method": "sample", "samples": 50_000,
                                     "shard_samples": 20_000, "seed": 3},
        "categories/sample": {"kind": "deal-stats", "ranking": "short-deck", "method": "sample", "samples": 1_000_000,
                              "shard_samples": 300_000, "seed": 5, "question": {"type": "categories", "dead": "As Kd"}},
    }


#: sha256 prefixes of (canonical JSON, every shard's tables: schema and rows) of each golden spec, taken
#: before Order Poker's questions moved out of sims into games/order_poker/questions.py: the move kept
#: every job id and every row.
GOLDEN = {
    "reach": ("7244e8694164148e", "6e5dc95f22c22df8"),
    "robot-combination": ("f95a5dbe5b0bee22", "c2e07cfade0f8985"),
    "categories": ("c16702fe0e3d68f3", "320fb7e256a7c57e"),
    "reach/exact-other": ("0f44ce485ed360c9", "c30d272ec032bb3d"),
    "reach/sample-shards": ("717a616164e90909", "469b4616d58fb9ae"),
    "robot-combination/sample": ("17ec8647ea934711", "3985f92c8536244e"),
    "categories/sample": ("59e280dd94dd642f", "3ae7c550c8f812ed"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_job_ids_and_rows_are_unchanged(name: str) -> None:
    spec = parse_spec(golden_specs()[name])
    h = hashlib.sha256()
    for sh in plan(spec).shards:
        for t, tab in sorted(run_shard(spec, sh.k).items()):
            h.update(json.dumps([sh.k, t, str(tab.schema), tab.to_pylist()]).encode())
    assert (hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:16], h.hexdigest()[:16]) == GOLDEN[name]


def test_robot_classes_cover_every_hand() -> None:
    _reps, sizes = questions.robot_classes()
    assert int(sizes.sum()) == 376992
    assert len(sizes) < 376992 // 30  # 48 symmetries (suits x rank reversal) shrink the work ~37x
    # The symmetries keep every hand's combination (OP-2: no straight wraps around).
    hands = np.asarray(list(itertools.combinations(range(16, 52), 5)), dtype=np.int64)
    base = handeval.category(hands.astype(np.uint8), "order-poker")
    maps = questions._symmetries()
    assert len(maps) == 48
    for m in maps:
        assert np.array_equal(handeval.category(m[hands].astype(np.uint8), "order-poker"), base)


def test_robot_combination_exact(robot_exact: dict[str, list[dict[str, Any]]]) -> None:
    counts = summed(robot_exact["counts"], "robot_combination")
    assert {k: c for k, (c, _) in counts.items()} == OP2  # the robot's hand is a uniform 5-card hand
    assert {n for _, n in counts.values()} == {376992}
    orders = summed(robot_exact["orders"], "order")
    # OP-3.2: an order is biddable unless the robot holds it.
    assert orders == {o: (376992 - OP2[o], 376992) for o in OP2 if o != "none"}
    bid = summed(robot_exact["biddable"], "robot_combination", "order", "biddable")
    assert len(bid) == 9 * 8
    for (rc, o, biddable), (_c, n) in bid.items():
        assert biddable == (o != rc)  # OP-3.2
        assert n == OP2[rc] * math.comb(31, 5)
    # Summed over robot combinations, the player's hand is again a uniform 5-card hand:
    # every (robot, player) pair of disjoint hands counted once.
    for o in OP2:
        if o == "none":
            continue
        assert sum(c for (rc, oo, _), (c, _) in bid.items() if oo == o) == OP2[o] * math.comb(31, 5)


def test_robot_combination_sampled_agrees(robot_exact: dict[str, list[dict[str, Any]]]) -> None:
    spec = {"kind": "deal-stats", "game": "order-poker", "question": "robot-combination", "method": "sample",
            "samples": 100_000, "seed": 3}
    got = all_shards(spec)
    assert got == all_shards(spec)
    exact = summed(robot_exact["biddable"], "robot_combination", "order", "biddable")
    sampled = summed(got["biddable"], "robot_combination", "order", "biddable")
    assert sum(n for _, n in summed(got["counts"], "robot_combination").values()) == 9 * 100_000
    for key in (("pair", "pair", False), ("pair", "two_pair", True), ("none", "pair", True)):
        p = exact[key][0] / exact[key][1]
        c, n = sampled[key]
        assert abs(c / n - p) <= 5 * math.sqrt(p * (1 - p) / n), key


def reach(hand: str, robot: str, swaps: int, role: str = "orderer") -> dict[str, int | None]:
    spec = {"kind": "deal-stats", "game": "order-poker",
            "question": {"type": "reach", "hand": hand, "robot": robot, "swaps": swaps, "role": role}}
    rows = all_shards(spec)["counts"]
    assert all(r["probability"] == (1.0 if r["min_swaps"] >= 0 else 0.0) for r in rows)
    return {r["combination"]: (r["min_swaps"] if r["min_swaps"] >= 0 else None) for r in rows}


def test_reach_exact_known_cases() -> None:
    # T-J-Q-K-A needs Td and Jc from the robot: two swaps (OP-2: no wrap-around straight).
    r2 = reach("6c 7d Qh Ks Ac", "8s 9h Td Jc 6h", 2)
    assert r2["straight"] == 2 and r2["none"] == 0 and r2["pair"] == 1
    assert reach("6c 7d Qh Ks Ac", "8s 9h Td Jc 6h", 1)["straight"] is None
    # The orderer may break the robot's pair of aces (OP-6.5 binds only the others).
    o = reach("6c 6d Ac 9s Jc", "As Ah 7c 8d Kc", 2)
    assert o["three"] == 2 and o["full_house"] == 2 and o["two_pair"] == 1 and o["pair"] == 0
    other = reach("6c 6d Ac 9s Jc", "As Ah 7c 8d Kc", 2, role="other")
    assert other["three"] is None and other["full_house"] is None
    assert other["two_pair"] is None  # 66 + AA takes an ace and leaves the robot with nothing
    assert reach("6c 6d 8h 9s Jc", "As Ah 7c 8d Kc", 1, role="other")["two_pair"] == 1  # take 8d: aces stay
    assert reach("6c 6d Ac 9s Jc", "As Ah 7c 8d Kc", 0) == {**dict.fromkeys(OP2), "pair": 0}


def test_reach_sampled_without_opponents_is_the_exact_answer() -> None:
    hand, robot = "6c 7d Qh Ks Ac", "8s 9h Td Jc 6h"
    exact = reach(hand, robot, 3)
    spec = {"kind": "deal-stats", "game": "order-poker", "method": "sample", "samples": 3, "seed": 1,
            "question": {"type": "reach", "hand": hand, "robot": robot, "swaps": 3}}
    rows = all_shards(spec)["counts"]
    for r in rows:
        assert r["probability"] == (1.0 if exact[r["combination"]] is not None else 0.0), r


def test_reach_sampled_with_opponents_is_seeded() -> None:
    spec = {"kind": "deal-stats", "game": "order-poker", "method": "sample", "samples": 60, "shard_samples": 30,
            "seed": 4, "question": {"type": "reach", "hand": "6c 6d 8h 9s Jc", "robot": "As Ah 7c 8d Kc",
                                    "swaps": 3, "opponent_swaps": 1}}
    a = all_shards(spec)["counts"]
    assert a == all_shards(spec)["counts"]
    got = summed(a, "combination")
    assert got["pair"] == (60, 60)  # already held: nothing the others do can take it away
    assert got["two_pair"] == (60, 60)  # one swap, made before anyone else moves
    assert 0 <= got["three"][0] <= 60 and got["straight_flush"][0] == 0


def test_merged_counts_come_back_in_rank_order() -> None:
    """Shards list only what they met, so first appearance is not the ranking's order (report rows)."""
    import pyarrow as pa

    from sims.report import _merge_counts

    shard_rows = [("flush", 6, 5, 10), ("pair", 1, 5, 10),  # shard 0 met only these two
                  ("none", 0, 4, 10), ("pair", 1, 1, 10), ("flush", 6, 5, 10)]
    t = pa.table({"robot_combination": [r[0] for r in shard_rows], "rank": pa.array([r[1] for r in shard_rows],
                  pa.int8()), "count": [r[2] for r in shard_rows], "n": [r[3] for r in shard_rows]})
    merged = _merge_counts(t).to_pylist()
    assert [(r["robot_combination"], r["count"], r["n"]) for r in merged] == [
        ("none", 4, 10), ("pair", 6, 20), ("flush", 10, 20)]
    assert [r["probability"] for r in merged] == [0.4, 0.3, 0.5]
