"""The window follows the fleet (issue 33, "Ready for 50 machines"): one job spreads over every free worker
process, not over ``RASKLAD_JOB_WINDOW`` (4) of them.

Three real workers of two processes each (a fleet of 6) and the default ``RASKLAD_JOB_WINDOW`` of 4:
the job store's leases (one per shard a worker process holds) show the one job holding 6 at once.
The rows are those of an uninterrupted embedded run.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from service_harness import Service, redis_db, wait_for

from sims.embedded import open_store, run_job
from sims.settings import Settings
from sims.spec import parse_spec
from storage.jobstore import JobStore
from workers.tracking import Tracker

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/heuristic", "order-poker/random"],
    "deals": 4800, "shard_deals": 200, "seating": "duplicate", "seed": 41,
}
SHARDS = 24
FLEET = {"w1": 2, "w2": 2, "w3": 2}


def test_one_job_holds_a_lease_on_every_worker_process_of_the_fleet(tmp_path: Path) -> None:
    assert Settings().job_window == 4  # the default: the job must go past it
    with contextlib.ExitStack() as stack:
        svc = Service(tmp_path, stack.enter_context(redis_db()), shard_seconds=30.0, visibility=300.0)
        stack.callback(svc.stop)
        svc.start_api()
        key = svc.create_key("alice")
        for name, processes in FLEET.items():
            svc.start_worker(name, processes)
        tracker = Tracker(svc.broker)
        fleet = wait_for(lambda: len(f := tracker.fleet()) == len(FLEET) and f, 90, "every worker in the fleet")
        assert sorted(fleet.values()) == sorted(FLEET.values()), fleet
        store = JobStore(svc.env["RASKLAD_DB"])
        most = 0
        with svc.client(key) as http:
            job_id = http.post("/v1/jobs", json=SPEC).json()["id"]
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline:
                held = [r for r in store.running_shards() if r["job_id"] == job_id]
                most = max(most, len(held))
                job = http.get(f"/v1/jobs/{job_id}").json()
                if job["state"] in ("succeeded", "failed", "cancelled") or most >= sum(FLEET.values()):
                    break
                time.sleep(0.05)
            final = svc.wait_job(http, job_id, timeout=240)
        assert most == sum(FLEET.values()), f"the job held at most {most} leases at once"
        assert final["state"] == "succeeded" and final["shards_done"] == SHARDS, (final, svc.dump_logs())
        clean = run_job(parse_spec(SPEC), data=tmp_path / "clean", workers=1)
        assert store.recorded_shards(job_id) == open_store(Settings(data=tmp_path / "clean")).recorded_shards(
            clean.job_id)
