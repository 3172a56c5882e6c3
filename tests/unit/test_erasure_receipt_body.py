"""The receipt body (``core.erasure.receipt_body``): fields are only ever added, so an
old verifier keeps working; each key carries its own destruction time, and KEK versions
an offboarding destroyed that are live again fail the verification."""

from __future__ import annotations

from typing import Any

from ai_memory.core.erasure import Verification, receipt_body


def _body(**extra: Any) -> dict[str, Any]:
    return receipt_body(
        erasure_id="era-1",
        tenant="acme",
        actor="admin",
        requested_at="2026-12-01T07:00:00Z",
        criteria_json='{"everything":true}',
        reason="offboarded",
        memory_ids=("m2", "m1"),
        interaction_ids=("t1",),
        erasure_position=9,
        tombstones={"m1": 3, "m2": 4},
        projections=[],
        key_ids=("memory/m2", "memory/m1", "interaction/t1"),
        keys_destroyed_at="2026-12-01T07:00:02Z",
        verification=extra.pop("verification", _verification()),
        issued_at="2026-12-01T07:01:00Z",
        **extra,
    )


def _verification(**kw: Any) -> Verification:
    return Verification("2026-12-01T07:01:00Z", 3, (), (), 5, 0, **kw)


def test_each_key_is_listed_with_its_own_destruction_time() -> None:
    times = {
        "memory/m1": "2026-12-01T07:00:00.5Z",
        "memory/m2": "2026-12-01T07:00:01Z",
        "interaction/t1": None,  # the vault has no time for it (gone with its KEK)
    }
    keys = _body(key_destroyed_at=times, kek_versions_destroyed=(2, 1))["keys"]
    assert keys["destroyed"] == [
        {"key_id": "interaction/t1", "destroyed_at": None},
        {"key_id": "memory/m1", "destroyed_at": "2026-12-01T07:00:00.5Z"},
        {"key_id": "memory/m2", "destroyed_at": "2026-12-01T07:00:01Z"},
    ]
    assert keys["destroyed_at"] == "2026-12-01T07:00:02Z"  # by when all were gone
    assert keys["kek_versions_destroyed"] == [1, 2]


def test_the_older_fields_are_all_still_there() -> None:
    body = _body()
    assert set(body["keys"]) >= {"encryption", "key_ids", "destroyed_at"}
    assert body["keys"]["kek_versions_destroyed"] == []
    assert {k["destroyed_at"] for k in body["keys"]["destroyed"]} == {None}
    assert body["verification"]["passed"] is True


def test_a_destroyed_kek_live_again_fails_the_verification() -> None:
    again = _verification(kek_versions_live=(1,))
    body = _body(verification=again, kek_versions_destroyed=(1,))
    assert body["verification"]["kek_versions_live"] == [1]
    assert body["verification"]["passed"] is False
