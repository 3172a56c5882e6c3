"""Processes and the command line: logs, traces, metrics, and the client commands'
server and agent."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from .section import Section


class CommandLineSettings(Section):
    # The command line's options fall back on these variables (Typer's ``envvar``): they
    # are declared here so that every variable is described in one place.
    metrics_port: int = Field(
        default=0,
        ge=0,
        description="`serve` and `project` (`--metrics-port`): also serve `/metrics` on this "
        "port, without a key, for Prometheus on the internal network. `serve`'s default 0 "
        "serves it only on the API port, behind an operator key; `project` defaults to 9464.",
    )
    url: str = Field(
        default="http://127.0.0.1:8080",
        description="The server client commands talk to (`--url`).",
    )
    agent: str = Field(
        default="cli",
        description="`ai-memory write --source-agent`: the agent a memory written from the "
        "command line is attributed to.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Log level of a projector worker (`ai-memory project`)."
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="Log lines of `ai-memory serve` and `ai-memory project`: `text`, or `json` "
        "(one object a line, with the request id, tenant, key id and, when tracing is on, "
        "trace and span ids; never a key, a query string or a body: docs/OBSERVABILITY.md).",
    )
    traces_file: Path | None = Field(
        default=None,
        description="With `OTEL_TRACES_EXPORTER=console`: append finished spans to this file, "
        "one JSON object a line, instead of printing them to standard output.",
    )
    debug: bool = Field(
        default=False,
        description="`ai-memory --debug`: a command that fails prints the Python traceback "
        "as well as the one line naming the problem.",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value
