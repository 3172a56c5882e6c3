"""Naming a union's record branch to fastavro (``AvroTranscoder.encode``: ``(name,
value)`` for ``encryption``) writes the bytes it wrote when it found the branch itself,
for every event type, with and without an envelope — frames written before and after
are the same frames."""

from __future__ import annotations

import io

import pytest
from fastavro import schemaless_writer
from hypothesis import given, settings

from ai_memory.core.events import DomainEvent
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.errors import UnencodableEvent
from ai_memory.serialization.transcoder import HEADER_SIZE, MAGIC
from tests.strategies import domain_events

SERIALIZER = AvroEventSerializer()


@settings(max_examples=400)
@given(domain_events)
def test_a_named_branch_writes_the_bytes_fastavro_chose(event: DomainEvent) -> None:
    name = SERIALIZER.event_type(event)
    body = SERIALIZER.mapper.to_dict(event)
    entry = SERIALIZER.catalog.latest(name)
    try:
        frame = SERIALIZER.transcoder.encode(name, body)
    except UnencodableEvent:  # refused named: refused when fastavro finds the branch too
        with pytest.raises((TypeError, ValueError, AttributeError, KeyError, OverflowError)):
            schemaless_writer(io.BytesIO(), entry.parsed, body)
        return
    out = io.BytesIO()
    schemaless_writer(out, entry.parsed, body)
    assert frame == MAGIC + entry.fingerprint + out.getvalue()
    assert len(frame) > HEADER_SIZE
