"""The embedded run's job store on ``sqlite3`` (storage.sqlitejobs) against the SQLAlchemy one (storage.jobstore).

The same calls, with the same clock, on ``JobStore`` in one SQLite file and ``SqliteJobStore`` in another:
every call returns the same (or raises the same error with the same message), and the two files end with
the same schema (``sqlite_master``: tables, indexes, their DDL; SQLAlchemy's order of a table's indexes
varies from run to run) and the same rows, value for value and
storage class for storage class. Either store opens a file the other made and reads the same jobs; the
methods it does not implement are the SQLAlchemy store's on the same file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import storage.jobstore
import storage.sqlitejobs
from storage.jobmodel import JOB_LEASE
from storage.jobstore import JobStore
from storage.sqlitejobs import SqliteJobStore, sqlite_file

SPEC = {"kind": "tournament", "game": "quintet", "bots": ["quintet/random", "quintet/random"], "deals": 10,
        "seed": 3}


class Clock:
    """A clock both stores read: each call moves it on by 1.25 s (and a few microseconds)."""

    def __init__(self) -> None:
        self.t = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1.25, microseconds=7)
        return self.t


@pytest.fixture
def clocked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Gives both stores a fresh, identical clock each time it is called."""

    def reset() -> None:
        clock = Clock()
        monkeypatch.setattr(storage.jobstore, "_now", clock)
        monkeypatch.setattr(storage.sqlitejobs, "now", clock)

    reset()
    yield reset


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return ("ok", call())
    except BaseException as e:  # the same exception class and message from both stores
        return ("raised", type(e).__name__, str(e))


def _script(s: Any) -> list[Any]:
    """Every call the embedded runner makes, and their refusals, in one sequence."""
    calls: list[Callable[[], Any]] = [
        lambda: s.get("j-1"),
        lambda: s.create_job("j-1", "tournament", "quintet", SPEC, 3, 10),
        lambda: s.create_job("j-1", "tournament", "quintet", SPEC, 3, 10),
        lambda: s.create_job("j-neg", "tournament", "quintet", SPEC, -1, 10),
        lambda: s.create_job("j-2", "deal-stats", "", {"kind": "deal-stats"}, 2, 0, owner="ann", max_active=1),
        lambda: s.create_job("j-3", "tournament", "quintet", SPEC, 1, 1, owner="ann", max_active=1),
        lambda: s.get("j-1"),
        lambda: s.is_cancel_requested("j-1"),
        lambda: s.is_cancel_requested("j-missing"),
        lambda: s.take_lease("j-1", JOB_LEASE, "host:1:aa", 60.0),
        lambda: s.lease("j-1", JOB_LEASE),
        lambda: s.set_state("j-1", "running"),
        lambda: s.set_state("j-1", "running"),
        lambda: s.set_state("j-1", "running", only_from=("queued",)),
        lambda: s.set_state("j-1", "running", error="again"),
        lambda: s.set_state("j-1", "bogus"),
        lambda: s.set_state("j-missing", "running"),
        lambda: s.note_units("j-1", 0, 4),
        lambda: s.note_units("j-1", 1, 2),
        lambda: s.get("j-1"),
        lambda: s.heartbeat("j-1", JOB_LEASE, "host:1:aa"),
        lambda: s.heartbeat("j-1", JOB_LEASE, "host:2:bb"),
        lambda: s.record_shard("j-1", 0, 120, "aa"),
        lambda: s.record_shard("j-1", 0, 120, "aa"),
        lambda: s.note_units("j-1", 0, 9),
        lambda: s.record_shard("j-1", 3, 1, "cc"),
        lambda: s.record_shard("j-missing", 0, 1, "cc"),
        lambda: s.get("j-1"),
        lambda: s.recorded_shards("j-1"),
        lambda: s.take_lease("j-1", 0, "w:1:a", 60.0),
        lambda: s.claim_commit("j-1", 0, "w:1:a"),  # SqliteJobStore: the SQLAlchemy store's, same file
        lambda: s.take_lease("j-1", 0, "w:2:b", 60.0),
        lambda: s.take_lease("j-1", 0, "w:2:b", 0.0),
        lambda: s.lease("j-1", 0),
        lambda: s.release_lease("j-1", 0, "w:2:b"),
        lambda: s.lease("j-1", 0),
        lambda: s.request_cancel("j-1"),
        lambda: s.request_cancel("j-missing"),
        lambda: s.is_cancel_requested("j-1"),
        lambda: s.set_state("j-1", "cancelled"),
        lambda: s.get("j-1"),
        lambda: s.set_state("j-1", "queued"),
        lambda: s.set_state("j-1", "running", only_from=("queued",)),
        lambda: s.record_shard("j-1", 2, 7, "bb"),
        lambda: s.record_shard("j-1", 1, 5, "dd"),
        lambda: s.set_state("j-1", "failed", error="boom"),
        lambda: s.set_state("j-1", "failed", error="boom twice"),
        lambda: s.set_state("j-1", "running"),
        lambda: s.set_state("j-1", "succeeded"),
        lambda: s.set_state("j-1", "queued"),
        lambda: s.get("j-1"),
        lambda: s.release_lease("j-1", JOB_LEASE, "host:1:aa"),
        lambda: s.lease("j-1", JOB_LEASE),
        lambda: s.set_state("j-2", "cancelled", only_from=("running",)),
        lambda: s.set_state("j-2", "cancelled"),
        lambda: s.create_job("j-3", "tournament", "quintet", SPEC, 1, 1, owner="ann", max_active=1),
        lambda: s.set_state("j-3", "running"),
        lambda: s.note_units("j-3", 0, 1),
        lambda: s.take_lease("j-3", 0, "w:3:c", 60.0),
        lambda: s.get("j-3"),
        lambda: [(j.id, j.state) for j in s.list_jobs()],
    ]
    return [_outcome(c) for c in calls]


def _dump(path: Path) -> dict[str, Any]:
    conn = sqlite3.connect(path)
    try:
        out: dict[str, Any] = {"schema": conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                                                      "ORDER BY rowid").fetchall()}
        for table in ("jobs", "shards", "leases", "shard_units"):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            out[table] = conn.execute(f"SELECT {', '.join(f'{c}, typeof({c})' for c in cols)} FROM {table} "
                                      "ORDER BY rowid").fetchall()
        return out
    finally:
        conn.close()


def test_the_same_calls_give_the_same_answers_and_the_same_file(tmp_path: Path,
                                                                 clocked: Callable[[], None]) -> None:
    a, b = tmp_path / "a" / "jobs.sqlite", tmp_path / "b" / "jobs.sqlite"
    alchemy = JobStore(f"sqlite:///{a}")
    outcomes_a = _script(alchemy)
    alchemy.close()
    clocked()
    light = SqliteJobStore(f"sqlite:///{b}")
    outcomes_b = _script(light)
    light.close()
    assert outcomes_b == outcomes_a
    assert [o[0] for o in outcomes_a].count("raised") >= 10  # the refusals were exercised
    dump_a, dump_b = _dump(a), _dump(b)
    # SQLAlchemy creates a table's indexes in the order of a set (it varies with the hash seed): compared as sets.
    assert sorted(dump_b.pop("schema")) == sorted(dump_a.pop("schema"))
    assert dump_b == dump_a
    assert dump_a["jobs"] and dump_a["shards"] and dump_a["leases"] and dump_a["shard_units"]


def test_either_store_opens_the_others_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'jobs.sqlite'}"
    light = SqliteJobStore(url)
    light.create_job("j-l", "tournament", "quintet", SPEC, 2, 10)
    light.set_state("j-l", "running")
    light.note_units("j-l", 1, 3)
    light.record_shard("j-l", 0, 5, "x")
    alchemy = JobStore(url)
    assert alchemy.get("j-l") == light.get("j-l")
    alchemy.create_job("j-a", "tournament", "quintet", SPEC, 1, 1)
    alchemy.take_lease("j-a", JOB_LEASE, "h:1:t", 30.0)
    assert light.get("j-a") == alchemy.get("j-a") and light.lease("j-a", JOB_LEASE) == alchemy.lease("j-a", JOB_LEASE)
    assert light.count_jobs() == 2 and [j.id for j in light.list_jobs()] == [j.id for j in alchemy.list_jobs()]
    alchemy.close()
    light.close()


def test_a_new_file_is_in_wal_mode_with_the_busy_timeout_and_an_old_one_gets_the_state_index(tmp_path: Path) -> None:
    path = tmp_path / "new" / "root" / "jobs.sqlite"  # the directory is created
    light = SqliteJobStore(f"sqlite:///{path}")
    assert light._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert light._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30000
    light._conn.execute("DROP INDEX ix_jobs_state")
    light.close()
    light = SqliteJobStore(f"sqlite:///{path}")
    light.close()
    made = _dump(path)["schema"]
    reference = tmp_path / "ref.sqlite"
    JobStore(f"sqlite:///{reference}").close()
    assert sorted(made) == sorted(_dump(reference)["schema"])


def test_only_plain_sqlite_files_are_taken() -> None:
    assert sqlite_file("sqlite:////tmp/data/jobs.sqlite") == "/tmp/data/jobs.sqlite"
    assert sqlite_file("sqlite:///data/jobs.sqlite") == "data/jobs.sqlite"
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite+pysqlite:///x.sqlite", "sqlite:///x.sqlite?timeout=3",
                "sqlite:///a%20b/jobs.sqlite", "postgresql+psycopg://root@127.0.0.1:5432/test"):
        assert sqlite_file(url) is None, url
