"""The body of a delivery: change-feed entries, each with an event id — never content.

Each entry is what ``GET /v1/changes`` gives (id, kind, scope, version, state, when, by
whom, position, cursor) plus ``event_id``, a digest of the tenant, the memory, the kind
and the log position: the same change has the same id in every delivery of every
attempt, whether sent again after a timeout or after a restart, so a receiver
de-duplicates by it. ``delivery_id`` (also the ``X-AIMemory-Event-Id`` header) names a
batch: the same entries sent again carry the same one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

EVENT_TYPE = "memory.changes"


class Entry(Protocol):
    """A change-feed entry (``service.changes.Change``)."""

    @property
    def kind(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def position(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


def event_id(tenant: str, entry: Entry) -> str:
    """Stable across attempts, restarts and subscriptions: one change, one id (a
    memory's events are in one partition, so memory and position name one event)."""
    text = "\x00".join((tenant, entry.id, entry.kind, str(entry.position)))
    return "evt_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def delivery_id(webhook_id: str, event_ids: Sequence[str]) -> str:
    text = "\x00".join((webhook_id, *event_ids))
    return "dlv_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def body_of(
    webhook_id: str, tenant: str, entries: Sequence[Entry], cursor: str
) -> tuple[str, bytes]:
    """``(delivery id, body)``: the JSON every attempt of this batch sends, byte for
    byte (the signature covers it with the attempt's timestamp)."""
    events = [{"event_id": event_id(tenant, e), **e.to_json()} for e in entries]
    delivery = delivery_id(webhook_id, [str(e["event_id"]) for e in events])
    body = {
        "type": EVENT_TYPE,
        "delivery_id": delivery,
        "webhook_id": webhook_id,
        "events": events,
        "cursor": cursor,
    }
    return delivery, json.dumps(body, separators=(",", ":")).encode("utf-8")
