"""Settings of rasklad, the one settings object every layer receives: environment variables ``RASKLAD_*``.

``get_settings()`` reads the environment each time it is called (no cache), so a test or a
command that changes ``RASKLAD_DATA`` sees the change at once; ``Settings(data=...)`` builds
settings directly, and keyword overrides win over the environment.

The job store's database is ``db`` when set (``RASKLAD_DB``, any SQLAlchemy URL), else a SQLite
file in the data root: ask ``db_url`` for the effective one. ``db`` itself stays ``None`` when
unset so that a copy with another data root (``model_copy(update={"data": ...})``) moves the
default database with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "get_settings"]


class Settings(BaseSettings):
    """Where data lives, the job limits and the query sandbox limits."""

    model_config = SettingsConfigDict(env_prefix="RASKLAD_", extra="ignore", frozen=False)

    data: Path = Field(default=Path("data"), description="data root: jobs/<job_id>/... and jobs.sqlite")
    db: str | None = Field(default=None, description="job store URL; default sqlite:///<data>/jobs.sqlite")
    max_deals_per_job: int = Field(default=10_000_000, gt=0, description="largest job a spec may ask for")
    max_shards: int = Field(default=10_000, gt=0, description="most shards a job may be split into")
    query_memory_limit: str = Field(default="1GB", description="DuckDB memory_limit of a user query")
    query_timeout_s: float = Field(default=30.0, gt=0, description="a user query is interrupted after this")
    query_max_rows: int = Field(default=100_000, gt=0, description="rows a user query may return")

    @property
    def db_url(self) -> str:
        """The effective job store URL: ``db``, else ``sqlite:///<data>/jobs.sqlite``."""
        if self.db:
            return self.db
        return f"sqlite:///{self.data / 'jobs.sqlite'}"


def get_settings(**overrides: Any) -> Settings:
    """Settings from the environment now, with ``overrides`` (field names) taking precedence."""
    return Settings(**overrides)
