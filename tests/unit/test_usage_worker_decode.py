"""The usage worker counts sizes without opening sealed events, and gets the same numbers.

A ``MemoryWritten`` carries its content's UTF-8 size in clear since schema v2; the worker
reads it from the Avro body and never asks the vault for a key. Only a v1 event written
sealed (no clear size) goes through the whole decoder.
"""

from __future__ import annotations

import io
from typing import Any

from fastavro import schemaless_writer

from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.events import LoggedEvent
from ai_memory.core.positions import pack
from ai_memory.core.usage import ABSENT, Touch, UsageFold, touch, usage_of
from ai_memory.projector.usage_worker import UsageWorker
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.sealer import Sealer
from ai_memory.serialization.transcoder import MAGIC
from tests.factories import deleted, record, written

ROOT = bytes(range(32))


class CountingVault:
    """A vault that counts its key reads."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads = 0

    def get(self, tenant: str, key_id: str) -> bytes | None:
        self.reads += 1
        key: bytes | None = self.inner.get(tenant, key_id)
        return key

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def sealed_serializer() -> tuple[AvroEventSerializer, CountingVault]:
    vault = CountingVault(memory_vault(ROOT, VaultBacking()))
    return AvroEventSerializer(sealer=Sealer(vault, cache_seconds=0)), vault


def frames(s: AvroEventSerializer) -> list[bytes]:
    return [
        s.encode(written(record("m1", "héllo wörld"), tenant="acme")),
        s.encode(written(record("m2", "x" * 300), tenant="acme")),
        s.encode(written(record("m1", "shorter"), version=2, tenant="acme")),
        s.encode(deleted("m2", tenant="acme", version=1)),
    ]


def test_sealed_writes_are_counted_from_their_clear_size_without_a_key() -> None:
    s, vault = sealed_serializer()
    raw = [(0, n, frame) for n, frame in enumerate(frames(s))]
    worker = UsageWorker(AvroEventSerializer(sealer=Sealer(vault, cache_seconds=0)))
    vault.reads = 0
    try:
        got = worker.decode(raw)
    finally:
        worker.close()
    assert vault.reads == 0 and worker.opened == 0
    assert got == {
        0: [
            (pack(0, 0), Touch("acme", "m1", len("héllo wörld".encode()))),
            (pack(0, 1), Touch("acme", "m2", 300)),
            (pack(0, 2), Touch("acme", "m1", 7)),
            (pack(0, 3), Touch("acme", "m2", ABSENT)),
        ]
    }


def test_the_clear_sizes_fold_to_what_the_opened_events_fold_to() -> None:
    s, _ = sealed_serializer()
    raw = [(0, n, frame) for n, frame in enumerate(frames(s))]
    worker = UsageWorker(s)
    try:
        touches = worker.decode(raw)[0]
    finally:
        worker.close()
    clear: dict[str, list[int]] = {}
    UsageFold(clear).apply_touches(0, touches)
    opened: dict[str, list[int]] = {}
    events = [LoggedEvent(pack(0, n), s.decode(frame)) for _, n, frame in raw]
    UsageFold(opened).apply(0, events)
    assert clear == opened
    assert usage_of(clear.items(), "acme").memories == 1
    assert usage_of(clear.items(), "acme").bytes == 7


def test_a_write_whose_key_was_destroyed_still_counts_its_logged_size() -> None:
    """What the fold sees is fixed by the event, not by the key's fate: the forget that
    destroyed the key follows on the log and removes the memory."""
    s, vault = sealed_serializer()
    frame = s.encode(written(record("m1", "twelve bytes"), tenant="acme"))
    vault.inner.destroy("acme", memory_key_id("m1"))
    event = s.decode(frame)
    assert event.sealed  # type: ignore[union-attr]
    assert touch(event) == Touch("acme", "m1", 12)


def test_a_v1_sealed_write_has_no_clear_size_and_is_opened() -> None:
    s, vault = sealed_serializer()

    def as_v1(frame: bytes) -> bytes:
        # The same event as a v1 writer wrote it: no content_bytes field.
        name, body = s.transcoder.decode(frame)
        body.pop("content_bytes")
        v1 = s.catalog.versions(name)[0]
        out = io.BytesIO(MAGIC + v1.fingerprint)
        out.seek(0, io.SEEK_END)
        schemaless_writer(out, v1.parsed, body)
        return out.getvalue()

    raw = [(1, 0, as_v1(s.encode(written(record("m9", "opened"), tenant="acme"))))]
    worker = UsageWorker(s)
    vault.reads = 0
    try:
        got = worker.decode(raw)
    finally:
        worker.close()
    assert worker.opened == 1 and vault.reads == 1
    assert got == {1: [(pack(1, 0), Touch("acme", "m9", 6))]}
