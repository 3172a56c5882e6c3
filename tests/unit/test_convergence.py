"""The convergence rule (``core.convergence``): a version's stamp is its origin time and
the digest of what is replicated; a carried stamp counts only while it describes the
record; the greater stamp wins, the digest breaking ties."""

from __future__ import annotations

from typing import Any

from ai_memory.core.convergence import SYNC_META_KEY, digest_of, replicated_line, stamp_of, wins


def record(
    content: str = "Deploys on Tuesday.", at: str = "2026-01-01T10:00:00Z", **kw: Any
) -> dict[str, Any]:
    return {
        "id": "m1",
        "type": "fact",
        "content": content,
        "scope": "team:ops",
        "source_agent": "a",
        "created_at": "2026-01-01T09:00:00Z",
        "ttl": None,
        "tags": [],
        "meta": {},
        "schema_version": 1,
        "version": 3,
        "state": "active",
        "updated_at": at,
        "read_count": 7,
        **kw,
    }


def test_the_stamp_travels_with_the_record_and_wins_by_origin_time() -> None:
    original = record()
    line = replicated_line(original, "http://a")
    carried = line["record"]["meta"][SYNC_META_KEY]
    assert carried["origin"] == "http://a" and carried["at"] == "2026-01-01T10:00:00Z"
    assert set(line) == {"kind", "record", "state"}  # no version, updated_at, read count
    # On the other instance: imported later, another version number; the same stamp.
    copy = {**original, **line["record"], "updated_at": "2026-01-02T00:00:00Z", "version": 1}
    assert stamp_of(copy) == stamp_of(original)
    assert not wins(copy, original) and not wins(original, copy)
    # A local edit there changes the digest: its own (later) time is its stamp.
    edited = {**copy, "content": "Deploys on Friday."}
    assert stamp_of(edited).at > stamp_of(original).at and wins(edited, original)
    # Re-replicated, it keeps its first origin only while unchanged.
    assert (
        replicated_line(copy, "http://b")["record"]["meta"][SYNC_META_KEY]["origin"] == "http://a"
    )
    assert (
        replicated_line(edited, "http://b")["record"]["meta"][SYNC_META_KEY]["origin"] == "http://b"
    )


def test_ties_are_broken_by_the_digest_and_state_counts() -> None:
    a, b = record("one"), record("two")
    assert wins(a, b) != wins(b, a)  # same time: exactly one wins, on every instance
    assert digest_of(a, "active") != digest_of(a, "archived")
    assert wins(a, None)
    forged = record(meta={SYNC_META_KEY: {"at": "2999-01-01T00:00:00Z", "digest": "x"}})
    assert stamp_of(forged).at.year == 2026  # a stamp that does not describe it is ignored
