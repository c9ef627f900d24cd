"""Log lines of the service processes: text (the default) or JSON, one object a line.

``RASKLAD_LOG_FORMAT=json`` (``Settings.log_format``) makes ``rasklad serve`` and ``rasklad worker``
write every log record as one JSON object on a line -- ``ts`` (ISO 8601, UTC, microseconds), ``level``,
``logger``, ``message``, ``process`` and, for an exception, ``exc_info`` -- so a log collector (Loki,
CloudWatch, Elasticsearch) indexes them without a parser of ours. The formatter is python-json-logger's.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Literal

__all__ = ["FORMATS", "JSON_FIELDS", "configure", "formatter", "uvicorn_log_config"]

LogFormat = Literal["text", "json"]
FORMATS: tuple[str, ...] = ("text", "json")
#: The keys of every JSON log line (``exc_info`` is added for an exception).
JSON_FIELDS = ("ts", "level", "logger", "message", "process")
_TEXT = "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"
_JSON = "%(levelname)s %(name)s %(message)s %(process)d"
_RENAME = {"levelname": "level", "name": "logger"}


def _json_formatter_spec() -> dict[str, Any]:
    """The JSON formatter as a ``logging.config.dictConfig`` formatter entry."""
    return {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": _JSON, "rename_fields": dict(_RENAME),
            "timestamp": "ts"}


def formatter(fmt: LogFormat) -> logging.Formatter:
    """The formatter of ``fmt``: ``text`` (a timestamped line) or ``json`` (one object a line)."""
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter(_JSON, rename_fields=dict(_RENAME), timestamp="ts")
    if fmt == "text":
        return logging.Formatter(_TEXT)
    raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def configure(fmt: LogFormat, level: str | int = "INFO") -> None:
    """Send every record of this process (the root logger) to stderr in ``fmt``, at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper() if isinstance(level, str) else level)


def uvicorn_log_config(fmt: LogFormat) -> dict[str, Any] | None:
    """uvicorn's ``log_config`` for ``fmt``: None keeps uvicorn's own text lines; ``json`` sends uvicorn's
    loggers and the root logger (the API's own records) through the JSON formatter to stderr."""
    if fmt != "json":
        return None
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": _json_formatter_spec()},
        "handlers": {"default": handler},
        "root": {"handlers": ["default"], "level": "INFO"},
        "loggers": {name: {"handlers": [], "level": "INFO", "propagate": True}
                    for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
    }
