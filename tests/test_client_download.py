"""``Client.download`` against the real service: streamed to disk under a temporary name, renamed
when whole, never left half. The bytes are checked against the shard files the workers committed.

Slow and broken links are made by a real TCP relay (tests/tcp_relay.py) in front of the real API.
"""

from __future__ import annotations

import csv
import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import Live
from service_harness import wait_for
from tcp_relay import Fault, Relay

from rasklad.client import ApiError, Client, RaskladError, UnreachableError

SEAT_KEY = ("deal", "rotation", "seat")
#: A point inside the JSON-lines download of the seats table (about 160 kB, sent in 64 KiB+ pieces).
MIDWAY = 100_000


def server_rows(live: Live, table: str) -> list[dict[str, Any]]:
    """The rows of a table of the shared finished job, read from the server's own shard files."""
    files = sorted((live.job_dir(live.done["id"]) / table).glob("shard-*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: tuple(r[k] for k in SEAT_KEY))


def on_tables(policy_fault: Fault) -> Any:
    """A relay policy: ``policy_fault`` for table downloads, nothing for anything else."""
    return lambda method, path, n: policy_fault if "/tables/" in path else None


def test_download_parquet_equals_the_server_table(live: Live, tmp_path: Path) -> None:
    with Client(live.url, key=live.alice) as c:
        out = c.download(live.done["id"], "seats", tmp_path / "seats.parquet")
    assert out == tmp_path / "seats.parquet"
    got = pq.read_table(out)
    assert got.num_rows == 1080
    assert by_key(got.to_pylist()) == by_key(server_rows(live, "seats"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seats.parquet"]


def test_download_csv_with_columns_and_where(live: Live, tmp_path: Path) -> None:
    where = "score > 0 AND bot = 'order-poker/heuristic'"
    with Client(live.url, key=live.alice) as c:
        out = c.download(live.done["id"], "seats", tmp_path / "s.csv", format="csv", columns=["bot", "score"],
                         where=where)
    with out.open(newline="") as f:
        header, *body = list(csv.reader(f))
    assert header == ["bot", "score"]
    expected = Counter((r["bot"], r["score"]) for r in server_rows(live, "seats")
                       if r["score"] > 0 and r["bot"] == "order-poker/heuristic")
    assert Counter((b, int(s)) for b, s in body) == expected
    assert sum(expected.values()) > 0


def test_download_into_directory_uses_server_name(live: Live, tmp_path: Path) -> None:
    job_id = live.done["id"]
    with Client(live.url, key=live.alice) as c:
        out = c.download(job_id, "deals", tmp_path, format="jsonl")
    assert out == tmp_path / f"{job_id}-deals.jsonl"
    got = [json.loads(line) for line in out.read_text().splitlines()]
    want = server_rows(live, "deals")
    assert len(got) == len(want) == 120 * 3
    assert sorted(json.dumps(r, sort_keys=True) for r in got) == sorted(json.dumps(r, sort_keys=True)
                                                                         for r in want)


def test_download_streams_to_a_temporary_name(live: Live, tmp_path: Path) -> None:
    """Half way through, the bytes so far are on disk under a hidden .part name, the target absent."""
    gate = threading.Event()
    relay = Relay(live.port, on_tables(Fault(after=MIDWAY, hold=gate)))
    target = tmp_path / "seats.jsonl"
    result: list[object] = []
    c = Client(relay.url, key=live.alice)
    t = threading.Thread(target=lambda: result.append(c.download(live.done["id"], "seats", target,
                                                                 format="jsonl")))
    t.start()
    try:
        part = wait_for(lambda: [p for p in tmp_path.glob(".seats.jsonl.*.part") if p.stat().st_size > 0],
                        60, "the first bytes on disk")
        assert len(part) == 1 and not target.exists()
        partial = part[0].read_bytes()
    finally:
        gate.set()
        t.join(60)
        c.close()
        relay.close()
    assert result == [target]
    whole = target.read_bytes()
    assert 0 < len(partial) < len(whole) and whole.startswith(partial)
    assert by_key([json.loads(x) for x in whole.splitlines()]) == by_key(server_rows(live, "seats"))
    assert [p.name for p in tmp_path.iterdir()] == ["seats.jsonl"]


def test_broken_download_leaves_nothing_behind(live: Live, tmp_path: Path) -> None:
    with Relay(live.port, on_tables(Fault(after=MIDWAY))) as relay, Client(relay.url, key=live.alice) as c:
        with pytest.raises(UnreachableError, match=r"^download of seats broke after \d+ bytes: "):
            c.download(live.done["id"], "seats", tmp_path / "b.jsonl", format="jsonl")
        assert relay.cuts == 1
    assert list(tmp_path.iterdir()) == []


def test_broken_download_keeps_the_old_file(live: Live, tmp_path: Path) -> None:
    old = tmp_path / "b.jsonl"
    old.write_bytes(b"previous download")
    with Relay(live.port, on_tables(Fault(after=MIDWAY))) as relay, Client(relay.url, key=live.alice) as c, \
            pytest.raises(UnreachableError):
        c.download(live.done["id"], "seats", old, format="jsonl")
    assert old.read_bytes() == b"previous download"
    assert [p.name for p in tmp_path.iterdir()] == ["b.jsonl"]


def test_download_errors_write_no_file(live: Live, tmp_path: Path) -> None:
    job_id = live.done["id"]
    with Relay(live.port) as relay, Client(relay.url, key=live.alice) as c:
        with pytest.raises(ApiError) as e:
            c.download(job_id, "nope", tmp_path / "x.parquet")
        assert str(e.value) == f"404 table: job {job_id} has no table 'nope': it has deals, seats"
        with pytest.raises(ApiError) as e:
            c.download(job_id, "seats", tmp_path / "x.parquet", columns=["bot;drop"])
        assert str(e.value) == "400 columns: columns must be plain column names, not 'bot;drop'"
        n = len(relay.requests)
        with pytest.raises(RaskladError, match="unknown format 'xlsx'"):
            c.download(job_id, "seats", tmp_path / "x.parquet", format="xlsx")
        assert len(relay.requests) == n  # refused before any request
    with Client(live.url, key=live.bob) as bob, pytest.raises(ApiError, match=rf"^404 job_id: no job {job_id}$"):
        bob.download(job_id, "seats", tmp_path / "x.parquet")
    assert list(tmp_path.iterdir()) == []
