"""Shard files (storage.layout, storage.parquet): atomic commits, committed shards, reading, export.

DESIGN.md "Storage": a shard file is whole or absent, a re-run shard replaces its own file,
temporary files never count as shards; a job is complete when every shard's files are present.
Synthetic tables follow the contract's ``deals``/``seats`` schemas (sims.tables is not imported).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from storage.layout import SHARD_GLOB, job_dir, parse_shard_name, shard_name, shard_path, temp_shard_path
from storage.parquet import (
    ShardInfo,
    committed_shards,
    export_job,
    job_tables_on_disk,
    read_table,
    remove_temp_files,
    shard_files,
    write_shard,
    write_shards,
)

DEALS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False), pa.field("rotation", pa.int16(), nullable=False),
    pa.field("dealer", pa.int8(), nullable=False), pa.field("seating", pa.list_(pa.int16()), nullable=False),
    pa.field("orderer", pa.int8()), pa.field("order", pa.string()),
    pa.field("stake", pa.int8(), nullable=False),
    pa.field("open", pa.bool_(), nullable=False), pa.field("robot_combination", pa.string(), nullable=False),
    pa.field("rounds", pa.int16(), nullable=False), pa.field("n_actions", pa.int16(), nullable=False),
])
SEATS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False), pa.field("rotation", pa.int16(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False), pa.field("bot_index", pa.int16(), nullable=False),
    pa.field("bot", pa.string(), nullable=False), pa.field("role", pa.string()),
    pa.field("combination", pa.string(), nullable=False), pa.field("fulfilled", pa.bool_(), nullable=False),
    pa.field("score", pa.int32(), nullable=False),
])
BOTS = ("order-poker/random", "order-poker/heuristic", "order-poker/random#2")


def tournament_shard(k: int, n_deals: int, rng: np.random.Generator) -> dict[str, pa.Table]:
    """Synthetic shard ``k`` of a 3-player duplicate tournament: deals k*n .. k*n+n-1, 3 rotations."""
    players = len(BOTS)
    deal = np.repeat(np.arange(k * n_deals, (k + 1) * n_deals, dtype=np.int64), players)
    rotation = np.tile(np.arange(players, dtype=np.int16), n_deals)
    seating = [[int((s + r) % players) for s in range(players)] for r in rotation]
    rows = len(deal)
    orderer = rng.integers(-1, players, rows)
    deals = pa.table({
        "deal": deal, "rotation": rotation, "dealer": (deal % players).astype(np.int8),
        "seating": pa.array(seating, pa.list_(pa.int16())),
        "orderer": pa.array([None if o < 0 else int(o) for o in orderer], pa.int8()),
        "order": pa.array([None if o < 0 else "pair" for o in orderer], pa.string()),
        "stake": rng.integers(1, 4, rows).astype(np.int8), "open": rng.random(rows) < 0.5,
        "robot_combination": pa.array(["none"] * rows), "rounds": rng.integers(0, 4, rows).astype(np.int16),
        "n_actions": rng.integers(3, 20, rows).astype(np.int16),
    }, schema=DEALS)
    s_deal = np.repeat(deal, players)
    s_rot = np.repeat(rotation, players)
    s_seat = np.tile(np.arange(players, dtype=np.int8), rows)
    s_bot = ((s_seat.astype(np.int16) + s_rot) % players).astype(np.int16)
    seats = pa.table({
        "deal": s_deal, "rotation": s_rot, "seat": s_seat, "bot_index": s_bot,
        "bot": pa.array([BOTS[b] for b in s_bot]), "role": pa.array(["for"] * len(s_deal)),
        "combination": pa.array(["pair"] * len(s_deal)), "fulfilled": rng.random(len(s_deal)) < 0.3,
        "score": rng.integers(-6, 7, len(s_deal)).astype(np.int32),
    }, schema=SEATS)
    return {"deals": deals, "seats": seats}


def shard_rng(k: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(20240501, spawn_key=(k,)))


def test_layout_names_and_paths(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-0123abcd")
    assert jd == tmp_path / "jobs" / "j-0123abcd"
    assert shard_path(jd, "seats", 42) == jd / "seats" / "shard-000042.parquet"
    assert shard_name(1_234_567) == "shard-1234567.parquet"
    assert parse_shard_name("shard-000042.parquet") == 42
    tmp = temp_shard_path(jd, "seats", 42)
    assert tmp.parent == jd / "seats"
    assert not tmp.match(SHARD_GLOB) and parse_shard_name(tmp.name) is None
    for bad in ("shard-42.parquet", "shard-000042.parquet.tmp-1-ab", ".shard-000042.parquet", "x.parquet"):
        assert parse_shard_name(bad) is None
    with pytest.raises(ValueError):
        job_dir(tmp_path, "../etc")
    with pytest.raises(ValueError):
        shard_path(jd, "Seats; DROP", 0)
    with pytest.raises(ValueError):
        shard_name(-1)


def test_write_shard_commits_whole_file_with_checksum(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    t = tournament_shard(0, 50, shard_rng(0))["seats"]
    info = write_shard(jd, "seats", 0, t)
    assert isinstance(info, ShardInfo)
    assert info.path == shard_path(jd, "seats", 0) and info.rows == t.num_rows == 450
    assert info.checksum == hashlib.sha256(info.path.read_bytes()).hexdigest()
    assert pq.read_table(info.path).equals(t)
    meta = pq.ParquetFile(info.path).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert sorted(p.name for p in (jd / "seats").iterdir()) == ["shard-000000.parquet"]  # no temp left
    # The same rows give the same bytes: a shard is a pure function of (spec, k), so is its checksum.
    again = write_shard(jd, "seats", 0, tournament_shard(0, 50, shard_rng(0))["seats"])
    assert again.checksum == info.checksum


def test_rewrite_replaces_never_duplicates(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    for _ in range(3):
        write_shards(jd, 4, tournament_shard(4, 10, shard_rng(4)))
    other = tournament_shard(4, 7, shard_rng(99))["seats"]  # different content: the new file wins
    write_shard(jd, "seats", 4, other)
    assert [p.name for p in (jd / "seats").iterdir()] == ["shard-000004.parquet"]
    assert read_table(jd, "seats").equals(other)
    assert committed_shards(jd, ["deals", "seats"]) == {4}


def test_temp_files_never_count_as_shards(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    write_shards(jd, 0, tournament_shard(0, 5, shard_rng(0)))
    # What an in-flight (or killed) writer leaves: a whole-looking Parquet file under a temp name.
    for table, t in tournament_shard(1, 5, shard_rng(1)).items():
        pq.write_table(t, temp_shard_path(jd, table, 1))
        pq.write_table(t, jd / table / ".shard-000002.parquet.tmp-1-ab")
    assert committed_shards(jd, ["deals", "seats"]) == {0}
    assert set(shard_files(jd, "seats")) == {0}
    assert read_table(jd, "seats").num_rows == 45


def test_committed_needs_every_table(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    for k in range(3):
        write_shards(jd, k, tournament_shard(k, 5, shard_rng(k)))
    t3 = tournament_shard(3, 5, shard_rng(3))
    write_shard(jd, "deals", 3, t3["deals"])  # writer died before the seats file of shard 3
    assert committed_shards(jd, ["deals", "seats"]) == {0, 1, 2}
    assert committed_shards(jd, ["deals"]) == {0, 1, 2, 3}
    assert committed_shards(jd, ["deals", "seats", "records"]) == set()
    assert committed_shards(jd, []) == set()
    assert job_tables_on_disk(jd) == ["deals", "seats"]
    assert committed_shards(tmp_path / "nope", ["seats"]) == set()


def test_write_shards_returns_info_per_table(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    tables = tournament_shard(0, 4, shard_rng(0))
    infos = write_shards(jd, 0, tables)
    assert set(infos) == {"deals", "seats"}
    assert infos["deals"].rows == 12 and infos["seats"].rows == 36
    with pytest.raises(ValueError):
        write_shards(jd, 1, {})


def test_read_table_concatenates_in_shard_order(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    parts = {k: tournament_shard(k, 6, shard_rng(k)) for k in range(5)}
    for k in (3, 0, 4, 1, 2):  # commit order (pool completion order) must not matter
        write_shards(jd, k, parts[k])
    seats = read_table(jd, "seats")
    assert seats.equals(pa.concat_tables([parts[k]["seats"] for k in range(5)]))
    two = pa.concat_tables([parts[1]["deals"], parts[2]["deals"]])
    assert read_table(jd, "deals", shards=[2, 1]).equals(two)
    with pytest.raises(FileNotFoundError):
        read_table(jd, "records")
    with pytest.raises(FileNotFoundError):
        read_table(jd, "seats", shards=[7])


def test_export_tournament_is_one_tidy_file(tmp_path: Path) -> None:
    jd = job_dir(tmp_path, "j-1")
    parts = {k: tournament_shard(k, 8, shard_rng(k)) for k in range(3)}
    for k, tables in parts.items():
        write_shards(jd, k, tables)
    (jd / "spec.json").write_text(json.dumps({"kind": "tournament", "deals": 24}))
    info = export_job(jd, tmp_path / "out" / "job.parquet")
    out = pq.read_table(info.path)
    assert info.rows == out.num_rows == 24 * 3 * 3  # deals x rotations x seats
    assert info.checksum == hashlib.sha256(info.path.read_bytes()).hexdigest()
    assert out.column_names == [*SEATS.names, *[n for n in DEALS.names if n not in ("deal", "rotation")]]
    keys = list(zip(*(out.column(c).to_pylist() for c in ("deal", "rotation", "seat")), strict=True))
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    # Every row carries the deals columns of its own (deal, rotation).
    deals = pa.concat_tables([parts[k]["deals"] for k in range(3)]).to_pylist()
    by_key = {(d["deal"], d["rotation"]): d for d in deals}
    for row in out.to_pylist()[::17]:
        d = by_key[(row["deal"], row["rotation"])]
        assert all(row[c] == d[c] for c in ("dealer", "seating", "orderer", "order", "stake", "rounds"))
    seats = pa.concat_tables([parts[k]["seats"] for k in range(3)])
    assert out.select(SEATS.names).cast(SEATS).equals(seats)
    meta = pq.read_schema(info.path).metadata
    assert json.loads(meta[b"rasklad.spec"]) == {"kind": "tournament", "deals": 24}
    assert meta[b"rasklad.job_id"] == b"j-1"
    assert [p.name for p in info.path.parent.iterdir()] == ["job.parquet"]


def test_export_stats_tables(tmp_path: Path) -> None:
    one = job_dir(tmp_path, "j-one")
    counts = pa.table({"category": ["pair", "flush"], "count": [3, 1], "n": [4, 4],
                       "probability": [0.75, 0.25]})
    write_shard(one, "counts", 0, counts)
    exported = pq.read_table(export_job(one, tmp_path / "one.parquet").path)
    assert exported.select(counts.column_names).equals(counts)
    many = job_dir(tmp_path, "j-many")
    orders = pa.table({"order": ["pair"], "count": [2], "n": [4], "probability": [0.5]})
    write_shard(many, "counts", 0, counts)
    write_shard(many, "orders", 0, orders)
    out = pq.read_table(export_job(many, tmp_path / "many.parquet").path)
    assert out.column("table").to_pylist() == ["counts", "counts", "orders"]
    assert out.column("category").to_pylist() == ["pair", "flush", None]
    assert out.column("order").to_pylist() == [None, None, "pair"]
    only = pq.read_table(export_job(many, tmp_path / "orders.parquet", table="orders").path)
    assert only.select(orders.column_names).equals(orders)
    with pytest.raises(FileNotFoundError):
        export_job(job_dir(tmp_path, "j-empty"), tmp_path / "none.parquet")


_KILLED_WRITER = r"""
import sys
import numpy as np, pyarrow as pa
from pathlib import Path
from storage.parquet import write_shards

def big(k):
    rng = np.random.default_rng(k)
    n = 1_500_000
    return {"seats": pa.table({"deal": np.arange(n, dtype=np.int64) + k * n,
                               "score": rng.integers(0, 1 << 62, n), "x": rng.random(n)}),
            "deals": pa.table({"deal": np.arange(1000, dtype=np.int64) + k * 1000})}

jd = Path(sys.argv[1])
for k in range(int(sys.argv[2])):
    write_shards(jd, k, big(k))
    print(k, flush=True)
"""


def _expected_big(k: int) -> pa.Table:
    rng = np.random.default_rng(k)
    n = 1_500_000
    return pa.table({"deal": np.arange(n, dtype=np.int64) + k * n, "score": rng.integers(0, 1 << 62, n),
                     "x": rng.random(n)})


def test_killed_writer_leaves_no_partial_shard(tmp_path: Path) -> None:
    """SIGKILL a real writer while a temporary shard file is on disk: nothing partial ever counts."""
    jd = job_dir(tmp_path, "j-kill")
    n_shards = 6
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(jd), str(n_shards)],
                            stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    seen_tmp = None
    one_committed = False
    seats = jd / "seats"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            # Kill only once a shard has been committed and the next one is mid-write.
            one_committed = one_committed or bool(shard_files(jd, "seats"))
            if one_committed:
                seen_tmp = next((e.name for e in os.scandir(seats) if ".tmp-" in e.name), None)
                if seen_tmp is not None:
                    break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert seen_tmp is not None, "the writer was never caught in the middle of a write"
    leftovers = [p.name for p in seats.iterdir() if ".tmp-" in p.name]  # usually the killed write's file
    done = committed_shards(jd, ["deals", "seats"])
    assert done and done == set(range(len(done)))  # shards were written in order
    assert len(done) < n_shards
    for k, path in shard_files(jd, "seats").items():  # every committed file is whole and right
        assert pq.read_table(path).equals(_expected_big(k))
    assert all(parse_shard_name(name) is None for name in leftovers)
    # Re-run the missing shards: exactly one file per shard, temp leftovers never counted.
    proc = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(jd), str(n_shards)],
                          capture_output=True, cwd=Path(__file__).resolve().parents[1], check=True)
    assert committed_shards(jd, ["deals", "seats"]) == set(range(n_shards))
    assert sorted(p.name for p in (jd / "seats").glob(SHARD_GLOB)) == [shard_name(k) for k in range(n_shards)]
    assert remove_temp_files(jd, older_than_s=3600) == []  # too young: might be a live writer's
    assert sorted(p.name for p in remove_temp_files(jd, older_than_s=0)) == sorted(leftovers)
    assert not [p for p in seats.iterdir() if ".tmp-" in p.name]
    assert pq.ParquetDataset([str(p) for p in shard_files(jd, "seats").values()]).read().num_rows == \
        n_shards * 1_500_000
