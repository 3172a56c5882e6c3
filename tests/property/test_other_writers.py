"""Notes, interactions and imports write through the same guarded log: whatever they are
given, they refuse it with their documented errors and append nothing, or everything
they append is projected (the projections reach its position)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ai_memory.bootstrap import Container
from ai_memory.core.errors import Conflict, Gone, InvalidInput, NotFound
from ai_memory.service.transfer import ImportSession
from tests.factories import writing_of
from tests.property.log_probe import appended_since
from tests.strategies import hostile_bodies, hostile_texts, record_bodies

TENANT = "default"
SLOW_IO = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def refused_without_a_trace(container: Container, before: int, e: InvalidInput) -> None:
    assert appended_since(container, before) == [], "a refusal must append nothing"
    e.field.encode("utf-8")
    e.message.encode("utf-8")
    # Validation, not the projectability guard, must catch what API input gets wrong.
    assert e.rule != "projectable", e.message
    event(f"refused: {e.field}/{e.rule}")


@settings(SLOW_IO)
@given(
    agent=st.sampled_from(["agent-1", "代理"]) | hostile_texts,
    topic=st.sampled_from(["neo, jobs", "茶"]) | hostile_texts | st.lists(hostile_texts),
    note=st.sampled_from(["Neo prefers tea.", "off"]) | hostile_texts,
)
def test_notes_save_or_refuse(container: Container, agent: str, topic: Any, note: str) -> None:
    before = container.log.last_position()
    try:
        saved = container.notes.save(TENANT, agent, topic, note)
    except InvalidInput as e:
        refused_without_a_trace(container, before, e)
        return
    except (NotFound, Conflict):
        assert appended_since(container, before) == []
        return
    event(f"saved: {saved.status}")
    topics = [n.id for n in container.notes.recall(TENANT, saved.agent, None).your_topics]
    live = saved.status in ("created", "replaced", "unchanged")
    assert (saved.id in topics) == live


_interaction_bodies = st.fixed_dictionaries(
    {
        "scope": st.just("user:prop") | hostile_texts,
        "source_agent": st.just("agent") | hostile_texts,
        "text": st.sampled_from(["I prefer green tea.", "My name is Ada."]) | hostile_texts,
    },
    optional={"session_id": hostile_texts, "at": hostile_texts | st.integers()},
)


@settings(SLOW_IO)
@given(body=_interaction_bodies)
def test_interactions_record_or_refuse(container: Container, body: dict[str, Any]) -> None:
    before = container.log.last_position()
    try:
        result = container.governance.record_interaction(TENANT, body, wait=True)
    except InvalidInput as e:
        refused_without_a_trace(container, before, e)
        return
    event(f"recorded with {len(result.memories)} memories")
    assert result.position > before


_lines = st.one_of(
    record_bodies().map(json.dumps),
    hostile_bodies().map(json.dumps),  # JSON escapes spell surrogates as \ud800
    hostile_texts,
)


@settings(SLOW_IO)
@given(lines=st.lists(_lines, min_size=1, max_size=8))
def test_imports_account_for_every_line_and_are_projected(
    container: Container, lines: list[str]
) -> None:
    session = ImportSession(writing_of(container.service), TENANT)
    session.feed(list(enumerate(lines, start=1)))
    report = session.finish(wait=True)  # waits for the projections to apply everything
    assert report.received == sum(1 for line in lines if line.strip())
    settled = report.written + report.unchanged + report.skipped_tombstoned + report.rejected
    assert settled == report.received
    for error in report.errors:
        json.dumps(error, ensure_ascii=False).encode("utf-8")
        assert error["code"] != "unprojectable_event", error  # validation must catch it
    event(f"written {min(report.written, 3)}+, rejected {min(report.rejected, 3)}+")


@settings(SLOW_IO)
@given(memory_id=hostile_texts, actor=hostile_texts, reason=hostile_texts)
def test_reads_and_deletes_of_any_id_answer_or_refuse(
    container: Container, memory_id: str, actor: str, reason: str
) -> None:
    before = container.log.last_position()
    for call in (
        lambda: container.service.get(TENANT, memory_id),
        lambda: container.service.delete(TENANT, memory_id, actor=actor, reason=reason),
    ):
        try:
            call()
        except InvalidInput as e:
            refused_without_a_trace(container, before, e)
        except (NotFound, Gone):
            event("not found or gone")
