"""Turning tracing on in a process, from the standard ``OTEL_*`` variables.

Off unless ``OTEL_TRACES_EXPORTER`` names an exporter (``otlp``, ``console``; ``none`` and
``OTEL_SDK_DISABLED=true`` keep it off). The SDK and the OTLP exporter are the ``otel``
extra, imported only here and only then; the exporter reads its own variables
(``OTEL_EXPORTER_OTLP_ENDPOINT``, ``…_HEADERS``, ``…_TIMEOUT``), the sampler
``OTEL_TRACES_SAMPLER``, the resource ``OTEL_RESOURCE_ATTRIBUTES``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from . import tracing

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

EXPORTERS = ("otlp", "console", "none")


class TracingUnavailable(ValueError):
    """Tracing was asked for and cannot be given (a missing extra, an unknown exporter)."""


def configure_tracing(
    exporters: str,
    service_name: str,
    *,
    traces_file: Path | None = None,
) -> Callable[[], None]:
    """Install a tracer provider exporting to ``exporters`` (``OTEL_TRACES_EXPORTER``,
    comma-separated); the returned function flushes and stops it."""
    names = [n.strip() for n in exporters.split(",") if n.strip()]
    unknown = [n for n in names if n not in EXPORTERS]
    if unknown:
        raise TracingUnavailable(
            f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not one of {', '.join(EXPORTERS)}"
        )
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )
    except ModuleNotFoundError as e:
        raise TracingUnavailable(
            "OTEL_TRACES_EXPORTER is set but the OpenTelemetry SDK is not installed: "
            "pip install 'ai-memory[otel]'"
        ) from e
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    closing: list[TextIO] = []
    for name in names:
        if name == "otlp":
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )
            except ModuleNotFoundError as e:
                raise TracingUnavailable(
                    "OTEL_TRACES_EXPORTER=otlp needs the OTLP exporter: "
                    "pip install 'ai-memory[otel]'"
                ) from e
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        elif name == "console":
            out: TextIO = sys.stdout
            if traces_file is not None:
                out = traces_file.open("a", encoding="utf-8", buffering=1)
                closing.append(out)
            # One span a line, written as it ends: a file a reader can follow.
            exporter = ConsoleSpanExporter(out=out, formatter=_one_line)
            provider.add_span_processor(SimpleSpanProcessor(exporter))
    # Not made the global provider: libraries that trace themselves when one is set
    # (FastAPI's own request spans record the query string and validation inputs; the
    # MCP and A2A SDKs their calls' arguments) stay silent. Only our spans are exported.
    tracing.enable(provider)

    def shutdown() -> None:
        tracing.disable()
        provider.shutdown()
        for f in closing:
            f.close()

    return shutdown


def _one_line(span: ReadableSpan) -> str:
    return str(span.to_json(indent=None)) + "\n"
