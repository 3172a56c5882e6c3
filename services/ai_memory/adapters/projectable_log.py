"""An ``EventLog`` decorator that lets only projectable events onto the log.

An event on the log is forever: if a projection cannot apply it, that projection stops
at it on every retry and every replay. Validation (``core.record``) is meant to refuse
anything unprojectable with a precise field and rule; this guard is the backstop for
what validation missed or what a code path built without validation (governance,
imports, recalls). Before delegating ``append`` it runs, for every event, everything a
projection derives from it deterministically:

* the real serializer: encode, then decode the bytes back (what a projector reads) —
  which also proves a sealed write opens again (a write that stays sealed is refused);
* the partition key as UTF-8 (what a partitioned log hashes);
* the pure projections ``project_records`` and ``project_index`` on the decoded event;
* the record-store row (``record_rows``) as the stores write it, the tombstone's export
  line, lineage and tombstone rows;
* the index point: point id, payload (finite floats, JSON) and the text it indexes as
  UTF-8.

Left out are the two costly steps, embedding and keyword extraction (tokenising and
stemming, ~10 ms for a maximum-size record): both are total functions of encodable text,
which the steps above prove it is (``tests/property`` holds them to that). If any step
fails the whole batch is refused with ``InvalidInput(field="event", rule="projectable")``
and nothing is appended.

The composition root hands this decorator to every appender (the memory service and
through it notes, governance and imports; read reinforcement); projections and replays
read the undecorated log.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from ai_memory.adapters.index_payload import point_id, put_payload, tombstone_payload
from ai_memory.adapters.record_rows import record_values, tombstone_values
from ai_memory.core.bundle import tombstone_line
from ai_memory.core.errors import InvalidInput, RetryableError
from ai_memory.core.events import DomainEvent, Head, LoggedEvent, MemoryWritten, TenantPage
from ai_memory.core.ports import EventLog, EventSerializer, index_text
from ai_memory.core.projection import (
    AddReads,
    IndexMutation,
    IndexPut,
    IndexRemove,
    IndexSetState,
    PutLineage,
    PutRecord,
    PutTombstone,
    RecordMutation,
    RemoveRecord,
    SetState,
    project_index,
    project_records,
)
from ai_memory.core.record import safe_name
from ai_memory.core.timeparse import to_micros

# Any valid position: projections copy it into what they write and never interpret it.
_PROBE_POSITION = 1


def check_projectable(event: DomainEvent, serializer: EventSerializer) -> None:
    """Raise ``InvalidInput(field="event", rule="projectable")`` unless every projection
    can apply ``event``."""
    try:
        decoded = serializer.decode(serializer.encode(event))
        if isinstance(decoded, MemoryWritten) and decoded.sealed:
            # Appended with an envelope nothing can open (sealed elsewhere, or a key that
            # is gone): projections would read it as forgotten content and skip it.
            raise ValueError("its sealed content cannot be opened here")
        decoded.partition_key.encode("utf-8")
        logged = LoggedEvent(_PROBE_POSITION, decoded)
        for mutation in project_records(logged):
            _record_row(mutation)
        for index_mutation in project_index(logged):
            _index_point(index_mutation)
    except RetryableError:
        # A store the check needs is unreachable (the vault, to open what was sealed): an
        # outage, not an unprojectable event; the caller answers 503 and the client
        # retries, where a 422 would tell it to give the write up.
        raise
    except Exception as e:  # every other failure means one thing: a projection stops here
        name = type(event).__name__
        detail = safe_name(f"{type(e).__name__}: {e}", 300)
        raise InvalidInput(
            "event",
            "projectable",
            f"a {name} event was refused: a projection could not apply it ({detail})",
            code="unprojectable_event",
        ) from e


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")


def _record_row(m: RecordMutation) -> None:
    match m:
        case PutRecord(stored=s):
            # The row as both stores write it. Reading it back (GET, export) is the same
            # JSON and timestamps again; validation bounds those, and the property tests
            # read every accepted record back — not paid for on every append.
            record_values(s)
        case PutTombstone(tombstone=t):
            tombstone_values(t)
            tombstone_line(t).encode("utf-8")
        case SetState(at=at) | AddReads(at=at):
            to_micros(at)
        case PutLineage(entry=e):
            to_micros(e.at)
            json.dumps(e.detail, ensure_ascii=False, sort_keys=True).encode("utf-8")
        case RemoveRecord():
            pass


def _index_point(m: IndexMutation) -> None:
    match m:
        case IndexPut():
            point_id(m.tenant, m.record.id)
            payload = put_payload(m)
            for key, value in payload.items():
                if isinstance(value, float) and not math.isfinite(value):
                    raise ValueError(f"index payload {key} is not a finite number")
            _json_bytes(payload)
            index_text(m.record).encode("utf-8")
        case IndexRemove():
            point_id(m.tenant, m.memory_id)
            _json_bytes(tombstone_payload(m))
        case IndexSetState():
            point_id(m.tenant, m.memory_id)


class ProjectableLog:
    """``EventLog`` that checks every event with ``check_projectable`` before appending.

    Reads and everything else go straight to the wrapped log."""

    def __init__(self, inner: EventLog, serializer: EventSerializer) -> None:
        self.inner = inner
        self.serializer = serializer

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        for event in events:  # all of them first: a refused batch appends nothing
            check_projectable(event, self.serializer)
        return self.inner.append(events)

    def partitions(self) -> list[int]:
        return self.inner.partitions()

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        return self.inner.read(after=after, limit=limit, partition=partition)

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        return self.inner.read_tenant(
            tenant, after=after, limit=limit, scan=scan, partition=partition
        )

    def last_position(self, partition: int = 0) -> int:
        return self.inner.last_position(partition)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        return self.inner.wait_for_events(after=after, timeout=timeout, partition=partition)

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        return self.inner.heads(tenant, memory_ids)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        # Adapter-specific extras (e.g. a Kafka log's producer settings) stay reachable.
        if name == "inner":  # not set yet (e.g. during copying): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
