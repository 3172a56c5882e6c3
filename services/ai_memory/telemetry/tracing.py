"""Spans at the coarse steps of a write and a search, and the W3C trace context on the log.

Off (the default) every helper returns after one flag check: no context is attached,
no span object is made. On, spans come from the tracer provider the process configured
(``setup``) or a test installed (``enable``), which is deliberately not the global one
(libraries that trace themselves under a global provider record query strings).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import ParamSpec, TypeVar

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode

P = ParamSpec("P")
T = TypeVar("T")
Attributes = Mapping[str, str | int | float | bool]

TRACER_NAME = "ai_memory"
MAX_LINKS = 32  # a batch span links at most this many writes (the rest are counted)
# The only headers the trace context travels in (W3C Trace Context): never anything else
# of a request's or a record's headers is read or written here.
TRACE_HEADERS = ("traceparent", "tracestate")

_on = False
_tracer_of: trace.Tracer | None = None  # None: the global provider's
_NOTHING: AbstractContextManager[None] = nullcontext()


def enabled() -> bool:
    return _on


def enable(provider: trace.TracerProvider | None = None) -> None:
    """Turn span making on, with spans from ``provider`` (or the global provider's, for a
    process whose tracing someone else configured)."""
    global _on, _tracer_of
    _tracer_of = provider.get_tracer(TRACER_NAME) if provider is not None else None
    _on = True


def disable() -> None:
    global _on, _tracer_of
    _on = False
    _tracer_of = None


def _tracer() -> trace.Tracer:
    return _tracer_of or trace.get_tracer(TRACER_NAME)


def span(
    name: str,
    attributes: Attributes | None = None,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    context: Context | None = None,
) -> AbstractContextManager[Span | None]:
    """A span around a step, current inside it; nothing at all when tracing is off."""
    if not _on:
        return _NOTHING
    return _started(name, attributes or {}, kind, context, ())


@contextmanager
def _started(
    name: str,
    attributes: Attributes,
    kind: SpanKind,
    context: Context | None,
    links: Sequence[Link],
) -> Iterator[Span]:
    """A current span whose failure is recorded by its type alone: an exception's message
    can quote what it refused (a value, a query), and a span never holds content."""
    with _tracer().start_as_current_span(
        name,
        context,
        kind,
        attributes,
        links,
        record_exception=False,
        set_status_on_exception=False,
    ) as current:
        try:
            yield current
        except BaseException as e:
            current.set_status(Status(StatusCode.ERROR, type(e).__name__))
            current.set_attribute("error.type", type(e).__name__)
            raise


def traced(name: str) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A use case as one span (its attributes added inside with ``annotate``)."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
            if not _on:
                return function(*args, **kwargs)
            with _started(name, {}, SpanKind.INTERNAL, None, ()):
                return function(*args, **kwargs)

        return wrapper

    return decorate


def annotate(attributes: Attributes) -> None:
    """Add attributes to the current span (ids, counts: never content)."""
    if _on:
        current = trace.get_current_span()
        if current.is_recording():
            current.set_attributes(attributes)


def trace_headers() -> list[tuple[str, bytes]]:
    """The current span's W3C context as record headers (``traceparent``), or none."""
    if not _on:
        return []
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return [(k, v.encode()) for k, v in carrier.items() if k in TRACE_HEADERS]


def incoming_context(headers: Iterable[tuple[bytes, bytes]]) -> Context | None:
    """The caller's trace context from raw request headers (only ``traceparent`` and
    ``tracestate`` are looked at), or None to start a new trace."""
    carrier = {
        k.decode("latin-1").lower(): v.decode("latin-1")
        for k, v in headers
        if k.lower() in (b"traceparent", b"tracestate")
    }
    return propagate.extract(carrier) if carrier else None


def context_from_headers(
    headers: Iterable[tuple[str, bytes | str]] | Mapping[str, bytes | str] | None,
) -> SpanContext | None:
    """The span context a producer put in record (or request) headers, if valid."""
    if not _on or not headers:
        return None
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    carrier: dict[str, str] = {}
    for key, value in pairs:
        name = key.lower() if isinstance(key, str) else ""
        if name in TRACE_HEADERS:
            carrier[name] = value.decode("latin-1") if isinstance(value, bytes) else value
    if not carrier:
        return None
    found = trace.get_current_span(propagate.extract(carrier)).get_span_context()
    return found if found.is_valid else None


def batch_span(
    name: str, parents: Sequence[SpanContext | None], attributes: Attributes
) -> AbstractContextManager[Span | None]:
    """One span for a batch applied by a projector: the child of the first write it
    carries a context of, linked to every other one (a batch serves many requests)."""
    if not _on:
        return _NOTHING
    by_id = {(p.trace_id, p.span_id): p for p in reversed(parents) if p is not None}
    distinct = list(reversed(by_id.values()))  # in order of first appearance
    parent = trace.set_span_in_context(trace.NonRecordingSpan(distinct[0])) if distinct else None
    links = [Link(p) for p in distinct[1 : MAX_LINKS + 1]]
    more = {"aimem.traced_writes": len(distinct)}
    return _started(name, {**attributes, **more}, SpanKind.CONSUMER, parent, links)
