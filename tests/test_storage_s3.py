"""The object-store data root (``s3://bucket/prefix``) against a real S3 server process (moto_server).

Nothing is mocked: rasklad's clients (obstore, pyarrow) speak HTTP to ``moto_server``, sometimes
through ``FaultProxy``, which answers 500/503, stalls, or cuts a PUT short for the requests a
test picks. Checked here: an embedded job writes byte-identical shard files and gives the same
SQL results as the local root; racing attempts at one shard and racing finalisers leave one
commit marker and one report; a writer killed mid-PUT leaves no object; 5xx answers and timeouts
are retried with backoff; listings page past 1,000 keys; the SQL sandbox stays locked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from s3_harness import Fault, FaultProxy, MotoServer, have_moto, moto_server, s3_env
from service_harness import ROOT, _die_with_parent, wait_for

from sims.embedded import run_job
from sims.settings import Settings
from sims.spec import parse_spec
from storage.layout import job_dir, shard_path
from storage.objectstore import ObjectPath, create_once, data_root, open_root
from storage.parquet import (
    COMMITS,
    ShardConflict,
    committed_shards,
    job_tables_on_disk,
    read_table,
    shard_files,
    write_shards,
)
from storage.query import QueryError, run_query

pytestmark = pytest.mark.skipif(not have_moto(), reason="moto_server is not installed (pip install 'moto[server]')")

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
    "deals": 96, "shard_deals": 12, "seating": "duplicate", "seed": 19,
}
SHARDS = 8
ROWS = 96 * 3 * 3  # deals x rotations x seats


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    with moto_server(tmp_path_factory.mktemp("moto")) as server:
        yield server


def s3_settings(endpoint: str, bucket: str, tmp: Path, **kw: Any) -> Settings:
    env = s3_env(endpoint, bucket)
    return Settings(data=Path(env["RASKLAD_DATA"]), db=f"sqlite:///{tmp / 'jobs.sqlite'}", s3_endpoint=endpoint,
                    s3_region="us-east-1", s3_access_key="test", s3_secret_key="test", **kw)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("local")
    return run_job(parse_spec(SPEC), settings=Settings(data=tmp / "data", db=f"sqlite:///{tmp / 'j.sqlite'}"))


def tiny(k: int, n: int = 2) -> dict[str, pa.Table]:
    return {"deals": pa.table({"deal": pa.array(range(k * n, k * n + n), pa.int64())}),
            "seats": pa.table({"deal": pa.array(range(k * n, k * n + n), pa.int64()), "score": [k] * n})}


def test_data_root_url_survives_path_and_names_the_bucket(tmp_path: Path) -> None:
    s = s3_settings("http://127.0.0.1:1", "bkt", tmp_path)
    root = data_root(s)
    assert isinstance(root, ObjectPath) and str(root) == "s3://bkt/data" and s.data_is_remote
    assert str(job_dir(root, "j1")) == "s3://bkt/data/jobs/j1"
    assert s.db_url.startswith("sqlite:///") and "s3:" not in s.db_url
    with pytest.raises(ValueError, match="names no bucket"):
        open_root("s3://", s.store_config())
    with pytest.raises(ValueError, match="names no bucket"):  # typer's --data makes it Path("s3:")
        data_root(s.with_data(Path("s3://")))


def test_embedded_run_is_byte_identical_to_the_local_root(moto: MotoServer, local_run: Any, tmp_path: Path) -> None:
    bucket = moto.bucket()
    res = run_job(parse_spec(SPEC), settings=s3_settings(moto.endpoint, bucket, tmp_path))
    assert res.state == "succeeded" and res.job_id == local_run.job_id and res.shards_done == SHARDS
    jd, local = res.job_dir, local_run.job_dir
    assert isinstance(jd, ObjectPath)
    for table in ("deals", "seats"):
        for k in range(SHARDS):
            assert shard_path(jd, table, k).read_bytes() == shard_path(local, table, k).read_bytes(), (table, k)
    assert committed_shards(jd, ["deals", "seats"]) == set(range(SHARDS))
    assert read_table(jd, "seats").num_rows == ROWS
    assert json.loads((jd / "report.json").read_bytes()) == json.loads((local / "report.json").read_bytes())
    assert (jd / "summary.parquet").read_bytes() == (local / "summary.parquet").read_bytes()
    keys = moto.keys(bucket)
    assert len([k for k in keys if f"/{COMMITS}/" in k]) == SHARDS
    assert not [k for k in keys if ".tmp" in k]  # no temporary objects on a store
    # Resuming the finished job touches nothing and still succeeds.
    again = run_job(parse_spec(SPEC), settings=s3_settings(moto.endpoint, bucket, tmp_path))
    assert again.state == "succeeded" and again.skipped == SHARDS


def test_sql_and_streams_over_the_store_match_the_local_root(moto: MotoServer, local_run: Any,
                                                              tmp_path: Path) -> None:
    bucket = moto.bucket()
    res = run_job(parse_spec(SPEC), settings=s3_settings(moto.endpoint, bucket, tmp_path))
    sql = "SELECT bot, count(*) AS n, sum(score) AS total FROM seats GROUP BY bot ORDER BY bot"
    remote = run_query(sql, {res.job_id: res.job_dir})
    local = run_query(sql, {res.job_id: local_run.job_dir})
    assert remote.to_pylist() == local.to_pylist() and sum(r["n"] for r in remote.to_pylist()) == ROWS
    both = run_query("SELECT job_id, count(*) AS n FROM seats GROUP BY job_id ORDER BY job_id",
                     {"a" + res.job_id: res.job_dir, "b" + res.job_id: local_run.job_dir})
    assert [r["n"] for r in both.to_pylist()] == [ROWS, ROWS]
    # The sandbox is as locked as for local files: no file or network access of the query's own.
    url = str(shard_path(res.job_dir, "seats", 0))
    for bad in (f"SELECT * FROM read_parquet('{url}')", "SELECT * FROM read_csv('/etc/passwd')",
                "SELECT * FROM __rasklad_seats_0"):
        with pytest.raises(QueryError):
            run_query(bad, {res.job_id: res.job_dir})


def test_racing_attempts_at_one_shard_leave_one_marker(moto: MotoServer, tmp_path: Path) -> None:
    root = data_root(s3_settings(moto.endpoint, moto.bucket(), tmp_path))
    jd = job_dir(root, "race")
    barrier = threading.Barrier(2)
    created: list[bool] = []
    errors: list[BaseException] = []

    def attempt() -> None:
        from storage.parquet import commit_marker, write_shard

        try:
            infos = {t: write_shard(jd, t, 3, data) for t, data in sorted(tiny(3).items())}
            barrier.wait()  # both have written their files: now both try to commit
            created.append(commit_marker(jd, 3, infos))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert sorted(created) == [False, True]  # If-None-Match: exactly one attempt created the marker
    assert committed_shards(jd, ["deals", "seats"]) == {3}
    assert read_table(jd, "seats").column("score").to_pylist() == [3, 3]
    # A third attempt that wrote other bytes for the same shard is refused, naming the shard.
    with pytest.raises(ShardConflict, match="shard 3"):
        write_shards(jd, 3, {"deals": tiny(3)["deals"], "seats": tiny(4)["seats"]})


@pytest.mark.parametrize("where", ["s3", "local"])
def test_racing_finalisers_create_the_report_once(moto: MotoServer, tmp_path: Path, where: str) -> None:
    if where == "s3":
        jd = job_dir(data_root(s3_settings(moto.endpoint, moto.bucket(), tmp_path)), "fin")
    else:
        jd = tmp_path / "jobs" / "fin"
    barrier = threading.Barrier(8)
    won: list[bool] = []

    def finaliser(i: int) -> None:
        barrier.wait()
        won.append(create_once(jd / "report.json", json.dumps({"by": i}).encode()))

    threads = [threading.Thread(target=finaliser, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(won) == [False] * 7 + [True]
    assert json.loads((jd / "report.json").read_bytes())["by"] in range(8)


def test_listing_pages_past_1000_keys(moto: MotoServer, tmp_path: Path) -> None:
    bucket = moto.bucket()
    proxy = FaultProxy(moto.port)
    try:
        settings = s3_settings(proxy.endpoint, bucket, tmp_path)
        jd = job_dir(data_root(settings), "many")
        assert isinstance(jd, ObjectPath)
        n = 1_050
        # The markers and files straight through the store (no Parquet encoding: only names count here).
        from concurrent.futures import ThreadPoolExecutor

        def put(k: int) -> None:
            root = jd.root
            root.put(f"{jd.key}/seats/shard-{k:06d}.parquet", b"x")
            root.put(f"{jd.key}/{COMMITS}/shard-{k:06d}.json", b"{}")

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(put, range(n)))
        before = proxy.count("GET", f"/{bucket}")
        assert sorted(shard_files(jd, "seats")) == list(range(n))
        assert committed_shards(jd, ["seats"]) == set(range(n))
        assert job_tables_on_disk(jd) == ["seats"]
        lists = proxy.count("GET", f"/{bucket}") - before
        assert lists >= 4  # two listings of 1,050 keys: at least two pages each
        assert len(moto.keys(bucket)) == 2 * n
    finally:
        proxy.close()


def test_5xx_and_timeouts_are_retried_and_the_job_completes(moto: MotoServer, local_run: Any,
                                                            tmp_path: Path) -> None:
    bucket = moto.bucket()

    def policy(method: str, path: str, n: int) -> Fault | None:
        if method == "PUT" and path.endswith(".parquet") and n < 2:
            return Fault(status=503 if n == 0 else 500)  # every shard file: 503, then 500, then OK
        if method == "PUT" and "/_commits/" in path and n == 0:
            return Fault(stall_s=4.0)  # longer than the client's timeout below
        if method == "GET" and "list-type=2" not in path and path.endswith(".parquet") and n == 0:
            return Fault(status=503)
        return None

    proxy = FaultProxy(moto.port, policy)
    try:
        settings = s3_settings(proxy.endpoint, bucket, tmp_path, s3_timeout_s=1.5, s3_retries=6)
        res = run_job(parse_spec(SPEC), settings=settings)
    finally:
        proxy.close()
    assert res.state == "succeeded"
    kinds = [w.split()[0] for _m, _p, w in proxy.injected]
    assert kinds.count("status") >= 2 * 2 * SHARDS and kinds.count("stall") == SHARDS
    # Every shard file was sent three times (two failures, one success) and is byte-identical.
    assert proxy.count("PUT", "shard-000005.parquet") == 2 * 3
    direct = data_root(s3_settings(moto.endpoint, bucket, tmp_path))
    jd = job_dir(direct, res.job_id)
    for k in range(SHARDS):
        assert shard_path(jd, "seats", k).read_bytes() == shard_path(local_run.job_dir, "seats", k).read_bytes()


_WRITER = """
import sys
from pathlib import Path
import pyarrow as pa
from sims.settings import Settings
from storage.layout import job_dir
from storage.objectstore import data_root
from storage.parquet import write_shards
s = Settings(data=Path(sys.argv[1]), s3_endpoint=sys.argv[2], s3_region="us-east-1", s3_access_key="test",
             s3_secret_key="test", s3_timeout_s=60)
t = pa.table({"deal": pa.array(range(400_000), pa.int64())})
write_shards(job_dir(data_root(s), "killed"), 0, {"deals": t, "seats": t})
print("done", flush=True)
"""


def test_a_writer_killed_mid_put_leaves_no_half_file(moto: MotoServer, tmp_path: Path) -> None:
    bucket = moto.bucket()
    release = threading.Event()

    def policy(method: str, path: str, n: int) -> Fault | None:
        if method == "PUT" and path.endswith("deals/shard-000000.parquet"):
            return Fault(body_bytes=100_000, hold=release)  # part of the body, then nothing
        return None

    proxy = FaultProxy(moto.port, policy)
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, f"s3://{bucket}/data", proxy.endpoint], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                preexec_fn=_die_with_parent)
        wait_for(proxy.held.is_set, 60, "the writer's PUT to be half sent")
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        release.set()  # the proxy now drops the half-sent upload
        wait_for(lambda: proxy.injected, 10, "the cut")
    finally:
        proxy.close()
    jd = job_dir(data_root(s3_settings(moto.endpoint, bucket, tmp_path)), "killed")
    assert moto.keys(bucket) == []  # no half file, no marker
    assert committed_shards(jd, ["deals", "seats"]) == set()
    # The retried shard then commits whole.
    t = pa.table({"deal": pa.array(range(400_000), pa.int64())})
    write_shards(jd, 0, {"deals": t, "seats": t})
    assert pq.read_table(pa.BufferReader(shard_path(jd, "deals", 0).read_bytes())).equals(t)
    assert committed_shards(jd, ["deals", "seats"]) == {0}


def test_service_run_with_the_store_matches_the_local_root(moto: MotoServer, local_run: Any, tmp_path: Path) -> None:
    """API and two workers with only the object store between them: same files, same rows."""
    from service_harness import Service, redis_db

    bucket = moto.bucket()
    with redis_db() as db:
        svc = Service(tmp_path, db, extra_env=s3_env(moto.endpoint, bucket))
        try:
            svc.start_api()
            svc.start_worker("w1", 1)
            svc.start_worker("w2", 1)
            key = svc.create_key("alice")
            with svc.client(key) as http:
                r = http.post("/v1/jobs", json=SPEC)
                assert r.status_code in (200, 201, 202), r.text
                job = svc.wait_job(http, r.json()["id"])
                assert job["state"] == "succeeded", job
                health = http.get("/healthz").json()
                assert health["checks"]["data_root"] == "ok", health
                got = http.get(f"/v1/jobs/{job['id']}/tables/seats", params={"format": "parquet"})
                assert got.status_code == 200, got.text
                html = http.get(f"/v1/jobs/{job['id']}/report.html")
                assert html.status_code == 200 and html.text.startswith("<!DOCTYPE html>")
                report = http.get(f"/v1/jobs/{job['id']}/report").json()
                q = http.post("/v1/query", json={"sql": "SELECT count(*) AS n FROM seats", "jobs": [job["id"]]})
                assert q.status_code == 200 and q.json()["rows"] == [[ROWS]], q.text
        finally:
            svc.stop()
    jd = job_dir(data_root(s3_settings(moto.endpoint, bucket, tmp_path)), job["id"])
    for table in ("deals", "seats"):
        for k in range(SHARDS):
            assert shard_path(jd, table, k).read_bytes() == shard_path(local_run.job_dir, table, k).read_bytes()
    assert html.content == (jd / "report.html").read_bytes()  # streamed from the store
    downloaded = pq.read_table(pa.BufferReader(got.content))
    assert downloaded.num_rows == ROWS
    order = [("deal", "ascending"), ("rotation", "ascending"), ("seat", "ascending")]
    # Same rows, same values (the download's schema drops the NOT NULL flags of the keys).
    assert downloaded.sort_by(order).to_pydict() == read_table(local_run.job_dir, "seats").to_pydict()
    local_report = json.loads((local_run.job_dir / "report.json").read_bytes())
    assert report["leaderboard"] == local_report["leaderboard"]
    assert not (tmp_path / "data" / "jobs").exists()  # nothing of the job on the local disk


def test_cli_run_query_and_export_with_an_s3_data_root(moto: MotoServer, local_run: Any, tmp_path: Path) -> None:
    """``--data s3://bucket/prefix`` through the CLI (typer makes it a Path: the URL must survive)."""
    bucket = moto.bucket()
    env = {**os.environ, **s3_env(moto.endpoint, bucket), "RASKLAD_DB": f"sqlite:///{tmp_path / 'cli.sqlite'}"}
    env.pop("RASKLAD_DATA")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rasklad", *args, "--data", f"s3://{bucket}/data"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=300)

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    out = cli("run", str(spec))
    assert out.returncode == 0, out.stderr
    assert f"s3://{bucket}/data/jobs/{local_run.job_id}/report.html" in out.stdout
    out = cli("export", local_run.job_id, "-o", str(tmp_path / "all.parquet"))
    assert out.returncode == 0, out.stderr
    exported = pq.read_table(tmp_path / "all.parquet")
    assert exported.num_rows == ROWS
    assert exported.column("score").to_pylist() == read_table(local_run.job_dir, "seats").column("score").to_pylist()
    out = cli("query", local_run.job_id[:8], "SELECT count(*) AS n FROM seats")
    assert out.returncode == 0 and str(ROWS) in out.stdout, out.stdout + out.stderr
    assert not (ROOT / "s3:").exists() and not (tmp_path / "s3:").exists()  # never a local "s3:" folder


def test_a_query_reads_no_file_metadata_one_request_at_a_time(moto: MotoServer, tmp_path: Path) -> None:
    """Query datasets know their files' sizes from the listing: no HEAD request per shard file."""
    bucket = moto.bucket()
    res = run_job(parse_spec(SPEC), settings=s3_settings(moto.endpoint, bucket, tmp_path))
    proxy = FaultProxy(moto.port)
    try:
        jd = job_dir(data_root(s3_settings(proxy.endpoint, bucket, tmp_path)), res.job_id)
        got = run_query("SELECT sum(score) AS s, count(*) AS n FROM seats", {res.job_id: jd}).to_pylist()
    finally:
        proxy.close()
    assert got[0]["n"] == ROWS
    assert proxy.count("HEAD", ".parquet") == 0
    assert proxy.count("GET", "seats/shard-") >= SHARDS  # the data itself: ranged GETs of every file


def test_a_deal_stats_job_on_the_store_reports_as_on_the_local_root(moto: MotoServer, tmp_path: Path) -> None:
    import yaml

    spec = parse_spec(yaml.safe_load((ROOT / "examples" / "dice-poker-reach.yaml").read_text()))
    remote = run_job(spec, settings=s3_settings(moto.endpoint, moto.bucket(), tmp_path))
    local = run_job(spec, settings=Settings(data=tmp_path / "data", db=f"sqlite:///{tmp_path / 'l.sqlite'}"))
    assert remote.state == local.state == "succeeded"
    assert job_tables_on_disk(remote.job_dir) == job_tables_on_disk(local.job_dir)
    assert json.loads((remote.job_dir / "report.json").read_bytes()) == json.loads(
        (local.job_dir / "report.json").read_bytes())


def test_a_celery_worker_killed_mid_put_leaves_no_half_file_and_the_job_completes(
        moto: MotoServer, local_run: Any, tmp_path: Path) -> None:
    from service_harness import Service, redis_db

    bucket = moto.bucket()
    release = threading.Event()

    def policy(method: str, path: str, n: int) -> Fault | None:
        if method == "PUT" and path.endswith("seats/shard-000003.parquet") and n == 0:
            return Fault(body_bytes=2_000, hold=release)
        return None

    proxy = FaultProxy(moto.port, policy)
    with redis_db() as db:
        svc = Service(tmp_path, db, extra_env=s3_env(proxy.endpoint, bucket))
        try:
            svc.start_api()
            svc.start_worker("w1", 1)
            key = svc.create_key("alice")
            with svc.client(key) as http:
                job_id = http.post("/v1/jobs", json=SPEC).json()["id"]
                wait_for(proxy.held.is_set, 120, "shard 3's seats PUT to be half sent")
                svc.kill_worker("w1")  # SIGKILL to the whole worker, mid-PUT
                release.set()
                wait_for(lambda: proxy.injected, 10, "the cut")
                prefix = f"data/jobs/{job_id}/"
                keys = moto.keys(bucket, prefix)
                assert f"{prefix}seats/shard-000003.parquet" not in keys  # no half file
                assert f"{prefix}_commits/shard-000003.json" not in keys
                svc.start_worker("w2", 1)  # the unacknowledged shard is redelivered to it
                job = svc.wait_job(http, job_id)
        finally:
            svc.stop()
            proxy.close()
    assert job["state"] == "succeeded" and job["shards_done"] == SHARDS, job
    jd = job_dir(data_root(s3_settings(moto.endpoint, bucket, tmp_path)), job_id)
    for table in ("deals", "seats"):
        for k in range(SHARDS):
            assert shard_path(jd, table, k).read_bytes() == shard_path(local_run.job_dir, table, k).read_bytes()
