from __future__ import annotations

from dataclasses import replace

import pytest

from ai_memory.core.decide import decide_delete, decide_write, with_created_at_from
from ai_memory.core.errors import Conflict, Gone, NotFound
from ai_memory.core.events import Head
from tests.factories import T0, header, record


def head(**kw: object) -> Head:
    rec = record()
    base: dict[str, object] = {
        "memory_id": "m1",
        "scope": rec.scope,
        "version": 1,
        "content_sha256": rec.fingerprint(),
        "deleted": False,
        "position": 7,
        "created_at": T0,
    }
    base.update(kw)
    return Head(**base)  # type: ignore[arg-type]


def test_first_write_is_version_one() -> None:
    outcome = decide_write(record(), None, header())
    assert outcome.event is not None and outcome.version == 1
    assert outcome.event.content_sha256 == record().fingerprint()


def test_same_content_again_is_a_no_op_with_the_same_version() -> None:
    outcome = decide_write(record(), head(version=3), header())
    assert outcome.event is None and outcome.version == 3 and outcome.position == 7


def test_new_content_makes_a_new_version() -> None:
    outcome = decide_write(record(content="Alice prefers coffee now."), head(version=3), header())
    assert outcome.event is not None and outcome.version == 4


def test_forgotten_ids_are_never_rewritten() -> None:
    with pytest.raises(Gone) as e:
        decide_write(record(), head(deleted=True), header())
    assert e.value.code == "memory_forgotten"


def test_a_memory_never_changes_scope() -> None:
    with pytest.raises(Conflict) as e:
        decide_write(record(scope="user:bob"), head(), header())
    assert e.value.code == "scope_immutable"


def test_delete_of_live_memory_carries_its_scope_and_version() -> None:
    event = decide_delete("m1", None, head(version=2), header(), reason="user_request")
    assert event is not None and event.scope == "user:alice" and event.version == 2


def test_delete_twice_is_a_no_op_and_unknown_is_not_found() -> None:
    assert decide_delete("m1", None, head(deleted=True), header(), reason="x") is None
    with pytest.raises(NotFound):
        decide_delete("nope", None, None, header(), reason="x")


def test_imported_tombstone_for_unknown_id_is_recorded() -> None:
    event = decide_delete("nope", "user:alice", None, header(), reason="imported_tombstone")
    assert event is not None and event.version == 0


def test_upsert_without_created_at_keeps_the_original() -> None:
    later = replace(record(), created_at=T0.replace(year=2030))
    kept = with_created_at_from(later, head(), explicit=False)
    assert kept.created_at == T0
    assert with_created_at_from(later, head(), explicit=True).created_at.year == 2030
