"""Browser sessions: an API key, checked once at sign-in, becomes an HTTP-only cookie.

The cookie holds a random token, never the key; Redis (the broker's database, shared by every
API process) maps the token's SHA-256 to the key's name for ``TTL_S`` seconds. The cookie is
``SameSite=Strict`` and requests that change something (POST) must also carry the header
``X-Rasklad-Web: 1``, which a page of another site cannot send without a CORS preflight that
this API never grants: a cross-site form cannot act with the user's session.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from typing import TYPE_CHECKING

from fastapi import Request

from api.errors import ApiError
from storage.apikeys import ApiKey

if TYPE_CHECKING:
    from api.deps import Services

COOKIE = "rasklad_session"
#: Header a cookie-authenticated request that changes something must carry.
CSRF_HEADER = "x-rasklad-web"
TTL_S = 12 * 3600
_PREFIX = "rasklad:web:session:"


def _redis_key(token: str) -> str:
    return _PREFIX + hashlib.sha256(token.encode()).hexdigest()


def check_csrf(request: Request) -> None:
    """403 unless the request carries ``CSRF_HEADER: 1``: every cookie-authenticated request that
    changes something (the API's POSTs, signing out) must, so a page of another site cannot."""
    if request.headers.get(CSRF_HEADER) != "1":
        raise ApiError(403, f"a signed-in page must send the header {CSRF_HEADER}: 1", CSRF_HEADER)


def create(svc: Services, key: ApiKey) -> str:
    """A new session of ``key``; returns the cookie's token."""
    token = secrets.token_urlsafe(32)
    svc.tracker.r.set(_redis_key(token), key.name, ex=TTL_S)
    return token


def end(svc: Services, token: str) -> None:
    """Forget a session (sign out)."""
    svc.tracker.r.delete(_redis_key(token))


class _Names:
    """Key name -> ApiKey, re-read from the key store at most every ``ttl_s`` seconds (a revoked
    key stops working within that time, as with ``KeyCache``)."""

    def __init__(self, ttl_s: float = 5.0) -> None:
        self.ttl_s = ttl_s
        self._at = 0.0
        self._keys: dict[str, ApiKey] = {}
        self._lock = threading.Lock()

    def get(self, svc: Services, name: str) -> ApiKey | None:
        now = time.monotonic()
        with self._lock:
            if now - self._at > self.ttl_s:
                self._keys = {k.name: k for k in svc.keys.list() if not k.revoked}
                self._at = now
            return self._keys.get(name)


_names = _Names()


def key_of(request: Request) -> ApiKey | None:
    """The API key of the request's session cookie, or None (no cookie, expired, revoked)."""
    token = request.cookies.get(COOKIE)
    if not token or len(token) > 200:
        return None
    svc = request.app.state.services
    name = svc.tracker.r.get(_redis_key(token))
    if name is None:
        return None
    return _names.get(svc, str(name))
