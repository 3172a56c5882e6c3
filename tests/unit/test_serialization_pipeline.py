"""Each stage of the serialization pipeline alone, then composed: mapper, transcoder (frame
layout, every undecodable case, schema evolution), codec hook, and the facade."""

from __future__ import annotations

import dataclasses
import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ai_memory.core.errors import AiMemoryError, PermanentError
from ai_memory.core.events import MemoryDeleted, MemoryWritten
from ai_memory.serialization import (
    MAGIC,
    AvroEventSerializer,
    AvroTranscoder,
    EventMapper,
    SchemaCatalog,
    UndecodableEvent,
    UnencodableEvent,
)
from ai_memory.serialization.catalog_tool import main as catalog_main
from ai_memory.serialization.errors import UNDECODABLE_REASONS
from ai_memory.serialization.golden import SAMPLES

ROOT = Path(__file__).resolve().parents[2] / "schemas"
CATALOG = SchemaCatalog.load(ROOT)
SERIALIZER = AvroEventSerializer(CATALOG)
WRITTEN = next(s.event for s in SAMPLES if isinstance(s.event, MemoryWritten))
DELETED = next(s.event for s in SAMPLES if isinstance(s.event, MemoryDeleted))


def _undecodable(data: bytes, serializer: AvroEventSerializer = SERIALIZER) -> UndecodableEvent:
    with pytest.raises(UndecodableEvent) as caught:
        serializer.decode(data)
    assert caught.value.reason in UNDECODABLE_REASONS
    assert caught.value.code == "undecodable_event"
    return caught.value


# --- mapper -----------------------------------------------------------------------------


def test_mapper_writes_plain_values_shaped_like_the_schema() -> None:
    body = EventMapper().to_dict(WRITTEN)
    assert body["record"]["type"] == "preference"
    assert body["state"] == "active"
    assert body["record"]["tags"] == ["language", "风格"]
    assert json.loads(body["record"]["meta"]) == WRITTEN.record.meta
    assert body["record"]["meta"].startswith('{"confidence":0.875,"labels"')  # sorted, compact
    assert "用户" in body["record"]["content"]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.file_name)
def test_mapper_round_trips_every_sample(sample: Any) -> None:
    mapper = EventMapper()
    name = mapper.event_type(sample.event)
    assert name == sample.name
    assert mapper.from_dict(name, mapper.to_dict(sample.event)) == sample.event


def test_mapper_ignores_fields_it_does_not_know() -> None:
    mapper = EventMapper()
    body = {**mapper.to_dict(DELETED), "added_later": 1}
    assert mapper.from_dict("MemoryDeleted", body) == DELETED


def test_mapper_rejects_what_it_cannot_understand() -> None:
    mapper = EventMapper()
    unknown_state = {**mapper.to_dict(WRITTEN), "state": "evaporated"}
    missing_field = mapper.to_dict(DELETED)
    del missing_field["memory_id"]
    for name, body in [
        ("MemoryWritten", unknown_state),
        ("MemoryDeleted", missing_field),
        ("MemoryTeleported", missing_field),
    ]:
        with pytest.raises(UndecodableEvent) as caught:
            mapper.from_dict(name, body)
        assert caught.value.reason == "unmappable"


def test_naive_datetimes_are_refused() -> None:
    naive = dataclasses.replace(
        DELETED, header=dataclasses.replace(DELETED.header, occurred_at=datetime(2024, 1, 1))
    )
    with pytest.raises(UnencodableEvent):
        SERIALIZER.encode(naive)


def test_non_json_meta_is_refused() -> None:
    record = dataclasses.replace(WRITTEN.record, meta={"x": float("nan")})
    with pytest.raises(UnencodableEvent):
        SERIALIZER.encode(dataclasses.replace(WRITTEN, record=record))


def test_values_outside_the_schema_are_refused() -> None:
    with pytest.raises(UnencodableEvent):
        SERIALIZER.encode(dataclasses.replace(DELETED, version=2**63))
    with pytest.raises(UnencodableEvent):
        SERIALIZER.event_type("not an event")  # type: ignore[arg-type]


# --- transcoder -------------------------------------------------------------------------


def test_frame_is_single_object_encoding() -> None:
    transcoder = AvroTranscoder(CATALOG)
    frame = transcoder.encode("MemoryDeleted", EventMapper().to_dict(DELETED))
    entry = CATALOG.latest("MemoryDeleted")
    assert frame[:2] == MAGIC == b"\xc3\x01"
    assert frame[2:10] == entry.fingerprint
    (listed,) = [
        s
        for s in json.loads((ROOT / "catalog.json").read_text())["schemas"]
        if s["name"] == "MemoryDeleted" and s["version"] == 1
    ]
    assert frame[2:10].hex() == listed["fingerprint"]
    name, body = transcoder.decode(frame)
    assert name == "MemoryDeleted"
    assert body["memory_id"] == DELETED.memory_id


@pytest.mark.parametrize("length", [0, 1, 2, 9, 10, 11])
def test_short_frames_are_truncated(length: int) -> None:
    frame = SERIALIZER.encode(WRITTEN)
    assert _undecodable(frame[:length]).reason == "truncated"


def test_every_cut_of_a_frame_is_undecodable() -> None:
    frame = SERIALIZER.encode(WRITTEN)
    assert {_undecodable(frame[:n]).reason for n in range(len(frame))} == {"truncated"}


def test_bad_magic() -> None:
    frame = SERIALIZER.encode(DELETED)
    assert _undecodable(b"\xc3\x02" + frame[2:]).reason == "bad_magic"
    assert _undecodable(b'{"event_id": "x", "tenant": "y"}').reason == "bad_magic"


def test_unknown_fingerprint_is_named() -> None:
    frame = SERIALIZER.encode(DELETED)
    error = _undecodable(MAGIC + b"\x00" * 8 + frame[10:])
    assert error.reason == "unknown_fingerprint"
    assert error.fingerprint == b"\x00" * 8
    assert "0000000000000000" in error.message


def test_trailing_bytes() -> None:
    assert _undecodable(SERIALIZER.encode(DELETED) + b"\x00").reason == "trailing_bytes"


def test_malformed_body() -> None:
    recalled = MAGIC + CATALOG.latest("MemoriesRecalled").fingerprint
    assert _undecodable(recalled + b"\x02\xff").reason == "malformed_body"  # not UTF-8
    changed = MAGIC + CATALOG.latest("MemoryStateChanged").fingerprint
    # event_id, tenant, occurred_at, actor, memory_id, scope, from_state, to_state, cause
    strings = b"\x02a\x02t\x02\x02r\x02m\x02s" + b"\x0cactive" * 2 + b"\x02c"
    assert SERIALIZER.decode(changed + strings + b"\x00")  # decision_json: null
    assert _undecodable(changed + strings + b"\x04").reason == "malformed_body"  # no branch 2


def test_undecodable_is_permanent() -> None:
    error = _undecodable(b"")
    assert isinstance(error, PermanentError)
    assert isinstance(error, AiMemoryError)


# --- schema evolution -------------------------------------------------------------------


def test_old_events_are_resolved_into_the_newest_schema(tmp_path: Path) -> None:
    root = tmp_path / "schemas"
    shutil.copytree(ROOT, root)
    schema = json.loads((root / "events" / "MemoryDeleted.v1.avsc").read_text())
    schema["version"] = 2
    schema["fields"].append({"name": "erased_by", "type": ["null", "string"], "default": None})
    (root / "events" / "MemoryDeleted.v2.avsc").write_text(json.dumps(schema))
    assert catalog_main(["--dir", str(root), "--write"]) == 0
    catalog = SchemaCatalog.load(root)

    v1_frame = SERIALIZER.encode(DELETED)
    name, body = AvroTranscoder(catalog).decode(v1_frame)
    assert (name, body["erased_by"]) == ("MemoryDeleted", None)  # the v2 default

    evolved = AvroEventSerializer(catalog)
    assert evolved.decode(v1_frame) == DELETED
    v2_frame = evolved.encode(DELETED)
    assert v2_frame[2:10] == catalog.latest("MemoryDeleted").fingerprint != v1_frame[2:10]
    assert evolved.decode(v2_frame) == DELETED
    assert _undecodable(v2_frame).reason == "unknown_fingerprint"  # old code, new event


# --- codec and facade -------------------------------------------------------------------


class XorCodec:
    """A toy codec: proves the hook is applied in both directions."""

    def encode(self, data: bytes) -> bytes:
        return b"X" + bytes(b ^ 0x5A for b in data)

    def decode(self, data: bytes) -> bytes:
        if not data.startswith(b"X"):
            raise ValueError("not mine")
        return bytes(b ^ 0x5A for b in data[1:])


def test_codec_wraps_the_frame() -> None:
    serializer = AvroEventSerializer(CATALOG, codec=XorCodec())
    data = serializer.encode(WRITTEN)
    assert data != SERIALIZER.encode(WRITTEN)
    assert XorCodec().decode(data) == SERIALIZER.encode(WRITTEN)
    assert serializer.decode(data) == WRITTEN
    assert _undecodable(SERIALIZER.encode(WRITTEN), serializer).reason == "codec"


def test_default_serializer_loads_the_catalog() -> None:
    serializer = AvroEventSerializer()
    assert serializer.catalog.names() == CATALOG.names()
    assert serializer.event_type(WRITTEN) == "MemoryWritten"
    assert serializer.decode(serializer.encode(WRITTEN)) == WRITTEN
