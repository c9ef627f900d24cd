"""Shared services of the API process and the dependencies routes ask for."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Annotated

from celery import Celery
from fastapi import Depends, Header, Request

from api.errors import ApiError
from api.sqlexec import SqlExecutor
from sims.settings import Settings
from storage.apikeys import ApiKey, KeyStore
from storage.jobstore import JobStore
from workers.tracking import Tracker


@dataclass
class Services:
    """Everything a request may touch: settings, the stores, the broker."""

    settings: Settings
    store: JobStore
    keys: KeyStore
    celery: Celery
    tracker: Tracker
    broker_url: str
    sql: SqlExecutor
    keys_cache: KeyCache = field(default_factory=lambda: KeyCache())


class KeyCache:
    """Verified keys, remembered for ``ttl_s`` seconds in this API process.

    Checking a key is a database read, as costly as the job lookup of ``GET /v1/jobs/{id}``
    itself; polling clients send the same key many times a second. The price: a revoked key
    keeps working for up to ``ttl_s`` seconds in each API process that saw it. Only valid
    keys are kept (by the SHA-256 of the whole key), at most ``size`` of them.
    """

    def __init__(self, ttl_s: float = 5.0, size: int = 10_000) -> None:
        self.ttl_s = ttl_s
        self.size = size
        self._keys: dict[str, tuple[float, ApiKey]] = {}
        self._lock = threading.Lock()

    def verify(self, keys: KeyStore, token: str) -> ApiKey | None:
        """``keys.verify(token)``, answered from the cache while the answer is fresh."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            hit = self._keys.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        key = keys.verify(token)
        if key is not None:
            with self._lock:
                if len(self._keys) >= self.size:
                    self._keys.clear()
                self._keys[digest] = (now + self.ttl_s, key)
        return key


def services(request: Request) -> Services:
    """The services of this API process (set up by ``api.app.create_app``)."""
    svc: Services = request.app.state.services
    return svc


def current_key(
    request: Request,
    authorization: Annotated[str | None, Header(description="`Bearer <api key>`")] = None,
) -> ApiKey:
    """The caller's API key, from ``Authorization: Bearer``; 401 without a valid one."""
    if not authorization:
        raise ApiError(401, "missing API key: send Authorization: Bearer <key>", "Authorization",
                       headers={"WWW-Authenticate": "Bearer"})
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "Authorization must be 'Bearer <key>'", "Authorization",
                       headers={"WWW-Authenticate": "Bearer"})
    svc = services(request)
    key = svc.keys_cache.verify(svc.keys, token.strip())
    if key is None:
        raise ApiError(401, "unknown or revoked API key", "Authorization", headers={"WWW-Authenticate": "Bearer"})
    return key


ServicesDep = Annotated[Services, Depends(services)]
KeyDep = Annotated[ApiKey, Depends(current_key)]
