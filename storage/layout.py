"""Where a job's files live under the data root (DESIGN.md "Storage").

::

    <data>/jobs/<job_id>/spec.json
    <data>/jobs/<job_id>/<table>/shard-000042.parquet      one file per shard and table
    <data>/jobs/<job_id>/summary.parquet, report.json, report.html   aggregates

On an object store (``s3://bucket/prefix``) the same names are keys; a shard file is one PUT,
and ``<data>/jobs/<job_id>/_commits/shard-000042.json`` marks the shard committed (created once,
``If-None-Match: *``; see ``storage.parquet``). ``_commits`` can never be a table name.

Locally a writer first writes ``<table>/.shard-000042.parquet.tmp-<pid>-<random>`` and renames it: the
temporary name starts with a dot and does not end in ``.parquet``, so it never matches
``SHARD_GLOB`` (DuckDB globs, unlike pyarrow datasets, do not skip dot files: NOTES.md).
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.objectstore import Location

__all__ = [
    "SCHEMES",
    "SHARD_GLOB",
    "is_object_url",
    "job_dir",
    "object_url",
    "parse_shard_name",
    "shard_name",
    "shard_path",
    "temp_shard_path",
    "validate_job_id",
    "validate_table",
]

SHARD_GLOB = "shard-*.parquet"
"""Glob of committed shard files inside a table directory."""

_SHARD_RE = re.compile(r"shard-(\d{6,})\.parquet")
# Job ids become directory names and SQL literals; table names become directory names and
# DuckDB view names: keep both to a safe alphabet.
_JOB_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_TABLE_RE = re.compile(r"[a-z][a-z0-9_]{0,62}")


SCHEMES = ("s3://",)
"""URL schemes accepted as an object-store data root."""

def is_object_url(data: str | Path) -> bool:
    """Whether ``data`` names an object-store root (``s3://bucket/prefix``).

    A ``Path`` built from such a URL has lost one slash (``s3:/bucket``): both spellings count.
    """
    text = str(data)
    return text.startswith(SCHEMES) or (isinstance(data, Path) and bool(data.parts) and data.parts[0] == "s3:")


def object_url(data: str | Path) -> str:
    """``data`` as a canonical ``s3://bucket/prefix`` URL (no trailing slash)."""
    if isinstance(data, Path):
        return "s3://" + "/".join(data.parts[1:])
    return "s3://" + str(data)[len("s3://"):].strip("/")


def validate_job_id(job_id: str) -> str:
    """``job_id`` if it is a safe directory name (letters, digits, ``_ . -``); else ValueError."""
    if not _JOB_ID_RE.fullmatch(job_id) or ".." in job_id:
        raise ValueError(f"bad job id {job_id!r}: letters, digits, '_', '.', '-' only")
    return job_id


def validate_table(table: str) -> str:
    """Return ``table`` if it is a valid table name (``[a-z][a-z0-9_]*``), else raise ValueError."""
    if not _TABLE_RE.fullmatch(table):
        raise ValueError(f"bad table name {table!r}: a lower-case letter, then letters, digits or '_'")
    return table


def job_dir(data: Location, job_id: str) -> Location:
    """The directory of job ``job_id`` under the data root ``data`` (a folder or an object-store prefix)."""
    return _as_location(data) / "jobs" / validate_job_id(job_id)


def _as_location(p: Location | str) -> Location:
    from storage.objectstore import ObjectPath

    return p if isinstance(p, ObjectPath) else Path(p)


def shard_name(k: int) -> str:
    """File name of shard ``k`` (``shard-000042.parquet``; more digits past 999999)."""
    if k < 0:
        raise ValueError(f"shard index must be >= 0, not {k}")
    return f"shard-{k:06d}.parquet"


def shard_path(job_dir: Location, table: str, k: int) -> Location:
    """Path (or object key) of the committed file of shard ``k`` of ``table`` in ``job_dir``."""
    return _as_location(job_dir) / validate_table(table) / shard_name(k)


def temp_shard_path(job_dir: Path, table: str, k: int) -> Path:
    """A fresh temporary path next to ``shard_path`` that never matches ``SHARD_GLOB``.

    The pid and random part keep two writers of the same shard (a retried task racing the
    original) off each other's temporary file; the last rename wins with identical bytes.
    """
    final = Path(job_dir) / validate_table(table) / shard_name(k)
    return final.with_name(f".{final.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def parse_shard_name(name: str) -> int | None:
    """The shard index of a committed shard file name, or None for any other name (temp files...)."""
    m = _SHARD_RE.fullmatch(name)
    return int(m.group(1)) if m else None
