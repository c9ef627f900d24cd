"""Error bodies of the API: every 4xx names what is wrong, with the field path if any."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse


def field_path(loc: Sequence[Any]) -> str:
    """``("body", "bots", 2, "params", "samples")`` -> ``bots[2].params.samples``."""
    out = ""
    for part in loc:
        if part in ("body", "query", "path", "header") and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def problems(errors: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    """pydantic-style errors as ``[{"field": path, "message": text}]``."""
    return [{"field": field_path(e.get("loc", ())), "message": str(e.get("msg", ""))} for e in errors]


class ApiError(HTTPException):
    """An HTTP error with a machine-readable list of problems."""

    def __init__(self, status: int, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None, problems: list[dict[str, str]] | None = None) -> None:
        detail: list[dict[str, str]] = problems or [{"field": field or "", "message": message}]
        super().__init__(status_code=status, detail=detail, headers=headers)


async def validation_handler(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with the field path of every problem."""
    return JSONResponse(status_code=422, content={"detail": problems(exc.errors())})
