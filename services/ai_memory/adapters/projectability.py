"""The proof that every projection can apply an event: the append pipeline's backstop.

An event on the log is forever: if a projection cannot apply it, that projection stops
at it on every retry and every replay. Validation (``core.record``) is meant to refuse
anything unprojectable with a precise field and rule; this proof is the backstop for
what validation missed or what a code path built without validation (governance,
imports, recalls). The append pipeline (``service.append_pipeline``) runs it on every
encoded event before the append, and it runs everything a projection derives from the
event deterministically:

* the real serializer: decode the frame the log will hold (what a projector reads) —
  which also proves a sealed write opens again (a write that stays sealed is refused);
* the partition key as UTF-8 (what a partitioned log hashes);
* the pure projections ``project_records`` and ``project_index`` on the decoded event;
* the record-store row (``record_rows``) as the stores write it, the tombstone's export
  line, lineage and tombstone rows;
* the index point: point id, payload (finite floats, JSON) and the text it indexes as
  UTF-8.

Left out are the two costly steps, embedding and keyword extraction (tokenising and
stemming, ~10 ms for a maximum-size record): both are total functions of encodable text,
which the steps above prove it is (``tests/property`` holds them to that). A failure is
``InvalidInput(field="event", rule="projectable")``; the pipeline then appends nothing.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ai_memory.adapters.index_payload import point_id, put_payload, tombstone_payload
from ai_memory.adapters.record_rows import json_text, record_values, tombstone_values
from ai_memory.core.bundle import tombstone_line
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import DomainEvent, LoggedEvent, MemoryWritten
from ai_memory.core.ports import EncodedEvent, EventSerializer, encode_events, index_text
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
    unprojectable,
)
from ai_memory.core.timeparse import to_micros

# Any valid position: projections copy it into what they write and never interpret it.
_PROBE_POSITION = 1


def check_projectable(event: DomainEvent, serializer: EventSerializer) -> None:
    """Raise ``InvalidInput(field="event", rule="projectable")`` unless every projection
    can apply ``event`` (encoded here; the pipeline proves the frame it encoded)."""
    try:
        encoded = encode_events(serializer, [event])[0]
    except RetryableError:
        raise
    except Exception as e:
        raise unprojectable(type(event).__name__, e) from e
    prove_projectable(encoded, serializer)


def prove_projectable(encoded: EncodedEvent, serializer: EventSerializer) -> None:
    """``check_projectable`` of an event already encoded: its frame is decoded as a
    projector will read it from the log (and, where the serializer keeps what it proved
    for this process's readers of the log, kept: ``decode_remembered``)."""
    decode = getattr(serializer, "decode_remembered", serializer.decode)
    try:
        decoded = decode(encoded.frame)
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
        raise unprojectable(type(encoded.event).__name__, e) from e


class ProjectabilityCheck:
    """``ProjectabilityProof`` with the serializer the log reads with."""

    def __init__(self, serializer: EventSerializer) -> None:
        self._serializer = serializer

    def prove(self, encoded: EncodedEvent) -> None:
        prove_projectable(encoded, self._serializer)


# ``json.dumps`` with arguments makes an encoder per call (a quarter of what it costs for
# a point's payload); the encoder itself keeps no state between calls.
_PAYLOAD_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def _json_bytes(value: Any) -> bytes:
    return _PAYLOAD_JSON.encode(value).encode("utf-8")


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
            json_text(e.detail, sort_keys=True).encode("utf-8")
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
