"""Which write each event came from, for an in-process projection.

The embedded log (SQLite) stores frames, not headers: a projection in the same process
asks here for the span context of the write that appended an event, by event id, so its
batch span joins that write's trace. Bounded: the oldest entries go first (a projection
that falls that far behind starts its spans without a parent, nothing worse).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from opentelemetry import trace
from opentelemetry.trace import SpanContext

from . import tracing

CAPACITY = 20_000


class EventContexts:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._contexts: OrderedDict[str, SpanContext] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, event_ids: Iterable[str], *, keep: bool = False) -> None:
        """The current span is the writer of ``event_ids`` (call before the append: a
        projection may read the events the moment they are committed). ``keep``: an
        event already remembered keeps its writer (a single write that joined another
        request's group commit was remembered in its own request's trace)."""
        if not tracing.enabled():
            return
        context = trace.get_current_span().get_span_context()
        if not context.is_valid:
            return
        with self._lock:
            for event_id in event_ids:
                if not keep or event_id not in self._contexts:
                    self._contexts[event_id] = context
            while len(self._contexts) > self._capacity:
                self._contexts.popitem(last=False)

    def lookup(self, event_ids: Iterable[str]) -> list[SpanContext | None]:
        if not tracing.enabled():
            return []
        with self._lock:
            return [self._contexts.get(event_id) for event_id in event_ids]


EVENT_CONTEXTS = EventContexts()
