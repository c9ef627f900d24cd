"""A hostile tenant, round 3 (issue 33, items 1, 2, 7 and 8), over real HTTP with real processes.

Each test reproduces an attack that got through and checks that it no longer does:

1. a result measured in Arrow bytes: ``NULL`` columns have none, so 1,500 of them x 100k rows
   passed the 32 MiB limit and grew the API to 6.58 GB (here: caps of 1 MiB and 1,000,000 cells);
2. a download's ``where`` that added rows (``false UNION ALL SELECT repeat('x', ...)``);
3. 400 event streams of one key, all accepted (here: ``events_per_key`` 3);
4. report.html without a CSP, sign-out without the CSRF header, ``/healthz`` 200 on a full disk.

The limits are small so that nothing here allocates more than a few tens of MB.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest
from service_harness import Service, redis_db, wait_for

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/random", "order-poker/random", "order-poker/random"],
    "deals": 60, "shard_deals": 20, "seating": "duplicate", "seed": 33,
}
MAX_BYTES = 1 << 20
MAX_CELLS = 1_000_000
STREAMS = 3
PARQUET = "application/vnd.apache.parquet"


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def wide_nulls(columns: int, rows: int) -> str:
    """A result with no Arrow bytes at all: every column is NULL."""
    return "SELECT " + ", ".join(f"NULL AS c{i}" for i in range(columns)) + f" FROM range({rows})"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    env = {"RASKLAD_QUERY_MAX_BYTES": str(MAX_BYTES), "RASKLAD_QUERY_MAX_CELLS": str(MAX_CELLS),
           "RASKLAD_EVENTS_PER_KEY": str(STREAMS), "RASKLAD_QUERY_TIMEOUT_S": "10"}
    with redis_db() as db:
        s = Service(tmp_path_factory.mktemp("limits"), db, extra_env=env)
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
def bob(svc: Service) -> str:
    return svc.create_key("bob")


@pytest.fixture(scope="module")
def jobs(svc: Service, alice: str, bob: str) -> dict[str, dict[str, Any]]:
    """A succeeded job of each key."""
    out = {}
    for name, key in (("alice", alice), ("bob", bob)):
        with svc.client(key) as http:
            r = http.post("/v1/jobs", json=SPEC)
            assert r.status_code == 202, r.text
            out[name] = svc.wait_job(http, r.json()["id"])
            assert out[name]["state"] == "succeeded", svc.dump_logs()
    return out


# ------------------------------------------------------------------------- 1. result size

def test_a_result_of_null_columns_is_counted_in_sent_bytes_and_cells(svc: Service, alice: str, bob: str,
                                                                     jobs: dict[str, dict[str, Any]]) -> None:
    """1,500 NULL columns x 100k rows had an Arrow size of 0: they passed the byte limit and took the
    API from 361 MB to 6.58 GB. Here the same shape at a 1 MiB / 1,000,000-cell scale: 500 columns x
    1,000 rows (2.5 MB of JSON, 0 Arrow bytes) and 1,500 columns x 1,000 rows (1.5 M cells)."""
    assert svc.api is not None
    before = rss_bytes(svc.api.pid)
    mine = {"jobs": [jobs["alice"]["id"]]}
    with svc.client(alice) as http:
        # Under the cell limit but 2.5 MB of JSON: the encoded bytes are counted as they are written.
        r = http.post("/v1/query", json={"sql": wide_nulls(500, 1000), **mine})
        assert r.status_code == 400, (r.status_code, len(r.content))
        assert r.json()["detail"] == [{"field": "sql", "message": (
            "the result is larger than the limit of 1,048,576 bytes (query_max_bytes): select fewer rows or "
            "columns, aggregate, or download the table")}]
        # The same as Parquet compresses to a few KB: that is sent.
        r = http.post("/v1/query", json={"sql": wide_nulls(500, 1000), **mine}, headers={"Accept": PARQUET})
        assert r.status_code == 200, r.text
        assert pq.read_table(io.BytesIO(r.content)).shape == (1000, 500)
        # Over the cell limit: refused whatever the format.
        for headers in ({}, {"Accept": PARQUET}):
            r = http.post("/v1/query", json={"sql": wide_nulls(1500, 1000), **mine}, headers=headers)
            assert r.status_code == 400, (headers, r.status_code, len(r.content))
            assert r.json()["detail"] == [{"field": "sql", "message": (
                "the result has more than 1,000,000 cells, rows x columns (query_max_cells): select fewer "
                "columns or rows, or aggregate")}]
        # A result under every limit is whole, values and column order as before.
        r = http.post("/v1/query", json={"sql": "SELECT 1 AS a, NULL AS b, 'x' AS a, 1.5 AS c FROM range(3)",
                                         **mine})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["columns"] == ["a", "b", "a", "c"] and body["rows"] == [[1, None, "x", 1.5]] * 3
        assert body["truncated"] is False and body["jobs"] == mine["jobs"] and body["partial"] == []
    with svc.client(bob) as http:  # another key is served as usual
        t0 = time.monotonic()
        r = http.post("/v1/query", json={"sql": "SELECT count(*) AS n FROM seats", "jobs": [jobs["bob"]["id"]]})
        assert r.status_code == 200 and r.json()["rows"] == [[SPEC["deals"] * 3 * 3]], r.text
        assert time.monotonic() - t0 < 5
    grown = rss_bytes(svc.api.pid) - before
    assert grown < 150 << 20, f"the API grew by {grown >> 20} MiB"


# --------------------------------------------------------------------- 2. download filters

@pytest.mark.parametrize("where", [
    "false UNION ALL SELECT repeat('x', 100000) FROM range(30)",
    "false UNION ALL SELECT bot FROM seats",
    "false UNION ALL BY NAME SELECT repeat('x', 100000) AS bot FROM range(30)",
    "true ORDER BY 1 LIMIT 1",
    "true) UNION ALL (SELECT repeat('x', 100000) FROM range(30)",
    "true\n) UNION ALL (SELECT repeat('x', 100000) FROM range(30)",
    "true, true",
])
def test_a_download_filter_cannot_add_rows(svc: Service, alice: str, jobs: dict[str, dict[str, Any]],
                                           where: str) -> None:
    """``where=false UNION ALL SELECT repeat('x',50000000) FROM range(30)`` served a 1.5 GB CSV and took
    the API to 7.58 GB (here 30 rows of 100 kB). A filter is one condition; it can only drop rows."""
    with svc.client(alice) as http:
        r = http.get(f"/v1/jobs/{jobs['alice']['id']}/tables/seats",
                     params={"columns": "bot", "where": where, "format": "csv"})
        assert r.status_code == 400, (r.status_code, len(r.content))
        detail = r.json()["detail"]
        assert detail[0]["field"] == "where" and detail[0]["message"].startswith(
            "where must be one condition on the table's columns"), detail


def test_a_download_filter_may_still_be_any_condition(svc: Service, alice: str,
                                                      jobs: dict[str, dict[str, Any]]) -> None:
    """What held must still work: conditions, comments, subqueries that only filter."""
    url = f"/v1/jobs/{jobs['alice']['id']}/tables/seats"
    with svc.client(alice) as http:
        for where, rows in (("deal < 5", 5 * 3 * 3), ("deal < 5 -- five deals", 5 * 3 * 3),
                            ("deal IN (SELECT deal FROM deals WHERE deal % 2 = 0)", 30 * 3 * 3),
                            ("seat = 0 AND bot LIKE 'order-poker/%'", SPEC["deals"] * 3)):
            r = http.get(url, params={"columns": "deal,seat", "where": where, "format": "jsonl"})
            assert r.status_code == 200, (where, r.text)
            assert len(r.text.splitlines()) == rows, where


# ------------------------------------------------------------------------ 7. event streams

@contextlib.contextmanager
def open_stream(http: httpx.Client, path: str) -> Iterator[httpx.Response]:
    """An event stream held open; its status and first bytes are read before the body is left alone."""
    with http.stream("GET", path) as r:
        chunks = r.iter_bytes()  # kept: a dropped iterator closes the connection
        if r.status_code == 200:
            assert next(chunks).startswith(b"retry:")
        else:
            r.read()
        yield r


def test_event_streams_are_capped_per_key(svc: Service, alice: str, bob: str,
                                          jobs: dict[str, dict[str, Any]]) -> None:
    """400 event streams of one key were all accepted. A key has ``events_per_key`` (3 here) open at
    once, both SSE routes together; another key is not affected; a closed or ended stream frees its place."""
    done = f"/v1/jobs/{jobs['alice']['id']}/events"
    with contextlib.ExitStack() as held, svc.client(alice) as ha, svc.client(bob) as hb:
        clients = [held.enter_context(svc.client(alice)) for _ in range(STREAMS + 1)]
        streams = [held.enter_context(open_stream(c, "/web/api/events")) for c in clients[:STREAMS]]
        assert [s.status_code for s in streams] == [200] * STREAMS
        for path in ("/web/api/events", done):
            with open_stream(clients[STREAMS], path) as extra:
                assert extra.status_code == 429, path
                assert extra.headers["Retry-After"].isdigit()
                message = extra.json()["detail"][0]["message"]
                assert f"already has {STREAMS} event streams open" in message and "events_per_key" in message
        with open_stream(hb, "/web/api/events") as other:  # bob is not alice
            assert other.status_code == 200
        # Closing one frees its place (noticed within the stream's poll).
        streams[0].close()
        clients[0].close()

        def reopened() -> bool:
            r = ha.get(done)  # a finished job's stream ends at once, and gives its place back
            return r.status_code == 200 and "event: end" in r.text

        wait_for(reopened, 10, "a place after closing a stream")
        for _ in range(STREAMS + 2):
            r = ha.get(done)
            assert r.status_code == 200 and "event: end" in r.text, r.text


# ----------------------------------------------------------------------- 8. minor holes

def test_report_html_has_a_content_security_policy(svc: Service, alice: str, jobs: dict[str, dict[str, Any]]) -> None:
    """report.html had no CSP and no frame-ancestors: any site could frame it."""
    with svc.client(alice) as http:
        r = http.get(f"/v1/jobs/{jobs['alice']['id']}/report.html")
    assert r.status_code == 200 and "<svg" in r.text
    csp = {d.strip().split(" ")[0]: d.strip() for d in r.headers["content-security-policy"].split(";")}
    assert csp["default-src"] == "default-src 'none'" and csp["frame-ancestors"] == "frame-ancestors 'self'"
    assert "sandbox" in csp and "script-src" not in csp
    assert r.headers["x-frame-options"] == "SAMEORIGIN" and r.headers["x-content-type-options"] == "nosniff"


def test_sign_out_needs_the_csrf_header(svc: Service, alice: str) -> None:
    """Any site could sign a user out with a cross-site form: sign-out is a cookie-authenticated POST
    like the others, and needs the page's header too."""
    with httpx.Client(base_url=svc.url) as http:
        assert http.post("/web/session", json={"key": alice}).status_code == 200
        r = http.post("/web/session/end")
        assert r.status_code == 403, r.text
        assert r.json()["detail"] == [{"field": "x-rasklad-web",
                                       "message": "a signed-in page must send the header x-rasklad-web: 1"}]
        assert http.get("/v1/jobs").status_code == 200  # still signed in
        assert http.post("/web/session/end", headers={"X-Rasklad-Web": "1"}).status_code == 200
        assert http.get("/v1/jobs").status_code == 401


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_healthz_is_unready_when_the_data_disk_is_full(tmp_path: Path, small_disk: Path) -> None:
    """``/healthz`` stayed 200 with the data disk full (creating an empty probe file still works
    there). It is the readiness probe: 503 naming the data root while no byte can be written, 200
    again once there is room; ``/livez`` stays 200 throughout."""
    with redis_db() as db:
        s = Service(tmp_path, db, extra_env={"RASKLAD_DATA": str(small_disk), "RASKLAD_RECONCILE_SECONDS": "0",
                                             "RASKLAD_DB": f"sqlite:///{tmp_path / 'jobs.sqlite'}"})
        try:
            s.start_api()
            with httpx.Client(base_url=s.url, timeout=30) as http:
                assert http.get("/healthz").status_code == 200
                filler = small_disk / "filler"
                with open(filler, "wb") as f, contextlib.suppress(OSError):
                    while True:  # until ENOSPC
                        f.write(b"\0" * (1 << 20))
                        f.flush()
                        os.fsync(f.fileno())
                r = http.get("/healthz")
                assert r.status_code == 503, r.text
                body = r.json()
                assert body["status"] == "degraded" and body["checks"]["broker"] == body["checks"]["store"] == "ok"
                assert body["checks"]["data_root"].startswith("error: OSError"), body
                assert "No space left" in body["checks"]["data_root"], body
                assert http.get("/livez").json() == {"status": "alive"}
                filler.unlink()
                assert http.get("/healthz").status_code == 200
        finally:
            s.stop()

