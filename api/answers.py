"""The body of a ``POST /v1/query`` answer, encoded piece by piece and counted as it is sent.

Why: a result's Arrow size is not what it costs to answer. 1,500 ``NULL`` columns x 100k rows
hold no Arrow buffers at all (0 bytes), yet as one Python dict per row, then JSON, they grew the
API from 361 MB to 6.58 GB. Here the rows are turned into Python objects a few at a time (at most
``CHUNK_CELLS`` cells), encoded at once, and the encoded bytes are counted against the byte limit
(``query_max_bytes``): an answer larger than that is refused before more of it is built, and the
Python objects of one chunk are all that exist at any time. The sandbox has already bounded the
result's rows, cells and Arrow bytes (``storage.query``).

A query's result as a file (CSV, JSON lines: ``file_answer``; Parquet: ``parquet_answer``) is the
same bounded result, encoded by the downloads' own encoder (``storage.tableformats``: lists as JSON
text in CSV, NaN as null in JSON lines, full precision) and counted against the same byte limit.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic_core import to_json

from storage.query import json_number, result_too_large
from storage.tableformats import encode

__all__ = ["CHUNK_CELLS", "file_answer", "json_answer", "parquet_answer"]

#: Cells turned into Python objects and encoded at once (JSON).
CHUNK_CELLS = 65_536
#: Cells of one Parquet row group: zero-copy slices of the result, so larger chunks cost no objects.
ROW_GROUP_CELLS = 1 << 20


def _slices(table: pa.Table, cells: int = CHUNK_CELLS) -> Iterator[pa.Table]:
    step = max(1, cells // max(1, table.num_columns))
    for start in range(0, table.num_rows, step):
        yield table.slice(start, step)


def _json(value: Any) -> bytes:
    # The encoder of pydantic's model_dump_json: the same text for dates, times, NaN (null)...
    return to_json(value, inf_nan_mode="null")


def json_answer(table: pa.Table, head: dict[str, Any], max_bytes: int) -> bytes:
    """``{"columns": [...], "rows": [[...], ...], **head}`` as JSON, at most ``max_bytes`` long.

    ``head``: the answer's other fields (``truncated``, ``jobs``, ``partial``: JSON-able values or
    pydantic models). Rows are lists in column order (duplicate column names keep every value).
    Raises the sandbox's QueryError naming ``query_max_bytes`` when the answer would be longer.
    """
    parts = [b'{"columns":' + _json(table.column_names) + b',"rows":[']
    size = len(parts[0])
    for part in _slices(table):
        columns = [c.to_pylist() for c in part.columns]
        rows = [[json_number(v) for v in row] for row in zip(*columns, strict=True)]
        chunk = _json(rows)[1:-1]  # without the list's brackets
        if len(parts) > 1 and chunk:
            chunk = b"," + chunk
        size += len(chunk)
        if size > max_bytes:
            raise result_too_large(max_bytes)
        parts.append(chunk)
    tail = b"]" + b"".join(b',"' + k.encode() + b'":' + _json(v) for k, v in head.items()) + b"}"
    if size + len(tail) > max_bytes:
        raise result_too_large(max_bytes)
    parts.append(tail)
    return b"".join(parts)


def parquet_answer(table: pa.Table, max_bytes: int) -> bytes:
    """The table as one Parquet file, at most ``max_bytes`` long (QueryError otherwise).

    Written a chunk at a time (one row group each) and measured after every one: ``NULL`` columns
    compress to almost nothing, so the cells are what the sandbox bounds, and the bytes are checked
    here as they grow.
    """
    sink = io.BytesIO()
    with pq.ParquetWriter(sink, table.schema) as writer:
        for part in _slices(table, ROW_GROUP_CELLS):
            writer.write_table(part)
            if sink.tell() > max_bytes:
                raise result_too_large(max_bytes)
        if table.num_rows == 0:
            writer.write_table(table)
    if sink.tell() > max_bytes:
        raise result_too_large(max_bytes)
    return sink.getvalue()


def file_answer(table: pa.Table, fmt: str, max_bytes: int) -> bytes:
    """The table as a file in ``fmt`` (``csv`` or ``jsonl``; Parquet: ``parquet_answer``), at most
    ``max_bytes`` long (QueryError otherwise), written ``CHUNK_CELLS`` cells at a time by
    ``storage.tableformats.encode`` and measured after every piece."""
    if fmt == "parquet":
        return parquet_answer(table, max_bytes)
    batches = (b for part in _slices(table) for b in part.to_batches())
    parts: list[bytes] = []
    size = 0
    for piece in encode(batches, table.schema, fmt):
        size += len(piece)
        if size > max_bytes:
            raise result_too_large(max_bytes)
        parts.append(piece)
    return b"".join(parts)
