"""Job control for the service: submit, enqueue, cancel, reconcile.

Used by the API and by ``rasklad reconcile``. Tasks are sent by name
(``rasklad.run_shard``, ``rasklad.finalize``): nothing here imports the task code, so an
API process never loads a game engine to queue work.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import Celery
from kombu.exceptions import OperationalError as KombuOperationalError
from obstore.exceptions import BaseError as ObjectStoreError
from redis.exceptions import RedisError
from sqlalchemy.exc import OperationalError

from sims.commit import record_committed_on_disk, spec_tables
from sims.embedded import write_spec
from sims.plan import Plan, plan
from sims.settings import Settings
from sims.spec import JobSpec
from storage.jobstore import InvalidTransition, Job, JobStore
from storage.layout import job_dir
from storage.objectstore import Location, data_root, describe_error
from workers.tracking import Tracker

log = logging.getLogger("rasklad.jobs")

RUN_SHARD = "rasklad.run_shard"
FINALIZE = "rasklad.finalize"
ACTIVE = ("queued", "running")
#: Errors of a store or the broker out of reach (an outage), as opposed to a bug: logged in one line.
OUTAGES: tuple[type[BaseException], ...] = (OSError, ObjectStoreError, OperationalError, RedisError,
                                            KombuOperationalError)


def one_line(e: BaseException) -> str:
    """An outage's error in one readable line (obstore's messages carry a multi-line debug dump)."""
    text = describe_error(e) if isinstance(e, ObjectStoreError) else " ".join(str(e).split())[:300]
    return f"{type(e).__name__}: {text}"


@dataclass
class Control:
    """What job control needs: settings, the job store, the broker and its bookkeeping."""

    settings: Settings
    store: JobStore
    celery: Celery
    tracker: Tracker


#: Broker priorities of shard messages (0 is taken first; ``workers.celery_app`` has a list per step).
PRIORITIES = 10


def enqueue(ctl: Control, job_id: str, shards: list[int]) -> None:
    """Send ``run_shard`` for each shard (marked queued first, so a reconciler never doubles them).
    These are shards lost or of dead workers: they go first (priority 0)."""
    _send(ctl.celery, ctl.tracker, job_id, shards, lambda i: 0)


def _send(celery: Celery, tracker: Tracker, job_id: str, shards: list[int], priority: Callable[[int], int]) -> None:
    """Mark ``shards`` queued, send their ``run_shard`` messages (the i-th at ``priority(i)``), then confirm
    the sends: a mark never confirmed (its sender died in between) is sent again by the reconciler."""
    tracker.mark_queued(job_id, shards)
    for i, k in enumerate(shards):
        celery.send_task(RUN_SHARD, args=(job_id, k), priority=priority(i))
    tracker.sent(job_id, shards)


def enqueue_next(celery: Celery, tracker: Tracker, job_id: str, total: int, n: int,
                 done: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Queue the job's next ``n`` shards not in ``done`` (in shard order); returns them.

    Fairness between jobs: a job has at most ``job_window(...)`` shards queued or running (the
    fleet's processes shared among the active jobs); each shard that finishes queues the next one,
    or more when the window grew (``workers.tasks``). The broker's queue is FIFO,
    so the shards of all running jobs interleave: a small job submitted behind a large one
    waits for at most the large job's window, not for all of its shards. The shard counter
    lives in Redis beside the markers (``Tracker.take_next``): two finishing shards never
    queue the same next one.

    Preemption at shard boundaries: a shard's broker priority is the number of its job's shards
    already queued or running (0 is taken first). A new job's first shard (a small job of another
    key) therefore goes before the queued shards of a job that already runs, and is taken by the
    next worker process that finishes a shard, not after the other job's whole window.
    """
    base = tracker.in_flight(job_id)
    out: list[int] = []
    while len(out) < n:
        k = tracker.take_next(job_id)
        if k >= total:
            break
        if k not in done:
            out.append(k)
    if out:
        _send(celery, tracker, job_id, out, lambda i: min(PRIORITIES - 1, base + i))
    return out


def job_window(settings: Settings, store: JobStore, tracker: Tracker) -> int:
    """How many shards of one job may be queued or running now: the fleet's shard processes (every live
    worker's pool, ``Tracker.fleet``) shared equally among the active (queued or running) jobs, and
    never fewer than ``settings.job_window`` (``RASKLAD_JOB_WINDOW``). One job alone spreads over every
    worker process there is, however many are added; two jobs get half each (fair across jobs)."""
    processes = sum(tracker.fleet().values())
    active = max(1, store.count_active())
    return max(settings.job_window, -(-processes // active))


def shard_limit_s(settings: Settings) -> float:
    """The time a shard may run on a worker: the soft time limit, 4 x ``shard_seconds``
    (``workers.celery_app.shard_limits``)."""
    return 4 * float(settings.shard_seconds)


def prepare(ctl: Control, spec: JobSpec) -> Plan:
    """Plan ``spec`` as a new job (fresh nonce); raises SpecError when a limit is exceeded, or when a
    unit (or a shard) is predicted to run longer than a shard may (``sims.plan.check_shard_time``)."""
    return plan(spec, secrets.token_hex(8), settings=ctl.settings, shard_limit_s=shard_limit_s(ctl.settings))


class BrokerUnavailable(RuntimeError):
    """The broker could not take a new job's shards: the job was not created."""


#: What a Redis broker that is down or unreachable raises (kombu wraps its errors; the tracker's
#: client raises redis' own).
BROKER_ERRORS: tuple[type[BaseException], ...] = (KombuOperationalError, RedisError, ConnectionError, OSError)


def start(ctl: Control, p: Plan, owner: str, max_active: int | None = None) -> Job:
    """Store the planned job of ``owner`` (spec file first) and queue its shards.

    ``max_active``: LimitReached when ``owner`` has that many unfinished jobs (checked atomically
    by the job store). When the broker cannot be reached, nothing is left behind: the job row and
    its directory are removed again and BrokerUnavailable is raised, so that a client's retry
    cannot run the job twice. (A worker that took one of the few shards sent before the broker
    failed finds no job and drops the message.)
    """
    jd = job_dir(data_root(ctl.settings), p.job_id)
    try:
        ctl.tracker.r.ping()  # fail before creating anything when the broker is plainly down
    except BROKER_ERRORS as e:
        raise BrokerUnavailable(f"the broker is unavailable ({type(e).__name__}): no job was created") from None
    write_spec(jd, p.spec)
    try:
        job = ctl.store.create_job(p.job_id, p.kind, p.game or "", p.spec, p.shards_total, p.deals_total,
                                   owner=owner, max_active=max_active)
    except BaseException:
        _discard(jd)
        raise
    try:
        window = job_window(ctl.settings, ctl.store, ctl.tracker)
        enqueue_next(ctl.celery, ctl.tracker, p.job_id, p.shards_total, window)
    except BROKER_ERRORS as e:
        ctl.store.delete_job(p.job_id)
        _discard(jd)
        raise BrokerUnavailable(f"the broker is unavailable ({type(e).__name__}): no job was created") from None
    return job


def _discard(jd: Location) -> None:
    """Remove what ``start`` wrote of a job that was not created (its spec, locally its directory)."""
    if isinstance(jd, Path):
        shutil.rmtree(jd, ignore_errors=True)
    else:  # an object store has no directories: the spec is the one object written so far
        (jd / "spec.json").unlink(missing_ok=True)


def submit(ctl: Control, spec: JobSpec, owner: str) -> Job:
    """Plan, store and queue ``spec`` as a new job of ``owner``."""
    return start(ctl, prepare(ctl, spec), owner)


def cancel(ctl: Control, job_id: str) -> Job:
    """Cancel a job: flag it (running shards stop), drop pending shards, end it ``cancelled``.

    Committed shards are kept. Raises InvalidTransition when the job already finished.
    """
    current = ctl.store.get(job_id)
    if current is None:
        raise KeyError(job_id)
    if current.state not in ACTIVE:
        raise InvalidTransition(f"job {job_id} already finished ({current.state})")
    ctl.store.request_cancel(job_id)
    job = ctl.store.set_state(job_id, "cancelled", error="cancelled by its owner")
    ctl.tracker.forget_job(job_id)
    return job


def resume(ctl: Control, job_id: str) -> Job:
    """Resume a cancelled or failed job: back to ``queued``, its missing shards enqueued again.

    Committed shards are kept (a shard is a pure function of the spec, so the finished job is
    the same as one never interrupted). Raises InvalidTransition for a job in any other state.
    """
    current = ctl.store.get(job_id)
    if current is None:
        raise KeyError(job_id)
    if current.state not in ("cancelled", "failed"):
        raise InvalidTransition(f"job {job_id} is {current.state}")
    _refuse_stale(ctl, current)
    job = ctl.store.set_state(job_id, "queued", only_from=("cancelled", "failed"))
    for k in range(job.shards_total):  # a failed shard's delivery count would fail it again at once
        ctl.tracker.reset_deliveries(job_id, k)
    _reconcile_job(ctl, job)
    return ctl.store.get(job_id) or job


class StaleJob(ValueError):
    """A job whose committed shards another version of its game wrote (``sims.tables.stale_rows``): it
    cannot resume, since the shards it would add give other rows for the same spec."""


def _refuse_stale(ctl: Control, job: Job) -> None:
    """Raise ``StaleJob`` when the job's first committed shard was written by another game version."""
    from games.core import registry
    from sims.spec import parse_spec
    from sims.tables import stale_shard
    from storage.parquet import committed_shards

    if not job.game:
        return
    jd = job_dir(data_root(ctl.settings), job.id)
    tables = spec_tables(parse_spec(job.spec))
    # Recorded shards and those committed on disk but not yet recorded (the reconciler records them later).
    done = (set(ctl.store.recorded_shards(job.id)) | committed_shards(jd, tables)) & set(range(job.shards_total))
    if not done or len(done) >= job.shards_total:  # nothing would be added: the job only needs its report
        return
    try:
        entry = registry.game(job.game)
    except KeyError:
        raise StaleJob(f"job {job.id} cannot resume: its game {job.game!r} is not installed here") from None
    why = stale_shard(jd, tables, min(done), entry)
    if why is not None:
        raise StaleJob(f"job {job.id} cannot resume: {why}, so its missing shards would give other rows; "
                       "submit its spec again for a fresh job")


def reap_dead(ctl: Control) -> dict[str, list[int]]:
    """Queue again the shards of workers that stopped renewing their leases (dead or cut off).

    Returns job id → shards queued again. Runs far more often than the broker's visibility
    timeout (which brings back a dead worker's messages only after 1.5x the hard time limit):
    a killed worker's shards run again within ``lease_seconds`` plus one reconciler period.
    """
    out: dict[str, list[int]] = {}
    for lease in ctl.store.take_stale(ctl.settings.lease_seconds):
        job = ctl.store.get(lease.job_id)
        if job is None or job.state not in ACTIVE or job.cancel_requested:
            continue
        if lease.shard in ctl.store.recorded_shards(job.id):
            continue
        ctl.tracker.note_reaped(job.id, lease.shard)
        enqueue(ctl, job.id, [lease.shard])
        out.setdefault(job.id, []).append(lease.shard)
    if out:
        log.warning("reap: shards of dead workers queued again: %s", out)
    return out


def reconcile(ctl: Control) -> dict[str, Any]:
    """Repair what a lost broker or a dead worker left behind. Safe to run any time, anywhere.

    For every queued or running job: shards committed on disk but not recorded are recorded;
    shards already taken from the job's window but neither committed nor marked queued (their
    message was lost, e.g. Redis restarted without persistence) are enqueued again; a job with
    fewer than ``job_window`` shards in flight gets its next ones; a complete job gets its
    ``finalize``. (When Redis lost the shard counter too, the window starts again from shard 0,
    skipping committed shards.)
    """
    requeued: dict[str, list[int]] = reap_dead(ctl)
    finalized: list[str] = []
    skipped: list[str] = []
    outage: BaseException | None = None
    for state in ACTIVE:
        offset = 0
        while True:
            batch = ctl.store.list_jobs(state=state, limit=200, offset=offset)
            if not batch:
                break
            offset += len(batch)
            for job in batch:
                if job.cancel_requested:
                    with contextlib.suppress(InvalidTransition):
                        ctl.store.set_state(job.id, "cancelled", error="cancelled by its owner")
                    continue
                try:
                    missing = _reconcile_job(ctl, job)
                except OUTAGES as e:  # one job's listing failed: the other jobs are still repaired
                    skipped.append(job.id)
                    outage = e
                    continue
                if missing is None:
                    finalized.append(job.id)
                elif missing:
                    requeued[job.id] = missing
    if requeued or finalized:
        log.info("reconcile: requeued %s, finalize %s", requeued, finalized)
    if outage is not None:  # one line a round, however many jobs
        log.warning("reconcile: %d job(s) skipped this round (%s%s): %s", len(skipped), ", ".join(skipped[:3]),
                    ", ..." if len(skipped) > 3 else "", one_line(outage))
    return {"requeued": requeued, "finalize": finalized}


def _reconcile_job(ctl: Control, job: Job) -> list[int] | None:
    """Shards re-enqueued for ``job``; None when it is complete and was sent to finalize."""
    from sims.spec import parse_spec

    jd = job_dir(data_root(ctl.settings), job.id)
    tables = spec_tables(parse_spec(job.spec))
    done = record_committed_on_disk(ctl.store, jd, job.id, tables, job.shards_total)
    done |= set(ctl.store.recorded_shards(job.id))
    if len(done) >= job.shards_total:
        if job.state == "queued":
            # Another process may have moved it on meanwhile: finalize checks the state itself.
            with contextlib.suppress(InvalidTransition):
                ctl.store.set_state(job.id, "running", only_from=("queued",))
        ctl.celery.send_task(FINALIZE, args=(job.id,))
        return None
    # Marked queued but never sent (the sender died between its mark and its sends): send them now.
    # A send takes milliseconds; a mark still pending after ``RASKLAD_PENDING_STALE_SECONDS`` (20 s) is
    # orphaned (at worst a shard runs twice, and its commit is idempotent).
    orphaned = sorted(ctl.tracker.stale_pending(job.id, ctl.settings.pending_stale_seconds) - done)
    if orphaned:
        log.warning("reconcile: %s: shards %s were marked queued by a process that died before sending them",
                    job.id, orphaned)
        enqueue(ctl, job.id, orphaned)
    queued = ctl.tracker.queued(job.id)
    taken = min(ctl.tracker.next_shard(job.id), job.shards_total)
    missing = sorted(set(range(taken)) - done - queued)
    if missing:
        enqueue(ctl, job.id, missing)
    in_flight = len(queued) + len(missing)
    window = job_window(ctl.settings, ctl.store, ctl.tracker)
    if in_flight < window:
        missing += enqueue_next(ctl.celery, ctl.tracker, job.id, job.shards_total, window - in_flight, done)
    return orphaned + missing
