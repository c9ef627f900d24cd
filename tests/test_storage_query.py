"""The query sandbox (storage.query): views over a job's shards, multi-job unions, and refusals.

DESIGN.md "Storage": SQL runs in DuckDB, read-only, over the caller's own datasets only; a query
touching anything but the views fails with a clear QueryError. Checked on the installed DuckDB.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from storage.layout import job_dir, shard_path, temp_shard_path
from storage.parquet import write_shard, write_shards
from storage.query import QueryError, is_truncated, job_views, run_query, sandbox_connection

BOTS = ("order-poker/random", "order-poker/heuristic", "order-poker/random#2")


def tournament(jd: Path, shards: int, deals_per_shard: int, rng: np.random.Generator) -> pa.Table:
    """Write a synthetic 3-player duplicate tournament (contract schemas, trimmed); returns its seats."""
    all_seats = []
    for k in range(shards):
        deal = np.repeat(np.arange(k * deals_per_shard, (k + 1) * deals_per_shard, dtype=np.int64), 3)
        rotation = np.tile(np.arange(3, dtype=np.int16), deals_per_shard)
        deals = pa.table({"deal": deal, "rotation": rotation,
                          "seating": pa.array([[(s + r) % 3 for s in range(3)] for r in rotation],
                                              pa.list_(pa.int16())),
                          "stake": rng.integers(1, 4, len(deal)).astype(np.int8)})
        s_seat = np.tile(np.arange(3, dtype=np.int8), len(deal))
        s_rot = np.repeat(rotation, 3)
        s_bot = (s_seat.astype(np.int16) + s_rot) % 3
        seats = pa.table({"deal": np.repeat(deal, 3), "rotation": s_rot, "seat": s_seat,
                          "bot_index": s_bot.astype(np.int16), "bot": pa.array([BOTS[b] for b in s_bot]),
                          "score": rng.integers(-6, 7, len(s_seat)).astype(np.int32)})
        write_shards(jd, k, {"deals": deals, "seats": seats})
        all_seats.append(seats)
    return pa.concat_tables(all_seats)


@pytest.fixture
def jobs(tmp_path: Path) -> dict[str, tuple[Path, pa.Table]]:
    rng = np.random.default_rng(12345)
    a = job_dir(tmp_path, "j-a")
    ab = job_dir(tmp_path, "j-ab")  # its directory name has j-a's as a prefix
    return {"j-a": (a, tournament(a, 3, 20, rng)), "j-ab": (ab, tournament(ab, 2, 10, rng))}


def only(jobs: dict[str, tuple[Path, pa.Table]], *ids: str) -> dict[str, Path]:
    return {i: jobs[i][0] for i in ids}


def test_seats_view_group_by_bot(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    seats = jobs["j-a"][1]
    out = run_query("SELECT bot, avg(score) AS mean, count(*) AS n FROM seats GROUP BY bot ORDER BY bot",
                    only(jobs, "j-a"))
    bots = np.array(seats.column("bot").to_pylist())
    score = seats.column("score").to_numpy()
    for row in out.to_pylist():
        assert row["n"] == int((bots == row["bot"]).sum()) == 3 * 60
        assert row["mean"] == pytest.approx(score[bots == row["bot"]].mean(), abs=1e-12)
    assert sorted(out.column("bot").to_pylist()) == sorted(BOTS)
    assert "job_id" not in run_query("SELECT * FROM seats LIMIT 1", only(jobs, "j-a")).column_names
    joined = run_query("SELECT count(*) AS n FROM seats JOIN deals USING (deal, rotation) WHERE stake > 0",
                       only(jobs, "j-a"))
    assert joined.column("n").to_pylist() == [seats.num_rows]


def test_multi_job_union_has_job_id(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    out = run_query("SELECT job_id, count(*) AS n, sum(score) AS s FROM seats GROUP BY job_id "
                    "ORDER BY job_id", only(jobs, "j-a", "j-ab"))
    expected = [{"job_id": j, "n": t.num_rows, "s": int(np.sum(t.column("score").to_numpy()))}
                for j, (_, t) in jobs.items()]
    assert out.to_pylist() == expected
    deals = run_query("SELECT DISTINCT job_id FROM deals ORDER BY 1", only(jobs, "j-a", "j-ab"))
    assert deals.column("job_id").to_pylist() == ["j-a", "j-ab"]


def test_stats_job_tables_and_mixed_union(tmp_path: Path, jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    st = job_dir(tmp_path, "j-stats")
    write_shard(st, "counts", 0, pa.table({"category": ["pair", "flush"], "count": [30, 10], "n": [40, 40],
                                            "probability": [0.75, 0.25]}))
    out = run_query("SELECT category, probability FROM counts ORDER BY count DESC", {"j-stats": st})
    assert out.to_pylist() == [{"category": "pair", "probability": 0.75},
                               {"category": "flush", "probability": 0.25}]
    both = {"j-a": jobs["j-a"][0], "j-stats": st}
    assert run_query("SELECT DISTINCT job_id FROM counts", both).column("job_id").to_pylist() == ["j-stats"]
    assert run_query("SELECT DISTINCT job_id FROM seats", both).column("job_id").to_pylist() == ["j-a"]
    with pytest.raises(QueryError, match="unknown table 'seats'"):
        run_query("SELECT * FROM seats", {"j-stats": st})


def test_ctes_describe_and_pure_table_functions_work(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    j = only(jobs, "j-a")
    out = run_query("WITH per AS (SELECT deal, sum(score) AS s FROM seats GROUP BY deal) "
                    "SELECT count(*) AS n FROM per", j)
    assert out.column("n").to_pylist() == [60]
    cols = run_query("DESCRIBE seats", j).column("column_name").to_pylist()
    assert cols == ["deal", "rotation", "seat", "bot_index", "bot", "score"]
    assert run_query("SELECT sum(range) AS s FROM range(5)", j).column("s").to_pylist() == [10]
    assert run_query("SUMMARIZE seats", j).column("column_name").to_pylist() == cols
    assert run_query("FROM seats LIMIT 3", j).num_rows == 3
    by_stake = run_query("SELECT d.stake, count(*) AS n FROM seats s JOIN deals d USING (deal, rotation) "
                         "GROUP BY ALL", j)
    assert sum(by_stake.column("n").to_pylist()) == jobs["j-a"][1].num_rows
    rec = run_query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4) "
                    "SELECT count(*) AS c FROM r", j)
    assert rec.column("c").to_pylist() == [4]


def test_uncommitted_and_temp_files_are_not_in_views(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    jd, seats = jobs["j-a"]
    extra = seats.slice(0, 30)
    pq.write_table(extra, temp_shard_path(jd, "seats", 7))  # an in-flight writer's file
    write_shard(jd, "seats", 8, extra)  # shard 8 has seats but not deals yet: not committed
    assert set(job_views(only(jobs, "j-a"))["seats"]["j-a"]) == {shard_path(jd, "seats", k).resolve()
                                                                 for k in range(3)}
    n = run_query("SELECT count(*) AS n FROM seats", only(jobs, "j-a")).column("n").to_pylist()
    assert n == [seats.num_rows]


REFUSED = [
    ("SELECT * FROM read_csv('/etc/passwd')", "read_csv"),
    ("SELECT * FROM read_text('/etc/passwd')", "read_text"),
    ("SELECT * FROM '/etc/passwd'", "unknown table '/etc/passwd'"),
    ("SELECT * FROM seats WHERE bot IN (SELECT column0 FROM read_csv('/etc/passwd'))", "read_csv"),
    ("COPY (SELECT * FROM seats) TO '/tmp/stolen.csv'", "COPY"),
    ("COPY seats TO 'out.parquet'", "COPY"),
    ("SET enable_external_access = true", "SET"),
    ("SET memory_limit = '100GB'", "SET"),
    ("RESET lock_configuration", "only SELECT"),
    ("ATTACH '/tmp/other.duckdb' AS other", "ATTACH"),
    ("INSTALL httpfs", "only SELECT"),
    ("LOAD httpfs", "only SELECT"),
    ("PRAGMA database_list", "PRAGMA"),
    ("CREATE TABLE t AS SELECT * FROM seats", "CREATE"),
    ("CREATE VIEW v AS SELECT 1", "CREATE"),
    ("DROP VIEW seats", "only SELECT"),
    ("CALL pragma_version()", "only SELECT"),
    ("EXPLAIN SELECT * FROM seats", "only SELECT"),
    ("SELECT 1; SELECT 2", "exactly one"),
    ("SELECT * FROM seats; DROP VIEW seats", "exactly one"),
    ("SELECT * FROM duckdb_settings()", "duckdb_settings"),
    ("SELECT * FROM query('SELECT 42')", "query"),
    ("SELECT * FROM glob('/etc/*')", "glob"),
    ("SELECT * FROM information_schema.tables", "information_schema.tables"),
    ("SELECT * FROM main.seats", "main.seats"),
    ("SELECT * FROM duckdb_views", "unknown table"),
    ("WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a", "unknown table 'b'"),
    ("SELECT * FROM (WITH t AS (SELECT 1) SELECT * FROM t) x, t", "unknown table 't'"),
    ("SHOW TABLES", "SHOW"),
    ("PIVOT seats ON bot USING sum(score)", "PIVOT"),
    ("SELECT * FROM (PIVOT seats ON bot USING sum(score))", "PIVOT"),
    # Settings and catalog name server paths (allowed_paths lists every shard file): hidden.
    ("SELECT current_setting('allowed_paths')", "current_setting"),
    ("SELECT * FROM seats WHERE current_setting('allowed_paths') IS NOT NULL", "current_setting"),
    ("SELECT CURRENT_SETTING('memory_limit')", "current_setting"),
    ("SELECT getvariable('x')", "getvariable"),
    ("SELECT * FROM duckdb_settings() WHERE name = 'allowed_paths'", "duckdb_settings"),
    ("SELECT * FROM seats, (SELECT * FROM duckdb_settings())", "duckdb_settings"),
    ("SELECT duckdb_settings()", "duckdb_settings"),
    ("SELECT current_database()", "current_database"),
    ("SELECT * FROM pragma_database_list", "unknown table"),
    ("SELEC 1", "syntax error"),
    ("", "empty"),
]


@pytest.mark.parametrize(("sql", "message"), REFUSED)
def test_refused(sql: str, message: str, jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    with pytest.raises(QueryError, match=message) as info:
        run_query(sql, only(jobs, "j-a"), timeout_s=10)
    assert isinstance(info.value, ValueError)
    assert not Path("/tmp/stolen.csv").exists() and not Path("out.parquet").exists()


def test_other_jobs_files_are_refused(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    other = shard_path(jobs["j-ab"][0], "seats", 0).resolve()
    with pytest.raises(QueryError, match="read_parquet"):
        run_query(f"SELECT count(*) FROM read_parquet('{other}')", only(jobs, "j-a"))
    with pytest.raises(QueryError, match="unknown table"):
        run_query(f"SELECT count(*) FROM '{other}'", only(jobs, "j-a"))


def test_python_objects_are_not_visible(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    secret_table = pa.table({"password": ["hunter2"]})  # DuckDB's replacement scan would find this
    assert secret_table.num_rows == 1
    with pytest.raises(QueryError, match="unknown table 'secret_table'"):
        run_query("SELECT * FROM secret_table", only(jobs, "j-a"))


def test_connection_itself_refuses_files(jobs: dict[str, tuple[Path, pa.Table]], tmp_path: Path) -> None:
    """Layer 3 alone (no statement checks): DuckDB's own sandbox stops every escape."""
    views = job_views(only(jobs, "j-a"))
    con = sandbox_connection(views, False, "256MB", 1)
    own = shard_path(jobs["j-a"][0], "seats", 0).resolve()
    other = shard_path(jobs["j-ab"][0], "seats", 0).resolve()  # "j-ab" starts with "j-a"
    try:
        assert con.execute("SELECT count(*) FROM seats").fetchone() == (jobs["j-a"][1].num_rows,)
        for sql in (
            "SELECT * FROM read_csv('/etc/passwd')",
            f"SELECT * FROM read_parquet('{other}')",
            f"SELECT * FROM read_parquet('{own.parent}/*.parquet')",  # globbing the directory
            f"SELECT * FROM read_parquet('{own.parent}/../../j-ab/seats/shard-000000.parquet')",
            f"COPY (SELECT 1) TO '{own.parent}/x.csv'",  # writing next to an allowed file
            f"ATTACH '{tmp_path}/x.duckdb'",
            "INSTALL httpfs",
            "LOAD httpfs",
        ):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        for sql in ("SET enable_external_access = true", "SET allowed_directories = ['/']",
                    "SET memory_limit = '64GB'", "SET threads = 64"):
            with pytest.raises(duckdb.InvalidInputException, match="locked"):
                con.execute(sql)
        assert not (own.parent / "x.csv").exists() and not (tmp_path / "x.duckdb").exists()
    finally:
        con.close()


def test_allowed_directories_is_per_directory(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """What DuckDB does with allowed_directories (we use allowed_paths; this documents the other)."""
    a = jobs["j-a"][0].resolve()
    ab = jobs["j-ab"][0].resolve()
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"SET allowed_directories = ['{a}']")  # no trailing slash given
        assert con.execute("SELECT current_setting('allowed_directories')").fetchone() == ([f"{a}/"],)
        con.execute("SET enable_external_access = false")
        assert con.execute(f"SELECT count(*) FROM read_parquet('{a}/seats/shard-000000.parquet')").fetchone()
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"SELECT count(*) FROM read_parquet('{ab}/seats/shard-000000.parquet')")
    finally:
        con.close()


def test_timeout_stops_a_runaway_query(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    with pytest.raises(QueryError, match="time limit of 1 s"):
        run_query("SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7",
                  only(jobs, "j-a"), timeout_s=1)
    with pytest.raises(QueryError, match="time limit"):
        run_query("SELECT count(*) FROM seats a, seats b, seats c, seats d WHERE a.score + b.score > c.score",
                  only(jobs, "j-a"), timeout_s=0.5)


def test_memory_limit_applies(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    # current_setting is hidden from user SQL (it would name server paths): read it on the connection.
    con = sandbox_connection(job_views(only(jobs, "j-a")), False, "300MB", 1)
    try:
        out = con.execute("SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t").fetchall()
    finally:
        con.close()
    assert out == [("286.1 MiB", 1)]  # DuckDB reports MB as MiB
    with pytest.raises(QueryError, match="out of memory"):
        run_query("SELECT list(range) FROM range(100000000)", only(jobs, "j-a"), memory_limit="64MB")
    with pytest.raises(QueryError, match="bad query settings"):
        run_query("SELECT 1", only(jobs, "j-a"), memory_limit="lots")


def test_max_rows_truncation_is_flagged(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    j = only(jobs, "j-a")
    n = jobs["j-a"][1].num_rows
    cut = run_query("SELECT deal, rotation, seat FROM seats ORDER BY deal, rotation, seat", j, max_rows=10)
    assert cut.num_rows == 10 and is_truncated(cut)
    assert cut.column("deal").to_pylist() == [0] * 9 + [1]
    full = run_query("SELECT deal FROM seats", j, max_rows=n)
    assert full.num_rows == n and not is_truncated(full)
    big = run_query("SELECT range FROM range(50000)", j, max_rows=20000)  # more than one batch
    assert big.num_rows == 20000 and is_truncated(big)
    assert big.column("range").to_pylist() == list(range(20000))
    empty = run_query("SELECT * FROM seats WHERE false", j)
    assert empty.num_rows == 0 and "score" in empty.column_names and not is_truncated(empty)


def test_bad_job_arguments(tmp_path: Path) -> None:
    with pytest.raises(QueryError, match="no jobs"):
        run_query("SELECT 1", {})
    with pytest.raises(QueryError, match="no data directory"):
        run_query("SELECT 1", {"j-x": tmp_path / "jobs" / "j-x"})
    with pytest.raises(QueryError, match="bad job id"):
        run_query("SELECT 1", {"x' OR 1=1 --": tmp_path})
    (tmp_path / "jobs" / "j-new").mkdir(parents=True)
    assert run_query("SELECT 42 AS x", {"j-new": tmp_path / "jobs" / "j-new"}).to_pylist() == [{"x": 42}]
    with pytest.raises(QueryError, match="no data yet"):
        run_query("SELECT * FROM seats", {"j-new": tmp_path / "jobs" / "j-new"})


def test_deeply_nested_query_is_a_query_error(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """500 nested subqueries (a plain-text 500 of the API before): refused with a QueryError."""
    sql = "SELECT 1 AS x"
    for _ in range(500):
        sql = f"SELECT x FROM ({sql})"
    with pytest.raises(QueryError, match="nested too deeply to be checked"):
        run_query(sql, only(jobs, "j-a"))
    shallow = "SELECT 1 AS x"
    for _ in range(20):
        shallow = f"SELECT x FROM ({shallow})"
    assert run_query(shallow, only(jobs, "j-a")).to_pylist() == [{"x": 1}]


def test_result_bytes_are_bounded(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """One row can hold any amount (``range(0, n)`` is a list): the result is bounded in bytes too."""
    j = only(jobs, "j-a")
    with pytest.raises(QueryError, match="larger than the limit of 16,777,216 bytes"):
        run_query("SELECT range(0, 3000000) AS r", j, max_bytes=16 << 20)
    with pytest.raises(QueryError, match="query_max_bytes"):
        run_query("SELECT range AS r, repeat('x', 1000) AS pad FROM range(50000)", j, max_bytes=16 << 20,
                  max_rows=1_000_000)
    ok = run_query("SELECT range(0, 1000) AS r", j, max_bytes=16 << 20)
    assert ok.column("r").to_pylist() == [list(range(1000))]


def test_stop_event_interrupts_a_query_and_a_download(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """A client that went away sets ``stop``: the statement ends long before its time limit."""
    import threading
    import time

    from storage.query import stream_query

    slow = "SELECT count(*) FROM seats a, seats b, seats c, seats d WHERE a.score + b.score > c.score"
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    t0 = time.monotonic()
    with pytest.raises(QueryError, match="client went away"):
        run_query(slow, only(jobs, "j-a"), timeout_s=60, stop=stop)
    assert time.monotonic() - t0 < 10
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    t0 = time.monotonic()
    with pytest.raises(QueryError, match="client went away"):
        list(stream_query(f"SELECT * FROM seats WHERE ({slow}) > 0", only(jobs, "j-a"), timeout_s=60, stop=stop))
    assert time.monotonic() - t0 < 10


def test_download_time_limit_counts_work_not_the_consumer(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """A download's filter gets the query time limit (not 600 s); a slow consumer is not charged."""
    import time

    from storage.query import stream_query

    slow = "(SELECT count(*) FROM seats a, seats b, seats c, seats d WHERE a.score + b.score > c.score) > 0"
    t0 = time.monotonic()
    with pytest.raises(QueryError, match="time limit of 1 s"):
        list(stream_query(f"SELECT * FROM seats WHERE {slow}", only(jobs, "j-a"), timeout_s=1))
    assert time.monotonic() - t0 < 10
    rows = 0
    for batch in stream_query("SELECT * FROM seats", only(jobs, "j-a"), timeout_s=0.5, batch_rows=100):
        rows += batch.num_rows
        time.sleep(0.1)  # the consumer takes 0.1 s a batch, over 1 s in all: not charged
    assert rows == jobs["j-a"][1].num_rows


def test_a_wide_result_is_bounded_in_cells_and_fetched_in_narrow_batches(
        jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """1,500 NULL columns x 100k rows have no Arrow buffers (0 bytes): they passed the byte limit and
    grew the API to 6.58 GB as Python objects. The cells (rows kept x columns) are counted too."""
    from storage.query import stream_query

    j = only(jobs, "j-a")
    wide = "SELECT " + ", ".join(f"NULL AS c{i}" for i in range(1500)) + " FROM range(2000)"
    assert run_query(wide, j, max_bytes=1 << 20).num_rows == 2000  # before: nothing counted them
    with pytest.raises(QueryError, match=r"more than 1,000,000 cells, rows x columns \(query_max_cells\)"):
        run_query(wide, j, max_cells=1_000_000)
    # Rows cut at the row limit are not counted; narrow results are unaffected.
    assert run_query(wide, j, max_rows=100, max_cells=1_000_000).num_rows == 100
    assert run_query("SELECT * FROM range(200000)", j, max_cells=1_000_000).num_rows == 100_000
    # Every batch is bounded in cells, whatever its row count (a download's too).
    widths = [b.num_rows * b.num_columns for b in stream_query(wide, j)]
    assert sum(widths) == 2000 * 1500 and max(widths) <= 65_536


@pytest.mark.parametrize("where", [
    "false UNION ALL SELECT repeat('x', 50000000) FROM range(30)",
    "false UNION ALL SELECT * FROM seats",
    "true ORDER BY deal",
    "true LIMIT 1",
    "deal = 1, seat = 2",
    "true) UNION ALL (SELECT * FROM seats",
    "true\n) UNION ALL (SELECT * FROM seats",
    "true; SELECT 1",
])
def test_a_download_filter_is_one_expression_that_cannot_add_rows(jobs: dict[str, tuple[Path, pa.Table]],
                                                                  where: str) -> None:
    """``where=false UNION ALL SELECT repeat('x',50000000) FROM range(30)`` served a 1.5 GB CSV."""
    from storage.query import filter_sql, stream_query

    with pytest.raises(QueryError, match="where must be one condition") as e:
        list(stream_query(filter_sql("seats", None, where), only(jobs, "j-a"), rows_of="seats"))
    assert e.value.field == "where"


def test_a_download_statement_is_checked_whole(jobs: dict[str, tuple[Path, pa.Table]]) -> None:
    """Even a statement not built by ``filter_sql`` runs with ``rows_of`` only if it filters the table."""
    from storage.query import filter_sql, stream_query

    j = only(jobs, "j-a")
    for sql in ('SELECT * FROM "seats" WHERE (false) UNION ALL SELECT * FROM "seats"',
                'SELECT * FROM "deals"', 'SELECT *, 1 AS x FROM "seats"', 'SELECT deal + 1 FROM "seats"',
                'SELECT * FROM "seats" s', 'WITH x AS (SELECT 1) SELECT * FROM "seats"',
                'SELECT DISTINCT deal FROM "seats"', 'SELECT * FROM "seats" JOIN "deals" USING (deal)'):
        with pytest.raises(QueryError, match="where must be one condition"):
            list(stream_query(sql, j, rows_of="seats"))
    seats = jobs["j-a"][1]
    # What a filter may be: any one condition, comments and subqueries that only filter included.
    for where, expect in (("deal < 5", sum(d < 5 for d in seats.column("deal").to_pylist())),
                          ("deal < 5 -- the first five deals", sum(d < 5 for d in seats.column("deal").to_pylist())),
                          ("deal IN (SELECT deal FROM deals WHERE stake > 100)", 0), ("", seats.num_rows)):
        sql = filter_sql("seats", ["deal", "bot"], where)
        got = sum(b.num_rows for b in stream_query(sql, j, rows_of="seats"))
        assert got == expect, (where, got)
