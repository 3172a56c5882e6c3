"""Re-driving a dead letter: read the original event back from the log at its position and
apply it through the projection's sink.

The log, not the entry's copy of the bytes, is the source: it is the record of truth, and
what the entry holds may be a re-encoding. Applying an old event is safe at any time —
sinks are order-safe (a mutation older than what is stored for its id is ignored) and a
checkpoint never moves backwards — so a re-drive after newer writes changes nothing that
those writes decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from ai_memory.core import positions
from ai_memory.core.errors import NotFound, RetryableError
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetter, DeadLetters, EventLog

from .policy import Now, error_text, reason_of
from .sinks import ProjectionSink


@dataclass(frozen=True)
class Redriven:
    letter: DeadLetter
    resolved: bool  # False: it failed again and stays, with the new error
    error: str | None = None


def read_at(log: EventLog, position: int, *, packed: bool) -> LoggedEvent:
    """The event at ``position`` (raises ``UndecodableEvent`` when it still cannot be
    decoded, ``NotFound`` when the log no longer has it)."""
    partition = positions.partition_of(position) if packed else 0
    if packed:
        offset = positions.offset_of(position)
        after = 0 if offset <= 0 else positions.pack(partition, offset - 1)
    else:
        after = position - 1
    events = log.read(after=after, limit=1, partition=partition)
    if not events or events[0].position != position:
        raise NotFound(f"position {position} is no longer on the log", code="event_not_found")
    return events[0]


def redrive(
    letter: DeadLetter,
    log: EventLog,
    sink: ProjectionSink,
    dead_letters: DeadLetters,
    *,
    packed: bool,
    now: Now | None = None,
) -> Redriven:
    """Apply the event again: on success the entry is removed; on failure it stays with
    the new error and one more attempt. ``RetryableError`` (the log or the store is
    down) propagates: the event was not tried, so nothing is recorded."""
    try:
        event = read_at(log, letter.position, packed=packed)
        sink.apply([event], letter.partition)
    except RetryableError:
        raise
    except Exception as e:
        at = (now or _utcnow)()
        failed = DeadLetter(
            projection=letter.projection,
            position=letter.position,
            partition=letter.partition,
            reason=reason_of(e),
            error=error_text(e),
            raw=letter.raw,
            attempts=1,
            first_failed_at=at,
            last_failed_at=at,
        )
        return Redriven(dead_letters.put(failed), False, failed.error)
    dead_letters.resolve(letter.projection, letter.position)
    return Redriven(letter, True)


def _utcnow() -> datetime:
    return datetime.now(UTC)
