"""The access log names paths, never query strings.

Query values are user data: note topics (``GET /v1/notes?topic=…``), a forget's
``?reason=``, search words. Written to the server's access log they would outlive any
forgetting — a file the erasure does not reach. So the access line keeps the method,
the path (whose ids are the caller's identifiers) and the status, and a query string is
replaced by ``?…``.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from uvicorn.config import LOGGING_CONFIG

ELIDED = "?…"


class PathOnly(logging.Filter):
    """For uvicorn's access records: ``(client, method, path?query, http, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            path, sep, _ = args[2].partition("?")
            if sep:
                record.args = (args[0], args[1], path + ELIDED, args[3], args[4])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with the query strings left out of access lines."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["path_only"] = {"()": f"{__name__}.PathOnly"}
    config["handlers"]["access"]["filters"] = ["path_only"]
    return config
