"""The dead-letter topic format: where a projector parks an event it can never process.

A poison event (bytes no schema in the catalog can read, or an event a projection cannot
apply) must not stop a projection forever, and must not be lost either. The projector
copies the raw bytes, unchanged, to ``<topic>.dlq`` with headers saying why and where it
came from, then moves on. An operator lists, inspects, re-drives or discards it with
``ai-memory dead-letters`` (``dead_letters.KafkaDeadLetters`` reads the topic back). This
is the only format on the topic: every writer builds its records here.

Headers (values are UTF-8):

* ``aimem.dlq.reason``   — ``UndecodableEvent.reason`` or another stable word;
* ``aimem.dlq.position`` — the packed position of the original event;
* ``aimem.dlq.topic`` / ``aimem.dlq.partition`` / ``aimem.dlq.offset`` — the same position
  spelled out, for tools that do not know the packing;
* ``aimem.dlq.at_ms``    — when it was dead-lettered (the latest failure);
* ``aimem.dlq.projection`` — the projection that failed (``records``, ``index``);
* ``aimem.dlq.error``    — the last error, ``Type: message`` (at most 2000 characters);
* ``aimem.dlq.attempts`` / ``aimem.dlq.first_at_ms`` — failed tries so far, first failure;
* ``aimem.dlq.resolved`` — ``1`` on a marker record: the entry was re-driven or discarded.

The key is ``<projection>:<position>`` (the bare position when no projection is named), so
dead-lettering the same event twice (a projector restarted before its checkpoint moved) is
recognisable, and the latest record of a key is the entry's current state.
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
PROJECTION = "aimem.dlq.projection"
ERROR = "aimem.dlq.error"
ATTEMPTS = "aimem.dlq.attempts"
FIRST_AT_MS = "aimem.dlq.first_at_ms"
RESOLVED = "aimem.dlq.resolved"
MAX_ERROR_CHARS = 2000

Headers = list[tuple[str, bytes]]


def dead_letter_key(projection: str, position: int) -> bytes:
    return (f"{projection}:{position}" if projection else str(position)).encode()


def dead_letter_record(
    raw: bytes,
    reason: str,
    position: int,
    source_topic: str,
    *,
    projection: str = "",
    partition: int | None = None,
    error: str = "",
    attempts: int = 1,
    at_ms: int | None = None,
    first_at_ms: int | None = None,
) -> tuple[bytes, bytes, Headers]:
    """(key, value, headers) of the dead-letter record for the event at ``position``."""
    at = int(time.time() * 1000) if at_ms is None else at_ms
    source_partition = partition_of(position) if partition is None else partition
    headers: Headers = [
        (REASON, reason.encode()),
        (POSITION, str(position).encode()),
        (SOURCE_TOPIC, source_topic.encode()),
        (SOURCE_PARTITION, str(source_partition).encode()),
        (SOURCE_OFFSET, str(offset_of(position)).encode()),
        (AT_MS, str(at).encode()),
        (ATTEMPTS, str(attempts).encode()),
        (FIRST_AT_MS, str(at if first_at_ms is None else first_at_ms).encode()),
    ]
    if projection:
        headers.append((PROJECTION, projection.encode()))
    if error:
        headers.append((ERROR, error[:MAX_ERROR_CHARS].encode(errors="replace")))
    return dead_letter_key(projection, position), raw, headers


def resolved_record(projection: str, position: int) -> tuple[bytes, bytes, Headers]:
    """(key, value, headers) of the marker that closes the entry of ``position``."""
    headers: Headers = [
        (RESOLVED, b"1"),
        (POSITION, str(position).encode()),
        (PROJECTION, projection.encode()),
        (AT_MS, str(int(time.time() * 1000)).encode()),
    ]
    return dead_letter_key(projection, position), b"", headers


def header_dict(headers: Headers | None) -> dict[str, str]:
    """Record headers as a dict of strings (for tools and tests reading the topic)."""
    return {key: value.decode(errors="replace") for key, value in headers or ()}
