"""What operators run the service by: JSON log lines (``RASKLAD_LOG_FORMAT=json``) and the backlog an
autoscaler reads (``GET /metrics/backlog``; deploy/k8s/keda), with a real API and worker."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from service_harness import Service, redis_db

from sims.logs import JSON_FIELDS

SPEC = {"kind": "tournament", "game": "order-poker", "players": 3,
        "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
        "deals": 48, "shard_deals": 6, "seating": "duplicate", "seed": 5}

#: What a process prints that is no log record: Celery's warning about running as root (uid 0 only;
#: the images run as uid 10001) and its shutdown notice.
NOT_RECORDS = ("SecurityWarning", "absolutely not recommended", "Please specify a different user",
               "User information: uid=0", "_warn_or_raise_security_error", "worker: Warm shutdown")


def records(log: Path, since: datetime) -> list[dict[str, Any]]:
    """Every record of ``log``, each checked: one JSON object a line with the documented keys and a UTC
    timestamp from this test; a line that is not JSON must be one of the known non-records."""
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        if not line.startswith("{"):
            assert any(s in line for s in NOT_RECORDS), f"{log.name}: not a JSON record: {line!r}"
            continue
        rec = json.loads(line)
        assert set(JSON_FIELDS) <= set(rec), rec
        ts = datetime.fromisoformat(rec["ts"])
        assert ts.utcoffset() == timedelta(0) and since - timedelta(seconds=5) <= ts <= datetime.now(UTC), rec
        assert rec["level"] in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"), rec
        out.append(rec)
    return out


def test_json_logs_and_the_backlog_an_autoscaler_reads(tmp_path: Path) -> None:
    since = datetime.now(UTC)
    with redis_db() as db:
        svc = Service(tmp_path, db, extra_env={"RASKLAD_LOG_FORMAT": "json"})
        try:
            svc.start_api()
            key = svc.create_key("alice")
            with svc.client(key) as http:
                assert http.get("/metrics/backlog").json() == {"backlog_shards": 0, "active_jobs": 0,
                                                              "queued_messages": 0}
                job = http.post("/v1/jobs", json=SPEC).json()
                assert job["shards_total"] == 8
                # No worker yet: the whole job is backlog, of which one window (RASKLAD_JOB_WINDOW,
                # 4) is in the broker.
                assert http.get("/metrics/backlog").json() == {"backlog_shards": 8, "active_jobs": 1,
                                                              "queued_messages": 4}
                svc.start_worker("w1", 1)
                assert svc.wait_job(http, job["id"])["state"] == "succeeded"
                assert http.get("/metrics/backlog").json() == {"backlog_shards": 0, "active_jobs": 0,
                                                              "queued_messages": 0}
        finally:
            svc.stop()
    api = records(tmp_path / "api.log", since)
    worker = records(tmp_path / "worker-w1.log", since)
    assert any(r["logger"].startswith("uvicorn") and "Application startup complete" in r["message"] for r in api)
    assert any(r["message"].endswith("ready.") for r in worker)
    # The pool process's task records too (forked after the logging was set up).
    done = [r for r in worker if "rasklad.run_shard" in r["message"] and "succeeded" in r["message"]]
    assert len(done) >= 8, worker  # eight shards
    assert {r["process"] for r in done}.isdisjoint({r["process"] for r in worker if r["message"].endswith("ready.")})
