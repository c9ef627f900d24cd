"""Settings of rasklad: every ``RASKLAD_*`` environment variable, in one object.

The environment variable of a field is ``RASKLAD_`` and the field name in upper case
(``max_shards``: ``RASKLAD_MAX_SHARDS``): these names are a public contract. The fields are grouped by concern (see
:data:`GROUPS`; each field names its group in ``json_schema_extra``), and
``docs/settings.md`` is generated from this class (``rasklad settings --markdown``; a test
keeps the two equal).

Who reads the environment: only this module (``get_settings()``, ``Settings()``). The entry
points build a :class:`Settings` and pass it down: the CLI per command, the API in
``create_app(settings)``, the workers when their Celery app is built
(``workers.celery_app``). ``sims``, ``storage``, ``workers`` and ``api`` never import the CLI
package ``rasklad``; ``games`` and ``ext`` never see settings (``tests/test_layering.py``).

``get_settings()`` reads the environment each time it is called (no cache), so a test or a
command that changes ``RASKLAD_DATA`` sees the change at once; ``Settings(data=...)`` builds
settings directly, and keyword overrides win over the environment. An empty variable counts
as unset (``RASKLAD_DB=`` means the default database).

The job store's database is ``db`` when set (``RASKLAD_DB``, any SQLAlchemy URL), else a SQLite
file in the data root: ask ``db_url`` for the effective one. ``db`` itself stays ``None`` when
unset so that a copy with another data root (``with_data``) moves the default database with it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from storage.objectstore import StoreConfig

__all__ = ["DEFAULT_BROKER", "DEFAULT_URL", "ENV_PREFIX", "GROUPS", "Settings", "describe", "environment",
           "get_settings", "markdown", "redact"]

ENV_PREFIX = "RASKLAD_"

#: The groups of settings, in display order: key -> title.
GROUPS: dict[str, str] = {
    "store": "Data and job store",
    "limits": "Job limits",
    "query": "Query sandbox",
    "api": "API",
    "workers": "Workers and broker",
    "plugins": "Plugins",
    "client": "Client",
}

#: Default broker: the machine's Redis, database 0.
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
#: Where the client looks when neither ``url`` nor ``RASKLAD_URL`` is given.
DEFAULT_URL = "http://127.0.0.1:8000"


def _f(group: str, default: Any, description: str, *, shown_default: str | None = None,
       secret: bool = False, **constraints: Any) -> Any:
    """A field of ``group``; ``shown_default`` replaces the default in the docs (derived defaults)."""
    extra: dict[str, Any] = {"group": group}
    if shown_default is not None:
        extra["shown_default"] = shown_default
    if secret:
        extra["secret"] = True
    return Field(default=default, description=description, json_schema_extra=extra, **constraints)


def environment() -> dict[str, str]:
    """The ``RASKLAD_*`` variables set now and not empty, by field name (``RASKLAD_MAX_SHARDS`` -> ``max_shards``).

    Names match whatever their case (``rasklad_data`` is ``data``), as pydantic-settings, which read them
    before, matched them; a variable that names no field is ignored. The values stay strings: the model
    converts and checks them as it does keyword values (``"12"`` for an int field is 12, ``"x"`` an error
    naming the field)."""
    n = len(ENV_PREFIX)
    out: dict[str, str] = {}
    for name, value in os.environ.items():
        if value and len(name) > n and name[:n].upper() == ENV_PREFIX:
            out[name[n:].lower()] = value
    return out


class Settings(BaseModel):
    """Every setting of rasklad; field ``max_shards`` is read from ``RASKLAD_MAX_SHARDS``.

    ``Settings(**overrides)`` and ``Settings.model_validate(d)`` read the environment (``environment()``)
    under the values given; ``model_copy`` copies. So did pydantic-settings' ``BaseSettings``, which this
    class was. It is a plain pydantic model because importing pydantic-settings costs about
    0.1 s of CPU (it imports asyncio, ssl and email), a third of a one-deal job's budget (issue 30 item 4),
    for what ``environment()`` does here: every field is a scalar read from one variable."""

    model_config = ConfigDict(extra="ignore", frozen=False)

    def __init__(self, **overrides: Any) -> None:
        fields = type(self).model_fields
        values: dict[str, Any] = {k: v for k, v in environment().items() if k in fields}
        values.update(overrides)
        super().__init__(**values)

    # --- store: data and job store (embedded runs, the API and the workers must agree) ---------
    data: Path = _f("store", Path("data"), "data root: a local folder (with, by default, jobs.sqlite) or an "
                    "object-store URL `s3://bucket/prefix` (docs/storage.md)", shown_default="./data")
    db: str | None = _f("store", None, "job store URL (any SQLAlchemy URL, e.g. postgresql+psycopg://...)",
                        shown_default="sqlite:///<data>/jobs.sqlite (./jobs.sqlite for an s3:// root)", secret=True)
    # The object store (an s3:// data root). Unset fields fall back to the usual AWS variables.
    s3_endpoint: str | None = _f("store", None, "S3 endpoint URL (MinIO, moto...; http:// allowed)",
                                 shown_default="$AWS_ENDPOINT_URL, else AWS")
    s3_region: str | None = _f("store", None, "S3 region", shown_default="$AWS_REGION, else us-east-1")
    s3_access_key: str | None = _f("store", None, "S3 access key id", shown_default="$AWS_ACCESS_KEY_ID",
                                   secret=True)
    s3_secret_key: str | None = _f("store", None, "S3 secret access key", shown_default="$AWS_SECRET_ACCESS_KEY",
                                   secret=True)
    s3_retries: int = _f("store", 10, "retries of a failed object-store request (5xx, timeouts), with "
                         "exponential backoff", ge=0)
    s3_timeout_s: float = _f("store", 30.0, "timeout of one object-store request (seconds)", gt=0)
    s3_outage_s: float = _f("store", 600.0, "how long a worker or `rasklad run` waits out an object store that "
                            "does not answer (5xx, refused connections, timeouts) before the job fails; jobs pause "
                            "meanwhile and go on by themselves (seconds; the default covers a 5-minute outage; "
                            "the API never waits: it answers with the error)", ge=0)

    # --- limits: of any job, checked when it is planned (per-key limits of the API come on top) --
    max_deals_per_job: int = _f("limits", 10_000_000, "largest job (deals or samples) a spec may ask for", gt=0)
    max_shards: int = _f("limits", 10_000, "most shards a job may be split into", gt=0)
    job_window: int = _f("limits", 4, "least shards of one job queued or running at once (more when the fleet has "
                                      "free processes: the worker processes divided among the active jobs); the next "
                                      "is queued as one finishes, so jobs (and keys) interleave", gt=0)

    # --- query: the SQL sandbox of `rasklad query` and /v1/query ---------------------------------
    query_memory_limit: str = _f("query", "1GB",
                                 "memory a query may use (DuckDB memory_limit; DuckDB reports MB as MiB)")
    query_timeout_s: float = _f("query", 30.0, "a query running longer is interrupted (seconds)", gt=0)
    query_max_rows: int = _f("query", 100_000, "rows a query may return (longer results are cut and flagged)",
                             gt=0)
    query_max_bytes: int = _f("query", 32 << 20, "bytes a query's result may hold, as Arrow and as the JSON, "
                                                 "Parquet, CSV or JSON lines sent; a larger one gets 400 naming "
                                                 "this limit", gt=0, shown_default="33554432 (32 MiB)")
    query_max_cells: int = _f("query", 5_000_000, "cells (rows x columns) a query's result may hold; a larger one "
                                                  "gets 400 naming this limit (a NULL column has no Arrow bytes)",
                              gt=0)
    query_threads: int = _f("query", 1, "DuckDB threads one query or download may use", gt=0)
    query_workers: int = _f("query", 2, "user SQL statements the API runs at once on a pool of their own, beyond "
                                        "each key's first (a key with nothing running always starts; 4x as many "
                                        "are admitted, the next to run is of the key running fewest)", gt=0)
    query_per_key: int = _f("query", 2, "queries and downloads one key may have running at once, across "
                                        "the API processes (more get 429 with Retry-After)", gt=0)
    query_slot_ttl_s: float = _f("query", 60.0, "a key's query or download slot is renewed every third of this while "
                                                "it lives (a slow download keeps it); a slot of an API process "
                                                "that died stops counting after this (seconds)", gt=0)

    # --- api: `rasklad serve` ---------------------------------------------------------------------
    api_threads: int = _f("api", 8, "threads serving the API's sync routes (raise it for a remote job store)",
                          gt=0)
    max_body_bytes: int = _f("api", 1 << 20, "larger request bodies get 413", gt=0, shown_default="1048576 (1 MiB)")
    status_max_age_s: float = _f("api", 0.5, "GET /v1/jobs/{id} may answer with a status this old (seconds; "
                                            "0: read the job store every time)", ge=0)
    reconcile_seconds: float = _f("api", 30.0, "how often the API runs the reconciler (seconds; 0: never)", ge=0)
    pending_stale_seconds: float = _f("api", 20.0, "a shard marked queued whose message was not confirmed sent "
                                                   "this long ago lost its sender; the reconciler sends it "
                                                   "(seconds)", gt=0)
    events_per_key: int = _f("api", 10, "event streams (SSE: /v1/jobs/{id}/events, the web app's live list) one "
                                        "key may have open at once, across the API processes (more get 429)", gt=0)
    replay_workers: int = _f("api", 2, "deal-viewer replays (a deal of a job without stored records, played "
                                       "again) the API runs at once, each in a process of its own (more get 429)",
                             gt=0)
    replay_per_key: int = _f("api", 1, "deal-viewer replays one key may have running at once in an API process "
                                       "(more get 429 with Retry-After)", gt=0)
    replay_timeout_s: float = _f("api", 20.0, "a deal-viewer replay running longer is killed (seconds; a job with "
                                              "record: full serves its stored records instead)", gt=0)
    log_format: Literal["text", "json"] = _f(
        "api", "text", "log lines of `rasklad serve` and `rasklad worker`: text, or json (one object a line: ts, "
                       "level, logger, message, process; for log collectors)")

    # --- workers: the Celery broker and the shard tasks (`rasklad worker`, also read by the API) --
    broker: str = _f("workers", DEFAULT_BROKER, "Celery broker (Redis): queues, delivery counters, markers",
                     secret=True)
    shard_seconds: float = _f("workers", 60.0, "expected shard length (seconds): soft time limit 4x, hard 5x; a "
                                               "tournament whose one unit (or shard) the bots' declared costs "
                                               "predict past the soft limit is refused at submit", gt=0)
    visibility_timeout: float | None = _f(
        "workers", None, "seconds before Redis redelivers an unacknowledged shard; must exceed the hard limit",
        shown_default="1.5 x hard limit + 30", gt=0)
    restore_interval: float | None = _f(
        "workers", None, "how often unacknowledged shards of dead workers are swept back (seconds)",
        shown_default="visibility timeout / 4, within 1..10", gt=0)
    worker_max_memory_kb: int = _f("workers", 2_000_000, "a worker process above this (KiB) is replaced "
                                                         "after its shard", gt=0)
    lease_seconds: float = _f("workers", 6.0, "a shard whose worker's heartbeat (every quarter of this) renewed "
                                              "its lease no longer for this long is queued again; the API's reaper "
                                              "looks every third of it (seconds)", gt=0)
    remote_in_flight: int = _f("workers", 64, "units of a shard with remote bots played at once by one worker "
                                         "process (so its remote decisions in flight; docs/remote-bots.md)", gt=0)
    remote_per_key: int = _f("workers", 128, "remote-bot decisions one key may have in flight at once, across "
                                         "every worker (counted in the broker's Redis)", gt=0)
    max_deliveries: int = _f("workers", 3, "starts of one shard that may kill their worker before the job fails",
                             gt=0)

    # --- plugins: extra modules imported to register games and bots (comma-separated) ------------
    # games.core.registry reads RASKLAD_BOT_MODULES itself today and RASKLAD_GAME_MODULES not yet
    # (the registry is being rewritten); both are here to be documented and passed down later.
    bot_modules: str = _f("plugins", "", "modules imported to register more bots (comma-separated)",
                          shown_default="none")
    game_modules: str = _f("plugins", "", "modules imported to register more games (comma-separated)",
                           shown_default="none")

    # --- client: read by rasklad.client and the remote commands (--url, --key), not the service --
    url: str = _f("client", DEFAULT_URL, "service URL of rasklad.client and the remote commands (submit, wait, ...)")
    key: str | None = _f("client", None, "API key the client and the remote commands send (Authorization: Bearer)",
                         shown_default="none", secret=True)

    @property
    def db_url(self) -> str:
        """The effective job store URL: ``db``, else ``sqlite:///<data>/jobs.sqlite``."""
        if self.db:
            return self.db
        if self.data_is_remote:  # no SQLite on an object store: a file in the working directory
            return f"sqlite:///{Path('jobs.sqlite').resolve()}"
        return f"sqlite:///{self.data / 'jobs.sqlite'}"

    @property
    def data_is_remote(self) -> bool:
        """Whether the data root is an object-store URL (``s3://bucket/prefix``)."""
        from storage.layout import is_object_url  # light: no client is imported for this

        return is_object_url(self.data)

    def store_config(self) -> StoreConfig:
        """How to reach the object store: the ``s3_*`` fields, else the usual AWS variables."""
        from storage.objectstore import StoreConfig

        env = os.environ
        return StoreConfig(
            endpoint=self.s3_endpoint or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None,
            region=self.s3_region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            access_key=self.s3_access_key or env.get("AWS_ACCESS_KEY_ID") or None,
            secret_key=self.s3_secret_key or env.get("AWS_SECRET_ACCESS_KEY") or None,
            session_token=env.get("AWS_SESSION_TOKEN") or None,
            retries=self.s3_retries, timeout_s=self.s3_timeout_s, outage_s=self.s3_outage_s)

    @property
    def bot_module_names(self) -> list[str]:
        """``bot_modules`` split at commas, blanks dropped."""
        return [m.strip() for m in self.bot_modules.split(",") if m.strip()]

    @property
    def game_module_names(self) -> list[str]:
        """``game_modules`` split at commas, blanks dropped."""
        return [m.strip() for m in self.game_modules.split(",") if m.strip()]

    def with_data(self, data: Path | str | None) -> Settings:
        """A copy with the data root ``data`` (unchanged when ``None``); the default database follows it."""
        if data is None:
            return self
        return self.model_copy(update={"data": Path(data)})

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable of ``field`` (``max_shards`` -> ``RASKLAD_MAX_SHARDS``)."""
        if field not in cls.model_fields:
            raise KeyError(field)
        return ENV_PREFIX + field.upper()


def get_settings(**overrides: Any) -> Settings:
    """Settings from the environment now, with ``overrides`` (field names) taking precedence."""
    return Settings(**overrides)


def _extra(name: str) -> dict[str, Any]:
    extra = Settings.model_fields[name].json_schema_extra
    return dict(extra) if isinstance(extra, dict) else {}


def group_of(name: str) -> str:
    """The group key of field ``name``."""
    return str(_extra(name)["group"])


_PASSWORD = re.compile(r"(?<=://)([^:/@]*):[^@/]*@")


def redact(name: str, value: Any) -> Any:
    """``value`` of field ``name`` fit to print: the API key hidden, the password of a URL replaced by ***."""
    if value is None or not _extra(name).get("secret"):
        return value
    if name in ("key", "s3_access_key", "s3_secret_key"):
        return "***"
    return _PASSWORD.sub(r"\1:***@", str(value))


def _shown(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def describe(settings: Settings | None = None) -> list[dict[str, Any]]:
    """Every field in group order: name, env, group, value (secrets redacted), default, description."""
    rows = []
    for group in GROUPS:
        for name, info in Settings.model_fields.items():
            if group_of(name) != group:
                continue
            extra = _extra(name)
            row: dict[str, Any] = {
                "name": name, "env": Settings.env_name(name), "group": group, "group_title": GROUPS[group],
                "default": extra.get("shown_default", _shown(info.default)),
                "description": info.description or "",
            }
            if settings is not None:
                row["value"] = redact(name, _shown(getattr(settings, name)))
            rows.append(row)
    return rows


def markdown() -> str:
    """The table of every setting for ``docs/settings.md`` (one section per group)."""
    out: list[str] = []
    for group, title in GROUPS.items():
        out += [f"### {title}", "", "| variable | default | meaning |", "|---|---|---|"]
        for row in describe():
            if row["group"] == group:
                out.append(f"| `{row['env']}` | `{row['default']}` | {row['description']} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
