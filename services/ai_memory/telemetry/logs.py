"""Log lines as JSON objects (``AIMEM_LOG_FORMAT=json``), with the request's context.

Every line gets the fields the entry point bound for its request (``log_context``:
request id, tenant, key id, route template) and, when tracing is on, the trace and span
ids of the current span. The formatter is python-json-logger's; what a line may hold is
decided where it is written: ids and counts, never a key, a query string or a body.
"""

from __future__ import annotations

import logging
from typing import Any

from opentelemetry import trace

from . import tracing
from .log_context import log_fields

JSON_FORMATTER = "pythonjsonlogger.json.JsonFormatter"
JSON_FIELDS = "{asctime}{levelname}{name}{message}"
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


class RequestContext(logging.Filter):
    """Adds the request's fields and the trace and span ids to a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in log_fields().items():
            setattr(record, key, value)
        if tracing.enabled():
            context = trace.get_current_span().get_span_context()
            if context.is_valid:
                record.trace_id = format(context.trace_id, "032x")
                record.span_id = format(context.span_id, "016x")
        return True


def json_formatter() -> dict[str, Any]:
    """A ``logging.config`` formatter entry writing one JSON object a line."""
    from pythonjsonlogger.core import RESERVED_ATTRS

    return {
        "()": JSON_FORMATTER,
        "fmt": JSON_FIELDS,
        "style": "{",
        "rename_fields": RENAMED,
        # uvicorn's copy of its message with terminal colour codes: noise in JSON
        "reserved_attrs": [*RESERVED_ATTRS, "color_message"],
    }


def context_filter() -> dict[str, Any]:
    return {"()": f"{__name__}.RequestContext"}


def process_log_config(log_format: str, level: str) -> dict[str, Any]:
    """The logging configuration of a process that is not the HTTP server (a worker)."""
    text = {"format": "%(levelname)s:%(name)s:%(message)s"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": context_filter()},
        "formatters": {"line": json_formatter() if log_format == "json" else text},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "line",
                "filters": ["context"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["stderr"], "level": level},
    }
