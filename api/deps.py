"""Shared services of the API process and the dependencies routes ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from celery import Celery
from fastapi import Depends, Header, Request

from api.errors import ApiError
from rasklad.settings import Settings
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
    key = services(request).keys.verify(token.strip())
    if key is None:
        raise ApiError(401, "unknown or revoked API key", "Authorization", headers={"WWW-Authenticate": "Bearer"})
    return key


ServicesDep = Annotated[Services, Depends(services)]
KeyDep = Annotated[ApiKey, Depends(current_key)]
