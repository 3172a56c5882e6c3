"""NotesService: an agent's notes are memories in ``agent:<name>``, one per topic."""

from __future__ import annotations

import dataclasses

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.errors import Conflict, InvalidInput, NotFound
from ai_memory.service.notes import NoteRules, NotesService


@pytest.fixture
def notes(container: Container) -> NotesService:
    return container.notes


def test_a_note_is_a_memory_of_the_agent(
    notes: NotesService, container: Container, tenant: str
) -> None:
    saved = notes.save(tenant, "coder", "editor", "Alice edits in Neovim.")
    assert (saved.status, saved.version, saved.notes_used) == ("created", 1, 1)
    stored = container.service.get(tenant, saved.id)
    assert stored.record.scope == "agent:coder" and stored.record.tags == ("editor",)


def test_same_topic_replaces_then_unchanged(notes: NotesService, tenant: str) -> None:
    first = notes.save(tenant, "coder", "jobs neo", "Neo runs the nightly jobs.")
    second = notes.save(tenant, "coder", "neo jobs", "Neo runs the jobs at 02:00.")
    third = notes.save(tenant, "coder", "neo jobs", "Neo runs the jobs at 02:00.")
    assert second.id == first.id and second.tags == ("jobs", "neo")
    assert (second.status, second.version, third.status) == ("replaced", 2, "unchanged")
    assert [n.body for n in notes.notes_of(tenant, "coder")] == ["Neo runs the jobs at 02:00."]


def test_off_forgets_and_the_topic_can_be_saved_again(notes: NotesService, tenant: str) -> None:
    first = notes.save(tenant, "coder", "editor", "Alice edits in Neovim.")
    off = notes.save(tenant, "coder", "editor", "off")
    assert (off.status, off.notes_used) == ("deleted", 0)
    assert notes.save(tenant, "coder", "editor", "off").status == "already_off"
    again = notes.save(tenant, "coder", "editor", "Alice edits in Helix now.")
    assert again.status == "created" and again.id != first.id  # a forgotten id stays forgotten
    with pytest.raises(NotFound):
        notes.save(tenant, "coder", "never", "off")


def test_quota_refuses_one_note_too_many(container: Container, tenant: str) -> None:
    small = container.notes.with_rules(dataclasses.replace(NoteRules(), quota=2))
    small.save(tenant, "coder", "a", "note a")
    small.save(tenant, "coder", "b", "note b")
    with pytest.raises(Conflict) as e:
        small.save(tenant, "coder", "c", "note c")
    assert e.value.code == "note_quota_exceeded"
    assert small.save(tenant, "coder", "a", "note a, replaced").status == "replaced"


def test_recall_ranks_by_topic_and_counts_reads(
    notes: NotesService, container: Container, tenant: str
) -> None:
    notes.save(tenant, "coder", "editor", "Alice edits in Neovim.")
    notes.save(tenant, "coder", "deploy", "Deploys go through GitHub Actions.")
    page = notes.recall(tenant, "coder", "editor")
    assert [r.note.tags for r in page.topic_notes] == [("editor",)]
    assert page.topic_notes[0].why.tier == 1 and page.recall_position is not None
    container.service.wait_for(page.recall_position)
    counts = {n.tags: n.read_count for n in notes.notes_of(tenant, "coder")}
    assert counts == {("editor",): 1, ("deploy",): 0}


def test_bad_agent_is_refused_naming_the_field(notes: NotesService, tenant: str) -> None:
    with pytest.raises(InvalidInput) as e:
        notes.save(tenant, "", "editor", "x")
    assert e.value.field == "agent"
