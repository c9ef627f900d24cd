"""Three hosts, no shared filesystem: a tournament survives a cut link and a SIGKILLed worker.

Host "hub" (a network namespace) runs the API, Redis, a PostgreSQL job store and the S3 endpoint
(moto_server); hosts "w1" and "w2" each run one ``rasklad worker`` and reach the hub only through
their own veth pair. The data root is ``s3://bucket/data`` for every process: the only thing the
hosts share is the network. A tournament of 200 shards runs; mid-job w1's link is cut and later
restored, and w2's worker is SIGKILLed and started again. The job must end with exactly
deals x rotations x seats rows, no duplicate (deal, rotation, seat), every shard file
byte-identical to an embedded ``rasklad run`` of the same spec, and no namespace left behind.
Skipped, with the reason, where namespaces cannot be made (not root, no iproute2, a container
without CAP_SYS_ADMIN) or a server binary is missing.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from multihost.cluster import PORTS, cluster, env_for, start_worker, tail_logs, why_skip
from service_harness import ROOT, wait_for

from sims.embedded import run_job
from sims.settings import Settings
from sims.spec import parse_spec
from storage.layout import job_dir
from storage.objectstore import data_root
from storage.parquet import committed_shards, read_table
from storage.query import run_query

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
    "deals": 400, "shard_deals": 2, "seating": "duplicate", "seed": 2019,
}
SHARDS = 200
ROWS = 400 * 3 * 3  # deals x rotations (duplicate seating: one per seat) x seats
_SKIP = why_skip()
pytestmark = [pytest.mark.skipif(_SKIP is not None, reason=_SKIP or ""), pytest.mark.timeout(300)]


def test_two_worker_hosts_cut_link_and_sigkill(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    with cluster(logs) as (hosts, workers):
        hub = hosts.hub_address("test")
        key_env = env_for(hub)
        out = subprocess.run([sys.executable, "-m", "rasklad", "keys", "create", "--name", "alice"], cwd=ROOT,
                             env=key_env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        http = httpx.Client(base_url=f"http://{hub}:{PORTS['api']}", timeout=30,
                            headers={"Authorization": f"Bearer {out.stdout.strip()}"})
        r = http.post("/v1/jobs", json=SPEC)
        assert r.status_code in (200, 201, 202), r.text
        job_id = r.json()["id"]

        def done_at_least(n: int) -> bool:
            j = http.get(f"/v1/jobs/{job_id}").json()
            assert j["state"] in ("queued", "running", "succeeded"), j
            return int(j["shards_done"]) >= n

        t0 = time.monotonic()
        try:
            wait_for(lambda: done_at_least(30), 120, "30 shards", 0.2)
            print(f"30 shards after {time.monotonic() - t0:.1f} s", file=sys.stderr)
            hosts.set_link("w1", up=False)  # w1 is cut off mid-job
            before = http.get(f"/v1/jobs/{job_id}").json()["shards_done"]
            time.sleep(6)
            during = http.get(f"/v1/jobs/{job_id}").json()["shards_done"]
            hosts.set_link("w1", up=True)
            assert during > before, "w2 made no progress while w1 was cut off"
            wait_for(lambda: done_at_least(min(during + 40, SHARDS - 50)), 120, "progress after the restore", 0.2)
            assert http.get(f"/v1/jobs/{job_id}").json()["state"] == "running"
            hosts.kill(workers["w2"], signal.SIGKILL)  # the other host's worker dies mid-job
            time.sleep(2)
            workers["w2"] = start_worker(hosts, "w2", logs)
            wait_for(lambda: http.get(f"/v1/jobs/{job_id}").json()["state"] in ("succeeded", "failed"), 180,
                     "the job to finish", 0.5)
            job = http.get(f"/v1/jobs/{job_id}").json()
            print(f"job done after {time.monotonic() - t0:.1f} s", file=sys.stderr)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{tail_logs(logs)}") from None
        assert job["state"] == "succeeded", f"{job}\n{tail_logs(logs)}"
        assert job["shards_done"] == job["shards_total"] == SHARDS
        remote = Settings(data=Path("s3://rasklad-multihost/data"), s3_endpoint=f"http://{hub}:{PORTS['s3']}",
                          s3_region="us-east-1", s3_access_key="test", s3_secret_key="test")
        jd = job_dir(data_root(remote), job_id)
        assert committed_shards(jd, ["deals", "seats"]) == set(range(SHARDS))
        counts = run_query("SELECT count(*) AS n, count(DISTINCT (deal, rotation, seat)) AS keys FROM seats",
                           {job_id: jd}).to_pylist()
        assert counts == [{"n": ROWS, "keys": ROWS}]  # exact count, no duplicate keys
        seats = read_table(jd, "seats")
        deals = read_table(jd, "deals")
        http.close()
    # The same spec by `rasklad run` (embedded, local folder): the very same rows.
    t1 = time.monotonic()
    local = run_job(parse_spec(SPEC), settings=Settings(data=tmp_path / "local",
                                                        db=f"sqlite:///{tmp_path / 'local.sqlite'}"), workers=2)
    assert local.state == "succeeded"
    print(f"reference run {time.monotonic() - t1:.1f} s", file=sys.stderr)
    assert seats.to_pydict() == read_table(local.job_dir, "seats").to_pydict()
    assert deals.to_pydict() == read_table(local.job_dir, "deals").to_pydict()
    assert seats.num_rows == ROWS
