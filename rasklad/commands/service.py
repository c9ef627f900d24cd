"""``rasklad serve``, ``rasklad worker``, ``rasklad reconcile``, ``rasklad keys``: running the service."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # the store (SQLAlchemy) loads only when a keys command runs: every CLI call starts faster
    from storage.apikeys import KeyStore

keys_app = typer.Typer(help="API keys of the service (only a hash is stored).", no_args_is_help=True)


def _bad(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _keystore() -> KeyStore:
    from sims.settings import get_settings
    from storage.apikeys import KeyStore
    from storage.jobstore import JobStore

    s = get_settings()
    if not s.data_is_remote:
        s.data.mkdir(parents=True, exist_ok=True)
    return KeyStore(JobStore(s.db_url).engine)


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option("--name", help="who the key is for (unique)")],
    admin: Annotated[bool, typer.Option("--admin", help="may see every job")] = False,
    max_jobs: Annotated[int, typer.Option("--max-jobs", help="unfinished jobs at once")] = 4,
    max_deals: Annotated[int, typer.Option("--max-deals", help="deals per job")] = 1_000_000,
    remote_bot: Annotated[list[str] | None, typer.Option(
        "--remote-bot", metavar="URL_PREFIX",
        help="a URL prefix the key's specs may name as a remote bot (repeatable; docs/remote-bots.md)")] = None,
) -> None:
    """Create a key and print it once (it cannot be shown again)."""
    try:
        key, info = _keystore().create(name, admin=admin, max_concurrent_jobs=max_jobs,
                                       max_deals_per_job=max_deals, remote_bots=remote_bot or ())
    except ValueError as e:
        _bad(str(e))
        return
    typer.echo(key)
    typer.echo(f"key for {info.name!r}{' (admin)' if info.admin else ''}: store it now, it is not shown again",
               err=True)


@keys_app.command("list")
def keys_list() -> None:
    """Every key's name and limits (never the key itself)."""
    for k in _keystore().list():
        typer.echo(json.dumps({"name": k.name, "id": k.id, "admin": k.admin, "revoked": k.revoked,
                               "max_jobs": k.max_concurrent_jobs, "max_deals": k.max_deals_per_job,
                               "remote_bots": list(k.remote_bots)}))


@keys_app.command("revoke")
def keys_revoke(name: Annotated[str, typer.Option("--name")]) -> None:
    """Revoke a key: requests with it get 401 from now on."""
    if not _keystore().revoke(name):
        _bad(f"no key named {name!r}")


def serve(
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8000,
    workers: Annotated[int, typer.Option("--workers", help="API processes")] = 1,
) -> None:
    """Serve the REST API (uvicorn). Workers run separately: ``rasklad worker``."""
    import uvicorn

    if not 0 < port < 65536:
        _bad(f"--port must be 1..65535, not {port}")
    # httptools parses HTTP in C (h11 in Python made the status route's p99 twice as long); the
    # loop stays asyncio's: uvloop starved some connections for 200 ms under 200 clients in one
    # process (docs/tenants.md, "Status under load").
    # RASKLAD_LOG_FORMAT=json: every line (uvicorn's and the API's own) one JSON object (sims/logs.py).
    from uvicorn.config import LOGGING_CONFIG

    from sims.logs import uvicorn_log_config
    from sims.settings import get_settings

    log_config = uvicorn_log_config(get_settings().log_format) or LOGGING_CONFIG
    uvicorn.run("api.app:create_app", factory=True, host=host, port=port, workers=workers,
                log_level="info", access_log=False, http="httptools", loop="asyncio", log_config=log_config)


def _check_broker(url: str, wait_s: float) -> None:
    """Exit 2 with one line naming ``RASKLAD_BROKER`` when the broker has not answered within
    ``wait_s`` seconds (Celery would retry forever, logging a traceback each time; a broker that
    comes up a little after its workers is still waited for)."""
    import time

    import redis

    deadline = time.monotonic() + wait_s
    while True:
        try:
            redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
            return
        except (redis.RedisError, ValueError) as e:
            if time.monotonic() >= deadline or isinstance(e, ValueError):
                reason = " ".join(str(e).split()) or type(e).__name__
                _bad(f"no broker answers at {url} (set RASKLAD_BROKER): {reason}")
            time.sleep(0.5)


def worker(
    concurrency: Annotated[int, typer.Option("--concurrency", "-c",
                                             help="shard processes; 0 (the default) starts one per CPU core")] = 0,
    loglevel: Annotated[str, typer.Option("--loglevel")] = "INFO",
    hostname: Annotated[str | None, typer.Option("--hostname", "-n")] = None,
    broker_wait: Annotated[float, typer.Option("--broker-wait", help="seconds to wait for the broker to answer "
                                                                   "before giving up")] = 10.0,
) -> None:
    """Start a Celery worker on the broker (``RASKLAD_BROKER``); add more on other machines."""
    import os

    from workers.celery_app import app, settings

    if concurrency < 0:
        _bad(f"--concurrency must be >= 0 (0 = one per core), not {concurrency}")
    _check_broker(str(app.conf.broker_url), broker_wait)
    quiet: list[str] = []
    if settings.log_format == "json":
        # Celery configures no logging of its own when setup_logging has a receiver: every record of
        # the worker and its pool processes (forked after this) goes out as one JSON object a line,
        # and --quiet drops the start-up banner, which is not a log record.
        from celery.signals import setup_logging

        from sims.logs import configure

        setup_logging.connect(lambda **kw: configure("json", kw.get("loglevel") or loglevel), weak=False)
        quiet = ["--quiet"]
    argv = [*quiet, "worker", f"--loglevel={loglevel}", "-Q", "rasklad", "-E",
            f"--concurrency={concurrency or os.cpu_count() or 1}", "--without-gossip", "--without-mingle"]
    if hostname:
        argv.append(f"--hostname={hostname}")
    app.worker_main(argv)


def reconcile_cmd() -> None:
    """Re-enqueue lost shards of running jobs and finalize complete ones (also run by the API)."""
    from sims.settings import get_settings
    from storage.jobstore import JobStore
    from workers.celery_app import app
    from workers.jobs import Control, reconcile
    from workers.tracking import Tracker

    s = get_settings()
    out = reconcile(Control(s, JobStore(s.db_url), app, Tracker(str(app.conf.broker_url))))
    typer.echo(json.dumps(out))


def register(app: typer.Typer) -> None:
    """Add the service commands."""
    app.add_typer(keys_app, name="keys")
    app.command("serve")(serve)
    app.command("worker")(worker)
    app.command("reconcile")(reconcile_cmd)
