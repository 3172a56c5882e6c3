"""Traces and log context, shared by every layer (docs/OBSERVABILITY.md).

Only the OpenTelemetry *API* is imported here: until a process turns tracing on
(``setup.configure_tracing``, when ``OTEL_TRACES_EXPORTER`` is set) every helper returns
at a flag check, so the write path pays nothing for it. A span carries ids, tenants,
kinds, counts and positions — never content, query text, tag values, keys or secrets.
"""

from .event_contexts import EVENT_CONTEXTS, EventContexts
from .log_context import bind_log_fields, log_fields
from .tracing import (
    annotate,
    batch_span,
    context_from_headers,
    enable,
    enabled,
    span,
    trace_headers,
    traced,
)

__all__ = [
    "EVENT_CONTEXTS",
    "EventContexts",
    "annotate",
    "batch_span",
    "bind_log_fields",
    "context_from_headers",
    "enable",
    "enabled",
    "log_fields",
    "span",
    "trace_headers",
    "traced",
]
