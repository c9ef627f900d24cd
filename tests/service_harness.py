"""Real processes for the service tests: Redis databases, uvicorn API, Celery workers.

Nothing here is a mock: the API is ``python -m rasklad serve`` over loopback HTTP, workers
are ``python -m rasklad worker`` (real Celery prefork pools), the broker is Redis. Each
test run takes a Redis database number of its own (a claim key with a TTL in database 0),
so concurrent runs on one machine never see each other's queues.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import redis

REDIS_HOST = "127.0.0.1"
REDIS_PORT = 6379
ROOT = Path(__file__).resolve().parent.parent
#: Keys in Redis database 0 that claim databases 1..15 for one test each (see ``redis_db``).
CLAIM_PREFIX = "rasklad:test-db-claim:"


def _die_with_parent() -> None:
    """In the child: get SIGKILL when the test process dies, so no worker outlives a run."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _end_group(p: subprocess.Popen[bytes], sig: int, grace: float = 30) -> None:
    """Send ``sig`` to the process group of ``p``; SIGKILL the group if ``p`` has not exited
    within ``grace`` seconds, and always SIGKILL what is left of the group (pool children)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, sig)
    with contextlib.suppress(subprocess.TimeoutExpired):
        p.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def redis_db(port: int = REDIS_PORT) -> Iterator[int]:
    """A Redis database number nobody else uses now, flushed, for the duration of the block.

    The claim is a key with a TTL in database 0 (``rasklad:test-db-claim:<n>``), not in the
    claimed database itself: a test that flushes its own database (the reconciler test does)
    must not release the claim, or a concurrent test would take the same number and the two
    services would consume each other's messages (two CI failures at once, fixed here).
    """
    token = uuid.uuid4().hex
    claims = redis.Redis(host=REDIS_HOST, port=port, db=0)
    for db in range(15, 0, -1):
        claim = f"{CLAIM_PREFIX}{db}"
        if claims.set(claim, token, nx=True, ex=3600):
            r = redis.Redis(host=REDIS_HOST, port=port, db=db)
            r.flushdb()
            try:
                yield db
            finally:
                with contextlib.suppress(redis.RedisError):
                    r.flushdb()
                    if claims.get(claim) == token.encode():
                        claims.delete(claim)
            return
    raise RuntimeError("every Redis database 1..15 is claimed by another test run")


def wait_for(predicate: Any, timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as e:  # not up yet
            last = e
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


class Service:
    """An API and workers sharing one data root, one job store and one Redis database."""

    def __init__(self, tmp: Path, db: int, *, redis_port: int = REDIS_PORT, shard_seconds: float = 2.0,
                 visibility: float = 12.0, extra_env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.data = tmp / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.broker = f"redis://{REDIS_HOST}:{redis_port}/{db}"
        self.redis = redis.Redis(host=REDIS_HOST, port=redis_port, db=db, decode_responses=True)
        self.env = {
            **os.environ,
            "RASKLAD_DATA": str(self.data),
            "RASKLAD_DB": f"sqlite:///{self.data / 'jobs.sqlite'}",
            "RASKLAD_BROKER": self.broker,
            "RASKLAD_SHARD_SECONDS": str(shard_seconds),
            "RASKLAD_VISIBILITY_TIMEOUT": str(visibility),
            "RASKLAD_RESTORE_INTERVAL": "1",
            # The full reconciler every 2 s (a lost broker's shards come back sooner); leases are the
            # defaults' (6 s, renewed every 1.5 s, reaped every 2 s).
            "RASKLAD_RECONCILE_SECONDS": "2",
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        }
        self.api: subprocess.Popen[bytes] | None = None
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: list[Path] = []

    # -------------------------------------------------------------------------------- processes

    def _spawn(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        log = self.tmp / f"{name}.log"
        self.logs.append(log)
        fh = open(log, "ab")  # noqa: SIM115 - the process owns it until it exits
        return subprocess.Popen([sys.executable, "-m", "rasklad", *args], cwd=ROOT, env=self.env,
                                stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_die_with_parent)

    def start_api(self, *args: str) -> None:
        """Start ``rasklad serve`` on this service's port (``args``: more options, e.g. --workers 2)."""
        self.api = self._spawn("api", "serve", "--port", str(self.port), *args)
        wait_for(lambda: httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200, 60, "the API")

    def start_worker(self, name: str, concurrency: int = 1) -> subprocess.Popen[bytes]:
        p = self._spawn(f"worker-{name}", "worker", "-c", str(concurrency), "-n", f"{name}@%h",
                        "--loglevel", "INFO")
        self.workers[name] = p
        return p

    def wait_worker_ready(self, name: str, timeout: float = 60) -> None:
        log = self.tmp / f"worker-{name}.log"
        wait_for(lambda: "ready." in log.read_text(errors="replace"), timeout, f"worker {name} to be ready")

    def child_pids(self, name: str) -> list[int]:
        """Pool process ids of a worker (children of its main process)."""
        main = self.workers[name].pid
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(main)], capture_output=True, text=True)
        return [int(x) for x in out.stdout.split()]

    def kill_worker(self, name: str, sig: int = signal.SIGKILL) -> None:
        _end_group(self.workers.pop(name), sig)

    def stop(self) -> None:
        """End every process of the service; nothing of it may outlive the test, since the
        Redis database it used goes to the next test (a straggler would eat its messages)."""
        for name in list(self.workers):
            self.kill_worker(name, signal.SIGTERM)
        if self.api is not None:
            _end_group(self.api, signal.SIGTERM)
            self.api = None

    def dump_logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.logs if p.exists())

    # ---------------------------------------------------------------------------------- helpers

    def create_key(self, name: str, *extra: str) -> str:
        out = subprocess.run([sys.executable, "-m", "rasklad", "keys", "create", "--name", name, *extra],
                             cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def wait_job(self, http: httpx.Client, job_id: str, timeout: float = 180,
                 states: tuple[str, ...] = ("succeeded", "failed", "cancelled")) -> dict[str, Any]:
        def done() -> dict[str, Any] | None:
            j: dict[str, Any] = http.get(f"/v1/jobs/{job_id}").json()
            return j if j["state"] in states else None

        try:
            result: dict[str, Any] = wait_for(done, timeout, f"job {job_id} to reach {states}", 0.25)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.dump_logs()}") from None
        return result


PG_ADMIN = "postgresql+psycopg://root@127.0.0.1:5432/test"


@contextlib.contextmanager
def pg_database() -> Iterator[str | None]:
    """A fresh PostgreSQL database (its URL), dropped afterwards; None when PostgreSQL is unreachable."""
    import secrets

    from sqlalchemy import create_engine

    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    name = f"rasklad_t_{secrets.token_hex(5)}"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception:
        admin.dispose()
        yield None
        return
    try:
        yield f"postgresql+psycopg://root@127.0.0.1:5432/{name}"
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def have_redis_server() -> bool:
    return shutil.which("redis-server") is not None
