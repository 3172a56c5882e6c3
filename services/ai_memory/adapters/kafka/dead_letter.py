"""The dead-letter topic: where a projector parks an event it can never process.

A poison event (bytes no schema in the catalog can read, or an event a projection rejects
permanently) must not stop a projection forever, and must not be lost either. The
projector copies the raw bytes, unchanged, to ``<topic>.dlq`` with headers saying why and
where it came from, then moves on. An operator can inspect it, fix the code or the
catalog, and replay.

Headers (values are UTF-8):

* ``aimem.dlq.reason``   — ``UndecodableEvent.reason`` or another stable word;
* ``aimem.dlq.position`` — the packed position of the original event;
* ``aimem.dlq.topic`` / ``aimem.dlq.partition`` / ``aimem.dlq.offset`` — the same position
  spelled out, for tools that do not know the packing;
* ``aimem.dlq.at_ms``    — when it was dead-lettered.

The key is the original position, so dead-lettering the same event twice (a projector
restarted before its checkpoint moved) is recognisable.
"""

from __future__ import annotations

import time

from ai_memory.core.positions import offset_of, partition_of

REASON = "aimem.dlq.reason"
POSITION = "aimem.dlq.position"
SOURCE_TOPIC = "aimem.dlq.topic"
SOURCE_PARTITION = "aimem.dlq.partition"
SOURCE_OFFSET = "aimem.dlq.offset"
AT_MS = "aimem.dlq.at_ms"

Headers = list[tuple[str, bytes]]


def dead_letter_record(
    raw: bytes, reason: str, position: int, source_topic: str
) -> tuple[bytes, bytes, Headers]:
    """(key, value, headers) of the dead-letter record for the event at ``position``."""
    headers: Headers = [
        (REASON, reason.encode()),
        (POSITION, str(position).encode()),
        (SOURCE_TOPIC, source_topic.encode()),
        (SOURCE_PARTITION, str(partition_of(position)).encode()),
        (SOURCE_OFFSET, str(offset_of(position)).encode()),
        (AT_MS, str(int(time.time() * 1000)).encode()),
    ]
    return str(position).encode(), raw, headers


def header_dict(headers: Headers | None) -> dict[str, str]:
    """Record headers as a dict of strings (for tools and tests reading the topic)."""
    return {key: value.decode(errors="replace") for key, value in headers or ()}
