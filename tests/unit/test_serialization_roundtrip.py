"""Property-based tests: every domain event survives encode → decode unchanged, and the
decoder turns any bytes into an event or ``UndecodableEvent``, never anything else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.core.events import DomainEvent
from ai_memory.serialization import EVENT_TYPES, AvroEventSerializer, UndecodableEvent
from ai_memory.serialization.golden import SAMPLES
from tests import strategies

SERIALIZER = AvroEventSerializer()
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_event_type_has_a_strategy() -> None:
    assert set(strategies.events_by_type) == set(EVENT_TYPES)


@pytest.mark.parametrize("name", EVENT_TYPES)
def test_round_trip(name: str) -> None:
    @SETTINGS
    @given(strategies.events_by_type[name])
    def check(event: DomainEvent) -> None:
        data = SERIALIZER.encode(event)
        assert SERIALIZER.decode(data) == event
        assert SERIALIZER.encode(SERIALIZER.decode(data)) == data  # encoding is deterministic

    check()


@SETTINGS
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_escape_as_other_errors(data: bytes) -> None:
    try:
        SERIALIZER.decode(data)
    except UndecodableEvent as e:
        assert e.code == "undecodable_event"


@SETTINGS
@given(
    st.sampled_from([SERIALIZER.encode(s.event) for s in SAMPLES]),
    st.data(),
)
def test_corrupted_frames_decode_or_raise_undecodable(frame: bytes, data: st.DataObject) -> None:
    position = data.draw(st.integers(min_value=0, max_value=len(frame) - 1))
    value = data.draw(st.integers(min_value=0, max_value=255))
    corrupted = frame[:position] + bytes([value]) + frame[position + 1 :]
    try:
        SERIALIZER.decode(corrupted)
    except UndecodableEvent as e:
        assert e.reason
