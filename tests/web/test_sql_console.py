"""The SQL console's downloads and its display of floats, in a real browser (Debian's Chromium).

A query run in the console downloads as CSV, Parquet and JSON lines through ``POST /v1/query`` with
the format's ``Accept`` (the API's sandbox, limits and per-key places; the downloads' encoder,
``storage.tableformats``): each file's rows equal the same SELECT run by DuckDB directly over the
job's shard files. The page rounds floats for display only: the CSV keeps every digit. A result
cut at the row limit (``query_max_rows``, 200 here) is cut in the file as well, and says so.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from service_harness import Service, redis_db
from test_web_app import SPEC_YAML, browser, page, sign_in  # noqa: F401 (fixtures)

from api.answers import file_answer
from storage.layout import job_dir
from storage.parquet import shard_files
from storage.query import QueryError

MAX_ROWS = 200
#: A float column with many digits (``/`` is a DOUBLE division in DuckDB), an integer, a string.
COLUMNS = "deal, rotation, seat, bot, score, score / 7 + 1 / 3 AS frac"
SQL = f"SELECT {COLUMNS} FROM seats WHERE rotation = 0 ORDER BY deal, seat"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with redis_db() as db:
        s = Service(tmp_path_factory.mktemp("sqlweb"), db, shard_seconds=1.0,
                    extra_env={"RASKLAD_QUERY_MAX_ROWS": str(MAX_ROWS)})
        try:
            s.start_api()
            s.start_worker("w1", 1)
            s.wait_worker_ready("w1")
            yield s
        finally:
            s.stop()


@pytest.fixture(scope="module")
def alice(svc: Service) -> str:
    return svc.create_key("alice")


@pytest.fixture(scope="module")
def job(svc: Service, alice: str) -> str:
    """A finished 24-deal Order Poker tournament (216 seat rows: over the row limit)."""
    with svc.client(alice) as http:
        r = http.post("/v1/jobs", content=SPEC_YAML, headers={"Content-Type": "application/yaml"})
        assert r.status_code == 202, r.text
        jid: str = r.json()["id"]
        assert svc.wait_job(http, jid)["state"] == "succeeded"
    return jid


def direct(svc: Service, job_id: str, sql: str) -> list[dict[str, Any]]:
    """``sql`` run by DuckDB itself over the job's ``seats`` shard files (no sandbox, no API)."""
    files = [str(p) for p in shard_files(job_dir(svc.data, job_id), "seats").values()]
    con = duckdb.connect()
    con.execute(f"CREATE VIEW seats AS SELECT * FROM read_parquet({files!r})")
    rel = con.sql(sql)
    names = rel.columns
    return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]


def download(pg: Any, fmt: str, target: Path) -> Path:
    with pg.expect_download() as dl:
        pg.click(f"#sql-downloads button[data-format={fmt}]")
    dl.value.save_as(target)
    return target


def run(pg: Any, sql: str) -> None:
    pg.fill("#sql-text", sql)
    pg.click("#sql-form button[type=submit]")
    pg.wait_for_selector("#sql-table")
    pg.wait_for_selector("#sql-downloads:not([hidden])")


def csv_rows(path: Path) -> list[dict[str, Any]]:
    """A CSV's rows with each cell as the type of the direct query's column (text otherwise)."""
    kinds = {"deal": int, "rotation": int, "seat": int, "score": int, "frac": float}
    with path.open(newline="") as f:
        return [{k: kinds.get(k, str)(v) for k, v in r.items()} for r in csv.DictReader(f)]


def test_console_downloads_equal_duckdb_and_floats_round_for_display_only(
        page: Any, svc: Service, alice: str, job: str, tmp_path: Path) -> None:  # noqa: F811
    expected = direct(svc, job, SQL)
    assert len(expected) == 72 and any(not float(r["frac"]).is_integer() for r in expected)
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/jobs/{job}")
    run(page, SQL)

    # CSV: every row equal to DuckDB's, floats to the last digit (equality of doubles, not closeness).
    got_csv = csv_rows(download(page, "csv", tmp_path / "q.csv"))
    assert got_csv == expected
    text = (tmp_path / "q.csv").read_text()
    # Parquet: the same rows and the same column types.
    table = pq.read_table(download(page, "parquet", tmp_path / "q.parquet"))
    assert table.to_pylist() == expected
    assert table.schema.field("frac").type == pa.float64()
    # JSON lines too.
    lines = download(page, "jsonl", tmp_path / "q.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == expected
    assert page.inner_text("#sql-dl-note") == ""

    # The page rounds floats (4 decimals, the value itself in the tooltip); the CSV keeps every digit.
    cells = page.locator("#sql-table tbody tr").first.locator("td")
    first = expected[0]["frac"]
    frac = cells.nth(5)
    assert frac.inner_text() == f"{first:.4f}"
    assert float(frac.get_attribute("title")) == first
    assert repr(first) in text.splitlines()[1] and len(repr(first)) > len(f"{first:.4f}")
    for i, r in enumerate(expected[:50]):  # the first page: every float rounded, integers as they are
        row = page.locator("#sql-table tbody tr").nth(i).locator("td")
        assert row.nth(5).inner_text() == f"{r['frac']:.4f}"
        assert row.nth(4).inner_text() == str(r["score"]) and row.nth(4).get_attribute("title") is None


def test_console_download_of_a_cut_result_is_cut_and_says_so(
        page: Any, svc: Service, alice: str, job: str, tmp_path: Path) -> None:  # noqa: F811
    sql = f"SELECT {COLUMNS} FROM seats ORDER BY deal, rotation, seat"
    expected = direct(svc, job, sql)
    assert len(expected) > MAX_ROWS
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/sql")
    page.fill("#sql-jobs", job[:8])  # a prefix: the download names the job the query ran over
    run(page, sql)
    assert page.inner_text("#sql-page") == f"page 1 of 4 ({MAX_ROWS} rows, cut at the row limit)"
    got = csv_rows(download(page, "csv", tmp_path / "cut.csv"))
    assert got == expected[:MAX_ROWS]
    assert "cut at the row limit" in page.inner_text("#sql-dl-note")


def test_query_files_over_http(svc: Service, alice: str, job: str) -> None:
    """What a browser does not show: the headers, a list column in CSV, errors stay JSON."""
    sql = "SELECT deal, seating FROM deals ORDER BY deal LIMIT 3"
    with svc.client(alice) as http:
        r = http.post("/v1/query", json={"sql": sql, "jobs": [job]}, headers={"Accept": "text/csv"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        assert r.headers["X-Rasklad-Jobs"] == job and "X-Rasklad-Truncated" not in r.headers
        assert r.headers["Content-Disposition"] == 'attachment; filename="query.csv"'
        rows = list(csv.DictReader(r.text.splitlines()))
        assert [json.loads(x["seating"]) for x in rows] == [d["seating"] for d in direct_deals(svc, job, 3)]
        r = http.post("/v1/query", json={"sql": sql, "jobs": [job]}, headers={"Accept": "application/x-ndjson"})
        assert [json.loads(x) for x in r.text.splitlines()] == direct_deals(svc, job, 3)
        bad = http.post("/v1/query", json={"sql": "SELECT nope FROM seats", "jobs": [job]},
                        headers={"Accept": "text/csv"})
        assert bad.status_code == 400 and re.search(r"nope", bad.json()["detail"][0]["message"])
        cut = http.post("/v1/query", json={"sql": "SELECT * FROM seats", "jobs": [job]},
                        headers={"Accept": "application/vnd.apache.parquet"})
        assert cut.headers["X-Rasklad-Truncated"] == "true"


def direct_deals(svc: Service, job_id: str, n: int) -> list[dict[str, Any]]:
    files = [str(p) for p in shard_files(job_dir(svc.data, job_id), "deals").values()]
    rel = duckdb.sql(f"SELECT deal, seating FROM read_parquet({files!r}) ORDER BY deal LIMIT {n}")
    return [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]


def test_file_answer_counts_its_bytes() -> None:
    """The encoded file is held to query_max_bytes, as the JSON answer is (a CSV outgrows its Arrow bytes)."""
    t = pa.table({"x": [1 / 3] * 1000})
    assert len(file_answer(t, "csv", 1 << 20)) > t.nbytes
    with pytest.raises(QueryError, match="query_max_bytes"):
        file_answer(t, "csv", t.nbytes)
    assert file_answer(t.slice(0, 0), "csv", 100) == b'"x"\n'
