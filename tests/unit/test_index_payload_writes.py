"""What a point's payload holds and how its id is made (``adapters.index_payload``)."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from ai_memory.adapters import index_payload as ip
from ai_memory.core.projection import IndexPut
from ai_memory.core.record import MemoryState, MemoryType
from tests.factories import T0, record


@given(st.text(max_size=20), st.text(max_size=40))
def test_point_ids_are_uuid5_of_tenant_and_memory(tenant: str, memory_id: str) -> None:
    ip.point_id.cache_clear()
    expected = str(uuid.uuid5(ip.POINT_NAMESPACE, f"{tenant}/{memory_id}"))
    assert ip.point_id(tenant, memory_id) == expected
    assert ip.point_id(tenant, memory_id) == expected  # and from the cache


def test_a_plain_memory_stores_no_empty_fields() -> None:
    put = IndexPut("default", record("m1"), MemoryState.ACTIVE, 7)
    assert ip.put_payload(put) == {
        ip.F_TENANT: "default",
        ip.F_MEMORY_ID: "m1",
        ip.F_SCOPE: "user:alice",
        ip.F_TYPE: MemoryType.PREFERENCE.value,
        ip.F_STATE: MemoryState.ACTIVE.value,
        ip.F_CREATED_AT: T0.timestamp(),
        ip.F_POSITION: 7,
    }


def test_tags_expiry_and_conversation_are_stored_when_present() -> None:
    rec = record("m2", tags=("a", "b"), ttl=60, meta={ip.SESSION_META: "s1"})
    payload = ip.put_payload(IndexPut("t", rec, MemoryState.ARCHIVED, 9))
    assert payload[ip.F_TAGS] == ["a", "b"]
    assert payload[ip.F_EXPIRES_AT] == T0.timestamp() + 60
    assert payload[ip.F_SESSION] == "s1"
    assert payload[ip.F_STATE] == MemoryState.ARCHIVED.value


def test_a_left_out_field_reads_as_an_empty_one() -> None:
    """``turn_of`` (conversation context) sees the same turn whether a point was written
    with explicit nulls (before) or without the fields (now)."""
    rec = record("m3", type_=MemoryType.INTERACTION)
    now = ip.put_payload(IndexPut("default", rec, MemoryState.ACTIVE, 3))
    before = {**now, ip.F_TAGS: [], ip.F_EXPIRES_AT: None, ip.F_SESSION: None}
    assert ip.turn_of("k", now) == ip.turn_of("k", before)
    assert ip.turn_of("k", now).session is None
