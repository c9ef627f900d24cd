"""Read-only SQL over jobs' shard files: DuckDB with a view per table, sandboxed (DESIGN.md "Storage").

``run_query(sql, {job_id: job_dir, ...})`` opens a fresh in-memory DuckDB connection, creates a
view per table (``deals``, ``seats``, ``records``, a deal-stats job's own tables) over the
committed shard files, and runs the caller's one SELECT. With several jobs each view is the
``UNION ALL BY NAME`` of the jobs that have the table, with a first column ``job_id``.

Three layers keep a query to those views (each would stop the attacks on its own, so a gap in
one is not a hole):

1. The statement: exactly one, of type SELECT (this also admits ``WITH``, ``VALUES``, ``FROM x``
   shorthand, ``DESCRIBE``/``SUMMARIZE``); COPY, SET, ATTACH, INSTALL/LOAD, PRAGMA, CREATE, CALL,
   EXPLAIN, PIVOT statements... are refused.
2. The parse tree (``json_serialize_sql``): every table reference must name a view or a CTE in
   scope, unqualified; table functions are refused except the pure generators ``range``,
   ``generate_series`` and ``unnest``; scalar functions that read the connection's settings or
   variables (``current_setting('allowed_paths')`` names server paths) are refused; anything the
   serializer cannot express (PIVOT) is refused, and so is a tree nested too deeply to walk.
3. The connection (NOTES.md): ``enable_external_access=false`` with ``allowed_paths`` listing
   exactly the committed shard files (not directories: DuckDB lets ``COPY ... TO`` write into an
   allowed directory, and a glob there sees every file), no spilling to disk
   (``temp_directory=''``), extension autoload/autoinstall off, Python replacement scans off,
   ``memory_limit`` and ``threads``, then ``lock_configuration=true`` so no statement can undo it.

Checked on DuckDB 2.0.1: views over Parquet keep working after ``enable_external_access=false``
when their files are in ``allowed_paths`` (or ``allowed_directories``); ``allowed_directories``
matches on directory boundaries (DuckDB appends the ``/`` itself, ``/d/jobs/a`` does not admit
``/d/jobs/ab``) and ``..`` in a path is refused.

A job in an object store (``s3://``; ``storage.objectstore``) has no files DuckDB may open: its
shard files are registered on the connection as lazy ``pyarrow`` datasets (under names that are
not views, so layer 2 refuses them) and the views select from those; ``allowed_paths`` stays empty
for them, so a query can open no file and no URL (DuckDB's ``httpfs`` is never loaded).

DuckDB has no statement timeout: a watchdog thread (``_Guard``) calls ``con.interrupt()`` once
the statement has spent ``timeout_s`` seconds executing or producing batches (time a streaming
reader spends waiting for its consumer is not counted), or as soon as the caller's ``stop`` event
is set (the client went away). At most ``max_rows`` rows are returned; when the result had more,
the table is cut and its schema metadata says so (``is_truncated``). A result over ``max_bytes``
(Arrow buffer bytes) is refused with a QueryError naming the limit, before it is ever converted
to Python objects or JSON: DuckDB's ``memory_limit`` does not cover a result once it has left
DuckDB (``SELECT range(0, 20000000)`` is one row of 160 MB). Arrow bytes undercount what a
result costs to send (a ``NULL`` column has no buffers at all: 1,500 of them x 100k rows counted
0 bytes and grew the API by 6 GB as Python objects), so a result over ``max_cells`` cells (rows
kept x columns) is refused too, every batch is fetched at most ``_BATCH_CELLS`` cells wide (a wide
result comes in fewer rows a batch), and the API counts the bytes it encodes against the byte
limit as well (``api.answers``).

A download runs ``filter_sql``'s statement: the rows of one table, some of its columns, and a
``where`` parsed alone as one expression (DuckDB's ``SQLExpression``: a set operation, a second
expression, ``LIMIT``/``ORDER BY`` are refused) and, once in the statement, checked to be its
``WHERE`` and nothing else (``stream_query(rows_of=table)``). A filter can drop rows, never add
any: ``false UNION ALL SELECT repeat('x', 50000000) FROM range(30)`` served a 1.5 GB CSV.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Generator, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from storage.layout import validate_job_id
from storage.objectstore import Location, ObjectPath, parquet_dataset
from storage.parquet import committed_shards, job_tables_on_disk, shard_files

__all__ = ["TRUNCATED_KEY", "BatchStream", "QueryError", "is_truncated", "job_views", "run_query",
           "sandbox_connection", "stream_query"]

TRUNCATED_KEY = b"rasklad.truncated"
"""Schema metadata key set to ``b"true"`` on a result cut at ``max_rows``."""

_PURE_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})
#: Scalar functions that read the connection's configuration, variables or catalog: the settings
#: name server paths (``allowed_paths``), so the sandbox hides them. ``duckdb_*`` and ``pragma_*``
#: are refused by prefix as well.
_HIDDEN_FUNCTIONS = frozenset({"current_setting", "getvariable", "getenv", "which_secret",
                               "current_database", "current_catalog", "current_schema", "current_schemas",
                               "current_query", "in_search_path"})
_HIDDEN_PREFIXES = ("duckdb_", "pragma_")
_BATCH_ROWS = 8192
#: Most cells (rows x columns) one fetched batch holds.
_BATCH_CELLS = 65_536


class QueryError(ValueError):
    """A query that is refused (not a single SELECT over the views) or that failed or timed out.

    ``field``: the request field at fault when the error knows it (``where``), else "".
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def _rows_per_batch(columns: int, rows: int = _BATCH_ROWS) -> int:
    """Rows of one fetched batch of a result ``columns`` wide: at most ``rows`` and ``_BATCH_CELLS`` cells."""
    return max(1, min(rows, _BATCH_CELLS // max(1, columns)))


def is_truncated(table: pa.Table) -> bool:
    """Whether ``run_query`` cut this result at ``max_rows`` (more rows matched)."""
    meta = table.schema.metadata or {}
    return meta.get(TRUNCATED_KEY) == b"true"


def _literal(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _ident(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def job_views(jobs: Mapping[str, Location]) -> dict[str, dict[str, list[Location]]]:
    """Table → job id → the committed shard files of that table (absolute), for the given jobs.

    Only shards committed for every table of the job are included (a shard whose writer died
    between two tables is left out of all views). Raises QueryError for a missing job directory.
    """
    out: dict[str, dict[str, list[Location]]] = {}
    for job_id, directory in jobs.items():
        try:
            validate_job_id(job_id)
        except ValueError as e:
            raise QueryError(str(e)) from None
        jd = directory if isinstance(directory, ObjectPath) else Path(directory).resolve()
        if not jd.is_dir():
            raise QueryError(f"job {job_id}: no data directory {jd}")
        tables = job_tables_on_disk(jd)
        done = committed_shards(jd, tables)
        for table in tables:
            files = shard_files(jd, table)
            paths = [files[k] for k in sorted(done)]
            if paths:
                out.setdefault(table, {})[job_id] = paths
    return out


def _view_sql(table: str, per_job: dict[str, list[Location]], with_job_id: bool) -> str:
    parts = []
    for i, (job_id, paths) in enumerate(per_job.items()):
        if isinstance(paths[0], ObjectPath):
            source = _ident(_arrow_name(table, i))  # registered by sandbox_connection
        else:
            source = "read_parquet([" + ", ".join(_literal(str(p)) for p in paths) + "])"
        prefix = f"{_literal(job_id)} AS job_id, " if with_job_id else ""
        parts.append(f"SELECT {prefix}* FROM {source}")
    return f"CREATE VIEW {_ident(table)} AS " + " UNION ALL BY NAME ".join(parts)


def _arrow_name(table: str, i: int) -> str:
    # Not a view name: layer 2 refuses any table reference that is not a view or a CTE.
    return f"__rasklad_{table}_{i}"


def sandbox_connection(views: dict[str, dict[str, list[Location]]], with_job_id: bool, memory_limit: str,
                       threads: int) -> duckdb.DuckDBPyConnection:
    """The locked-down connection with the views of ``job_views`` created (module doc, layer 3).

    It does not check statements (layers 1 and 2): ``run_query`` does, before running one.
    """
    config: dict[str, Any] = {
        "threads": threads,
        "memory_limit": memory_limit,
        "temp_directory": "",
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
    }
    try:
        con = duckdb.connect(":memory:", config=config)
    except duckdb.Error as e:
        raise QueryError(f"bad query settings: {e}") from None
    try:
        allowed = [str(p) for per_job in views.values() for paths in per_job.values() for p in paths
                   if not isinstance(p, ObjectPath)]
        con.execute("SET python_enable_replacements = false")
        con.execute("SET allowed_paths = [" + ", ".join(_literal(p) for p in allowed) + "]")
        for table, per_job in views.items():
            for i, paths in enumerate(per_job.values()):
                if isinstance(paths[0], ObjectPath):
                    # Object store: DuckDB's httpfs cannot be installed offline for this DuckDB,
                    # so the server reads through pyarrow (a lazy dataset, scanned by DuckDB's
                    # Arrow scan); the connection itself gets no file or network access at all.
                    con.register(_arrow_name(table, i), parquet_dataset(paths))
            con.execute(_view_sql(table, per_job, with_job_id))
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _check_statement(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Layer 1: exactly one SELECT statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryError(_first_line(e)) from None
    if len(statements) != 1:
        raise QueryError(f"send exactly one SELECT statement, not {len(statements)}")
    kind = statements[0].type
    if kind == duckdb.StatementType.MULTI:  # PIVOT expands to several statements
        raise QueryError("PIVOT is not supported: use GROUP BY with FILTER (or aggregate per column)")
    if kind != duckdb.StatementType.SELECT:
        name = str(getattr(kind, "name", kind))
        raise QueryError(f"only SELECT queries are allowed, not {name} statements")


def _check_tree(con: duckdb.DuckDBPyConnection, sql: str, views: set[str]) -> None:
    """Layer 2: every table reference is a view or a CTE in scope; no file-reading table functions."""
    import json

    # fetchall, not fetchone: DuckDB 2 keeps a half-fetched result open and refuses the next statement.
    try:
        rows = con.execute("SELECT json_serialize_sql($sql)", {"sql": sql}).fetchall()
    except duckdb.Error as e:  # e.g. a parser stack overflow on thousands of nested subqueries
        raise QueryError(_first_line(e)) from None
    try:
        tree = json.loads(rows[0][0])
        if tree.get("error"):
            msg = str(tree.get("error_message", "cannot parse the query"))
            if "Only SELECT" in msg:
                msg = "this query form cannot be checked (e.g. PIVOT): write it with GROUP BY / FILTER"
            raise QueryError(msg)
        _walk(tree.get("statements", []), frozenset(), views)
    except RecursionError:
        # 500 nested subqueries: the tree is deeper than Python's recursion limit.
        raise QueryError("the query is nested too deeply to be checked: use fewer levels of "
                         "subqueries or parentheses") from None


def _walk(node: Any, visible: frozenset[str], views: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, visible, views)
        return
    if not isinstance(node, dict):
        return
    cte_map = node.get("cte_map")
    if isinstance(cte_map, dict) and cte_map.get("map"):
        # CTE i sees the outer scope, the CTEs before it and itself (WITH RECURSIVE); the body
        # of the query sees them all. A name out of scope would resolve to the catalog instead.
        scope = set(visible)
        for entry in cte_map["map"]:
            scope.add(str(entry.get("key", "")).lower())
            _walk(entry.get("value"), frozenset(scope), views)
        visible = frozenset(scope)
    kind = node.get("type")
    if kind == "BASE_TABLE":
        _check_table(node, visible, views)
    elif kind == "TABLE_FUNCTION":
        fn = node.get("function") or {}
        name = str(fn.get("function_name", "?")).lower()
        if name not in _PURE_TABLE_FUNCTIONS or fn.get("schema") or fn.get("catalog"):
            raise QueryError(f"table function {name}() is not allowed: query the views {_names(views)}")
    elif kind == "FUNCTION":
        name = str(node.get("function_name", "?")).lower()
        if name in _HIDDEN_FUNCTIONS or name.startswith(_HIDDEN_PREFIXES):
            raise QueryError(f"function {name}() is not allowed: the sandbox hides the server's settings")
    elif kind == "SHOW_REF" and node.get("query") is None:
        raise QueryError(f"SHOW is not supported: the views are {_names(views)} (try DESCRIBE seats)")
    for key, value in node.items():
        if key != "cte_map":
            _walk(value, visible, views)


def _check_table(node: dict[str, Any], visible: frozenset[str], views: set[str]) -> None:
    name = str(node.get("table_name", ""))
    if node.get("schema_name") or node.get("catalog_name"):
        qualified = ".".join(str(p) for p in (node.get("catalog_name"), node.get("schema_name"), name) if p)
        raise QueryError(f"{qualified}: only the views {_names(views)} may be queried (unqualified)")
    if name.lower() not in visible and name.lower() not in views:
        raise QueryError(f"unknown table {name!r}: the views are {_names(views)}")


def _names(views: set[str]) -> str:
    return ", ".join(sorted(views)) if views else "(none: the job has no data yet)"


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


class _Guard:
    """Interrupts a connection after ``timeout_s`` seconds of work, or at once when ``stop`` is set.

    Work is the time between ``running()`` and ``idle()`` calls summed up: a streaming reader
    is idle while its consumer (a slow client) takes the last batch, and that is not charged.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, timeout_s: float, stop: threading.Event | None) -> None:
        self.con = con
        self.timeout_s = timeout_s
        self.stop = stop if stop is not None else threading.Event()
        self.timed_out = False
        self._spent = 0.0
        self._since: float | None = None
        self._done = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="rasklad-sql-guard")
        self._thread.start()

    def running(self) -> None:
        with self._cond:
            self._since = time.monotonic()
            self._cond.notify()

    def idle(self) -> None:
        with self._cond:
            if self._since is not None:
                self._spent += time.monotonic() - self._since
                self._since = None

    def close(self) -> None:
        with self._cond:
            self._done = True
            self._cond.notify()
        self._thread.join()

    def _watch(self) -> None:
        while True:
            with self._cond:
                if self._done:
                    return
                left = self.timeout_s - self._spent
                if self._since is not None:
                    left -= time.monotonic() - self._since
                if self._since is not None and left <= 0:
                    self.timed_out = True
                    break
                if self.stop.is_set():
                    break
                # Wake up to check the stop event too (set by another thread, not notified here).
                self._cond.wait(min(0.1, left) if self._since is not None else 0.1)
        with contextlib.suppress(Exception):  # the statement may have just finished and closed
            self.con.interrupt()

    def reason(self, what: str) -> str:
        if self.timed_out:
            return f"{what} stopped: it ran longer than the time limit of {self.timeout_s:g} s"
        return f"{what} interrupted: the client went away"


def result_too_large(max_bytes: int) -> QueryError:
    """The error of a result over ``max_bytes``: Arrow bytes here, encoded bytes in the API."""
    return QueryError(f"the result is larger than the limit of {max_bytes:,} bytes (query_max_bytes): "
                      "select fewer rows or columns, aggregate, or download the table")


def _too_many_cells(max_cells: int) -> QueryError:
    return QueryError(f"the result has more than {max_cells:,} cells, rows x columns (query_max_cells): "
                      "select fewer columns or rows, or aggregate")


def _execute(con: duckdb.DuckDBPyConnection, sql: str, timeout_s: float, max_rows: int, max_bytes: int,
             max_cells: int | None, stop: threading.Event | None) -> pa.Table:
    guard = _Guard(con, timeout_s, stop)
    guard.running()
    try:
        rel = con.sql(sql)
        width = len(rel.columns)
        reader = rel.to_arrow_reader(_rows_per_batch(width))
        batches: list[pa.RecordBatch] = []
        rows = 0
        size = 0
        truncated = False
        for batch in reader:
            batches.append(batch)
            rows += batch.num_rows
            size += batch.get_total_buffer_size()
            if size > max_bytes:
                raise result_too_large(max_bytes)
            if max_cells is not None and min(rows, max_rows) * width > max_cells:
                raise _too_many_cells(max_cells)
            if rows > max_rows:
                truncated = True
                break
        table = pa.Table.from_batches(batches, schema=reader.schema)
    except duckdb.InterruptException:
        raise QueryError(guard.reason("query")) from None
    except duckdb.OutOfMemoryException as e:
        raise QueryError(f"query stopped: out of memory (limit {current_memory_limit(con)}): "
                         f"{_first_line(e)}") from None
    except duckdb.PermissionException as e:
        raise QueryError(f"access denied: {_first_line(e)}") from None
    except duckdb.Error as e:  # whole: DuckDB's hints ("Did you mean ...", the caret) follow the first line
        raise QueryError(str(e).strip() or type(e).__name__) from None
    finally:
        guard.close()
    if truncated:
        table = table.slice(0, max_rows)
        meta = dict(table.schema.metadata or {})
        meta[TRUNCATED_KEY] = b"true"
        table = table.replace_schema_metadata(meta)
    return table


def current_memory_limit(con: duckdb.DuckDBPyConnection) -> str:
    """The connection's memory limit as DuckDB reports it (e.g. ``953.6 MiB``)."""
    try:
        rows = con.execute("SELECT current_setting('memory_limit')").fetchall()
    except duckdb.Error:
        return "?"
    return str(rows[0][0]) if rows else "?"


def run_query(sql: str, jobs: Mapping[str, Location], *, memory_limit: str = "1GB", timeout_s: float = 30.0,
              max_rows: int = 100_000, max_bytes: int = 64 << 20, max_cells: int | None = None, threads: int = 2,
              stop: threading.Event | None = None) -> pa.Table:
    """Run one read-only SELECT over the jobs' views; returns at most ``max_rows`` rows.

    ``jobs`` maps job id → job directory (the caller has checked the jobs are the user's). A
    result with more than ``max_rows`` rows is cut and flagged (``is_truncated``). Raises
    QueryError when the query is refused, fails, exceeds the memory limit, returns more than
    ``max_bytes`` bytes (Arrow) or ``max_cells`` cells (rows kept x columns; None: no limit), runs
    longer than ``timeout_s`` seconds or is stopped by ``stop``.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise QueryError("empty query")
    if not jobs:
        raise QueryError("no jobs to query")
    if timeout_s <= 0 or max_rows <= 0 or max_bytes <= 0 or threads <= 0 or (max_cells or 1) <= 0:
        raise QueryError("timeout_s, max_rows, max_bytes, max_cells and threads must be > 0")
    views = job_views(jobs)
    con = sandbox_connection(views, len(jobs) > 1, memory_limit, threads)
    try:
        _check_statement(con, sql)
        _check_tree(con, sql, set(views))
        return _execute(con, sql, timeout_s, max_rows, max_bytes, max_cells, stop)
    finally:
        con.close()


def stream_query(sql: str, jobs: Mapping[str, Location], *, memory_limit: str = "1GB", timeout_s: float = 30.0,
                 threads: int = 2, batch_rows: int = 65_536, rows_of: str | None = None,
                 stop: threading.Event | None = None) -> BatchStream:
    """Like ``run_query`` but yields record batches as DuckDB produces them, with no row limit.

    For downloads: the result is never held in memory whole. ``timeout_s`` bounds the time
    DuckDB spends producing batches (not the time the consumer takes); setting ``stop``
    interrupts the statement. The statement is checked before this returns (a refused query
    raises QueryError at once); errors while streaming raise QueryError from the iterator. The
    connection closes when the iterator is exhausted, closed or garbage-collected. A batch holds
    at most ``batch_rows`` rows and about ``_BATCH_CELLS`` cells. ``rows_of``: the statement must
    be ``filter_sql``'s over that table (its rows filtered, never more rows: QueryError naming
    ``where`` otherwise).
    """
    if not isinstance(sql, str) or not sql.strip():
        raise QueryError("empty query")
    if not jobs:
        raise QueryError("no jobs to query")
    if timeout_s <= 0 or threads <= 0:
        raise QueryError("timeout_s and threads must be > 0")
    views = job_views(jobs)
    con = sandbox_connection(views, len(jobs) > 1, memory_limit, threads)
    guard: _Guard | None = None
    try:
        _check_statement(con, sql)
        _check_tree(con, sql, set(views))
        if rows_of is not None:
            _check_rows_of(con, sql, rows_of)
        guard = _Guard(con, timeout_s, stop)
        guard.running()
        rel = con.sql(sql)
        reader = rel.to_arrow_reader(_rows_per_batch(len(rel.columns), batch_rows))
        guard.idle()
    except duckdb.InterruptException:
        assert guard is not None
        reason = guard.reason("download")
        guard.close()
        con.close()
        raise QueryError(reason) from None
    except duckdb.Error as e:
        if guard is not None:
            guard.close()
        con.close()
        raise QueryError(_first_line(e)) from None
    except BaseException:
        if guard is not None:
            guard.close()
        con.close()
        raise
    return BatchStream(reader.schema, _batches(con, reader, guard))


class BatchStream(Iterator[pa.RecordBatch]):
    """The batches of a streamed statement and their ``schema``, known before the first batch:
    an empty result still has its columns (a download of no rows is a header, not 0 bytes)."""

    def __init__(self, schema: pa.Schema, batches: Generator[pa.RecordBatch, None, None]) -> None:
        self.schema = schema
        self._batches = batches

    def __next__(self) -> pa.RecordBatch:
        return next(self._batches)

    def close(self) -> None:
        """End the statement now (as exhausting or dropping the stream does)."""
        self._batches.close()


def _batches(con: duckdb.DuckDBPyConnection, reader: pa.RecordBatchReader,
             guard: _Guard) -> Generator[pa.RecordBatch, None, None]:
    try:
        while True:
            guard.running()
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            finally:
                guard.idle()
            yield batch
    except duckdb.InterruptException:
        raise QueryError(guard.reason("download")) from None
    except (duckdb.Error, pa.ArrowException) as e:
        if guard.timed_out or guard.stop.is_set():
            raise QueryError(guard.reason("download")) from None
        raise QueryError(_first_line(e)) from None
    finally:
        guard.close()
        con.close()


def filter_sql(table: str, columns: list[str] | None, where: str | None) -> str:
    """The statement of a download: ``table``'s rows, its ``columns`` (plain names; None: all) and
    those rows that ``where`` holds for. ``where`` must be one expression by itself (a set
    operation, a second expression or a clause is a QueryError naming ``where``); run the
    statement with ``stream_query(rows_of=table)``, which checks the whole statement's shape too.
    """
    cols = ", ".join(_ident(c) for c in columns) if columns else "*"
    sql = f"SELECT {cols} FROM {_ident(table)}"
    if where is None or not where.strip():
        return sql
    try:
        duckdb.SQLExpression(where)  # the filter parsed alone: exactly one expression
    except duckdb.Error as e:
        msg = _first_line(e)
        raise QueryError(f"where must be one condition on the table's columns: {msg}", "where") from None
    # On lines of its own: a trailing -- comment cannot swallow the closing parenthesis.
    return f"{sql} WHERE (\n{where}\n)"


#: Keys of a plain SELECT node that must be empty in a download's statement.
_NO_CLAUSES = ("modifiers", "group_expressions", "group_sets", "having", "sample", "qualify")


def _check_rows_of(con: duckdb.DuckDBPyConnection, sql: str, table: str) -> None:
    """The statement is ``SELECT <*|columns> FROM table [WHERE expr]``: nothing else in its tree."""
    import json

    refused = QueryError("where must be one condition on the table's columns (it may only drop rows): "
                         "not a set operation, a clause or a second statement", "where")
    rows = con.execute("SELECT json_serialize_sql($sql)", {"sql": sql}).fetchall()
    tree = json.loads(rows[0][0])
    statements = tree.get("statements") or []
    if tree.get("error") or len(statements) != 1:
        raise refused
    node = statements[0].get("node") or {}
    source = node.get("from_table") or {}
    if (node.get("type") != "SELECT_NODE" or (node.get("cte_map") or {}).get("map")
            or any(node.get(k) for k in _NO_CLAUSES)
            or source.get("type") != "BASE_TABLE" or source.get("table_name") != table
            or source.get("alias") or source.get("schema_name") or source.get("catalog_name")
            or source.get("sample") or source.get("at_clause")):
        raise refused
    for item in node.get("select_list") or []:
        star = item.get("type") == "STAR" and not (item.get("expr") or item.get("columns") or item.get("exclude_list")
                                                   or item.get("replace_list") or item.get("rename_list")
                                                   or item.get("qualified_exclude_list") or item.get("relation_name"))
        column = item.get("type") == "COLUMN_REF" and len(item.get("column_names") or []) == 1
        if item.get("alias") or not (star or column):
            raise refused


def json_number(v: Any) -> Any:
    """A DECIMAL cell as a JSON number: ``sum()`` of integers is a HUGEINT, which arrives as a
    Decimal and would otherwise be written as a string (used by the API and the CLI alike)."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v
