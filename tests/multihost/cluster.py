"""The multi-host cluster of ``tests/multihost`` (and of ``benchmarks/bench_multihost.py``).

A hub namespace runs PostgreSQL (a private ``initdb`` cluster), Redis, ``moto_server`` and
``rasklad serve``; each worker namespace runs one ``rasklad worker`` that reaches the hub only
through its own veth pair. Every process's data root is ``s3://rasklad-multihost/data``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from multihost.netns import Hosts, why_not
from s3_harness import MOTO, have_moto
from service_harness import ROOT, wait_for

PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
PORTS = {"pg": 5433, "redis": 6379, "s3": 9000, "api": 8000}


def why_skip() -> str | None:
    if (reason := why_not()) is not None:
        return reason
    for what, ok in (("redis-server", shutil.which("redis-server")), ("moto_server", have_moto()),
                     ("PostgreSQL's initdb/postgres", PG_BIN), ("runuser", shutil.which("runuser"))):
        if not ok:
            return f"{what} is not installed"
    return None




def env_for(hub: str, **extra: str) -> dict[str, str]:
    """A rasklad process's environment: every service at ``hub``, the data root in the bucket."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("RASKLAD_", "AWS_"))}
    return {**base, "PYTHONUNBUFFERED": "1",
            "RASKLAD_DATA": "s3://rasklad-multihost/data",
            "RASKLAD_S3_ENDPOINT": f"http://{hub}:{PORTS['s3']}", "RASKLAD_S3_REGION": "us-east-1",
            "RASKLAD_S3_ACCESS_KEY": "test", "RASKLAD_S3_SECRET_KEY": "test",
            "RASKLAD_S3_TIMEOUT_S": "3", "RASKLAD_S3_RETRIES": "12",
            "RASKLAD_DB": f"postgresql+psycopg://postgres@{hub}:{PORTS['pg']}/postgres",
            "RASKLAD_BROKER": f"redis://{hub}:{PORTS['redis']}/0",
            # Shards take milliseconds here; these keep a cut link (6 s) short of the soft time
            # limit (4 x 3 s; hard 5 x 3 s) and bring back a killed worker's shard after 18 s.
            "RASKLAD_SHARD_SECONDS": "3", "RASKLAD_VISIBILITY_TIMEOUT": "18", "RASKLAD_RESTORE_INTERVAL": "1",
            "RASKLAD_RECONCILE_SECONDS": "2", "RASKLAD_LEASE_SECONDS": "6", **extra}


@contextlib.contextmanager
def cluster(logs: Path, worker_hosts: tuple[str, ...] = ("w1", "w2"),
            extra_env: dict[str, str] | None = None) -> Iterator[tuple[Hosts, dict[str, Any]]]:
    """The hub and ``worker_hosts``, each with one worker started; everything removed on exit.
    ``extra_env``: settings over ``env_for``'s for the API and the workers."""
    extra = dict(extra_env or {})
    hosts = Hosts("hub", list(worker_hosts))
    pgdata = Path(tempfile.mkdtemp(prefix="rasklad-multihost-pg-"))
    try:
        shutil.chown(pgdata, "postgres", "postgres")
        sock = pgdata / "sock"
        sock.mkdir()
        shutil.chown(sock, "postgres", "postgres")
        subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN[-1]}/initdb", "-D", str(pgdata / "db"),
                        "-A", "trust", "-U", "postgres", "--no-sync"], check=True, capture_output=True)
        with open(pgdata / "db" / "pg_hba.conf", "a") as fh:  # the worker hosts' veth addresses
            fh.write("host all all 10.0.0.0/8 trust\n")
        env = env_for("127.0.0.1", **extra)
        hosts.spawn("hub", [f"{PG_BIN[-1]}/postgres", "-D", str(pgdata / "db"), "-p", str(PORTS["pg"]),
                            "-k", str(sock), "-c", "listen_addresses=*", "-c", "fsync=off"],
                    env, logs / "postgres.log", user="postgres")
        hosts.spawn("hub", ["redis-server", "--port", str(PORTS["redis"]), "--bind", "0.0.0.0",
                            "--protected-mode", "no", "--save", "", "--appendonly", "no"], env, logs / "redis.log")
        hosts.spawn("hub", [str(MOTO), "-H", "0.0.0.0", "-p", str(PORTS["s3"])], env, logs / "moto.log")
        hub = hosts.hub_address("test")
        wait_for(lambda: httpx.get(f"http://{hub}:{PORTS['s3']}/", timeout=2).status_code < 500, 60, "moto")
        assert httpx.put(f"http://{hub}:{PORTS['s3']}/rasklad-multihost", timeout=10).status_code == 200

        def pg_up() -> bool:
            import psycopg

            with psycopg.connect(f"host={hub} port={PORTS['pg']} user=postgres dbname=postgres", connect_timeout=2):
                return True

        wait_for(pg_up, 60, "PostgreSQL")
        hosts.spawn("hub", [sys.executable, "-m", "rasklad", "serve", "--host", "0.0.0.0", "--port",
                            str(PORTS["api"])], env, logs / "api.log", cwd=ROOT)
        wait_for(lambda: httpx.get(f"http://{hub}:{PORTS['api']}/healthz", timeout=3).status_code == 200, 90, "API")
        workers = {name: start_worker(hosts, name, logs, **extra) for name in worker_hosts}
        yield hosts, workers
    finally:
        hosts.close()
        shutil.rmtree(pgdata, ignore_errors=True)
        assert hosts.namespaces_left() == []


def start_worker(hosts: Hosts, name: str, logs: Path, **extra: str) -> subprocess.Popen[bytes]:
    env = env_for(hosts.hub_address(name), **extra)
    return hosts.spawn(name, [sys.executable, "-m", "rasklad", "worker", "-c", "1", "-n", f"{name}@%h"],
                       env, logs / f"worker-{name}.log", cwd=ROOT)


def tail_logs(logs: Path) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(logs.glob("*.log")))


