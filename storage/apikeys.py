"""API keys of the service: created once, stored only as a hash.

A key is ``rk_<id>_<secret>``: the id finds the row, the secret is checked against a
SHA-256 of it (keys are 256-bit random, so a plain salted hash is enough: no password
stretching is needed for secrets nobody chose). Keys carry per-key limits.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, Integer, String, UniqueConstraint, create_engine, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column


class _Base(DeclarativeBase):
    pass


class _KeyRow(_Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    max_concurrent_jobs: Mapped[int] = mapped_column(Integer, default=4)
    max_deals_per_job: Mapped[int] = mapped_column(Integer, default=1_000_000)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class _IdemRow(_Base):
    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("owner", "key", name="uq_idempotency_owner_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(200))
    key: Mapped[str] = mapped_column(String(200))
    job_id: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class ApiKey:
    """An API key's public facts (never its secret)."""

    id: str
    name: str
    admin: bool
    max_concurrent_jobs: int
    max_deals_per_job: int
    revoked: bool


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _public(row: _KeyRow) -> ApiKey:
    return ApiKey(row.id, row.name, row.admin, row.max_concurrent_jobs, row.max_deals_per_job, row.revoked)


class KeyStore:
    """API keys in the job store's database (any SQLAlchemy URL)."""

    def __init__(self, url: str | Engine) -> None:
        self.engine = url if isinstance(url, Engine) else create_engine(url)
        _Base.metadata.create_all(self.engine)

    def create(self, name: str, *, admin: bool = False, max_concurrent_jobs: int = 4,
               max_deals_per_job: int = 1_000_000) -> tuple[str, ApiKey]:
        """Create a key named ``name``; return the full key (shown once) and its facts."""
        name = name.strip()
        if not name:
            raise ValueError("a key needs a non-empty --name")
        if max_concurrent_jobs < 1 or max_deals_per_job < 1:
            raise ValueError("key limits must be >= 1")
        kid = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        with Session(self.engine) as s, s.begin():
            if s.scalar(select(_KeyRow).where(_KeyRow.name == name)) is not None:
                raise ValueError(f"a key named {name!r} exists already")
            row = _KeyRow(id=kid, name=name, secret_hash=_hash(secret), admin=admin,
                          max_concurrent_jobs=max_concurrent_jobs, max_deals_per_job=max_deals_per_job,
                          revoked=False, created_at=datetime.now(UTC))
            s.add(row)
            s.flush()
            info = _public(row)
        return f"rk_{kid}_{secret}", info

    def verify(self, key: str) -> ApiKey | None:
        """The key's facts when ``key`` is a valid, unrevoked key; else None."""
        parts = key.split("_", 2)
        if len(parts) != 3 or parts[0] != "rk":
            return None
        with Session(self.engine) as s:
            row = s.get(_KeyRow, parts[1])
            if row is None or row.revoked:
                return None
            if not hmac.compare_digest(row.secret_hash, _hash(parts[2])):
                return None
            return _public(row)

    def list(self) -> list[ApiKey]:
        """Every key's public facts, by name."""
        with Session(self.engine) as s:
            return [_public(r) for r in s.scalars(select(_KeyRow).order_by(_KeyRow.name))]

    def revoke(self, name: str) -> bool:
        """Revoke the key named ``name``; False when there is none."""
        with Session(self.engine) as s, s.begin():
            row = s.scalar(select(_KeyRow).where(_KeyRow.name == name))
            if row is None:
                return False
            row.revoked = True
            return True

    def idempotent_job(self, owner: str, key: str) -> str | None:
        """The job id a POST of ``owner`` with ``Idempotency-Key: key`` created, if any."""
        with Session(self.engine) as s:
            row = s.scalar(select(_IdemRow).where(_IdemRow.owner == owner, _IdemRow.key == key))
            return None if row is None else row.job_id

    def reserve_idempotent(self, owner: str, key: str, job_id: str) -> str:
        """Bind ``key`` to ``job_id`` unless already bound; return the job id it is bound to."""
        try:
            with Session(self.engine) as s, s.begin():
                s.add(_IdemRow(owner=owner, key=key, job_id=job_id, created_at=datetime.now(UTC)))
        except IntegrityError:
            existing = self.idempotent_job(owner, key)
            assert existing is not None
            return existing
        return job_id

    def release_idempotent(self, owner: str, key: str, job_id: str) -> None:
        """Unbind ``key`` if it is bound to ``job_id`` (whose creation failed: nothing exists to return)."""
        with Session(self.engine) as s, s.begin():
            s.execute(delete(_IdemRow).where(_IdemRow.owner == owner, _IdemRow.key == key,
                                             _IdemRow.job_id == job_id))
