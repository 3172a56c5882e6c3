"""NotesService: an agent's notes are memories in ``agent:<name>``, one per topic."""

from __future__ import annotations

import dataclasses

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.errors import Conflict, InvalidInput, NotFound
from ai_memory.service.notes import NoteRules, NotesService, note_id


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


KEY = bytes(range(32))


def test_with_a_key_a_notes_id_is_a_keyed_digest_of_its_topic(
    container: Container, tenant: str
) -> None:
    """The id outlives a forgotten note on its tombstone: keyed, it confirms no guess."""
    keyed = NotesService(container.notes.deps, id_key=KEY)
    saved = keyed.save(tenant, "coder", "alice diagnosis", "Alice is allergic to nuts.")
    guess = note_id("coder", ("alice", "diagnosis"))  # what anyone can compute
    assert saved.id != guess
    assert saved.id == note_id("coder", ("diagnosis", "alice"), key=KEY, tenant=tenant)
    assert saved.id != note_id("coder", ("alice", "diagnosis"), key=KEY, tenant="other")
    assert saved.id != note_id("coder", ("alice", "diagnosis"), key=bytes(32), tenant=tenant)
    assert keyed.save(tenant, "coder", "diagnosis alice", "Nuts.").id == saved.id
    off = keyed.save(tenant, "coder", "alice diagnosis", "off")
    assert (off.status, off.id) == ("deleted", saved.id)
    again = keyed.save(tenant, "coder", "alice diagnosis", "Alice is fine now.")
    assert again.status == "created" and again.id == f"{saved.id}-2"


def test_a_note_saved_before_ids_were_keyed_keeps_its_id_until_turned_off(
    container: Container, tenant: str
) -> None:
    previous = NotesService(container.notes.deps)  # the previous release: plain ids
    old = previous.save(tenant, "coder", "editor", "Alice edits in Neovim.")
    assert old.id == note_id("coder", ("editor",))
    keyed = NotesService(container.notes.deps, id_key=KEY)
    replaced = keyed.save(tenant, "coder", "editor", "Alice edits in Helix.")
    assert (replaced.status, replaced.id, replaced.notes_used) == ("replaced", old.id, 1)
    assert [n.id for n in keyed.notes_of(tenant, "coder")] == [old.id]  # no duplicate
    off = keyed.save(tenant, "coder", "editor", "off")
    assert (off.status, off.id) == ("deleted", old.id)
    assert keyed.save(tenant, "coder", "editor", "off").id == old.id  # already off
    again = keyed.save(tenant, "coder", "editor", "Alice edits in Zed.")
    assert again.status == "created"
    assert again.id == note_id("coder", ("editor",), key=KEY, tenant=tenant)
    assert keyed.save(tenant, "coder", "editor", "off").id == again.id
