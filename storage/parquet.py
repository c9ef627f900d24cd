"""Shard files: atomic writes, committed-shard detection, reading and export (DESIGN.md "Storage").

A shard file is written whole to a temporary name in its own directory (so the rename cannot
cross file systems), fsynced, renamed over the final name, and the directory is fsynced so the
rename itself survives a crash. A reader therefore sees a shard file whole or not at all, and a
re-run shard replaces its own file: never a duplicate, never half a file.

A shard ``k`` is *committed* when the files of **all** its tables exist (there is no separate
marker file): ``write_shards`` writes the tables one after another, so a writer killed between
two tables leaves a shard that is simply not committed yet, and the re-run rewrites every table
of it (identical bytes, since a shard is a pure function of the spec and ``k``).

On an object store (``storage.objectstore``) there is no rename: each table file is one
PutObject (whole or absent; a re-run overwrites it with identical bytes), and then the shard's
**commit marker** ``_commits/shard-000042.json`` (rows and sha256 of every table file) is created
with ``If-None-Match: *``. Exactly one of two racing attempts creates it; the other reads it and
checks that its own files have the same checksums (a shard is a pure function of (spec, k), so a
difference is a bug, reported as :class:`ShardConflict`). A shard counts as committed on an object
store when its marker exists: one listing of ``_commits/`` answers for every table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from storage.layout import SHARD_GLOB, parse_shard_name, shard_name, shard_path, temp_shard_path, validate_table
from storage.objectstore import Location, ObjectPath, read_parquet_files

COMMITS = "_commits"
"""Folder of the commit markers of an object-store job (never a table name: tables start with a letter)."""

__all__ = [
    "COMMITS",
    "COMPRESSION",
    "ROW_GROUP_ROWS",
    "EncodedTable",
    "ShardConflict",
    "ShardInfo",
    "committed_shards",
    "encode_shard",
    "export_job",
    "job_tables_on_disk",
    "read_table",
    "remove_temp_files",
    "shard_files",
    "skip_pandas_probe",
    "write_shard",
    "write_shards",
]

COMPRESSION = "zstd"
ROW_GROUP_ROWS = 1 << 20


class _NoPandas:
    """A meta-path finder that makes ``import pandas`` fail (``skip_pandas_probe``)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not probed in this process (storage.parquet.skip_pandas_probe)")


def skip_pandas_probe(dataset: bool = True) -> None:
    """Let this process's Arrow code run without importing pandas (issue 30 item 4: a job's fixed cost).

    pyarrow 26 imports pandas, when it is installed, on the first ``pa.array`` of any kind (to ask
    whether the values are a pandas Series), on the first conversion to numpy and on importing
    ``pyarrow.dataset`` (its C++ layer caches pandas' null sentinels): about 0.4 s of CPU that a job
    building its tables from lists and numpy arrays never uses. This makes those probes find no pandas:
    pyarrow then treats no value as a pandas object in this process (none of rasklad's is), while
    ``Table.to_pandas()`` still imports pandas when called. For a process that never hands pandas
    objects to pyarrow (``rasklad run``); nothing to do when pandas is already imported.
    ``dataset=False`` leaves ``pyarrow.dataset`` unimported (about 0.02 s) for a process that will not
    import it: ``rasklad run`` on a local data root, whose report reads its shards file by file
    (``sims.report.read_job_table``); were it imported later, pandas would be."""
    import sys

    if "pandas" in sys.modules:
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.lib._pandas_api.have_pandas  # noqa: B018 -- the probe, answered "no pandas" and remembered
        # Arrow's C++ conversions to numpy look for pandas once, on their first use, and remember the
        # answer: importing pyarrow.dataset makes that first use, as does a conversion of one value
        pa.array([0]).to_numpy()
        if dataset:
            import pyarrow.dataset  # noqa: F401 -- its import-time probe, likewise
    finally:
        sys.meta_path.remove(finder)
"""Rows per row group: big enough that a scan reads few, large column chunks (a shard of a few
seconds of play is usually a single row group), small enough to bound a reader's memory."""

_WRITE_CHUNK = 1 << 22


@dataclass(frozen=True)
class ShardInfo:
    """What was committed: row count, sha256 of the file bytes (hex) and the final path."""

    rows: int
    checksum: str
    path: Location


class ShardConflict(RuntimeError):
    """Two attempts at one shard produced different files (the commit marker names the first)."""


def _fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: the directory entry lives in the directory)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _encode(data: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink, compression=COMPRESSION, row_group_size=ROW_GROUP_ROWS)
    return sink.getvalue()


@dataclass(frozen=True)
class EncodedTable:
    """One table of a shard already encoded as its Parquet file: the bytes ``write_shard`` would write.

    A pool process of ``rasklad run --workers N`` encodes its shard (``encode_shard``) and sends these
    instead of the Arrow tables, so the parent, which commits every shard and builds the report, does not
    also encode every shard's rows: with fast play-outs that was as much CPU as the play itself, and it
    made two workers little faster than one."""

    rows: int
    data: bytes

    @classmethod
    def of(cls, table: pa.Table) -> EncodedTable:
        return cls(rows=table.num_rows, data=_encode(table).to_pybytes())


def encode_shard(tables: Mapping[str, pa.Table]) -> dict[str, EncodedTable]:
    """Every table of a shard as its Parquet file's bytes (``write_shards`` commits them as they are)."""
    for name in tables:
        validate_table(name)
    return {name: EncodedTable.of(tables[name]) for name in sorted(tables)}


def write_shard(job_dir: Location, table: str, k: int, data: pa.Table | EncodedTable) -> ShardInfo:
    """Commit ``data`` as shard ``k`` of ``table``: temporary file, fsync, rename, fsync dir.

    On an object store: one PutObject of the encoded file (see the module doc).

    The file is encoded in memory first (or was, ``EncodedTable``), so the checksum is of exactly the
    bytes written and the temporary file exists only for the time of one write. On any error the
    temporary file is removed and the previous committed file (if any) is left as it was.
    """
    final = shard_path(job_dir, table, k)
    encoded = data if isinstance(data, EncodedTable) else EncodedTable.of(data)
    view = memoryview(encoded.data)
    checksum = hashlib.sha256(view).hexdigest()
    if isinstance(final, ObjectPath):
        final.write_bytes(view)
        return ShardInfo(rows=encoded.rows, checksum=checksum, path=final)
    assert isinstance(job_dir, Path)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_shard_path(job_dir, table, k)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            for start in range(0, len(view), _WRITE_CHUNK):
                chunk = view[start:start + _WRITE_CHUNK]
                while chunk:
                    chunk = chunk[os.write(fd, chunk):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(final.parent)
    return ShardInfo(rows=encoded.rows, checksum=checksum, path=final)


def write_shards(job_dir: Location, k: int, tables: Mapping[str, pa.Table | EncodedTable]) -> dict[str, ShardInfo]:
    """Commit every table of shard ``k``; the shard counts as committed once the last file is renamed
    (locally) or its commit marker exists (object store; module doc).

    Tables are written in name order so that every run writes them in the same order.
    """
    if not tables:
        raise ValueError(f"shard {k}: no tables to write")
    for name in tables:
        validate_table(name)
    infos = {name: write_shard(job_dir, name, k, tables[name]) for name in sorted(tables)}
    if isinstance(job_dir, ObjectPath):
        commit_marker(job_dir, k, infos)
    return infos


def marker_path(job_dir: ObjectPath, k: int) -> ObjectPath:
    """The commit marker of shard ``k`` of an object-store job."""
    return job_dir / COMMITS / shard_name(k).replace(".parquet", ".json")


def commit_marker(job_dir: ObjectPath, k: int, infos: Mapping[str, ShardInfo]) -> bool:
    """Create shard ``k``'s commit marker once; True if this attempt created it.

    A racing attempt that finds the marker there checks it names the same files (checksums);
    a difference raises :class:`ShardConflict`.
    """
    from storage.objectstore import create_once

    body = {"shard": k, "tables": {t: {"rows": i.rows, "sha256": i.checksum} for t, i in sorted(infos.items())}}
    data = json.dumps(body, sort_keys=True).encode()
    path = marker_path(job_dir, k)
    if create_once(path, data):
        return True
    existing = json.loads(path.read_bytes())
    if existing != body:
        raise ShardConflict(f"{path}: shard {k} was committed with other files ({existing['tables']}) than this "
                            f"attempt wrote ({body['tables']}): a shard must be a pure function of (spec, k)")
    return False


def read_marker(job_dir: ObjectPath, k: int) -> dict[str, Any]:
    """The commit marker of shard ``k`` (``{"shard", "tables": {name: {rows, sha256}}}``)."""
    data: dict[str, Any] = json.loads(marker_path(job_dir, k).read_bytes())
    return data


def shard_files(job_dir: Location, table: str) -> dict[int, Location]:
    """The committed files of ``table`` by shard index (temporary files never count)."""
    if isinstance(job_dir, ObjectPath):
        directory = job_dir / validate_table(table)
        found = {parse_shard_name(p.name): p for p in directory.glob(SHARD_GLOB)}
        return {k: p for k, p in sorted(found.items(), key=lambda kv: kv[0] or 0) if k is not None}
    local = Path(job_dir) / validate_table(table)
    out: dict[int, Location] = {}
    if not local.is_dir():
        return out
    for p in local.glob(SHARD_GLOB):
        k = parse_shard_name(p.name)
        if k is not None and p.is_file():
            out[k] = p
    return dict(sorted(out.items()))


def committed_shards(job_dir: Location, tables: Iterable[str]) -> set[int]:
    """Shards whose files exist for every one of ``tables`` (an empty ``tables`` gives no shards).

    On an object store: the shards whose commit marker exists (written after every table file).
    """
    names = list(tables)
    if not names:
        return set()
    if isinstance(job_dir, ObjectPath):
        markers = (job_dir / COMMITS).glob("shard-*.json")
        found = (parse_shard_name(p.name.replace(".json", ".parquet")) for p in markers)
        return {k for k in found if k is not None}
    done = set(shard_files(job_dir, names[0]))
    for name in names[1:]:
        done &= set(shard_files(job_dir, name))
    return done


def remove_temp_files(job_dir: Location, older_than_s: float = 3600.0) -> list[Path]:
    """Delete temporary shard files older than ``older_than_s`` seconds (left by killed writers).

    The age guard keeps a live writer's file (on this or another machine sharing the directory)
    from being pulled from under it; ``older_than_s=0`` removes every one, for when no writer
    can be running. Returns the removed paths.
    """
    import time

    if isinstance(job_dir, ObjectPath):
        return []  # a PUT leaves nothing behind when it fails
    root = Path(job_dir)
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    cutoff = time.time() - older_than_s
    for p in root.glob("*/.shard-*.parquet.tmp-*"):
        with contextlib.suppress(FileNotFoundError):
            if p.stat().st_mtime <= cutoff:
                p.unlink()
                removed.append(p)
    return removed


def job_tables_on_disk(job_dir: Location) -> list[str]:
    """Names of the tables that have at least one committed shard file in ``job_dir`` (sorted)."""
    if isinstance(job_dir, ObjectPath):
        return sorted(d.name for d in job_dir.iterdir()
                      if _is_table_name(d.name) and shard_files(job_dir, d.name))
    root = Path(job_dir)
    if not root.is_dir():
        return []
    names = []
    for d in sorted(root.iterdir()):
        if d.is_dir() and not d.name.startswith(".") and _is_table_name(d.name) and shard_files(root, d.name):
            names.append(d.name)
    return names


def _is_table_name(name: str) -> bool:
    try:
        validate_table(name)
    except ValueError:
        return False
    return True


def read_table(job_dir: Location, table: str, shards: Iterable[int] | None = None) -> pa.Table:
    """Every committed shard file of ``table`` (or only ``shards``), concatenated in shard order.

    Raises FileNotFoundError when the table has no shard file (or one of ``shards`` is missing).
    """
    files = shard_files(job_dir, table)
    if shards is not None:
        wanted = sorted(set(shards))
        missing = [k for k in wanted if k not in files]
        if missing:
            raise FileNotFoundError(f"{job_dir}: table {table!r} has no shard {missing[0]}")
        files = {k: files[k] for k in wanted}
    if not files:
        raise FileNotFoundError(f"{job_dir}: table {table!r} has no shard files")
    parts = read_parquet_files(list(files.values()))
    return pa.concat_tables(parts, promote_options="permissive")


def _export_table(job_dir: Location, tables: list[str], table: str | None) -> pa.Table:
    """The one table ``export_job`` writes (see there)."""
    if table is not None:
        return read_table(job_dir, table)
    if "seats" in tables and "deals" in tables:
        done = sorted(committed_shards(job_dir, ["deals", "seats"]))
        seats = read_table(job_dir, "seats", done)
        deals = read_table(job_dir, "deals", done)
        return _join_deals(seats, deals)
    if len(tables) == 1:
        return read_table(job_dir, tables[0])
    parts = []
    for name in tables:
        t = _nullable(read_table(job_dir, name))
        parts.append(t.add_column(0, "table", pa.array([name] * t.num_rows, pa.string())))
    return pa.concat_tables(parts, promote_options="permissive")


def _nullable(t: pa.Table) -> pa.Table:
    """``t`` with every field nullable: stacked tables fill the columns a table lacks with nulls,
    which a field declared non-nullable (e.g. a question's category key) cannot hold."""
    return t.cast(pa.schema([f.with_nullable(True) for f in t.schema], metadata=t.schema.metadata))


def _join_deals(seats: pa.Table, deals: pa.Table) -> pa.Table:
    """``seats`` with the ``deals`` columns of its (deal, rotation), ordered by (deal, rotation, seat).

    Done with a sorted lookup and ``take`` rather than ``Table.join``: Acero's hash join does not
    carry list columns such as ``seating``.
    """
    def key(t: pa.Table) -> np.ndarray[Any, np.dtype[np.int64]]:
        # rotation is int16, so (deal << 16) + rotation is a unique, order-preserving key.
        deal = t.column("deal").to_numpy().astype(np.int64)
        rotation = t.column("rotation").to_numpy().astype(np.int64)
        keys: np.ndarray[Any, np.dtype[np.int64]] = (deal << 16) + rotation
        return keys

    seat_order = (key(seats) << 8) + seats.column("seat").to_numpy().astype(np.int64)
    if np.any(np.diff(seat_order) < 0):  # shards are usually in order already: skip the sort then
        seats = seats.sort_by([("deal", "ascending"), ("rotation", "ascending"), ("seat", "ascending")])
    deal_keys = key(deals)
    order = np.argsort(deal_keys, kind="stable")
    sorted_keys = deal_keys[order]
    seat_keys = key(seats)
    pos = np.searchsorted(sorted_keys, seat_keys)
    pos = np.minimum(pos, max(len(sorted_keys) - 1, 0))
    if len(seat_keys) and (len(sorted_keys) == 0 or not np.array_equal(sorted_keys[pos], seat_keys)):
        raise ValueError("export: some seats rows have no deals row with the same (deal, rotation)")
    if np.any(np.diff(sorted_keys) == 0):
        raise ValueError("export: the deals table has duplicate (deal, rotation) keys")
    taken = deals.take(pa.array(order[pos] if len(seat_keys) else np.zeros(0, np.int64)))
    out = seats
    for name in deals.column_names:
        if name not in ("deal", "rotation"):
            field = deals.schema.field(name)
            if name in out.column_names:  # keep column names unique
                field = field.with_name(f"deals_{name}")
            out = out.append_column(field, taken.column(name))
    return out


def export_job(job_dir: Location, out_file: Path, table: str | None = None) -> ShardInfo:
    """Write a job's data as one Parquet file (zstd), atomically; returns rows, checksum and path.

    What the file holds:

    - ``table`` given: that table, every shard concatenated in shard order;
    - a tournament (``deals`` and ``seats``): one row per (deal, rotation, seat), the ``seats``
      columns joined with the ``deals`` columns of the same (deal, rotation), over the committed
      shards, ordered by (deal, rotation, seat). ``records`` is left out (its JSON would repeat
      once per seat): export it with ``table="records"``;
    - a job with a single table: that table;
    - otherwise (several deal-stats tables): all of them stacked, with a first column ``table``
      naming the source table of each row (columns a table lacks are null).

    The job's ``spec.json``, when present, is stored in the file's key-value metadata
    (``rasklad.spec``) together with ``rasklad.job_id``. Raises FileNotFoundError when the job
    has no data.
    """
    jd = job_dir if isinstance(job_dir, ObjectPath) else Path(job_dir)
    tables = job_tables_on_disk(jd)
    if not tables:
        raise FileNotFoundError(f"{jd}: the job has no committed shard files")
    data = _export_table(jd, tables, table)
    meta = dict(data.schema.metadata or {})
    meta[b"rasklad.job_id"] = jd.name.encode()
    spec = jd / "spec.json"
    if spec.is_file():
        spec_obj = json.loads(spec.read_text(encoding="utf-8"))
        meta[b"rasklad.spec"] = json.dumps(spec_obj, sort_keys=True).encode()
    data = data.replace_schema_metadata(meta)
    out = Path(out_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        pq.write_table(data, tmp, compression=COMPRESSION, row_group_size=ROW_GROUP_ROWS)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(out.parent)
    return ShardInfo(rows=data.num_rows, checksum=digest, path=out)
