"""Frames the append pipeline proved are not decoded again by this process's readers of
the log (``serialization/decoded_frames.py``): they get the event the proof decoded, and
exactly what a decode would give — also when a data key is destroyed in between, here
(a forget) or elsewhere (an erasure, another process)."""

from __future__ import annotations

from typing import Any

from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.events import MemoryWritten
from ai_memory.core.ports import encode_events
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.decoded_frames import DecodedFrames
from ai_memory.serialization.sealer import Sealer
from tests.factories import deleted, record, written

ROOT = bytes(range(32))
READERS = 2  # an embedded process: its records and index projections


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def setup(clock: Clock | None = None) -> tuple[AvroEventSerializer, AvroEventSerializer, Any]:
    """The process's serializer (its decoded frames read by two projections), a fresh
    reader on the same vault that caches no key (what a decode gives now, anywhere), and
    the vault as another process sees it."""
    backing = VaultBacking()
    frames = DecodedFrames()
    frames.read_by(READERS)
    sealer = Sealer(memory_vault(ROOT, backing), clock=clock or Clock())
    process = AvroEventSerializer(sealer=sealer, decoded=frames)
    fresh = AvroEventSerializer(sealer=Sealer(memory_vault(ROOT, backing), cache_seconds=0))
    return process, fresh, memory_vault(ROOT, backing)


def proved(serializer: AvroEventSerializer, events: list[Any]) -> list[bytes]:
    """Encoded and proved as the append pipeline does it."""
    check = ProjectabilityCheck(serializer)
    encoded = encode_events(serializer, events)
    for e in encoded:
        check.prove(e)
    return [e.frame for e in encoded]


def counts(serializer: AvroEventSerializer) -> tuple[int, int, int]:
    assert serializer.decoded is not None
    d = serializer.decoded
    return d.hits, d.misses, d.stale


def canary() -> list[Any]:
    return [written(record("m1", "the canary 7f3a"), tenant="acme")]


def test_a_proved_frame_is_answered_with_what_a_decode_gives() -> None:
    process, fresh, _ = setup()
    events = [written(record(f"m{n}", f"content {n}"), tenant="acme") for n in range(20)]
    frames = proved(process, [*events, deleted("m3", tenant="acme")])
    # Read back as a projection reads them: new bytes objects of the same frames.
    read = process.decode_many([bytes(bytearray(f)) for f in frames])
    assert read == fresh.decode_many(frames)
    assert counts(process) == (len(frames), 0, 0)
    # Mixed with frames it never proved (written by another process), in order.
    other = [fresh.encode(written(record(f"o{n}", f"other {n}"), tenant="acme")) for n in range(3)]
    mixed = [other[0], frames[0], other[1], other[2], frames[5]]
    assert process.decode_many(mixed) == fresh.decode_many(mixed)
    assert counts(process) == (len(frames) + 2, 3, 0)
    # Both readers took frames 0 and 5: they are gone, decoded afresh from now on.
    assert process.decoded is not None and len(process.decoded) == len(frames) - 2
    assert process.decode_many([frames[0]]) == fresh.decode_many([frames[0]])
    assert counts(process) == (len(frames) + 2, 4, 0)


def test_a_key_forgotten_after_the_proof_reads_as_forgotten() -> None:
    process, fresh, _ = setup()
    (frame,) = proved(process, canary())
    assert process.sealer is not None
    process.sealer.forget("acme", memory_key_id("m1"))  # the pipeline's step 7
    (event,) = process.decode_many([frame])
    assert event == fresh.decode(frame)
    assert isinstance(event, MemoryWritten) and event.sealed and event.record.content == ""
    assert counts(process) == (0, 0, 1)


def test_a_key_destroyed_elsewhere_reads_as_this_process_decodes_it() -> None:
    """Destroyed in the vault by another process (or an erasure): the frame reads as
    this process's own decode reads it — its key cache keeps a key ``cache_seconds``
    (the bound every destroy elsewhere has), and once that passed, as forgotten."""
    clock = Clock()
    process, fresh, elsewhere = setup(clock)
    (frame,) = proved(process, canary())
    elsewhere.destroy("acme", memory_key_id("m1"))
    own = AvroEventSerializer(sealer=process.sealer)  # this process, nothing remembered
    assert process.decode_many([frame]) == [own.decode(frame)]
    clock.now += 5.01  # past the sealer's key cache
    (frame,) = proved(process, [written(record("m2", "another canary"), tenant="acme")])
    process.decode_many([frame])  # the first reader
    elsewhere.destroy("acme", memory_key_id("m2"))
    clock.now += 5.01
    (event,) = process.decode_many([frame])  # the second, once the key is no longer cached
    assert event == fresh.decode(frame) == own.decode(frame)
    assert isinstance(event, MemoryWritten) and event.sealed and event.record.content == ""
    assert counts(process)[2] == 1


def test_a_process_without_readers_of_its_log_keeps_nothing() -> None:
    frames = DecodedFrames()
    frames.remember(b"\x00", written(record("m1", "x")), None)
    assert len(frames) == 0 and frames.take(b"\x00") is None


def test_it_keeps_a_bounded_number_of_frames_oldest_out_first() -> None:
    frames = DecodedFrames(size=3)
    frames.read_by(1)
    event = written(record("m1", "x"))
    for n in range(5):
        frames.remember(bytes([n]), event, None)
    assert len(frames) == 3
    assert frames.take(b"\x00") is None and frames.take(b"\x01") is None
    assert frames.take(b"\x04") == (event, None)
