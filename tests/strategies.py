"""Hypothesis strategies for the domain model: records, events and their building blocks.

One module for every property-based test; extend it rather than defining strategies inline.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

from ai_memory.core.events import (
    DomainEvent,
    EncryptionEnvelope,
    EventHeader,
    InteractionRecorded,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
)
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType

# --- building blocks --------------------------------------------------------------------

#: CJK Unified Ideographs plus the CJK punctuation block.
chinese_text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        st.characters(min_codepoint=0x3000, max_codepoint=0x303F),
    ),
    min_size=1,
    max_size=50,
)
texts = st.one_of(st.text(max_size=80), chinese_text)
non_empty_texts = st.one_of(st.text(min_size=1, max_size=40), chinese_text)

#: Aware UTC datetimes with microseconds, within the range ``timeparse`` accepts.
utc_datetimes = st.datetimes(
    min_value=datetime(1900, 1, 1),
    max_value=datetime(9999, 12, 30),
    timezones=st.just(UTC),
)

avro_longs = st.integers(min_value=-(2**63), max_value=2**63 - 1)
counts = st.integers(min_value=0, max_value=2**63 - 1)

#: Any JSON value, nested.
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)
#: A ``meta`` object: a JSON object whose values may nest.
metas = st.dictionaries(texts, json_values, max_size=5)

tags = st.lists(non_empty_texts, max_size=6, unique=True).map(tuple)
ttls = st.none() | st.integers(min_value=1, max_value=2**63 - 1)
memory_types = st.sampled_from(MemoryType)
memory_states = st.sampled_from(MemoryState)

# --- records and events -----------------------------------------------------------------

memory_records = st.builds(
    MemoryRecord,
    id=non_empty_texts,
    type=memory_types,
    content=texts,
    scope=non_empty_texts,
    source_agent=non_empty_texts,
    created_at=utc_datetimes,
    ttl=ttls,
    tags=tags,
    meta=metas,
    schema_version=st.integers(min_value=1, max_value=2**31 - 1),
)

event_headers = st.builds(
    EventHeader,
    event_id=non_empty_texts,
    tenant=non_empty_texts,
    occurred_at=utc_datetimes,
    actor=texts,
)

encryption_envelopes = st.builds(
    EncryptionEnvelope,
    key_id=non_empty_texts,
    algorithm=st.sampled_from(["AES-256-GCM", "XChaCha20-Poly1305"]),
    nonce=st.binary(max_size=24),
    ciphertext=st.binary(max_size=300),
)

memory_written = st.builds(
    MemoryWritten,
    header=event_headers,
    record=memory_records,
    version=counts,
    content_sha256=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
    state=memory_states,
    cause=texts,
    import_batch_id=st.none() | non_empty_texts,
    encryption=st.none() | encryption_envelopes,
)

memory_deleted = st.builds(
    MemoryDeleted,
    header=event_headers,
    memory_id=non_empty_texts,
    scope=non_empty_texts,
    reason=texts,
    version=counts,
)

memory_state_changed = st.builds(
    MemoryStateChanged,
    header=event_headers,
    memory_id=non_empty_texts,
    scope=non_empty_texts,
    from_state=memory_states,
    to_state=memory_states,
    cause=texts,
    decision_json=st.none() | texts,
)

memories_recalled = st.builds(
    MemoriesRecalled,
    header=event_headers,
    scope=non_empty_texts,
    memory_ids=st.lists(non_empty_texts, max_size=10).map(tuple),
)

memories_imported = st.builds(
    MemoriesImported,
    header=event_headers,
    batch_id=non_empty_texts,
    source=texts,
    received=counts,
    written=counts,
    unchanged=counts,
    skipped_tombstoned=counts,
    rejected=counts,
)

#: One strategy per event type, by type name.
interactions_recorded = st.builds(
    InteractionRecorded,
    header=event_headers,
    interaction_id=non_empty_texts,
    scope=non_empty_texts,
    source_agent=non_empty_texts,
    session_id=st.none() | non_empty_texts,
    text=texts,
    at=utc_datetimes,
    extraction_json=st.none() | st.dictionaries(texts, json_values, max_size=3).map(json.dumps),
)

events_by_type: dict[str, st.SearchStrategy[DomainEvent]] = {
    "InteractionRecorded": interactions_recorded,
    "MemoryWritten": memory_written,
    "MemoryDeleted": memory_deleted,
    "MemoryStateChanged": memory_state_changed,
    "MemoriesRecalled": memories_recalled,
    "MemoriesImported": memories_imported,
}
domain_events: st.SearchStrategy[DomainEvent] = st.one_of(*events_by_type.values())
