"""The projectability proof and the real projections agree: whatever event it lets
through, the record store and the vector index apply (here: the embedded SQLite store and
Qdrant Edge index, with the real embedder); whatever it refuses, it refuses with
``InvalidInput(field="event", rule="projectable")`` and nothing else."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ai_memory.adapters.projectability import check_projectable
from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import DomainEvent, LoggedEvent, MemoryWritten
from ai_memory.core.timeparse import MAX_TIMESTAMP, MIN_TIMESTAMP
from ai_memory.projector.sinks import IndexSink, RecordsSink
from ai_memory.serialization import AvroEventSerializer
from tests.strategies import domain_events, memory_written

SERIALIZER = AvroEventSerializer()
_positions = itertools.count(10_000_000)


@st.composite
def extreme_writes(draw: st.DrawFn) -> DomainEvent:
    """Writes pushed to the edges: the first and last instants, expiries around the end."""
    written = draw(memory_written)
    created = draw(
        st.sampled_from([MIN_TIMESTAMP, MAX_TIMESTAMP, datetime(9999, 12, 31, tzinfo=UTC)])
    )
    ttl = draw(st.none() | st.integers(min_value=1, max_value=2 * 86_400) | st.just(2**63 - 1))
    return replace(written, record=replace(written.record, created_at=created, ttl=ttl))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(candidate=st.booleans().flatmap(lambda edge: extreme_writes() if edge else domain_events))
def test_what_the_guard_accepts_every_projection_applies(
    container: Container, candidate: DomainEvent
) -> None:
    try:
        check_projectable(candidate, SERIALIZER)
    except InvalidInput as e:
        assert (e.field, e.rule) == ("event", "projectable")
        event("refused by the guard")
        return
    logged = LoggedEvent(next(_positions), SERIALIZER.decode(SERIALIZER.encode(candidate)))
    RecordsSink(container.store).apply([logged])
    IndexSink(container.index, container.embedder).apply([logged])
    event(f"applied {type(candidate).__name__}")
    if isinstance(candidate, MemoryWritten):
        stored = container.store.get(candidate.header.tenant, candidate.record.id)
        assert stored is not None
