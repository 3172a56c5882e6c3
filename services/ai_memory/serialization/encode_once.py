"""A serializer that encodes each event object once, however many stages ask.

The projectability guard encodes every event before the append (that is how it proves
the log's readers can decode it), and the log adapter then encodes the same object again
to write it. Events are immutable, so the frame of an object seen a moment ago is still
its frame: this wrapper remembers the frames of the most recent events *by identity*
(the remembered event is held, so its id cannot be reused by another object meanwhile).
Everything else goes straight to the wrapped serializer.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ai_memory.core.events import DomainEvent
from ai_memory.core.ports import EventSerializer

# More than the largest batch an appender hands the log at once (imports: 500 lines).
_RECENT = 4096


class EncodeOnce:
    def __init__(self, inner: EventSerializer, recent: int = _RECENT) -> None:
        self.inner = inner
        self._recent: OrderedDict[int, tuple[DomainEvent, bytes]] = OrderedDict()
        self._size = recent
        self._lock = threading.Lock()

    def event_type(self, event: DomainEvent) -> str:
        return self.inner.event_type(event)

    def encode(self, event: DomainEvent) -> bytes:
        key = id(event)
        with self._lock:
            seen = self._recent.get(key)
            if seen is not None and seen[0] is event:
                return seen[1]
        frame = self.inner.encode(event)
        with self._lock:
            self._recent[key] = (event, frame)
            while len(self._recent) > self._size:
                self._recent.popitem(last=False)
        return frame

    def decode(self, data: bytes) -> DomainEvent:
        return self.inner.decode(data)
