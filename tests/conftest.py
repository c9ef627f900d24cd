"""Shared pytest setup: ``tests/`` importable in any import mode, and the live service of the
client tests (one real API + worker for every ``test_client_*`` module of a run)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from service_harness import Service, redis_db  # noqa: E402 - needs the path above

#: Limits of the live service, small enough for the client tests to reach them.
MAX_BODY = 65_536
QUERY_MAX_ROWS = 1000
#: The tournament every client test module may read: 8 shards, 1,080 seat rows.
SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
    "deals": 120, "shard_deals": 15, "seating": "duplicate", "seed": 77,
}


@dataclass
class Live:
    """The live service and the keys the client tests use."""

    svc: Service
    alice: str  # many jobs allowed
    bob: str  # another user: alice's jobs are 404 to him
    carol: str  # one unfinished job and 1,000 deals per job at most (429s)
    done: dict[str, Any]  # a succeeded job of alice's (SPEC)

    @property
    def url(self) -> str:
        return self.svc.url

    @property
    def port(self) -> int:
        return self.svc.port

    def job_dir(self, job_id: str) -> Path:
        return self.svc.data / "jobs" / job_id


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A real ``rasklad serve`` and one real Celery worker (2 processes) on a private Redis DB."""
    env = {"RASKLAD_MAX_BODY_BYTES": str(MAX_BODY), "RASKLAD_QUERY_MAX_ROWS": str(QUERY_MAX_ROWS),
           # crashbot: a bot that SIGKILLs its worker, for a job that really fails (one retry).
           "PYTHONPATH": _TESTS, "RASKLAD_BOT_MODULES": "crashbot", "RASKLAD_MAX_DELIVERIES": "1"}
    with redis_db() as db:
        s = Service(tmp_path_factory.mktemp("live"), db, extra_env=env)
        try:
            s.start_api()
            s.start_worker("w1", 2)
            alice = s.create_key("alice", "--max-jobs", "1000")
            bob = s.create_key("bob")
            carol = s.create_key("carol", "--max-jobs", "1", "--max-deals", "1000")
            s.wait_worker_ready("w1")
            with s.client(alice) as http:
                r = http.post("/v1/jobs", json=SPEC)
                assert r.status_code == 202, r.text
                done = s.wait_job(http, r.json()["id"])
            assert done["state"] == "succeeded", s.dump_logs()
            yield Live(s, alice, bob, carol, done)
        finally:
            s.stop()
