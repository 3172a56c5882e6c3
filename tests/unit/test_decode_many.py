"""Decoding a batch at once: the same events as one by one, with the data keys of its
sealed events read in one vault call instead of one per event."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.core.errors import Unavailable
from ai_memory.core.ports import decode_all
from ai_memory.serialization import AvroEventSerializer, UndecodableEvent
from ai_memory.serialization.sealer import Sealer
from tests.factories import deleted, record, written

ROOT = bytes(range(32))


class CountingVault:
    """A vault that counts its reads, and can be down."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.gets = 0
        self.many: list[int] = []
        self.down = False
        self.tries = 0

    def get(self, tenant: str, key_id: str) -> bytes | None:
        self.tries += 1
        if self.down:
            raise Unavailable("cassandra error: Replica(s) failed to execute read")
        self.gets += 1
        key: bytes | None = self.inner.get(tenant, key_id)
        return key

    def get_many(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        if self.down:
            raise Unavailable("cassandra error: Replica(s) failed to execute read")
        self.many.append(len(key_ids))
        keys: dict[str, bytes] = self.inner.get_many(tenant, key_ids)
        return keys

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def setup() -> tuple[list[bytes], AvroEventSerializer, CountingVault]:
    """Frames sealed by one process (a gateway), and a reader with a cold cache (a
    projector worker) on the same vault."""
    backing = VaultBacking()
    writer = AvroEventSerializer(sealer=Sealer(memory_vault(ROOT, backing)))
    frames = [
        writer.encode(written(record(f"m{n}", f"content {n}"), tenant="acme")) for n in range(30)
    ]
    frames += [writer.encode(written(record("g1", "other tenant"), tenant="globex"))]
    frames += [writer.encode(deleted("m3", tenant="acme"))]
    vault = CountingVault(memory_vault(ROOT, backing))
    return frames, AvroEventSerializer(sealer=Sealer(vault)), vault


def test_a_batch_decodes_to_what_each_decodes_to_with_one_vault_read_per_tenant() -> None:
    frames, reader, vault = setup()
    one_by_one = [AvroEventSerializer(sealer=Sealer(vault.inner)).decode(f) for f in frames]
    assert reader.decode_many(frames) == one_by_one
    assert vault.gets == 0 and sorted(vault.many) == [1, 30]
    assert decode_all(reader, frames) == one_by_one  # cached now: no read at all
    assert sorted(vault.many) == [1, 30]


def test_an_undecodable_frame_is_reported_in_its_place() -> None:
    frames, reader, _ = setup()
    frames.insert(5, b"\xc3\x01not a frame")
    decoded = reader.decode_many(frames)
    assert isinstance(decoded[5], UndecodableEvent)
    assert [d for n, d in enumerate(decoded) if n != 5] == reader.decode_many(
        frames[:5] + frames[6:]
    )


def test_a_vault_down_is_each_sealed_events_own_retryable_failure() -> None:
    frames, reader, vault = setup()
    vault.down = True
    vault.tries = 0
    decoded = reader.decode_many(frames)
    assert all(isinstance(d, Unavailable) for d in decoded[:-1])
    assert vault.tries == 1  # the others are not each left to wait on the same outage
    assert not isinstance(decoded[-1], Exception)  # a tombstone is clear: nothing to open
    vault.down = False
    assert not any(isinstance(d, Exception) for d in reader.decode_many(frames))


@pytest.mark.parametrize("serializer", [AvroEventSerializer()])
def test_a_serializer_without_a_batch_path_decodes_one_by_one(
    serializer: AvroEventSerializer,
) -> None:
    class OneByOne:
        def decode(self, data: bytes) -> Any:
            return serializer.decode(data)

        def encode(self, event: Any) -> bytes:
            return serializer.encode(event)

        def event_type(self, event: Any) -> str:
            return serializer.event_type(event)

    frames = [serializer.encode(written(record("m1", "clear"))), b"junk"]
    decoded = decode_all(OneByOne(), frames)
    assert decoded[0] == serializer.decode(frames[0])
    assert isinstance(decoded[1], UndecodableEvent)
