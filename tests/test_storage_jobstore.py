"""The job store (storage.jobstore) on SQLite and PostgreSQL, and the settings (sims.settings).

Contract: jobs with spec, state (queued, running, succeeded, failed, cancelled), progress,
timestamps, error and owner; ``record_shard`` idempotent, also when two real processes record
the same shards at once. The PostgreSQL tests use a fresh schema per run (dropped afterwards) and
skip when the server at ``postgresql+psycopg://root@127.0.0.1:5432/test`` is unreachable.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from sims.settings import Settings, get_settings
from storage.jobstore import ALLOWED, STATES, InvalidTransition, JobExists, JobStore, JobStoreError, LimitReached

PG_URL = "postgresql+psycopg://root@127.0.0.1:5432/test"
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Target:
    """Where a store lives: URL plus schema (PostgreSQL) so other processes can open the same one."""

    url: str
    schema: str | None

    def open(self) -> JobStore:
        return JobStore(self.url, schema=self.schema)


def _pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect("host=127.0.0.1 port=5432 user=root dbname=test", connect_timeout=3):
            return True
    except Exception:
        return False


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    if request.param == "sqlite":
        yield Target(f"sqlite:///{tmp_path / 'jobs.sqlite'}", None)
        return
    if not _pg_available():
        pytest.skip("PostgreSQL at 127.0.0.1:5432 is unreachable")
    schema = f"rasklad_test_{secrets.token_hex(6)}"
    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield Target(PG_URL, schema)
    finally:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


@pytest.fixture
def store(target: Target) -> Iterator[JobStore]:
    s = target.open()
    yield s
    s.close()


SPEC = {"kind": "tournament", "game": "order-poker", "bots": ["order-poker/random", "order-poker/random"],
        "deals": 100, "seed": 7}


def test_create_get_and_list(store: JobStore) -> None:
    job = store.create_job("j-a", "tournament", "order-poker", SPEC, shards_total=4, deals_total=100)
    assert (job.id, job.kind, job.game) == ("j-a", "tournament", "order-poker")
    assert (job.state, job.owner) == ("queued", "local")
    assert job.spec == SPEC and (job.shards_done, job.shards_total, job.deals_total) == (0, 4, 100)
    assert job.created_at.tzinfo is not None and job.started_at is None and job.finished_at is None
    assert not job.cancel_requested and job.error is None
    assert store.get("j-a") == job
    assert store.get("j-missing") is None
    with pytest.raises(JobExists):
        store.create_job("j-a", "tournament", "order-poker", SPEC, 4, 100)
    time.sleep(0.01)  # distinct creation timestamps for the ordering below
    store.create_job("j-b", "deal-stats", "", {"kind": "deal-stats"}, 1, 0, owner="alice")
    time.sleep(0.01)
    store.create_job("j-c", "tournament", "quintet", {"kind": "tournament"}, 2, 10, owner="alice")
    assert [j.id for j in store.list_jobs()] == ["j-c", "j-b", "j-a"]  # newest first
    assert [j.id for j in store.list_jobs(owner="alice")] == ["j-c", "j-b"]
    assert [j.id for j in store.list_jobs(game="order-poker")] == ["j-a"]
    assert [j.id for j in store.list_jobs(limit=1, offset=1)] == ["j-b"]
    store.set_state("j-c", "running")
    assert [j.id for j in store.list_jobs(state="running")] == ["j-c"]
    assert [j.id for j in store.list_jobs(state="queued", owner="alice")] == ["j-b"]
    assert store.count_jobs(state="queued", owner="alice") == 1
    assert store.count_jobs() == len(store.list_jobs(limit=1000)) == 3
    assert store.count_jobs(game="no-such-game") == 0
    with pytest.raises(JobStoreError):
        store.list_jobs(state="done")


def test_state_machine(store: JobStore) -> None:
    store.create_job("j-1", "tournament", "order-poker", SPEC, 2, 100)
    run = store.set_state("j-1", "running")
    assert run.state == "running" and run.started_at is not None and run.finished_at is None
    assert store.set_state("j-1", "running") == run  # a retried call is a no-op
    failed = store.set_state("j-1", "failed", error="ValueError: boom")
    assert failed.state == "failed" and failed.error == "ValueError: boom" and failed.finished_at is not None
    again = store.set_state("j-1", "running")  # resume after a failure
    assert again.error is None and again.finished_at is None
    assert again.started_at == run.started_at  # the first start is kept
    done = store.set_state("j-1", "succeeded")
    assert done.finished_at is not None and done.finished_at >= done.started_at  # type: ignore[operator]
    for state in STATES:
        if state != "succeeded":
            with pytest.raises(InvalidTransition):
                store.set_state("j-1", state)
    assert store.get("j-1").state == "succeeded"  # type: ignore[union-attr]
    store.create_job("j-2", "tournament", "order-poker", SPEC, 2, 100)
    with pytest.raises(InvalidTransition):
        store.set_state("j-2", "succeeded")  # queued jobs have not run
    with pytest.raises(KeyError):
        store.set_state("j-missing", "running")
    with pytest.raises(JobStoreError):
        store.set_state("j-2", "paused")


def test_every_allowed_transition_applies(store: JobStore) -> None:
    pairs = sorted((src, dst) for src, targets in ALLOWED.items() for dst in targets)
    assert len(pairs) == 11
    for i, (src, dst) in enumerate(pairs):
        jid = f"j-{i}"
        store.create_job(jid, "tournament", "order-poker", SPEC, 1, 1)
        if src != "queued":
            if src != "running":
                store.set_state(jid, "running")
            store.set_state(jid, src)
        assert store.set_state(jid, dst).state == dst


def test_cancel_request(store: JobStore) -> None:
    store.create_job("j-1", "tournament", "order-poker", SPEC, 2, 100)
    store.set_state("j-1", "running")
    assert not store.is_cancel_requested("j-1")
    store.request_cancel("j-1")
    assert store.is_cancel_requested("j-1") and store.get("j-1").cancel_requested  # type: ignore[union-attr]
    store.set_state("j-1", "cancelled")
    store.set_state("j-1", "running")  # resumed: the old request no longer applies
    assert not store.is_cancel_requested("j-1")
    with pytest.raises(KeyError):
        store.request_cancel("j-missing")
    assert not store.is_cancel_requested("j-missing")


def test_compare_and_set_does_not_undo_a_cancel(store: JobStore) -> None:
    """A service worker read the job queued, then its owner cancelled it: queued -> running must
    not resurrect it (plain set_state would: cancelled -> running is a resume)."""
    store.create_job("j-1", "tournament", "order-poker", SPEC, 2, 100)
    store.request_cancel("j-1")
    store.set_state("j-1", "cancelled", error="cancelled by its owner")
    with pytest.raises(InvalidTransition):
        store.set_state("j-1", "running", only_from=("queued",))
    job = store.get("j-1")
    assert job is not None and (job.state, job.cancel_requested, job.error) == (
        "cancelled", True, "cancelled by its owner")
    store.create_job("j-2", "tournament", "order-poker", SPEC, 2, 100)
    assert store.set_state("j-2", "running", only_from=("queued",)).state == "running"
    with pytest.raises(InvalidTransition):  # a second racer learns it lost
        store.set_state("j-2", "running", only_from=("queued",))
    assert store.set_state("j-2", "succeeded", only_from=("running",)).state == "succeeded"
    with pytest.raises(InvalidTransition):
        store.set_state("j-2", "succeeded", only_from=("running",))
    assert store.set_state("j-2", "succeeded").state == "succeeded"  # without only_from: a no-op


def test_counts_and_totals_for_metrics(store: JobStore) -> None:
    assert store.count_by_state() == {} and store.totals() == {"shards": 0, "deals": 0}
    store.create_job("j-1", "tournament", "order-poker", SPEC, 3, 100)
    store.create_job("j-2", "tournament", "order-poker", SPEC, 2, 40)
    store.create_job("j-3", "tournament", "order-poker", SPEC, 4, 10)
    store.set_state("j-1", "running")
    for k in (0, 1):
        store.record_shard("j-1", k, 10, f"c{k}")
    store.record_shard("j-1", 1, 10, "c1")  # a re-run of a shard is not counted twice
    for k in (0, 1):
        store.record_shard("j-2", k, 10, f"d{k}")
    store.set_state("j-2", "running")
    store.set_state("j-2", "succeeded")
    assert store.count_by_state() == {"queued": 1, "running": 1, "succeeded": 1}
    assert store.count_active() == 2
    # j-1: 2 of 3 shards of 100 deals -> 66; j-2: all 40; j-3: none.
    assert store.totals() == {"shards": 4, "deals": 66 + 40}


def test_record_shard_idempotent(store: JobStore) -> None:
    store.create_job("j-1", "tournament", "order-poker", SPEC, 3, 100)
    assert store.record_shard("j-1", 0, 120, "aa") is True
    assert store.record_shard("j-1", 0, 120, "aa") is False
    assert store.record_shard("j-1", 2, 90, "bb") is True
    assert store.get("j-1").shards_done == 2  # type: ignore[union-attr]
    assert store.recorded_shards("j-1") == {0: (120, "aa"), 2: (90, "bb")}
    with pytest.raises(JobStoreError):
        store.record_shard("j-1", 3, 1, "cc")
    with pytest.raises(KeyError):
        store.record_shard("j-missing", 0, 1, "cc")
    assert store.delete_job("j-1") and store.get("j-1") is None and store.recorded_shards("j-1") == {}
    assert not store.delete_job("j-1")


_RECORDER = r"""
import json, sys, time
from pathlib import Path
from storage.jobstore import JobStore
url, schema, go, order = sys.argv[1], sys.argv[2] or None, Path(sys.argv[3]), sys.argv[4]
store = JobStore(url, schema=schema)
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
ks = list(range(120))
if order == "down":
    ks.reverse()
won = []
for k in ks:
    if store.record_shard("j-race", k, 10 + k, f"sum-{k}"):
        won.append(k)
    time.sleep(0.001)  # let the other process in (SQLite's lock is not fair): both race for each k
store.set_state("j-race", "running")
print(json.dumps(won), flush=True)
"""


def test_record_shard_from_two_processes(target: Target, tmp_path: Path) -> None:
    """Two real processes record the same 120 shards at once: each shard is stored exactly once."""
    store = target.open()
    store.create_job("j-race", "tournament", "order-poker", SPEC, 120, 1200)
    go = tmp_path / "go"
    argv = [sys.executable, "-c", _RECORDER, target.url, target.schema or "", str(go), "up"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for _ in range(2)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    go.touch()
    won = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        won.append(set(json.loads(out)))
    assert not (won[0] & won[1])
    assert won[0] | won[1] == set(range(120))
    job = store.get("j-race")
    assert job is not None and job.shards_done == 120 and job.state == "running"
    assert store.recorded_shards("j-race") == {k: (10 + k, f"sum-{k}") for k in range(120)}
    store.close()


def test_job_limit_holds_under_50_concurrent_creates(target: Target) -> None:
    """50 threads, each with its own store (own connections), create jobs of one owner limited to
    3 at once: exactly 3 succeed (a count-then-insert let 11 of 50 through a limit of 4 on SQLite
    and all 50 through a limit of 2 on PostgreSQL). Other owners are not affected by the lock."""
    import threading

    stores = [target.open() for _ in range(50)]
    barrier = threading.Barrier(50)
    results: list[str] = []
    lock = threading.Lock()

    def submit(i: int) -> None:
        barrier.wait()
        try:
            stores[i].create_job(f"j-lim-{i:02d}", "tournament", "order-poker", SPEC, 1, 10, owner="greedy",
                                 max_active=3)
            outcome = "created"
        except LimitReached as e:
            assert (e.active, e.limit) == (3, 3)
            outcome = "limited"
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(results).count("created") == 3 and len(results) == 50
    store = stores[0]
    assert store.count_jobs(owner="greedy") == 3
    # A finished job frees its place; another owner has places of its own.
    done = store.list_jobs(owner="greedy")[0]
    store.set_state(done.id, "cancelled")
    store.create_job("j-lim-next", "tournament", "order-poker", SPEC, 1, 10, owner="greedy", max_active=3)
    with pytest.raises(LimitReached):
        store.create_job("j-lim-over", "tournament", "order-poker", SPEC, 1, 10, owner="greedy", max_active=3)
    store.create_job("j-lim-other", "tournament", "order-poker", SPEC, 1, 10, owner="modest", max_active=3)
    assert store.get("j-lim-over") is None
    for s in stores:
        s.close()


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    store = JobStore(f"sqlite:///{tmp_path / 'new' / 'root' / 'j.sqlite'}")  # the directory is created
    assert (tmp_path / "new" / "root" / "j.sqlite").is_file()
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    store.close()


# ------------------------------------------------------------------------------------ settings

def test_settings_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA", "DB", "MAX_DEALS_PER_JOB", "MAX_SHARDS", "QUERY_MEMORY_LIMIT", "QUERY_TIMEOUT_S",
                 "QUERY_MAX_ROWS"):
        monkeypatch.delenv(f"RASKLAD_{name}", raising=False)
    s = get_settings()
    assert s.data == Path("data") and s.db is None and s.db_url == "sqlite:///data/jobs.sqlite"
    assert (s.max_deals_per_job, s.max_shards) == (10_000_000, 10_000)
    assert (s.query_memory_limit, s.query_timeout_s, s.query_max_rows) == ("1GB", 30.0, 100_000)


def test_settings_from_environment_and_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RASKLAD_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("RASKLAD_MAX_SHARDS", "12")
    monkeypatch.setenv("RASKLAD_QUERY_TIMEOUT_S", "2.5")
    s = get_settings()
    assert s.data == tmp_path / "d" and s.max_shards == 12 and s.query_timeout_s == 2.5
    assert s.db_url == f"sqlite:///{tmp_path / 'd' / 'jobs.sqlite'}"
    # The default database follows the data root of a copy; an explicit one stays.
    moved = s.model_copy(update={"data": tmp_path / "e"})
    assert moved.db_url == f"sqlite:///{tmp_path / 'e' / 'jobs.sqlite'}"
    monkeypatch.setenv("RASKLAD_DB", PG_URL)
    assert get_settings().db_url == PG_URL
    assert get_settings(max_shards=3).max_shards == 3  # an override beats the environment
    assert Settings(data=tmp_path).data == tmp_path
    monkeypatch.setenv("RASKLAD_MAX_SHARDS", "0")
    with pytest.raises(ValueError, match="max_shards"):
        get_settings()


def test_leases_hand_a_dead_holders_shard_over_and_allow_one_commit(store: JobStore) -> None:
    """Dead-worker detection: a lease not renewed is taken once; only its current holder commits."""
    store.create_job("j-lease", "tournament", "order-poker", SPEC, 4, 40)
    assert store.take_lease("j-lease", 0, "w1:10:a", stale_after_s=20)
    assert store.heartbeat("j-lease", 0, "w1:10:a")
    assert store.take_stale(60) == []  # renewed just now
    time.sleep(1.1)
    taken = store.take_stale(1.0)
    assert [(lease.job_id, lease.shard, lease.holder) for lease in taken] == [("j-lease", 0, "w1:10:a")]
    assert store.take_stale(1.0) == []  # taken once, by one reconciler
    # The presumed-dead holder finds out at its next heartbeat, and may not commit.
    assert not store.heartbeat("j-lease", 0, "w1:10:a")
    assert not store.claim_commit("j-lease", 0, "w1:10:a")
    # The new delivery holds it; a late redelivery of the old message takes it over before the commit...
    assert store.take_lease("j-lease", 0, "w2:20:b", stale_after_s=20)
    assert store.take_lease("j-lease", 0, "w3:30:c", stale_after_s=20)
    assert not store.claim_commit("j-lease", 0, "w2:20:b")
    assert store.claim_commit("j-lease", 0, "w3:30:c")
    # ...but not while the holder commits: that delivery drops out.
    assert not store.take_lease("j-lease", 0, "w4:40:d", stale_after_s=20)
    lease = store.lease("j-lease", 0)
    assert lease is not None and lease.holder == "w3:30:c" and lease.committing
    # A committing lease lives by its worker's heartbeat like any other (it used to get 3 leases,
    # so a worker killed mid-commit held its shard for 70 s): renewed, it stays...
    time.sleep(2.1)
    assert store.renew_prefix("w3:") == 1
    assert store.take_stale(2.0) == []
    # ...and once the heartbeat stops it is taken after one lease, committing or not.
    time.sleep(2.1)
    taken = store.take_stale(2.0)
    assert [(lease.holder, lease.committing) for lease in taken] == [("w3:30:c", True)]
    store.release_lease("j-lease", 0, "w3:30:c")  # the dead committer's release: nothing left to drop
    assert store.lease("j-lease", 0) is None


def test_a_store_made_before_the_state_index_gets_it_when_opened(target: Target) -> None:
    """``count_active`` runs at every shard commit (workers.jobs.job_window): its index must exist on stores
    created by earlier versions too, which ``create_all`` leaves as they are."""
    from sqlalchemy import inspect

    s = target.open()
    with s.engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_jobs_state" if target.schema is None
                          else f'DROP INDEX "{target.schema}".ix_jobs_state'))
    assert "ix_jobs_state" not in {i["name"] for i in inspect(s.engine).get_indexes("jobs", schema=target.schema)}
    s.close()
    s = target.open()
    try:
        assert "ix_jobs_state" in {i["name"] for i in inspect(s.engine).get_indexes("jobs", schema=target.schema)}
        assert s.count_active() == 0
    finally:
        s.close()
