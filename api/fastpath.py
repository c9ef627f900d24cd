"""The polling route's fast path: ``GET /v1/jobs/{id}`` answered before FastAPI when it can be.

Clients poll a job's status many times a second. The route itself is cheap once its caches
are warm (``api.deps.KeyCache`` and ``StatusCache``), but each request still pays FastAPI's
routing, dependency injection, ``Request`` objects and the exception handlers' layers: about
three quarters of a request's cost (two API processes under 200 keep-alive clients answered
2,909 requests/s through the route, 10,841 with this path; docs/tenants.md, "Status under load").

``StatusFastPath`` is a plain ASGI layer in front of the app. It answers exactly one case
itself: a ``GET`` of ``/v1/jobs/<full id>`` whose ``Authorization: Bearer`` key is in the key
cache and whose status is in the status cache, the key owning the job (or an admin key).
Anything else — a miss, a prefix id, a cookie session, a wrong or unknown key, another key's
job, any other route — goes to the app unchanged, which answers (errors included) as always
and fills the caches. The answer is byte for byte the route's: the same cached body, the same
two headers. Nothing here reads the database or waits: a hit costs a dict lookup and a hash.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

from api.deps import Services, status_loader

#: ``/v1/jobs/<id>`` with nothing after the id (``/events``, ``/tables/...`` are other routes).
_PATH = re.compile(r"/v1/jobs/([A-Za-z0-9][A-Za-z0-9_-]{0,127})")


class StatusFastPath:
    """Serve cached job statuses straight from the caches of ``services`` (see the module doc)."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.svc = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            body = self._cached_answer(scope)
            if body is not None:
                await send({"type": "http.response.start", "status": 200, "headers": [
                    (b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

    def _cached_answer(self, scope: Scope) -> bytes | None:
        m = _PATH.fullmatch(scope["path"])
        if m is None:
            return None
        token = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, rest = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer":
                    token = rest.strip()
                break
        if not token:
            return None
        hit = self.svc.status.get(m.group(1), reload=status_loader(self.svc.store, m.group(1)))
        if hit is None:
            return None
        key = self.svc.keys_cache.cached(token)
        if key is None:
            return None
        owner, body = hit
        if owner != key.name and not key.admin:
            return None  # the route answers 404: another key's job is never revealed
        return body
