"""An object-store outage pauses jobs, which then finish by themselves (issue 33, "Ready for 50 machines").

Real processes against ``moto_server`` behind ``FaultProxy``: from the moment a shard's commit marker
is first sent, every request is answered ``503`` for ``OUTAGE_S`` seconds (the store is down), then
the store is back. With the default budget (``RASKLAD_S3_OUTAGE_S``, 600 s, which covers a 5-minute
outage; the tests use a shorter outage to stay fast), an embedded ``rasklad run`` and a service job
both wait it out and finish with files byte-identical to a run that never saw an outage, each
saying so in one readable line and no traceback. An outage longer than a lowered budget fails the
run with one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from s3_harness import Fault, FaultProxy, MotoServer, have_moto, moto_server, s3_env
from service_harness import ROOT, Service, redis_db

from sims.embedded import run_job
from sims.settings import Settings
from sims.spec import parse_spec
from storage.layout import job_dir, shard_path
from storage.objectstore import data_root

pytestmark = pytest.mark.skipif(not have_moto(), reason="moto_server is not installed (pip install 'moto[server]')")

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
    "deals": 72, "shard_deals": 12, "seating": "duplicate", "seed": 23,
}
SHARDS = 6
#: How long the store is down in these tests (the default budget is 600 s).
OUTAGE_S = 20.0
#: The one line a waiting process writes when an outage begins (storage.objectstore).
WAITING = "does not answer"


class Outage:
    """A FaultProxy policy: every request answered 503 for ``seconds`` from the first PUT of
    ``trigger`` on (``forever``: never back)."""

    def __init__(self, trigger: str, seconds: float = OUTAGE_S, forever: bool = False) -> None:
        self.trigger, self.seconds, self.forever = trigger, seconds, forever
        self.began: float | None = None
        self.refused = 0
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, n: int) -> Fault | None:
        with self._lock:
            if self.began is None and method == "PUT" and path.endswith(self.trigger):
                self.began = time.monotonic()
            if self.began is not None and (self.forever or time.monotonic() - self.began < self.seconds):
                self.refused += 1
                return Fault(status=503)
        return None


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    with moto_server(tmp_path_factory.mktemp("moto")) as server:
        yield server


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("clean")
    return run_job(parse_spec(SPEC), settings=Settings(data=tmp / "data", db=f"sqlite:///{tmp / 'j.sqlite'}"))


def assert_same_files(moto: MotoServer, bucket: str, job_id: str, clean: Any) -> None:
    env = s3_env(moto.endpoint, bucket)
    jd = job_dir(data_root(Settings(data=Path(env["RASKLAD_DATA"]), s3_endpoint=moto.endpoint, s3_region="us-east-1",
                                    s3_access_key="test", s3_secret_key="test")), job_id)
    for table in ("deals", "seats"):
        for k in range(SHARDS):
            assert shard_path(jd, table, k).read_bytes() == shard_path(clean.job_dir, table, k).read_bytes(), (table, k)
    assert json.loads((jd / "report.json").read_bytes())["leaderboard"] == json.loads(
        (clean.job_dir / "report.json").read_bytes())["leaderboard"]


def cli_run(proxy: FaultProxy, bucket: str, tmp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    spec = tmp / "spec.json"
    spec.write_text(json.dumps(SPEC))
    full = {k: v for k, v in os.environ.items() if k != "RASKLAD_S3_OUTAGE_S"}  # the default, unless ``env`` says
    full.update({**s3_env(proxy.endpoint, bucket), "RASKLAD_DB": f"sqlite:///{tmp / 'cli.sqlite'}",
                 "RASKLAD_S3_RETRIES": "2", **env})
    return subprocess.run([sys.executable, "-m", "rasklad", "run", str(spec), "-w", "1"], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=300)


def test_rasklad_run_waits_out_an_outage_and_finishes_with_exact_files(moto: MotoServer, clean: Any,
                                                                       tmp_path: Path) -> None:
    bucket = moto.bucket()
    outage = Outage("_commits/shard-000002.json")
    proxy = FaultProxy(moto.port, outage)
    try:
        t0 = time.monotonic()
        out = cli_run(proxy, bucket, tmp_path)  # the default budget (RASKLAD_S3_OUTAGE_S=600)
        took = time.monotonic() - t0
    finally:
        proxy.close()
    assert out.returncode == 0, out.stdout + out.stderr
    assert outage.began is not None and outage.refused >= 3 and took >= OUTAGE_S  # it did wait the outage out
    assert f"job {clean.job_id}: succeeded, {SHARDS}/{SHARDS} shards" in out.stdout, out.stdout
    waiting = [line for line in out.stderr.splitlines() if WAITING in line]
    assert len(waiting) == 1, out.stderr  # one readable line while waiting, not one per retry
    assert f"s3://{bucket}/data" in waiting[0] and "503" in waiting[0] and "RASKLAD_S3_OUTAGE_S" in waiting[0]
    assert "Traceback" not in out.stderr and "Debug source" not in out.stderr, out.stderr
    assert_same_files(moto, bucket, clean.job_id, clean)


def test_rasklad_run_gives_up_after_its_budget_in_one_line(moto: MotoServer, tmp_path: Path) -> None:
    bucket = moto.bucket()
    proxy = FaultProxy(moto.port, Outage("_commits/shard-000001.json", forever=True))
    try:
        out = cli_run(proxy, bucket, tmp_path, RASKLAD_S3_OUTAGE_S="4")
    finally:
        proxy.close()
    assert out.returncode == 1, out.stdout + out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the object store ") and "did not answer for" in last, out.stderr
    assert "RASKLAD_S3_OUTAGE_S=4" in last and "503" in last and "resume" in last, last
    assert "Traceback" not in out.stderr and "Debug source" not in out.stderr, out.stderr


def test_a_service_job_waits_out_an_outage_and_finishes_with_exact_rows(moto: MotoServer, clean: Any,
                                                                         tmp_path: Path) -> None:
    """API and a worker with the object store down for OUTAGE_S seconds mid-job (default budget): the
    job pauses and succeeds by itself; the worker says so in one line, the API's reconciler keeps
    running through failed listings (one line each, no traceback)."""
    bucket = moto.bucket()
    outage = Outage("_commits/shard-000002.json")
    proxy = FaultProxy(moto.port, outage)
    with contextlib.ExitStack() as stack:
        stack.callback(proxy.close)
        svc = Service(tmp_path, stack.enter_context(redis_db()), shard_seconds=4.0, visibility=60.0,
                      extra_env={**s3_env(proxy.endpoint, bucket), "RASKLAD_S3_RETRIES": "2"})
        svc.env.pop("RASKLAD_S3_OUTAGE_S", None)
        stack.callback(svc.stop)
        svc.start_api()
        key = svc.create_key("alice")
        svc.start_worker("w1", 1)
        with svc.client(key) as http:
            job_id = http.post("/v1/jobs", json=SPEC).json()["id"]
            job = svc.wait_job(http, job_id, timeout=180)
        assert job["state"] == "succeeded" and job["shards_done"] == SHARDS, (job, svc.dump_logs())
        assert outage.began is not None and outage.refused >= 3
        worker_log = (tmp_path / "worker-w1.log").read_text(errors="replace")
        api_log = (tmp_path / "api.log").read_text(errors="replace")
    # The soft time limit (4 x 4 s) ran out while the shard waited: it was tried again, not failed.
    assert [line for line in worker_log.splitlines() if WAITING in line], worker_log[-3000:]
    assert "Debug source" not in worker_log and "Traceback" not in worker_log, worker_log[-3000:]
    assert "reconcile: " in api_log and "Traceback" not in api_log, api_log[-3000:]
    assert_same_files(moto, bucket, job_id, clean)


def test_each_kind_of_request_waits_out_an_outage_but_not_a_refusal(moto: MotoServer, tmp_path: Path) -> None:
    """In-process, 3 s down: obstore's gets, heads, listings and puts and pyarrow's footer read all wait
    and return what the store holds; a missing object is no outage (raised at once); a root with no
    budget (the API's) raises the client's error at once."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from storage.objectstore import StoreConfig, StoreUnavailable, open_root, parquet_dataset, parquet_rows

    bucket = moto.bucket()
    down = {"until": 0.0}
    proxy = FaultProxy(moto.port, lambda m, p, n: Fault(status=503) if time.monotonic() < down["until"] else None)
    try:
        def root(outage_s: float) -> Any:
            return open_root(f"s3://{bucket}/data", StoreConfig(endpoint=proxy.endpoint, region="us-east-1",
                                                                access_key="t", secret_key="t", retries=1,
                                                                timeout_s=2, outage_s=outage_s))

        patient, api = root(30.0), root(0.0)
        buf = io.BytesIO()
        pq.write_table(pa.table({"a": [1, 2, 3]}), buf)
        patient.put("t/x.parquet", buf.getvalue())
        calls: dict[str, Callable[[], Any]] = {
            "get": lambda: patient.get("t/x.parquet") == buf.getvalue(),
            "size": lambda: patient.size("t/x.parquet") == len(buf.getvalue()),
            "list": lambda: [k for k, _ in patient.list_objects("t")] == ["t/x.parquet"],
            "put": lambda: patient.put("t/y", b"y") and patient.get("t/y") == b"y",
            "footer": lambda: parquet_dataset([patient.path("t/x.parquet")]).schema.names == ["a"],
            "rows": lambda: parquet_rows(patient.path("t/x.parquet")) == 3,
        }
        for name, call in calls.items():
            down["until"] = time.monotonic() + 3.0
            t0 = time.monotonic()
            assert call(), name
            assert time.monotonic() - t0 >= 2.0, name  # it did meet the outage and wait it out
        down["until"] = 0.0
        t0 = time.monotonic()
        with pytest.raises(FileNotFoundError):
            patient.get("t/missing")  # an answer (404), not an outage: raised at once
        assert time.monotonic() - t0 < 2.0
        down["until"] = time.monotonic() + 60.0
        t0 = time.monotonic()
        with pytest.raises(Exception) as refused:
            api.get("t/x.parquet")
        assert not isinstance(refused.value, StoreUnavailable) and time.monotonic() - t0 < 20
        down["until"] = 0.0
    finally:
        proxy.close()
