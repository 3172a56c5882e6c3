"""Frames this process has already decoded, so that its in-process readers of the log do
not decode them again.

The append pipeline decodes every frame it encoded before appending it (the
projectability proof, ``adapters.projectability``), and the projections that run in the
same process (the embedded log's records and index tailers, a gateway's co-located
index) then read those very bytes back from the log and decoded them once more each:
three decodes of every event, a quarter of an embedded import's interpreter time. The
proof now leaves its decoded event here, keyed by the frame's bytes, and
``AvroEventSerializer.decode_many`` answers a frame it finds here with that event.

Why that is exactly what a decode would give:

* the key is the whole frame, compared byte for byte, and decoding is a function of the
  bytes (the schema catalog is fixed for the process) — except where the frame holds
  sealed content, which a decode opens only while its data key is alive;
* so an entry remembers the data key it was opened with, and the serializer answers
  with it only after asking its sealer for that key as a decode would (its key cache,
  else the vault, read for the whole batch at once): a key destroyed since, here or in
  another process, makes the frame decode afresh, to "forgotten";
* events are frozen dataclasses that projections read and never change, so one event
  object can serve every reader.

An entry leaves once each of the process's readers of the log (``read_by``: its
in-process projections) has taken it; the count is bounded (oldest out first) for what
no reader takes (a stopped projection, an append that failed), and a reader that falls
further behind than that decodes as before. A process without such readers keeps
nothing. ``tests/unit/test_decoded_frames.py`` holds every answer to a fresh decode's,
a key destroyed between the proof and the read included.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ai_memory.core.events import DomainEvent

#: Frames kept at most: how far behind the appender an in-process projection can read
#: and still be answered from here (an import's projections trail it by thousands of
#: events). Entries leave as soon as every reader took them, so this is a ceiling.
DEFAULT_SIZE = 16_384

#: (tenant, key id) of the data key a frame's sealed content was opened with.
KeyRef = tuple[str, str]


class DecodedFrames:
    """Decoded events by their frame, each with the data key it was opened with."""

    def __init__(self, *, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        # frame → [event, key it was opened with, readers yet to take it]
        self._frames: OrderedDict[bytes, tuple[DomainEvent, KeyRef | None, list[int]]] = (
            OrderedDict()
        )
        self._readers = 0
        self._lock = threading.Lock()
        self.taken = 0  # found here
        self.misses = 0  # not here
        self.stale = 0  # found, but its key no longer opens: decoded afresh

    def read_by(self, readers: int) -> None:
        """How many readers in this process take each frame (its in-process projections)."""
        self._readers = readers

    def remember(self, frame: bytes, event: DomainEvent, key: KeyRef | None) -> None:
        if self._readers == 0:
            return
        data = bytes(frame)
        with self._lock:
            self._frames[data] = (event, key, [self._readers])
            self._frames.move_to_end(data)
            while len(self._frames) > self._size:
                self._frames.popitem(last=False)

    def take(self, frame: bytes) -> tuple[DomainEvent, KeyRef | None] | None:
        """The event ``frame`` decoded to and the key it was opened with, or None; a
        reader's take (the entry leaves after the last reader's)."""
        data = frame if isinstance(frame, bytes) else bytes(frame)
        with self._lock:
            entry = self._frames.get(data)
            if entry is None:
                self.misses += 1
                return None
            event, key, left = entry
            left[0] -= 1
            if left[0] <= 0:
                del self._frames[data]
            self.taken += 1
            return event, key

    @property
    def hits(self) -> int:
        """Frames answered from here (taken, their key still opening)."""
        return self.taken - self.stale

    def mark_stale(self) -> None:
        """A taken entry whose key is gone: decoded afresh."""
        with self._lock:
            self.stale += 1

    def __len__(self) -> int:
        return len(self._frames)
