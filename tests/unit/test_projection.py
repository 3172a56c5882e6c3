"""The projector is pure, and folding its output is idempotent and order-safe."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.events import LoggedEvent
from ai_memory.core.projection import (
    IndexPut,
    IndexRemove,
    PutLineage,
    PutRecord,
    PutTombstone,
    RemoveRecord,
    project_index,
    project_records,
)
from tests.factories import deleted, record, written


def test_write_projects_to_record_and_index() -> None:
    event = written(record("m1", "Alice lives in Tokyo."))
    put, lineage = project_records(LoggedEvent(5, event))
    assert isinstance(put, PutRecord) and put.stored.position == 5
    assert isinstance(lineage, PutLineage) and lineage.entry.kind == "written"
    (iput,) = project_index(LoggedEvent(5, event))
    assert isinstance(iput, IndexPut) and iput.position == 5


def test_delete_projects_to_removal_and_tombstone_everywhere() -> None:
    muts = project_records(LoggedEvent(9, deleted("m1")))
    assert [type(m) for m in muts] == [RemoveRecord, PutTombstone, PutLineage]
    assert [type(m) for m in project_index(LoggedEvent(9, deleted("m1")))] == [IndexRemove]


def test_projection_is_deterministic() -> None:
    event = LoggedEvent(3, written())
    assert project_records(event) == project_records(event)
    assert project_index(event) == project_index(event)


# A small universe of ids so histories overlap: writes, rewrites, deletes.
ops = st.lists(
    st.tuples(st.sampled_from(["w", "d"]), st.sampled_from(["a", "b", "c"]), st.integers(0, 3)),
    min_size=1,
    max_size=25,
)


def history(plan: list[tuple[str, str, int]]) -> list[LoggedEvent]:
    events: list[LoggedEvent] = []
    gone: set[str] = set()
    versions: dict[str, int] = {}
    for position, (op, mid, n) in enumerate(plan, start=1):
        if mid in gone:
            continue
        if op == "w":
            versions[mid] = versions.get(mid, 0) + 1
            events.append(
                LoggedEvent(
                    position, written(record(mid, f"{mid} says {n}"), version=versions[mid])
                )
            )
        elif mid in versions:
            gone.add(mid)
            events.append(LoggedEvent(position, deleted(mid, version=versions[mid])))
    return events


def fold(store: SqliteRecordStore, events: list[LoggedEvent]) -> None:
    for e in events:
        store.apply(project_records(e), checkpoint=e.position)


def state(store: SqliteRecordStore) -> tuple[object, object]:
    return list(store.scan_records("default")), list(store.scan_tombstones("default"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops, st.data())
def test_duplicates_and_full_replays_give_identical_state(
    plan: list[tuple[str, str, int]], data: st.DataObject
) -> None:
    events = history(plan)
    with tempfile.TemporaryDirectory() as tmp:
        once = SqliteRecordStore(Path(tmp) / "a.db")
        fold(once, events)
        messy = SqliteRecordStore(Path(tmp) / "b.db")
        # At-least-once delivery: every event may arrive again later, after newer ones.
        redelivered = list(events)
        for e in events:
            redelivered.insert(data.draw(st.integers(events.index(e), len(redelivered))), e)
        fold(messy, redelivered)
        fold(messy, events)  # and a full replay on top
        assert state(once) == state(messy)
        once.close()
        messy.close()


def test_a_superseding_state_change_is_in_both_lineages() -> None:
    from ai_memory.core.events import MemoryStateChanged
    from ai_memory.core.record import MemoryState
    from tests.factories import header

    change = MemoryStateChanged(
        header(),
        "old",
        "user:alice",
        MemoryState.ACTIVE,
        MemoryState.ARCHIVED,
        "conflict.theta.new_better",
        '{"superseded_by":"new","theta":0.1}',
    )
    entries = [
        m.entry for m in project_records(LoggedEvent(8, change)) if isinstance(m, PutLineage)
    ]
    assert [(e.memory_id, e.kind) for e in entries] == [
        ("old", "state_changed"),
        ("new", "supersedes"),
    ]
    assert entries[0].detail["decision"] == {"superseded_by": "new", "theta": 0.1}
    assert entries[1].detail["memory_id"] == "old" and entries[1].detail["to"] == "archived"
