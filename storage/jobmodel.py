"""What the job store holds and refuses, without a database library: states, ``Job``, ``Lease``, errors.

``storage.jobstore`` (SQLAlchemy, any database) and ``storage.sqlitejobs`` (the standard library's
``sqlite3``, the embedded ``rasklad run``'s SQLite file) share these, so a caller catches the same
``InvalidTransition`` and reads the same ``Job`` whichever store it has; importing this module loads
no SQLAlchemy (issue 30 item 4: a job's fixed cost). ``storage.jobstore`` re-exports every name.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ACTIVE",
    "ALLOWED",
    "FINAL",
    "JOB_LEASE",
    "STATES",
    "InvalidTransition",
    "Job",
    "JobExists",
    "JobStoreError",
    "Lease",
    "LimitReached",
    "now",
    "transition_sources",
    "utc",
]

STATES = ("queued", "running", "succeeded", "failed", "cancelled")
ALLOWED: dict[str, frozenset[str]] = {
    "queued": frozenset({"running", "failed", "cancelled"}),
    "running": frozenset({"succeeded", "failed", "cancelled", "queued"}),
    "failed": frozenset({"queued", "running"}),
    "cancelled": frozenset({"queued", "running"}),
    "succeeded": frozenset(),
}
"""Target states allowed from each state (besides staying where it is)."""

FINAL = frozenset({"succeeded", "failed", "cancelled"})
ACTIVE = ("queued", "running")


#: The ``shard`` of a lease on a whole job (an embedded ``rasklad run``).
JOB_LEASE = -1


class JobStoreError(ValueError):
    """A request the job store refuses (bad state, duplicate job...)."""


class InvalidTransition(JobStoreError):
    """``set_state`` to a state that cannot follow the job's current state."""


class JobExists(JobStoreError):
    """``create_job`` with an id that is already taken."""


class LimitReached(JobStoreError):
    """``create_job`` for an owner that already has ``max_active`` unfinished jobs."""

    def __init__(self, active: int, limit: int) -> None:
        super().__init__(f"{active} unfinished jobs already (the limit is {limit})")
        self.active = active
        self.limit = limit


@dataclass(frozen=True)
class Lease:
    """Who runs shard ``shard`` of a job (or the whole job: ``JOB_LEASE``), last seen alive when."""

    job_id: str
    shard: int
    holder: str
    committing: bool
    heartbeat_at: datetime


@dataclass(frozen=True)
class Job:
    """One job as stored. Timestamps are timezone-aware UTC."""

    id: str
    kind: str
    game: str
    spec: dict[str, Any]
    state: str
    shards_done: int
    shards_total: int
    deals_total: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    error: str | None
    owner: str
    cancel_requested: bool
    units_running: int = 0
    """Units (deals, matches) played so far in shards not yet committed (``JobStore.note_units``)."""


def transition_sources(state: str, only_from: Collection[str] | None = None) -> list[str]:
    """The states a job may move to ``state`` from (``ALLOWED``), narrowed to ``only_from`` when given (a
    compare-and-set); JobStoreError for an unknown state. Both job stores' ``set_state`` ask it."""
    if state not in STATES:
        raise JobStoreError(f"unknown state {state!r}: one of {', '.join(STATES)}")
    return [s for s, targets in ALLOWED.items() if state in targets and (only_from is None or s in only_from)]


def now() -> datetime:
    return datetime.now(UTC)


def utc(value: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes: they were stored as UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
