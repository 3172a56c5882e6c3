"""Traces for a server process, from the standard ``OTEL_*`` variables (off unless
``OTEL_TRACES_EXPORTER`` names an exporter: docs/OBSERVABILITY.md)."""

from __future__ import annotations

from collections.abc import Callable

import typer
from rich.console import Console

from ai_memory.settings import OtelEnvironment, Settings
from ai_memory.telemetry.setup import TracingUnavailable, configure_tracing


def start_tracing(settings: Settings, default_service: str) -> Callable[[], None]:
    """Turn tracing on if the environment asks for it; the returned function flushes
    what is buffered and stops (a no-op when tracing stayed off). Exits 2 with the
    reason when tracing was asked for and cannot be given."""
    env = OtelEnvironment.read()
    if not env.tracing:
        return lambda: None
    try:
        return configure_tracing(
            env.traces_exporter,
            env.service_name or default_service,
            traces_file=settings.traces_file,
        )
    except TracingUnavailable as e:
        Console(stderr=True).print(f"[red]{e}[/red]", markup=True)
        raise typer.Exit(2) from None
