"""The job store of an embedded ``rasklad run`` on its SQLite file, with the standard library's ``sqlite3``.

``storage.jobstore.JobStore`` serves any SQLAlchemy database; importing SQLAlchemy and compiling its
statements is about a fifth of a one-deal job's CPU (issue 30 item 4: a job's fixed cost). This store
does, on a SQLite file, what the embedded runner asks of the job store (``sims.embedded``: create and
read the job, record shards, note units, set states, hold the job's lease), with the very SQL
SQLAlchemy sends for it and the same values stored (DATETIME as ``YYYY-MM-DD HH:MM:SS.ffffff`` UTC,
BOOLEAN as 0/1), under the same locking: WAL, a busy timeout, ``BEGIN IMMEDIATE`` for every write
transaction and ``BEGIN`` for reads (``storage.jobstore``'s module doc). A new file gets the tables and
indexes from the statements SQLAlchemy would issue (``_SCHEMA``), so either store opens a file the
other made. Any other method (``list_jobs``, ``count_by_state``...) is the SQLAlchemy store's, opened
on the same file when first asked for. ``tests/test_storage_sqlitejobs.py`` runs the same calls on
both stores and compares the files' rows and schema and what the calls return and raise.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Collection, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from storage.jobmodel import (
    ACTIVE,
    FINAL,
    InvalidTransition,
    Job,
    JobExists,
    JobStoreError,
    Lease,
    LimitReached,
    now,
    transition_sources,
    utc,
)

__all__ = ["SqliteJobStore", "sqlite_file"]

#: The tables and indexes as ``JobStore`` creates them on SQLite (``MetaData.create_all``: each table,
#: then its indexes), in that order; a test compares them with SQLAlchemy's own DDL.
_SCHEMA: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("jobs", (
        ("table", "CREATE TABLE jobs (\n\tid VARCHAR(128) NOT NULL, \n\tkind VARCHAR(32) NOT NULL, \n\t"
                  "game VARCHAR(64) NOT NULL, \n\tspec TEXT NOT NULL, \n\tstate VARCHAR(16) NOT NULL, \n\t"
                  "shards_done INTEGER NOT NULL, \n\tshards_total INTEGER NOT NULL, \n\t"
                  "deals_total BIGINT NOT NULL, \n\tcreated_at DATETIME NOT NULL, \n\tstarted_at DATETIME, \n\t"
                  "finished_at DATETIME, \n\terror TEXT, \n\towner VARCHAR(200) NOT NULL, \n\t"
                  "cancel_requested BOOLEAN NOT NULL, \n\tPRIMARY KEY (id)\n)"),
        ("ix_jobs_owner_created", "CREATE INDEX ix_jobs_owner_created ON jobs (owner, created_at)"),
        ("ix_jobs_state", "CREATE INDEX ix_jobs_state ON jobs (state)"),
    )),
    ("shards", (
        ("table", "CREATE TABLE shards (\n\tjob_id VARCHAR(128) NOT NULL, \n\tshard INTEGER NOT NULL, \n\t"
                  "rows BIGINT NOT NULL, \n\tchecksum VARCHAR(128) NOT NULL, \n\tcommitted_at DATETIME NOT NULL, "
                  "\n\tCONSTRAINT uq_shards_job_shard UNIQUE (job_id, shard)\n)"),
    )),
    ("leases", (
        ("table", "CREATE TABLE leases (\n\tjob_id VARCHAR(128) NOT NULL, \n\tshard INTEGER NOT NULL, \n\t"
                  "holder VARCHAR(200) NOT NULL, \n\tcommitting BOOLEAN NOT NULL, \n\t"
                  "heartbeat_at DATETIME NOT NULL, \n\tCONSTRAINT uq_leases_job_shard UNIQUE (job_id, shard)\n)"),
    )),
    ("shard_units", (
        ("table", "CREATE TABLE shard_units (\n\tjob_id VARCHAR(128) NOT NULL, \n\tshard INTEGER NOT NULL, \n\t"
                  "units BIGINT NOT NULL, \n\tupdated_at DATETIME NOT NULL, \n\t"
                  "CONSTRAINT uq_shard_units_job_shard UNIQUE (job_id, shard)\n)"),
    )),
)

_JOB_COLUMNS = ("id", "kind", "game", "spec", "state", "shards_done", "shards_total", "deals_total", "created_at",
                "started_at", "finished_at", "error", "owner", "cancel_requested")
# JobStore.get's statement: the job's row and the units its shards not yet committed have noted.
_GET = ("SELECT " + ", ".join(f"jobs.{c}" for c in _JOB_COLUMNS) + ", (SELECT coalesce(sum(shard_units.units), ?) "
        "AS coalesce_1 FROM shard_units WHERE shard_units.job_id = jobs.id AND NOT (EXISTS (SELECT * FROM shards "
        "WHERE shards.job_id = shard_units.job_id AND shards.shard = shard_units.shard))) AS units_running "
        "FROM jobs WHERE jobs.id = ?")


def sqlite_file(url: str) -> str | None:
    """The file of a plain ``sqlite:///PATH`` URL (what this store opens), else None (another database,
    a driver named, query options, an in-memory database, a path SQLAlchemy would unquote: ``JobStore``'s)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or "?" in url or "%" in url:
        return None
    path = url[len(prefix):]
    return path if path and path != ":memory:" else None


def _stamp(value: datetime) -> str:
    """A datetime as SQLAlchemy's SQLite DATETIME stores it (the wall time as given: UTC here)."""
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}:"
            f"{value.second:02d}.{value.microsecond:06d}")


def _read_stamp(value: Any) -> datetime | None:
    """A stored DATETIME as the timezone-aware UTC datetime ``JobStore`` returns."""
    return None if value is None else utc(datetime.fromisoformat(str(value)))


class SqliteJobStore:
    """The job store in the SQLite file of ``url`` (``sqlite:///PATH``; tables are created if missing),
    for one process's embedded run: one connection, its calls serialised by a lock (the owner lease's
    renewal runs in a thread)."""

    def __init__(self, url: str, *, busy_timeout_s: float = 30.0) -> None:
        path = sqlite_file(url)
        if path is None:
            raise ValueError(f"not a plain SQLite file URL: {url!r}")
        self.url = url
        self._busy_timeout_s = busy_timeout_s
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # the data root may be new
        self._lock = threading.RLock()
        self._full: Any = None
        conn = sqlite3.connect(path, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; WAL keeps it consistent
        self._conn = conn
        # As JobStore: a whole schema is opened with reads only, a missing part created in one write transaction.
        if not self._schema_whole():
            with self._tx() as cur:
                have = self._names(cur)
                for table, statements in _SCHEMA:
                    if table not in have:
                        for _name, ddl in statements:
                            cur.execute(ddl)
                        have |= {name for name, _ in statements}
                for name, ddl in _SCHEMA[0][1][1:]:  # a store created before an index was declared gets it now
                    if name not in have:
                        cur.execute(ddl)

    @staticmethod
    def _names(cur: sqlite3.Cursor) -> set[str]:
        """Names of the tables and of the jobs table's indexes ("table" standing for a table itself)."""
        names = set()
        for kind, name, table in cur.execute("SELECT type, name, tbl_name FROM sqlite_master "
                                             "WHERE type IN ('table', 'index')"):
            if kind == "table" or table == "jobs":
                names.add(name)
        return names

    def _schema_whole(self) -> bool:
        with self._read() as cur:
            have = self._names(cur)
        return all(table in have for table, _ in _SCHEMA) and all(name in have for name, _ in _SCHEMA[0][1][1:])

    def close(self) -> None:
        """Release the store's connection (and the SQLAlchemy store's, if one was opened)."""
        with self._lock:
            self._conn.close()
            if self._full is not None:
                self._full.close()

    def __getattr__(self, name: str) -> Any:
        """Any other method of the job store: ``JobStore``'s on the same file (imported when first needed)."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._full is None:
            from storage.jobstore import JobStore

            self._full = JobStore(self.url, busy_timeout_s=self._busy_timeout_s)
        return getattr(self._full, name)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Cursor]:
        """A write transaction (``BEGIN IMMEDIATE``), committed on success, rolled back on an error."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    cur.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Cursor]:
        """A read transaction (a snapshot), rolled back at the end as SQLAlchemy's connection is."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN")
            try:
                yield cur
            finally:
                cur.execute("ROLLBACK")

    # ------------------------------------------------------------------------------- jobs

    def create_job(self, job_id: str, kind: str, game: str, spec: dict[str, Any], shards_total: int,
                   deals_total: int, owner: str = "local", max_active: int | None = None) -> Job:
        """As ``JobStore.create_job`` (``BEGIN IMMEDIATE`` is the owner's lock on SQLite)."""
        if shards_total < 0 or deals_total < 0:
            raise JobStoreError(f"job {job_id}: shards_total and deals_total must be >= 0")
        row = (job_id, kind, game or "", json.dumps(spec, sort_keys=True), "queued", 0, int(shards_total),
               int(deals_total), _stamp(now()), None, None, None, owner, 0)
        try:
            with self._tx() as cur:
                if max_active is not None:
                    active = cur.execute("SELECT count(*) AS count_1 FROM jobs WHERE jobs.owner = ? AND jobs.state "
                                         "IN (?, ?)", (owner, *ACTIVE)).fetchone()[0]
                    if int(active or 0) >= max_active:
                        raise LimitReached(int(active or 0), max_active)
                cur.execute(f"INSERT INTO jobs ({', '.join(_JOB_COLUMNS)}) VALUES "
                            f"({', '.join('?' * len(_JOB_COLUMNS))})", row)
        except sqlite3.IntegrityError as e:
            raise JobExists(f"job {job_id} already exists") from e
        job = self.get(job_id)
        assert job is not None
        return job

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id``, or None."""
        with self._read() as cur:
            r = cur.execute(_GET, (0, job_id)).fetchone()
        if r is None:
            return None
        created = _read_stamp(r[8])
        assert created is not None
        return Job(id=r[0], kind=r[1], game=r[2], spec=json.loads(r[3]), state=r[4], shards_done=int(r[5]),
                   shards_total=int(r[6]), deals_total=int(r[7]), created_at=created, started_at=_read_stamp(r[9]),
                   finished_at=_read_stamp(r[10]), error=r[11], owner=r[12], cancel_requested=bool(r[13]),
                   units_running=int(r[14] or 0))

    def set_state(self, job_id: str, state: str, error: str | None = None,
                  only_from: Collection[str] | None = None) -> Job:
        """As ``JobStore.set_state``: a checked transition, applied atomically."""
        sources = transition_sources(state, only_from)
        stamp = _stamp(now())
        sets: list[tuple[str, Any]] = [("state", state)]
        if state == "running":
            sets.append(("started_at", None))  # coalesce(started_at, now): below
        if state in ("running", "queued"):
            sets += [("finished_at", None), ("error", error), ("cancel_requested", 0)]
        if state in FINAL:
            sets += [("finished_at", stamp), ("error", error)]
        assignments = ", ".join("started_at=coalesce(jobs.started_at, ?)" if c == "started_at" else f"{c}=?"
                                for c, _ in sets)
        values = [stamp if c == "started_at" else v for c, v in sets]
        with self._tx() as cur:
            count = 0
            if sources:  # SQLAlchemy's empty IN is false: no row
                count = cur.execute(f"UPDATE jobs SET {assignments} WHERE jobs.id = ? AND jobs.state IN "
                                    f"({', '.join('?' * len(sources))})", (*values, job_id, *sources)).rowcount
            if count and state in FINAL:  # a stopped shard's note would outlive it
                cur.execute("DELETE FROM shard_units WHERE shard_units.job_id = ?", (job_id,))
            if count == 0:
                found = cur.execute("SELECT jobs.state FROM jobs WHERE jobs.id = ?", (job_id,)).fetchone()
                if found is None:
                    raise KeyError(job_id)
                current = found[0]
                if current != state or only_from is not None:
                    raise InvalidTransition(f"job {job_id}: cannot go from {current} to {state}")
                if error is not None:
                    cur.execute("UPDATE jobs SET error=? WHERE jobs.id = ?", (error, job_id))
        job = self.get(job_id)
        assert job is not None
        return job

    def request_cancel(self, job_id: str) -> None:
        """Ask the job's runner to stop (it checks ``is_cancel_requested`` between shards)."""
        with self._tx() as cur:
            if cur.execute("UPDATE jobs SET cancel_requested=? WHERE jobs.id = ?", (1, job_id)).rowcount == 0:
                raise KeyError(job_id)

    def is_cancel_requested(self, job_id: str) -> bool:
        """Whether a cancel was requested since the job last (re)started; False for an unknown job."""
        with self._read() as cur:
            r = cur.execute("SELECT jobs.cancel_requested FROM jobs WHERE jobs.id = ?", (job_id,)).fetchone()
        return bool(r[0]) if r is not None else False

    # ----------------------------------------------------------------------------- shards

    def record_shard(self, job_id: str, k: int, rows: int, checksum: str) -> bool:
        """As ``JobStore.record_shard``: idempotent, ``shards_done`` recounted in the same transaction."""
        with self._tx() as cur:
            found = cur.execute("SELECT jobs.shards_total FROM jobs WHERE jobs.id = ?", (job_id,)).fetchone()
            if found is None or found[0] is None:
                raise KeyError(job_id)
            total = int(found[0])
            if not 0 <= k < total:
                raise JobStoreError(f"job {job_id}: shard {k} outside 0..{total - 1}")
            inserted = cur.execute(
                "INSERT INTO shards (job_id, shard, rows, checksum, committed_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (job_id, shard) DO NOTHING RETURNING shard",
                (job_id, int(k), int(rows), checksum, _stamp(now()))).fetchall() != []
            cur.execute("DELETE FROM shard_units WHERE shard_units.job_id = ? AND shard_units.shard = ?",
                        (job_id, int(k)))
            if inserted:
                cur.execute("UPDATE jobs SET shards_done=(SELECT count(*) AS count_1 FROM shards "
                            "WHERE shards.job_id = ?) WHERE jobs.id = ?", (job_id, job_id))
        return inserted

    def note_units(self, job_id: str, k: int, units: int) -> None:
        """As ``JobStore.note_units`` (a note of a shard already committed is ignored)."""
        with self._tx() as cur:
            if cur.execute("SELECT shards.shard FROM shards WHERE shards.job_id = ? AND shards.shard = ?",
                           (job_id, int(k))).fetchone() is not None:
                return
            cur.execute("DELETE FROM shard_units WHERE shard_units.job_id = ? AND shard_units.shard = ?",
                        (job_id, int(k)))
            cur.execute("INSERT INTO shard_units (job_id, shard, units, updated_at) VALUES (?, ?, ?, ?)",
                        (job_id, int(k), int(units), _stamp(now())))

    def recorded_shards(self, job_id: str) -> dict[int, tuple[int, str]]:
        """Recorded shards of the job: shard index → (rows, checksum)."""
        with self._read() as cur:
            rows = cur.execute("SELECT shards.shard, shards.rows, shards.checksum FROM shards "
                               "WHERE shards.job_id = ? ORDER BY shards.shard", (job_id,)).fetchall()
        return {int(s): (int(n), str(c)) for s, n, c in rows}

    # ----------------------------------------------------------------------------- leases

    def take_lease(self, job_id: str, shard: int, holder: str, stale_after_s: float) -> bool:
        """Make ``holder`` the lease's holder; False when another holder is committing and alive."""
        t = now()
        with self._tx() as cur:
            row = cur.execute("SELECT leases.holder, leases.committing, leases.heartbeat_at FROM leases "
                              "WHERE leases.job_id = ? AND leases.shard = ?", (job_id, shard)).fetchone()
            if row is None:
                cur.execute("INSERT INTO leases (job_id, shard, holder, committing, heartbeat_at) "
                            "VALUES (?, ?, ?, ?, ?)", (job_id, shard, holder, 0, _stamp(t)))
                return True
            beat = _read_stamp(row[2])
            assert beat is not None
            if row[1] and row[0] != holder and (t - beat).total_seconds() < stale_after_s:
                return False
            cur.execute("UPDATE leases SET holder=?, committing=?, heartbeat_at=? WHERE leases.job_id = ? "
                        "AND leases.shard = ?", (holder, 0, _stamp(t), job_id, shard))
        return True

    def heartbeat(self, job_id: str, shard: int, holder: str) -> bool:
        """Renew ``holder``'s lease; False when it lost the lease (taken as stale, or by a redelivery)."""
        with self._tx() as cur:
            n = cur.execute("UPDATE leases SET heartbeat_at=? WHERE leases.job_id = ? AND leases.shard = ? "
                            "AND leases.holder = ?", (_stamp(now()), job_id, shard, holder)).rowcount
        return bool(n)

    def release_lease(self, job_id: str, shard: int, holder: str) -> None:
        """Drop ``holder``'s lease (its shard is committed or given up)."""
        with self._tx() as cur:
            cur.execute("DELETE FROM leases WHERE leases.job_id = ? AND leases.shard = ? AND leases.holder = ?",
                        (job_id, shard, holder))

    def lease(self, job_id: str, shard: int) -> Lease | None:
        """The lease of the shard (or of the job: ``JOB_LEASE``), if anyone holds it."""
        with self._read() as cur:
            row = cur.execute("SELECT leases.job_id, leases.shard, leases.holder, leases.committing, "
                              "leases.heartbeat_at FROM leases WHERE leases.job_id = ? AND leases.shard = ?",
                              (job_id, shard)).fetchone()
        if row is None:
            return None
        beat = _read_stamp(row[4])
        assert beat is not None
        return Lease(str(row[0]), int(row[1]), str(row[2]), bool(row[3]), beat)
