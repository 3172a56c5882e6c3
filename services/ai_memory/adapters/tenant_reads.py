"""Decoding a tenant's page of the log for the audit trail (``EventLog.read_tenant``).

A projection must stop at an event it cannot decode (it dead-letters it and moves on
explicitly). The audit trail is a listing: an undecodable event there would block every
later page of the tenant, so it is left out and logged. The projections' dead letters
already hold it with its bytes, where an operator deals with it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ai_memory.core.errors import UndecodableEvent
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import EventSerializer

log = logging.getLogger(__name__)


def decoded_skipping_poison(
    rows: Iterable[tuple[int, bytes]], serializer: EventSerializer
) -> list[LoggedEvent]:
    """``(position, payload)`` rows → events, leaving out (and logging) undecodable ones."""
    events: list[LoggedEvent] = []
    for position, payload in rows:
        try:
            events.append(LoggedEvent(position, serializer.decode(payload)))
        except UndecodableEvent as e:
            log.warning("audit: undecodable event at position %d left out: %s", position, e)
    return events
