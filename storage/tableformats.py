"""A table as bytes in each download format: Parquet, CSV and JSON lines, encoded batch by batch.

Every table of every game must go out in every format, whatever its games' columns hold. CSV has
no lists or structs: a nested cell (``seating``, ``categories``, a game's list columns) is written
as its JSON text (``[0, 1, 2]``, ``["Ah", "Kd"]``), which any reader can parse back. JSON lines
hold such cells as JSON values; a float that is not finite is ``null`` there, since JSON has no
NaN. An empty result is still a valid file: a CSV header, a Parquet file with the columns.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

__all__ = ["FORMATS", "MEDIA_TYPES", "csv_ready", "csv_value", "encode", "json_cell"]

#: Download format -> media type.
MEDIA_TYPES = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv", "jsonl": "application/x-ndjson"}
FORMATS = tuple(MEDIA_TYPES)
#: Parquet output is passed on in pieces of about this size.
PARQUET_PIECE = 1 << 20


def json_cell(v: Any) -> Any:
    """What ``json.dumps`` cannot write by itself: a DECIMAL (``sum()`` of integers) as a number,
    anything else unusual (a date, bytes) as its text."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return str(v)


def csv_value(v: Any) -> Any:
    """One cell for Python's ``csv`` writer, as ``csv_ready`` writes it: a list or a mapping as
    JSON text, a null as an empty cell, anything else as it is."""
    if isinstance(v, list | tuple | dict):
        return json.dumps(v, ensure_ascii=False, default=json_cell)
    return "" if v is None else v


def _plain_csv(t: pa.DataType) -> bool:
    """Types the CSV writer writes as themselves."""
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_string(t)
            or pa.types.is_large_string(t) or pa.types.is_decimal(t) or pa.types.is_temporal(t)
            or pa.types.is_null(t))


def _as_json_text(col: pa.Array) -> pa.Array:
    return pa.array([None if v is None else json.dumps(v, ensure_ascii=False, default=json_cell)
                     for v in col.to_pylist()], pa.string())


def csv_ready(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` with every column CSV cannot hold (lists, structs, maps, dictionaries, bytes)
    as JSON text."""
    if all(_plain_csv(f.type) for f in batch.schema):
        return batch
    cols = [c if _plain_csv(c.type) else _as_json_text(c) for c in batch.columns]
    return pa.RecordBatch.from_arrays(cols, names=batch.schema.names)


def _finite(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` with NaN and infinities of its float columns as nulls (JSON has neither)."""
    cols = []
    for c in batch.columns:
        if pa.types.is_floating(c.type):
            c = pc.if_else(pc.is_finite(c), c, pa.scalar(None, c.type))
        cols.append(c)
    return pa.RecordBatch.from_arrays(cols, names=batch.schema.names)


def _csv(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> Iterator[bytes]:
    header = True
    for batch in batches:
        buf = io.BytesIO()
        pacsv.write_csv(csv_ready(batch), buf, pacsv.WriteOptions(include_header=header))
        header = False
        yield buf.getvalue()
    if header:  # no rows: the header alone
        empty = pa.RecordBatch.from_arrays([pa.array([], f.type) for f in schema], schema=schema)
        buf = io.BytesIO()
        pacsv.write_csv(csv_ready(empty), buf)
        yield buf.getvalue()


def _parquet(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> Iterator[bytes]:
    sink = io.BytesIO()
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        for batch in batches:
            writer.write_batch(batch)
            if sink.tell() > PARQUET_PIECE:
                yield sink.getvalue()
                sink.seek(0)
                sink.truncate()
    yield sink.getvalue()


def _jsonl(batches: Iterable[pa.RecordBatch]) -> Iterator[bytes]:
    for batch in batches:
        rows = _finite(batch).to_pylist()
        yield "".join(json.dumps(r, ensure_ascii=False, default=json_cell, allow_nan=False) + "\n"
                      for r in rows).encode()


def encode(batches: Iterable[pa.RecordBatch], schema: pa.Schema, fmt: str) -> Iterator[bytes]:
    """Encode ``batches`` (of ``schema``) in ``fmt`` as they come: the table is never held whole.

    Parquet pieces are about ``PARQUET_PIECE`` bytes; CSV and JSON lines one piece per batch.
    """
    if fmt == "parquet":
        return _parquet(batches, schema)
    if fmt == "csv":
        return _csv(batches, schema)
    if fmt == "jsonl":
        return _jsonl(batches)
    raise ValueError(f"unknown format {fmt!r}: {', '.join(FORMATS)}")
