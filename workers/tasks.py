"""Celery tasks: run one shard, finalize a job. Thin: decode, call ``sims``, commit.

Fault tolerance, in short (details in docs/service.md):

* A shard's output is a pure function of (spec, k) and is committed atomically with a
  unique (job, shard) record, so a shard that runs twice changes nothing.
* A delivery counter per shard (in Redis) counts starts whose worker died (a message's own
  redeliveries and the reaper's finds; a concurrent duplicate message is no death); a shard that
  keeps killing its worker is failed after ``max_deliveries`` (``RASKLAD_MAX_DELIVERIES``) and
  the job with it.
* No chords: whichever shard brings the committed count to the total enqueues
  ``finalize``, which is idempotent (atomic report files, a compare-and-set to succeeded).
* An outage (the object store, the job store or the broker not answering) pauses a shard: the
  object store's requests wait it out themselves (``storage.objectstore``), and a task that met a
  transient error, or whose time limit ran out while it waited, is tried again with backoff of at
  most ``MAX_BACKOFF_S`` until ``RASKLAD_S3_OUTAGE_S`` (10 minutes) have passed since the outage
  began; only then does the job fail, with one readable line as its error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import secrets
import socket
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from celery.exceptions import Ignore, SoftTimeLimitExceeded
from celery.signals import task_received, worker_ready, worker_shutdown
from obstore.exceptions import BaseError as ObjectStoreError
from redis.exceptions import RedisError
from sqlalchemy.exc import OperationalError

from sims.commit import commit_shard, record_committed_on_disk, spec_tables
from sims.run import ShardCancelled
from sims.settings import Settings
from storage.jobstore import InvalidTransition, Job, JobStore
from storage.layout import job_dir
from storage.objectstore import ObjectPath, StoreUnavailable, data_root, describe_error
from storage.objectstore import outage_since as store_outage
from workers.celery_app import app
from workers.celery_app import settings as worker_settings
from workers.jobs import enqueue_next, job_window
from workers.remote_slots import remote_shard
from workers.tracking import Tracker

log = logging.getLogger("rasklad.workers")

TERMINAL = ("succeeded", "failed", "cancelled")
#: Errors worth a retry: the store, the broker, the file system or the object store hiccuped
#: (obstore's errors are OSErrors or its GenericError once its own retries are spent).
TRANSIENT = (OperationalError, RedisError, ConnectionError, TimeoutError, OSError, ObjectStoreError)


def max_deliveries(settings: Settings | None = None) -> int:
    """Starts of one shard that may end in a dead worker before the job is failed."""
    return (settings if settings is not None else worker_settings).max_deliveries


@cache
def _context() -> tuple[Settings, JobStore, Tracker]:
    """The worker's settings (those its Celery app was built from), job store and tracker."""
    settings = worker_settings
    if not settings.data_is_remote:
        Path(settings.data).mkdir(parents=True, exist_ok=True)
    return settings, JobStore(settings.db_url), Tracker(app.conf.broker_url)


def _spec(settings: Settings, job: Job) -> dict[str, Any]:
    path = job_dir(data_root(settings), job.id) / "spec.json"
    try:  # one GET on an object store (no HEAD first)
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return job.spec
    return data


def _fail(store: JobStore, job_id: str, reason: str) -> None:
    # Already finished (cancelled, or failed by another shard): nothing to change.
    with contextlib.suppress(InvalidTransition):
        store.set_state(job_id, "failed", error=reason)


#: Longest pause between two tries of a task that met a transient error: during a long outage a
#: shard is tried at least this often, so it goes on within about this long of the store's return.
MAX_BACKOFF_S = 30.0


def _backoff(retries: int) -> float:
    """Exponential backoff with jitter, at most ``MAX_BACKOFF_S``: spreads retries of many shards apart."""
    return float(random.uniform(0.5, 1.0) * min(MAX_BACKOFF_S, 2.0 ** (retries + 1)))


def _reason(e: BaseException) -> str:
    """One readable line for an error (obstore's messages carry a multi-line debug dump)."""
    if isinstance(e, SoftTimeLimitExceeded):
        return "its time limit ran out while the object store did not answer"
    return f"{type(e).__name__}: {describe_error(e) if isinstance(e, ObjectStoreError) else ' '.join(str(e).split())}"


def _resume_outage(settings: Settings, since: float | None) -> None:
    """A retried task carries on the outage its earlier try met: the object store's budget counts from then."""
    if since is not None:
        root = data_root(settings)
        if isinstance(root, ObjectPath):
            root.root.outage_began(since)


def _retry_or_fail(task: Any, settings: Settings, store: JobStore, job_id: str, what: str, e: BaseException,
                   since: float | None, unmark: Any = None) -> NoReturn:
    """Try the task again later (raises Retry) unless the outage that ``e`` is part of has lasted
    ``s3_outage_s`` (or the object store already waited that long: StoreUnavailable): then fail the
    job with one line naming ``what`` and the error (raises Ignore). ``since``: when the outage began."""
    now = time.time()
    since = min(t for t in (since, store_outage(), now) if t is not None)
    waited = now - since
    budget = settings.s3_outage_s
    if isinstance(e, StoreUnavailable) or waited >= budget:
        _fail(store, job_id, f"{what}: {_reason(e)} (still failing {waited:.0f} s after the first error; "
                             f"RASKLAD_S3_OUTAGE_S={budget:g})")
        if unmark is not None:
            unmark()
        raise Ignore() from None
    countdown = min(_backoff(task.request.retries), max(1.0, budget - waited))
    log.warning("%s of job %s paused: %s; tried again in %.0f s (for up to %.0f s more)", what, job_id,
                _reason(e), countdown, budget - waited)
    # exc=None: Celery's own retry line stays one line too ("Retry in 12s").
    raise task.retry(countdown=countdown, kwargs={"outage_since": since}) from None


#: Seconds between two notes of a running shard's units in the job store (``JobStore.note_units``).
UNITS_NOTE_S = 2.0


def _watch(store: JobStore, job_id: str, k: int, holder: str, heartbeat_s: float, done: threading.Event,
           cancelled: threading.Event, lost: threading.Event, units: list[int] | None = None) -> None:
    """While a shard runs: renew its lease every ``heartbeat_s`` seconds and poll the job store
    every second; set ``cancelled`` when the job is cancelled, and ``lost`` too when the lease
    was taken (this worker was presumed dead and the shard runs elsewhere). ``units[0]`` is how
    many units the shard has played (``sims.run.run_shard``'s ``on_unit``): noted in the job store
    as soon as the first are played, then every ``UNITS_NOTE_S`` seconds when it changed, so the job's
    progress moves within a long shard."""
    last_beat = time.monotonic()
    last_note = -UNITS_NOTE_S  # the first units are noted at the first look, not UNITS_NOTE_S later
    noted = 0
    while not done.wait(1.0):
        if units is not None and units[0] != noted and time.monotonic() - last_note >= UNITS_NOTE_S:
            last_note = time.monotonic()
            with contextlib.suppress(*TRANSIENT):
                store.note_units(job_id, k, units[0])
                noted = units[0]
        try:
            if time.monotonic() - last_beat >= heartbeat_s:
                last_beat = time.monotonic()
                if not store.heartbeat(job_id, k, holder):
                    lost.set()
                    cancelled.set()
                    return
            job = store.get(job_id)
        except TRANSIENT:
            continue
        if job is None or job.cancel_requested or job.state in TERMINAL:
            cancelled.set()
            return


def _holder(hostname: str | None, task_id: str | None) -> str:
    """A delivery's lease holder: the worker's node name, its incarnation and the task id
    (``node|incarnation|task``).

    The main process takes the lease when the message arrives (``_lease_on_receipt``) and the
    pool process that runs the task computes the same holder: no window in which a received
    shard has no lease. A redelivery to another worker is another holder.
    """
    return f"{_node_prefix(hostname)}{task_id or secrets.token_hex(8)}"


#: This worker's incarnation, drawn once in the main process and inherited by its pool processes
#: (they are forked from it). A worker restarted under the same node name (``-n w2@host`` after a
#: kill -9) is another incarnation: it must not renew the leases its dead predecessor held, or
#: those shards would never be queued again.
_INCARNATION = secrets.token_hex(6)


def _node_prefix(hostname: str | None) -> str:
    """The start of every lease holder of this worker incarnation: ``node|incarnation|``."""
    return f"{hostname or socket.gethostname()}|{_INCARNATION}|"


# ------------------------------------------------------------------ leases of the main process
#
# A whole worker killed (kill -9, a lost machine) leaves its messages unacknowledged until the
# broker's visibility timeout, minutes later. Instead, the worker's main process leases every
# shard it receives and renews all its leases every quarter of ``lease_seconds``; when it dies the
# renewals stop, and the reconciler queues the shards again (workers.jobs.reap_dead).

_main: dict[str, Any] = {}
_inherited: list[Any] = []
#: Held by the main process's lease work and across every fork: a pool process must never be
#: forked while another thread is inside SQLAlchemy or the database driver (the child would
#: inherit their locks taken, and hang at its first query until the hard time limit).
_fork_guard = threading.RLock()
os.register_at_fork(before=_fork_guard.acquire, after_in_parent=_fork_guard.release,
                    after_in_child=_fork_guard.release)


def _main_store() -> JobStore:
    """The job store of the worker's main process (never the one its pool processes use)."""
    store = _main.get("store")
    if store is None:
        store = JobStore(worker_settings.db_url)
        # A pool process forked later must neither use nor close the parent's connections, and
        # must take no lock in the fork hook (the renewal thread may hold the pool's at fork
        # time: disposing the engine there hung new pool processes). It only parks the object,
        # referenced for good so that garbage collection never closes the inherited sockets.
        os.register_at_fork(after_in_child=lambda: _inherited.append(_main.pop("store", None)))
        _main["store"] = store
    return store


@task_received.connect  # type: ignore[untyped-decorator]
def _lease_on_receipt(sender: Any = None, request: Any = None, **_: Any) -> None:
    if request is None or request.name != "rasklad.run_shard":
        return
    try:
        job_id, k = request.args[0], int(request.args[1])
        with _fork_guard:
            _main_store().take_lease(job_id, k, _holder(request.hostname, request.id), worker_settings.lease_seconds)
    except Exception:  # the task takes it itself when it starts
        log.exception("could not lease a received shard")


@worker_ready.connect  # type: ignore[untyped-decorator]
def _start_renewing(sender: Any = None, **_: Any) -> None:
    node = str(getattr(sender, "hostname", "") or socket.gethostname())
    every = worker_settings.lease_seconds / 4
    # The heartbeat also tells the fleet how many shard processes this worker has (workers.jobs.job_window).
    processes = int(getattr(getattr(sender, "controller", None), "concurrency", None) or 1)
    tracker = Tracker(str(app.conf.broker_url))
    _main["fleet"] = (tracker, _node_prefix(node))

    def renew() -> None:
        while True:
            try:
                tracker.note_worker(_node_prefix(node), processes, 3 * worker_settings.lease_seconds)
            except Exception:  # the broker is out of reach: the job windows shrink to RASKLAD_JOB_WINDOW
                log.warning("could not note %s in the fleet", node, exc_info=True)
            time.sleep(every)
            try:
                with _fork_guard:
                    _main_store().renew_prefix(_node_prefix(node))
            except Exception:  # a busy or unreachable store: renew at the next tick
                log.warning("could not renew the leases of %s", node, exc_info=True)

    threading.Thread(target=renew, daemon=True, name="rasklad-lease-renewal").start()


@worker_shutdown.connect  # type: ignore[untyped-decorator]
def _leave_fleet(**_: Any) -> None:
    fleet = _main.get("fleet")
    if fleet is not None:  # a warm shutdown: the job windows shrink now, not when the entry expires
        with contextlib.suppress(Exception):
            fleet[0].forget_worker(fleet[1])


@app.task(name="rasklad.run_shard", bind=True, max_retries=None, acks_late=True)  # type: ignore[untyped-decorator]
def run_shard(self: Any, job_id: str, k: int, outage_since: float | None = None) -> str:
    """Run shard ``k`` of ``job_id`` and commit it (idempotent). ``outage_since``: set by a retry, when
    the outage its earlier try met began (retries stop ``RASKLAD_S3_OUTAGE_S`` after it)."""
    holder = _holder(self.request.hostname, self.request.id)
    try:
        return _run_shard(self, job_id, k, holder, outage_since)
    finally:
        # Whatever the outcome, this delivery no longer needs its lease (a no-op when it was lost).
        with contextlib.suppress(Exception):
            _context()[1].release_lease(job_id, k, holder)


def _run_shard(self: Any, job_id: str, k: int, holder: str, since: float | None = None) -> str:
    settings, store, tracker = _context()
    _resume_outage(settings, since)
    job = store.get(job_id)
    if job is None:
        log.warning("shard %s/%s: unknown job, dropped", job_id, k)
        return "unknown job"
    if job.state in TERMINAL or job.cancel_requested:
        tracker.unmark(job_id, k)
        return f"job {job.state}: dropped"
    task_id = str(self.request.id or holder)
    deliveries = tracker.count_delivery(job_id, k, task_id)
    if deliveries > max_deliveries(settings):
        reason = (f"shard {k} was started {deliveries - 1} times and its worker died every time "
                  f"(killed, out of memory or crashed): giving up after {max_deliveries(settings)} deliveries")
        _fail(store, job_id, reason)
        tracker.unmark(job_id, k)
        return "failed: too many deliveries"
    finished_normally = False
    try:
        spec_data = _spec(settings, job)
        from sims.run import run_shard as run
        from sims.spec import parse_spec

        spec = parse_spec(spec_data)
        tables = spec_tables(spec)
        jd = job_dir(data_root(settings), job_id)
        if k in store.recorded_shards(job_id):
            finished_normally = True
            _after_commit(store, tracker, job_id, k)
            return "already committed"
        if not store.take_lease(job_id, k, holder, settings.lease_seconds):
            finished_normally = True
            return "another worker is committing this shard"
        if job.state == "queued":
            # Compare-and-set: a cancel (or a failure) since we read the job must not be undone.
            with contextlib.suppress(InvalidTransition):
                store.set_state(job_id, "running", only_from=("queued",))
        done, cancelled, lost = threading.Event(), threading.Event(), threading.Event()
        units = [0]
        watcher = threading.Thread(target=_watch, daemon=True, args=(
            store, job_id, k, holder, settings.lease_seconds / 4, done, cancelled, lost, units))
        watcher.start()
        t0 = time.perf_counter()
        access, give_back = remote_shard(settings, tracker.r, job, spec, cancelled.is_set)
        try:
            data = run(spec, k, should_stop=cancelled.is_set, on_unit=lambda n: units.__setitem__(0, n), access=access)
        except ShardCancelled:
            data = None
        finally:
            done.set()
            give_back()
        if lost.is_set() or not store.claim_commit(job_id, k, holder):
            # Presumed dead and re-queued: the other delivery commits; its marker stays.
            finished_normally = True
            return "lease lost: result dropped"
        current = store.get(job_id)
        if data is None or current is None or current.state in TERMINAL or current.cancel_requested:
            finished_normally = True
            tracker.unmark(job_id, k)
            return "cancelled: result dropped"
        # Records this shard only. Shards on disk but unrecorded (a worker killed between its
        # files and its record) are recorded by the reconciler and by finalize: listing the job's
        # files here, at every commit, made a job of S shards cost S listings of S files.
        commit_shard(store, jd, job_id, k, tables, data)
        finished_normally = True
        with contextlib.suppress(RedisError):
            tracker.observe_shard(time.perf_counter() - t0)
            tracker.note_ran(job_id, k, str(self.request.hostname or os.getpid()))
        _after_commit(store, tracker, job_id, k)
        return "committed"
    except SoftTimeLimitExceeded as e:
        finished_normally = True
        if store_outage() is not None:  # the time ran out waiting for the object store: an outage, not the shard
            _retry_or_fail(self, settings, store, job_id, f"shard {k}", e, since, lambda: tracker.unmark(job_id, k))
        _fail(store, job_id, f"shard {k} exceeded the soft time limit of {app.conf.task_soft_time_limit:.0f} s")
        tracker.unmark(job_id, k)
        raise Ignore() from None
    except TRANSIENT as e:
        finished_normally = True
        _retry_or_fail(self, settings, store, job_id, f"shard {k}", e, since, lambda: tracker.unmark(job_id, k))
    except Exception as e:
        # A deterministic error of the shard (a bug or an impossible spec): retrying gives
        # the same error, so the job fails with the reason.
        finished_normally = True
        log.exception("shard %s/%s failed", job_id, k)
        _fail(store, job_id, f"shard {k}: {type(e).__name__}: {e}")
        tracker.unmark(job_id, k)
        return "failed"
    finally:
        if finished_normally:
            tracker.reset_deliveries(job_id, k, task_id)


def _after_commit(store: JobStore, tracker: Tracker, job_id: str, k: int) -> None:
    tracker.unmark(job_id, k)
    job = store.get(job_id)
    if job is None or job.state != "running":
        return
    if job.shards_done >= job.shards_total:
        # Finalize here rather than as a task at the tail of the queue, where it would wait
        # behind the windows of every other running job (a small job's latency). A hiccup
        # of the store or the disk sends the task instead, which retries.
        try:
            log.info("finalize %s: %s", job_id, _finalize(_context()[0], store, tracker, job_id))
        except (*TRANSIENT, SoftTimeLimitExceeded):
            # The shard's own time limit ran out while its report was built: the finalize task
            # gets a time limit of its own (and finalizing is idempotent), the job does not fail.
            app.send_task("rasklad.finalize", args=(job_id,))
        return
    # This shard's place in the job's window goes to the job's next shard (workers.jobs), and when the
    # window grew (workers joined the fleet, jobs finished) the job's next shards fill it.
    room = job_window(worker_settings, store, tracker) - tracker.in_flight(job_id)
    enqueue_next(app, tracker, job_id, job.shards_total, max(1, room), frozenset(store.recorded_shards(job_id)))


@app.task(name="rasklad.finalize", bind=True, max_retries=None, acks_late=True)  # type: ignore[untyped-decorator]
def finalize(self: Any, job_id: str, outage_since: float | None = None) -> str:
    """Write the job's aggregates and report, then mark it succeeded. Idempotent.

    Two finalizers racing write the same files (each atomically) and only one state change
    to ``succeeded`` happens; the other sees it and returns. (The shard that completes a job
    finalizes it itself, ``_after_commit``; this task is the reconciler's and the fallback.)
    """
    settings, store, tracker = _context()
    _resume_outage(settings, outage_since)
    try:
        return _finalize(settings, store, tracker, job_id)
    except SoftTimeLimitExceeded as e:
        if store_outage() is not None:  # the time ran out waiting for the object store
            _retry_or_fail(self, settings, store, job_id, "finalize", e, outage_since)
        _fail(store, job_id, f"finalize exceeded the soft time limit of {app.conf.task_soft_time_limit:.0f} s "
                             "(4 x RASKLAD_SHARD_SECONDS): raise it and resume the job")
        raise Ignore() from None
    except TRANSIENT as e:
        _retry_or_fail(self, settings, store, job_id, "finalize", e, outage_since)


def _finalize(settings: Settings, store: JobStore, tracker: Tracker, job_id: str) -> str:
    """The work of ``finalize``; TRANSIENT errors are raised for the caller to retry, and the soft
    time limit for the caller to decide (the last shard hands over to a finalize task)."""
    job = store.get(job_id)
    if job is None or job.state != "running":
        return f"nothing to do ({job.state if job else 'unknown job'})"
    try:
        from sims.report import build_report, write_report
        from sims.spec import parse_spec

        spec_data = _spec(settings, job)
        spec = parse_spec(spec_data)
        jd = job_dir(data_root(settings), job_id)
        done = record_committed_on_disk(store, jd, job_id, spec_tables(spec), job.shards_total)
        if len(done) < job.shards_total:
            return f"not complete: {len(done)}/{job.shards_total} shards"
        write_report(jd, build_report(jd, spec_data))
        try:
            store.set_state(job_id, "succeeded", only_from=("running",))  # one racer wins
        except InvalidTransition:
            return "finished by another finalizer"
        tracker.forget_job(job_id)
        return "succeeded"
    except (*TRANSIENT, SoftTimeLimitExceeded):
        raise
    except Exception as e:
        log.exception("finalize %s failed", job_id)
        _fail(store, job_id, f"finalize: {type(e).__name__}: {e}")
        return "failed"
