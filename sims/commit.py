"""Committing a shard: every table file written whole and renamed, then the shard recorded.

One code path for the embedded runner and the Celery workers, so a shard committed by
either is the same bytes with the same checksum.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from storage.jobstore import JobStore
from storage.layout import shard_path
from storage.objectstore import Location, ObjectPath, parquet_rows
from storage.parquet import committed_shards, read_marker, write_shards

__all__ = ["commit_shard", "file_checksum", "record_committed_on_disk"]


def file_checksum(paths: list[Location]) -> str:
    """Checksum of a shard: sha256 over the sha256 of each of its table files (in table order)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(hashlib.sha256(p.read_bytes()).hexdigest().encode())
    return h.hexdigest()


def _combine(checksums: list[str]) -> str:
    h = hashlib.sha256()
    for c in checksums:
        h.update(c.encode())
    return h.hexdigest()


def commit_shard(store: JobStore, job_dir: Location, job_id: str, k: int, tables: tuple[str, ...],
                 data: Mapping[str, pa.Table]) -> tuple[bool, int, str]:
    """Write shard ``k``'s tables and record it; returns (newly recorded, rows, checksum).

    ``rows`` counts the first table's rows. Re-committing a shard rewrites identical files
    and records nothing new (the job store's (job, shard) key is unique).
    """
    infos = write_shards(job_dir, k, data)
    checksum = _combine([str(infos[t].checksum) for t in tables])
    rows = data[tables[0]].num_rows
    return store.record_shard(job_id, k, rows, checksum), rows, checksum


def record_committed_on_disk(store: JobStore, job_dir: Location, job_id: str, tables: tuple[str, ...],
                             shards_total: int) -> set[int]:
    """Record shards whose files are all present (a run killed between commit and record).

    Returns the set of committed shards.
    """
    done = set(committed_shards(job_dir, tables)) & set(range(shards_total))
    recorded = store.recorded_shards(job_id)
    for k in sorted(done - set(recorded)):
        if isinstance(job_dir, ObjectPath):  # the commit marker has rows and checksums: no download
            marker = read_marker(job_dir, k)["tables"]
            store.record_shard(job_id, k, int(marker[tables[0]]["rows"]),
                               _combine([str(marker[t]["sha256"]) for t in tables]))
            continue
        paths = [shard_path(job_dir, t, k) for t in tables]
        store.record_shard(job_id, k, parquet_rows(paths[0]), _combine([_sha(p) for p in paths]))
    return done


def _sha(p: Location) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def spec_tables(spec: Any) -> tuple[str, ...]:
    """The tables every shard of ``spec`` writes (see ``sims.embedded.job_tables``)."""
    from sims.embedded import job_tables

    return job_tables(spec)
