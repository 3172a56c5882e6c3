"""The heads of one partition, held in memory by the partition's single writer.

Each entry is (head, event id that set it). The writer restores them on assignment from
the heads changelog topic (compacted, written in the same Kafka transaction as the
events) and then folds every event after the newest changelog position, so a log written
before the changelog existed, or a changelog record lost to nothing at all, still ends in
the same heads: the events topic is the only source of truth, the changelog a shortcut.

Changelog records: key ``[tenant, memory_id]`` as JSON (what compaction keeps one of),
value the head as JSON, naming tenant and memory id again so a reader needs only values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ai_memory.core.events import DomainEvent, Head
from ai_memory.core.heads import head_update
from ai_memory.core.timeparse import from_micros, to_micros

Key = tuple[str, str]  # (tenant, memory id)


@dataclass
class Entry:
    head: Head
    event_id: str


class PartitionHeads:
    def __init__(self) -> None:
        self.entries: dict[Key, Entry] = {}
        self.newest_position = 0  # of any head-moving event folded in
        self.folded: set[Key] = set()  # heads that came from events, not the changelog

    def get(self, key: Key) -> Entry | None:
        return self.entries.get(key)

    def lookup(self, tenant: str, memory_ids: Iterable[str]) -> dict[str, Head]:
        found: dict[str, Head] = {}
        for memory_id in memory_ids:
            entry = self.entries.get((tenant, memory_id))
            if entry is not None:
                found[memory_id] = entry.head
        return found

    def set(self, key: Key, entry: Entry) -> None:
        self.entries[key] = entry
        self.newest_position = max(self.newest_position, entry.head.position)

    def fold(self, event: DomainEvent, position: int) -> None:
        """Apply one committed event read back from the log."""
        update = head_update(event)
        if update is None:
            return
        head = replace(update.head, position=position)
        key = (update.tenant, head.memory_id)
        self.set(key, Entry(head, update.event_id))
        self.folded.add(key)

    def fold_changelog(self, value: bytes) -> None:
        if not value:
            return  # no tombstones are written: a forgotten memory keeps a deleted head
        key, entry = decode_entry(value)
        self.set(key, entry)


def changelog_key(key: Key) -> bytes:
    return json.dumps(list(key), ensure_ascii=False, separators=(",", ":")).encode()


def encode_entry(key: Key, entry: Entry) -> bytes:
    h = entry.head
    return json.dumps(
        {
            "tenant": key[0],
            "memory_id": key[1],
            "scope": h.scope,
            "version": h.version,
            "sha256": h.content_sha256,
            "deleted": h.deleted,
            "position": h.position,
            "created_at_us": None if h.created_at is None else to_micros(h.created_at),
            "event_id": entry.event_id,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def decode_entry(value: bytes) -> tuple[Key, Entry]:
    d = json.loads(value)
    created = d.get("created_at_us")
    memory_id = str(d["memory_id"])
    head = Head(
        memory_id,
        str(d["scope"]),
        int(d["version"]),
        str(d["sha256"]),
        bool(d["deleted"]),
        int(d["position"]),
        None if created is None else from_micros(int(created)),
    )
    return (str(d["tenant"]), memory_id), Entry(head, str(d["event_id"]))
