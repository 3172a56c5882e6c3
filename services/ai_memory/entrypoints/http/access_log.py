"""The access log names paths, never query strings.

Query values are user data: note topics (``GET /v1/notes?topic=…``), a forget's
``?reason=``, search words. Written to the server's access log they would outlive any
forgetting — a file the erasure does not reach. So the access line keeps the method,
the path (whose ids are the caller's identifiers) and the status, and a query string is
replaced by ``?…``.

With ``AIMEM_LOG_FORMAT=json`` every line is a JSON object (python-json-logger) holding
also the method, the path (query elided), the status, and the request's id, route
template, tenant and key id (``telemetry.logs``); the server's own log lines too.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from uvicorn.config import LOGGING_CONFIG

from ai_memory.telemetry import logs

ELIDED = "?…"


class PathOnly(logging.Filter):
    """For uvicorn's access records: ``(client, method, path?query, http, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            path, sep, _ = args[2].partition("?")
            if sep:
                record.args = (args[0], args[1], path + ELIDED, args[3], args[4])
            # Fields of their own for JSON lines (a text line ignores them).
            record.http_method = args[1]
            record.path = path
            record.status_code = args[4]
        return True


def log_config(log_format: str = "text") -> dict[str, Any]:
    """uvicorn's logging configuration with the query strings left out of access lines;
    ``json``: every line (the server's own too) one JSON object with the request's ids."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["path_only"] = {"()": f"{__name__}.PathOnly"}
    config["handlers"]["access"]["filters"] = ["path_only"]
    if log_format == "json":
        config["filters"]["context"] = logs.context_filter()
        config["formatters"] = {"default": logs.json_formatter(), "access": logs.json_formatter()}
        for handler in config["handlers"].values():
            handler["filters"] = [*handler.get("filters", []), "context"]
        config["root"] = {"handlers": ["default"], "level": "INFO"}
    return config
