"""API keys of the service: created once, stored only as a hash.

A key is ``rk_<id>_<secret>``: the id finds the row, the secret is checked against a
SHA-256 of it (keys are 256-bit random, so a plain salted hash is enough: no password
stretching is needed for secrets nobody chose). Keys carry per-key limits.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, Integer, String, UniqueConstraint, create_engine, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from sims.remoteurl import prefix_error


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


class _RemoteBotRow(_Base):
    """One URL prefix a key's specs may name as a remote bot (``rasklad keys create --remote-bot``)."""

    __tablename__ = "api_key_remote_bots"
    __table_args__ = (UniqueConstraint("key_id", "prefix", name="uq_remote_bot_key_prefix"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_id: Mapped[str] = mapped_column(String(32), index=True)
    prefix: Mapped[str] = mapped_column(String(2000))


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
    remote_bots: tuple[str, ...] = ()
    """URL prefixes the key's specs may name as remote bots (docs/remote-bots.md); empty: none."""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _public(row: _KeyRow, s: Session) -> ApiKey:
    prefixes = tuple(s.scalars(select(_RemoteBotRow.prefix).where(_RemoteBotRow.key_id == row.id)
                               .order_by(_RemoteBotRow.id)))
    return ApiKey(row.id, row.name, row.admin, row.max_concurrent_jobs, row.max_deals_per_job, row.revoked,
                  prefixes)


class KeyStore:
    """API keys in the job store's database (any SQLAlchemy URL)."""

    def __init__(self, url: str | Engine) -> None:
        self.engine = url if isinstance(url, Engine) else create_engine(url)
        _Base.metadata.create_all(self.engine)

    def create(self, name: str, *, admin: bool = False, max_concurrent_jobs: int = 4,
               max_deals_per_job: int = 1_000_000, remote_bots: Sequence[str] = ()) -> tuple[str, ApiKey]:
        """Create a key named ``name``; return the full key (shown once) and its facts. ``remote_bots``:
        the URL prefixes its specs may name as remote bots (``sims.remoteurl``)."""
        name = name.strip()
        if not name:
            raise ValueError("a key needs a non-empty --name")
        if max_concurrent_jobs < 1 or max_deals_per_job < 1:
            raise ValueError("key limits must be >= 1")
        for prefix in remote_bots:
            why = prefix_error(prefix)
            if why is not None:
                raise ValueError(why)
        kid = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        with Session(self.engine) as s, s.begin():
            if s.scalar(select(_KeyRow).where(_KeyRow.name == name)) is not None:
                raise ValueError(f"a key named {name!r} exists already")
            row = _KeyRow(id=kid, name=name, secret_hash=_hash(secret), admin=admin,
                          max_concurrent_jobs=max_concurrent_jobs, max_deals_per_job=max_deals_per_job,
                          revoked=False, created_at=datetime.now(UTC))
            s.add(row)
            for prefix in dict.fromkeys(remote_bots):
                s.add(_RemoteBotRow(key_id=kid, prefix=prefix))
            s.flush()
            info = _public(row, s)
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
            return _public(row, s)

    def list(self) -> list[ApiKey]:
        """Every key's public facts, by name."""
        with Session(self.engine) as s:
            return [_public(r, s) for r in s.scalars(select(_KeyRow).order_by(_KeyRow.name))]

    def remote_bots(self, name: str) -> tuple[str, ...]:
        """The remote-bot URL prefixes of the key named ``name`` (a job's owner); () when it has none."""
        with Session(self.engine) as s:
            kid = s.scalar(select(_KeyRow.id).where(_KeyRow.name == name))
            if kid is None:
                return ()
            return tuple(s.scalars(select(_RemoteBotRow.prefix).where(_RemoteBotRow.key_id == kid)
                                   .order_by(_RemoteBotRow.id)))

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
