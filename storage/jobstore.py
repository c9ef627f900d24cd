"""The job store (DESIGN.md "Storage"): jobs, their state and progress, in any SQLAlchemy database.

SQLite by default (a file in the data root), PostgreSQL by URL. Several processes may use one
store at once:

- SQLite runs in WAL mode (readers never block the writer) with a busy timeout, and every
  write transaction starts with ``BEGIN IMMEDIATE``: a transaction that reads and then writes
  would otherwise fail at once with "database is locked" when another process wrote in
  between, instead of waiting its turn.
- ``record_shard`` is one ``INSERT ... ON CONFLICT DO NOTHING`` on ``UNIQUE(job_id, shard)`` plus
  a recount of ``shards_done`` in the same transaction, so two processes recording the same shard
  store it once and the counter always equals the number of recorded shards.
- ``note_units`` keeps, per running shard, the units (deals, matches) it has played so far: progress
  within a long shard, before it commits. ``record_shard`` drops the shard's note in its transaction,
  so a job's ``units_running`` counts only shards not yet committed.
- ``set_state`` is a conditional ``UPDATE ... WHERE state IN (allowed sources)``: a transition is
  checked and applied atomically, so a late worker cannot mark a cancelled job succeeded.

State machine (``ALLOWED``): ``queued`` → running | failed | cancelled; ``running`` → succeeded |
failed | cancelled | queued (requeued after a lost worker); ``failed`` and ``cancelled`` →
queued | running (retry, resume); ``succeeded`` is final. Setting the state a job is already in
is a no-op (a retried call must not fail), except that a new error text is stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    exists,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import IntegrityError

from storage.jobmodel import ACTIVE as _ACTIVE
from storage.jobmodel import (
    ALLOWED,
    JOB_LEASE,
    STATES,
    InvalidTransition,
    Job,
    JobExists,
    JobStoreError,
    Lease,
    LimitReached,
    transition_sources,
)
from storage.jobmodel import FINAL as _FINAL
from storage.jobmodel import now as _now
from storage.jobmodel import utc as _utc

__all__ = ["ALLOWED", "JOB_LEASE", "STATES", "InvalidTransition", "Job", "JobExists", "JobStore", "JobStoreError",
           "Lease", "LimitReached"]

_WRITE = "rasklad_write"  # execution option marking a write transaction

_metadata = MetaData()

jobs_table = Table(
    "jobs",
    _metadata,
    Column("id", String(128), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("game", String(64), nullable=False, default=""),
    Column("spec", Text, nullable=False),
    Column("state", String(16), nullable=False),
    Column("shards_done", Integer, nullable=False, default=0),
    Column("shards_total", Integer, nullable=False),
    Column("deals_total", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("error", Text),
    Column("owner", String(200), nullable=False),
    Column("cancel_requested", Boolean, nullable=False, default=False),
    Index("ix_jobs_owner_created", "owner", "created_at"),
    # Every shard commit counts the active jobs (workers.jobs.job_window): an index on the state makes that
    # a range of the index, not a scan of every job the store ever held.
    Index("ix_jobs_state", "state"),
)

shards_table = Table(
    "shards",
    _metadata,
    Column("job_id", String(128), nullable=False),
    Column("shard", Integer, nullable=False),
    Column("rows", BigInteger, nullable=False),
    Column("checksum", String(128), nullable=False),
    Column("committed_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("job_id", "shard", name="uq_shards_job_shard"),
)


leases_table = Table(
    "leases",
    _metadata,
    Column("job_id", String(128), nullable=False),
    Column("shard", Integer, nullable=False),  # JOB_LEASE for a whole job run by one process (embedded)
    Column("holder", String(200), nullable=False),  # host:pid:token of the process running it
    Column("committing", Boolean, nullable=False, default=False),
    Column("heartbeat_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("job_id", "shard", name="uq_leases_job_shard"),
)

units_table = Table(
    "shard_units",
    _metadata,
    Column("job_id", String(128), nullable=False),
    Column("shard", Integer, nullable=False),
    Column("units", BigInteger, nullable=False),  # units of the shard played so far (not yet committed)
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("job_id", "shard", name="uq_shard_units_job_shard"),
)

def _running_units() -> Any:
    """Per job row: the units noted by its running shards, those not committed yet."""
    u = units_table
    committed = exists().where(shards_table.c.job_id == u.c.job_id, shards_table.c.shard == u.c.shard)
    total = (select(func.coalesce(func.sum(u.c.units), 0)).where(u.c.job_id == jobs_table.c.id, ~committed)
             .scalar_subquery())
    return total.label("units_running")


def _job(row: Any) -> Job:
    m = row._mapping
    created = _utc(m["created_at"])
    assert created is not None
    return Job(
        id=m["id"], kind=m["kind"], game=m["game"], spec=json.loads(m["spec"]), state=m["state"],
        shards_done=int(m["shards_done"]), shards_total=int(m["shards_total"]),
        deals_total=int(m["deals_total"]), created_at=created, started_at=_utc(m["started_at"]),
        finished_at=_utc(m["finished_at"]), error=m["error"], owner=m["owner"],
        cancel_requested=bool(m["cancel_requested"]), units_running=int(m.get("units_running") or 0),
    )


def _sqlite_setup(engine: Engine, busy_timeout_ms: int) -> None:
    """WAL, busy timeout and ``BEGIN IMMEDIATE`` for every SQLite connection (see the module doc)."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN itself (pysqlite's own implicit
        # BEGIN is deferred and is not emitted before SELECTs).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; WAL keeps it consistent
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # Writers take the write lock up front (and wait for it); readers take a snapshot.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


class JobStore:
    """Jobs and their committed shards in the database at ``url`` (tables are created if missing).

    ``schema`` puts the tables in that schema (PostgreSQL) — tests use it to keep runs apart.
    """

    def __init__(self, url: str, *, schema: str | None = None, busy_timeout_s: float = 30.0) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"future": True}
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)  # the data root may be new
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": busy_timeout_s, "check_same_thread": False}
        else:
            kwargs["pool_pre_ping"] = True
        engine = create_engine(url, **kwargs)
        if engine.dialect.name == "sqlite":
            _sqlite_setup(engine, int(busy_timeout_s * 1000))
        if schema is not None:
            engine = engine.execution_options(schema_translate_map={None: schema})
        self.engine: Engine = engine
        self._dialect = engine.dialect.name
        # A store whose schema is whole is opened with reads only: a write lock here would wait for any
        # process inside a write transaction (or stopped in one, as a frozen `rasklad run`) and fail with
        # "database is locked" after the busy timeout. Otherwise one write transaction (BEGIN IMMEDIATE on
        # SQLite): processes opening a new store at once wait for each other under the busy timeout,
        # instead of one failing when its deferred transaction, having read the schema, tries to write it.
        if not self._schema_whole():
            with self._tx() as conn:
                _metadata.create_all(conn, checkfirst=True)
                for index in jobs_table.indexes:  # a store created before an index was declared gets it now
                    index.create(conn, checkfirst=True)

    def _schema_whole(self) -> bool:
        """Every table and every index of the jobs table exists (read only)."""
        with self.engine.connect() as conn:
            insp = inspect(conn)
            schema = conn.get_execution_options().get("schema_translate_map", {}).get(None)
            names = set(insp.get_table_names(schema=schema))
            if not all(t.name in names for t in _metadata.sorted_tables):
                return False
            have = {ix["name"] for ix in insp.get_indexes(jobs_table.name, schema=schema)}
            return all(ix.name in have for ix in jobs_table.indexes)

    def close(self) -> None:
        """Release the store's connections."""
        self.engine.dispose()

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
        with self.engine.connect() as conn:
            conn.execution_options(**{_WRITE: True})
            with conn.begin():
                yield conn

    # ------------------------------------------------------------------------------- jobs

    def create_job(self, job_id: str, kind: str, game: str, spec: dict[str, Any], shards_total: int,
                   deals_total: int, owner: str = "local", max_active: int | None = None) -> Job:
        """Store a new ``queued`` job; raises JobExists if ``job_id`` is taken.

        With ``max_active``, raises LimitReached (and stores nothing) when ``owner`` already has
        that many queued or running jobs. The count and the insert are one transaction that holds
        a lock per owner — SQLite's ``BEGIN IMMEDIATE`` write lock, PostgreSQL's transaction-level
        advisory lock on a hash of the owner — so concurrent submissions of one owner are
        serialised and the limit holds under any race (a plain count-then-insert let 11 jobs
        through a limit of 4 on SQLite and 50 through a limit of 2 on PostgreSQL).
        """
        if shards_total < 0 or deals_total < 0:
            raise JobStoreError(f"job {job_id}: shards_total and deals_total must be >= 0")
        row = {
            "id": job_id, "kind": kind, "game": game or "", "spec": json.dumps(spec, sort_keys=True),
            "state": "queued", "shards_done": 0, "shards_total": int(shards_total),
            "deals_total": int(deals_total), "created_at": _now(), "started_at": None, "finished_at": None,
            "error": None, "owner": owner, "cancel_requested": False,
        }
        try:
            with self._tx() as conn:
                if max_active is not None:
                    self._lock_owner(conn, owner)
                    active = conn.execute(select(func.count()).select_from(jobs_table).where(
                        jobs_table.c.owner == owner, jobs_table.c.state.in_(_ACTIVE))).scalar()
                    if int(active or 0) >= max_active:
                        raise LimitReached(int(active or 0), max_active)
                conn.execute(insert(jobs_table).values(**row))
        except IntegrityError as e:
            raise JobExists(f"job {job_id} already exists") from e
        job = self.get(job_id)
        assert job is not None
        return job

    def _lock_owner(self, conn: Connection, owner: str) -> None:
        """Serialise write transactions of one owner until this transaction ends.

        SQLite needs nothing more: ``BEGIN IMMEDIATE`` already holds the database's write lock.
        """
        if self._dialect == "postgresql":
            digest = hashlib.sha256(f"rasklad-owner:{owner}".encode()).digest()
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"),
                         {"k": int.from_bytes(digest[:8], "big", signed=True)})

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id``, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(jobs_table, _running_units()).where(jobs_table.c.id == job_id)).first()
        return None if row is None else _job(row)

    def list_jobs(self, owner: str | None = None, state: str | None = None, game: str | None = None,
                  limit: int = 50, offset: int = 0) -> list[Job]:
        """Jobs, newest first, optionally only those of ``owner``, in ``state`` or of ``game``."""
        q = self._filtered(select(jobs_table, _running_units()), owner, state, game)
        q = q.order_by(jobs_table.c.created_at.desc(), jobs_table.c.id)
        q = q.limit(max(0, limit)).offset(max(0, offset))
        with self.engine.connect() as conn:
            return [_job(r) for r in conn.execute(q)]

    def count_jobs(self, owner: str | None = None, state: str | None = None, game: str | None = None) -> int:
        """How many jobs ``list_jobs`` would page through with the same filters."""
        q = self._filtered(select(func.count()).select_from(jobs_table), owner, state, game)
        with self.engine.connect() as conn:
            return int(conn.execute(q).scalar() or 0)

    @staticmethod
    def _filtered(q: Any, owner: str | None, state: str | None, game: str | None) -> Any:
        if state is not None and state not in STATES:
            raise JobStoreError(f"unknown state {state!r}: one of {', '.join(STATES)}")
        if owner is not None:
            q = q.where(jobs_table.c.owner == owner)
        if state is not None:
            q = q.where(jobs_table.c.state == state)
        if game is not None:
            q = q.where(jobs_table.c.game == game)
        return q

    def set_state(self, job_id: str, state: str, error: str | None = None,
                  only_from: Collection[str] | None = None) -> Job:
        """Move the job to ``state`` if ``ALLOWED`` from its current state; returns the updated job.

        Entering ``running`` stamps ``started_at`` (the first time) and clears ``finished_at`` and
        the error; entering succeeded/failed/cancelled stamps ``finished_at``. Raises KeyError for
        an unknown job and InvalidTransition for a transition the state machine forbids.

        ``only_from`` makes it a compare-and-set: the transition happens only from those states,
        and a call that did not make it raises InvalidTransition, even when the job is already
        in ``state`` (another caller won). A service worker that saw the job ``queued`` moves it
        to ``running`` with ``only_from=("queued",)``, so a cancel (or a failure) that landed in
        between is not undone (cancelled -> running is allowed only for an explicit resume);
        of two racing finalizers exactly one moves the job to ``succeeded``.
        """
        sources = transition_sources(state, only_from)
        now = _now()
        values: dict[str, Any] = {"state": state}
        if state == "running":
            values["started_at"] = func.coalesce(jobs_table.c.started_at, now)
        if state in ("running", "queued"):
            values["finished_at"] = None
            values["error"] = error
            values["cancel_requested"] = False
        if state in _FINAL:
            values["finished_at"] = now
            values["error"] = error
        with self._tx() as conn:
            res = conn.execute(update(jobs_table)
                               .where(jobs_table.c.id == job_id, jobs_table.c.state.in_(sources))
                               .values(**values))
            if res.rowcount and state in _FINAL:  # a stopped shard's note would outlive it
                conn.execute(units_table.delete().where(units_table.c.job_id == job_id))
            if res.rowcount == 0:
                current = conn.execute(select(jobs_table.c.state).where(jobs_table.c.id == job_id)).scalar()
                if current is None:
                    raise KeyError(job_id)
                if current != state or only_from is not None:
                    # With ``only_from`` the call is a compare-and-set: exactly one of several
                    # racing callers makes the transition; the others learn they did not.
                    raise InvalidTransition(f"job {job_id}: cannot go from {current} to {state}")
                if error is not None:
                    conn.execute(update(jobs_table).where(jobs_table.c.id == job_id).values(error=error))
        job = self.get(job_id)
        assert job is not None
        return job

    def request_cancel(self, job_id: str) -> None:
        """Ask the job's runner to stop (it checks ``is_cancel_requested`` between shards)."""
        with self._tx() as conn:
            res = conn.execute(update(jobs_table).where(jobs_table.c.id == job_id)
                               .values(cancel_requested=True))
            if res.rowcount == 0:
                raise KeyError(job_id)

    def is_cancel_requested(self, job_id: str) -> bool:
        """Whether a cancel was requested since the job last (re)started; False for an unknown job."""
        with self.engine.connect() as conn:
            v = conn.execute(select(jobs_table.c.cancel_requested).where(jobs_table.c.id == job_id)).scalar()
        return bool(v)

    def delete_job(self, job_id: str) -> bool:
        """Remove the job and its shard rows (not its files); returns whether it existed."""
        with self._tx() as conn:
            conn.execute(shards_table.delete().where(shards_table.c.job_id == job_id))
            conn.execute(units_table.delete().where(units_table.c.job_id == job_id))
            return bool(conn.execute(jobs_table.delete().where(jobs_table.c.id == job_id)).rowcount)

    # ----------------------------------------------------------------------------- shards

    def _insert_shard_ignoring_duplicate(self, conn: Connection, row: dict[str, Any]) -> bool:
        stmt: Any
        if self._dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            stmt = sqlite_insert(shards_table)
        elif self._dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            stmt = pg_insert(shards_table)
        else:
            # Other databases: the unique constraint still guards; a savepoint keeps the transaction.
            try:
                with conn.begin_nested():
                    conn.execute(insert(shards_table).values(**row))
            except IntegrityError:
                return False
            return True
        # RETURNING, not rowcount: psycopg reports rowcount -1 for this statement.
        stmt = (stmt.values(**row).on_conflict_do_nothing(index_elements=["job_id", "shard"])
                .returning(shards_table.c.shard))
        return conn.execute(stmt).first() is not None

    def record_shard(self, job_id: str, k: int, rows: int, checksum: str) -> bool:
        """Record shard ``k`` as committed; False (and nothing changes) if it was recorded already.

        Idempotent and safe under concurrency; ``shards_done`` is recounted in the same
        transaction. Raises KeyError for an unknown job and JobStoreError for ``k`` outside
        ``0..shards_total-1``.
        """
        with self._tx() as conn:
            total = conn.execute(select(jobs_table.c.shards_total).where(jobs_table.c.id == job_id)).scalar()
            if total is None:
                raise KeyError(job_id)
            if not 0 <= k < int(total):
                raise JobStoreError(f"job {job_id}: shard {k} outside 0..{int(total) - 1}")
            row = {"job_id": job_id, "shard": int(k), "rows": int(rows), "checksum": checksum,
                   "committed_at": _now()}
            inserted = self._insert_shard_ignoring_duplicate(conn, row)
            conn.execute(units_table.delete().where(units_table.c.job_id == job_id, units_table.c.shard == k))
            if inserted:
                count = select(func.count()).select_from(shards_table).where(shards_table.c.job_id == job_id)
                conn.execute(update(jobs_table).where(jobs_table.c.id == job_id)
                             .values(shards_done=count.scalar_subquery()))
        return inserted

    def note_units(self, job_id: str, k: int, units: int) -> None:
        """Note that shard ``k`` has played ``units`` of its units so far (progress within a shard,
        shown until the shard commits; a note of a shard already committed is ignored)."""
        with self._tx() as conn:
            if conn.execute(select(shards_table.c.shard).where(shards_table.c.job_id == job_id,
                                                               shards_table.c.shard == k)).first() is not None:
                return
            conn.execute(units_table.delete().where(units_table.c.job_id == job_id, units_table.c.shard == k))
            conn.execute(insert(units_table).values(job_id=job_id, shard=int(k), units=int(units), updated_at=_now()))

    def count_by_state(self) -> dict[str, int]:
        """How many jobs are in each state (states without jobs are absent)."""
        q = select(jobs_table.c.state, func.count()).group_by(jobs_table.c.state)
        with self.engine.connect() as conn:
            return {str(state): int(n) for state, n in conn.execute(q)}

    def count_active(self) -> int:
        """How many jobs are queued or running (an index range: cheap however many jobs ended)."""
        q = select(func.count()).select_from(jobs_table).where(jobs_table.c.state.in_(_ACTIVE))
        with self.engine.connect() as conn:
            return int(conn.execute(q).scalar_one())

    def backlog(self) -> dict[str, int]:
        """The work not done yet: ``shards`` not committed of queued and running jobs (cancel not
        requested) and those ``jobs``: what an autoscaler sizes the worker fleet by."""
        left = func.sum(jobs_table.c.shards_total - jobs_table.c.shards_done)
        q = select(func.count(), left).where(jobs_table.c.state.in_(("queued", "running")),
                                             jobs_table.c.cancel_requested.is_(False))
        with self.engine.connect() as conn:
            n, shards = conn.execute(q).one()
        return {"jobs": int(n or 0), "shards": int(shards or 0)}

    def totals(self) -> dict[str, int]:
        """Over every job: ``shards`` committed, and the ``deals`` (or samples) they cover.

        A job's deals are counted as ``deals_total * shards_done // shards_total``: exact for a
        finished job, and for a running one as exact as the even split of deals over shards.
        """
        covered = func.sum(jobs_table.c.deals_total * jobs_table.c.shards_done // jobs_table.c.shards_total)
        with self.engine.connect() as conn:
            shards = conn.execute(select(func.count()).select_from(shards_table)).scalar()
            deals = conn.execute(select(covered).where(jobs_table.c.shards_total > 0)).scalar()
        return {"shards": int(shards or 0), "deals": int(deals or 0)}

    def totals_by_owner(self) -> dict[str, dict[str, int]]:
        """Per owner (API key name): ``shards`` committed, ``deals`` they cover (as ``totals``) and
        the number of jobs in each state (``state:<name>``)."""
        covered = func.sum(jobs_table.c.deals_total * jobs_table.c.shards_done // jobs_table.c.shards_total)
        out: dict[str, dict[str, int]] = {}
        with self.engine.connect() as conn:
            q = (select(jobs_table.c.owner, func.sum(jobs_table.c.shards_done), covered)
                 .where(jobs_table.c.shards_total > 0).group_by(jobs_table.c.owner))
            for owner, shards, deals in conn.execute(q):
                out.setdefault(str(owner), {}).update(shards=int(shards or 0), deals=int(deals or 0))
            q = select(jobs_table.c.owner, jobs_table.c.state, func.count()).group_by(jobs_table.c.owner,
                                                                                       jobs_table.c.state)
            for owner, state, n in conn.execute(q):
                out.setdefault(str(owner), {})[f"state:{state}"] = int(n)
        return out

    def ids_with_prefix(self, prefix: str, owner: str | None = None, limit: int = 2) -> list[str]:
        """Ids of jobs (of ``owner``, when given) that start with ``prefix``, at most ``limit``."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        q = select(jobs_table.c.id).where(jobs_table.c.id.like(f"{escaped}%", escape="\\"))
        if owner is not None:
            q = q.where(jobs_table.c.owner == owner)
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q.order_by(jobs_table.c.id).limit(limit))]

    def recorded_shards(self, job_id: str) -> dict[int, tuple[int, str]]:
        """Recorded shards of the job: shard index → (rows, checksum)."""
        q = (select(shards_table.c.shard, shards_table.c.rows, shards_table.c.checksum)
             .where(shards_table.c.job_id == job_id).order_by(shards_table.c.shard))
        with self.engine.connect() as conn:
            return {int(r.shard): (int(r.rows), str(r.checksum)) for r in conn.execute(q)}

    # ----------------------------------------------------------------------------- leases
    #
    # A worker running a shard holds its lease and renews it (``heartbeat``) every few seconds. A
    # lease not renewed for a while belongs to a dead worker: ``take_stale`` hands it to the
    # reconciler, which queues the shard again at once instead of waiting for the broker's
    # visibility timeout. A shard's commit happens only under ``claim_commit``, which succeeds for
    # the lease's current holder alone and marks the lease ``committing`` (such a lease is not
    # taken from a live committer): of two deliveries of one shard, at most one ever commits.

    def take_lease(self, job_id: str, shard: int, holder: str, stale_after_s: float) -> bool:
        """Make ``holder`` the lease's holder; False when another holder is committing and alive."""
        now = _now()
        with self._tx() as conn:
            row = conn.execute(select(leases_table).where(leases_table.c.job_id == job_id,
                                                          leases_table.c.shard == shard)).first()
            if row is None:
                conn.execute(insert(leases_table).values(job_id=job_id, shard=shard, holder=holder,
                                                         committing=False, heartbeat_at=now))
                return True
            beat = _utc(row.heartbeat_at)
            assert beat is not None
            if row.committing and row.holder != holder and (now - beat).total_seconds() < stale_after_s:
                return False
            conn.execute(update(leases_table).where(leases_table.c.job_id == job_id, leases_table.c.shard == shard)
                         .values(holder=holder, committing=False, heartbeat_at=now))
        return True

    def heartbeat(self, job_id: str, shard: int, holder: str) -> bool:
        """Renew ``holder``'s lease; False when it lost the lease (taken as stale, or by a redelivery)."""
        with self._tx() as conn:
            n = conn.execute(update(leases_table).where(
                leases_table.c.job_id == job_id, leases_table.c.shard == shard, leases_table.c.holder == holder)
                .values(heartbeat_at=_now())).rowcount
        return bool(n)

    def renew_prefix(self, prefix: str) -> int:
        """Renew every lease whose holder starts with ``prefix`` (a worker renews all its shards
        in one statement, from its main process); returns how many."""
        with self._tx() as conn:
            n = conn.execute(update(leases_table).where(leases_table.c.holder.startswith(prefix, autoescape=True))
                             .values(heartbeat_at=_now())).rowcount
        return int(n or 0)

    def claim_commit(self, job_id: str, shard: int, holder: str) -> bool:
        """Whether ``holder`` may commit the shard now (it still holds the lease); marks it committing."""
        with self._tx() as conn:
            n = conn.execute(update(leases_table).where(
                leases_table.c.job_id == job_id, leases_table.c.shard == shard, leases_table.c.holder == holder)
                .values(committing=True, heartbeat_at=_now())).rowcount
        return bool(n)

    def release_lease(self, job_id: str, shard: int, holder: str) -> None:
        """Drop ``holder``'s lease (its shard is committed or given up)."""
        with self._tx() as conn:
            conn.execute(leases_table.delete().where(
                leases_table.c.job_id == job_id, leases_table.c.shard == shard, leases_table.c.holder == holder))

    def lease(self, job_id: str, shard: int) -> Lease | None:
        """The lease of the shard (or of the job: ``JOB_LEASE``), if anyone holds it."""
        with self.engine.connect() as conn:
            row = conn.execute(select(leases_table).where(leases_table.c.job_id == job_id,
                                                          leases_table.c.shard == shard)).first()
        return None if row is None else _lease(row)

    def running_shards(self) -> list[dict[str, Any]]:
        """Every shard someone holds a lease on now (a service worker runs it), oldest heartbeat first:
        ``job_id``, ``shard``, ``holder``, ``heartbeat_at``, ``committing``, the job's ``owner`` and
        ``game``, and ``units`` it has played so far (``note_units``; 0 before its first note)."""
        u, le, j = units_table, leases_table, jobs_table
        units = (select(u.c.units).where(u.c.job_id == le.c.job_id, u.c.shard == le.c.shard)
                 .scalar_subquery().label("units"))
        q = (select(le, j.c.owner, j.c.game, units).join(j, j.c.id == le.c.job_id)
             .where(le.c.shard != JOB_LEASE).order_by(le.c.heartbeat_at))
        with self.engine.connect() as conn:
            return [{**asdict(_lease(r)), "owner": str(r.owner), "game": str(r.game), "units": int(r.units or 0)}
                    for r in conn.execute(q)]

    def take_stale(self, stale_after_s: float) -> list[Lease]:
        """Remove and return the shard leases not renewed for ``stale_after_s`` seconds.

        Each is removed only if it is still the same stale lease (a conditional delete), so two
        reconcilers never both take one, and a holder that renewed meanwhile keeps it. A lease
        being committed is no exception: the worker's heartbeat (its main process, not the one
        writing the files) renews it as any other, so a committing holder that stopped renewing
        is as dead as a running one (a fixed three-lease grace made a worker killed mid-commit
        cost 70 s).
        """
        cutoff = _now() - timedelta(seconds=stale_after_s)
        q = select(leases_table).where(leases_table.c.shard != JOB_LEASE, leases_table.c.heartbeat_at < cutoff)
        with self.engine.connect() as conn:
            rows = [_lease(r) for r in conn.execute(q)]
        taken = []
        for lease in rows:
            with self._tx() as conn:
                n = conn.execute(leases_table.delete().where(
                    leases_table.c.job_id == lease.job_id, leases_table.c.shard == lease.shard,
                    leases_table.c.holder == lease.holder,
                    leases_table.c.heartbeat_at == _stored(lease.heartbeat_at, self._dialect))).rowcount
            if n:
                taken.append(lease)
        return taken


def _lease(row: Any) -> Lease:
    beat = _utc(row.heartbeat_at)
    assert beat is not None
    return Lease(str(row.job_id), int(row.shard), str(row.holder), bool(row.committing), beat)


def _stored(value: datetime, dialect: str) -> datetime:
    """A datetime as the database compares it (SQLite keeps naive UTC)."""
    return value.replace(tzinfo=None) if dialect == "sqlite" else value
