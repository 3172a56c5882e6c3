"""Golden fixtures: frozen bytes of every released schema version, and the events they hold.

``schemas/golden/<Event>.v<N>[.<variant>].bin`` is written once, from the deterministic
sample below, while v<N> is the newest version of <Event>; it is never rewritten. Tests
decode every file with the current code and compare it with ``SAMPLES`` (old events stay
readable), and re-encode the samples of the newest versions to the same bytes.

When a later version changes what an old event decodes to (a new field with a default),
update the expected event here; never the ``.bin`` file.

    python -m ai_memory.serialization.golden          # list fixtures, exit 1 if any is missing
    python -m ai_memory.serialization.golden --write  # write only the missing ones
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ai_memory.core.events import (
    DomainEvent,
    EncryptionEnvelope,
    EventHeader,
    InteractionRecorded,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType

from .catalog import schema_dir
from .serializer import AvroEventSerializer


@dataclass(frozen=True)
class GoldenSample:
    name: str
    version: int
    event: DomainEvent
    variant: str = ""

    @property
    def file_name(self) -> str:
        suffix = f".{self.variant}" if self.variant else ""
        return f"{self.name}.v{self.version}{suffix}.bin"


def _header(n: int) -> EventHeader:
    return EventHeader(
        event_id=f"0190c3a2-7b1e-7c00-8000-00000000000{n}",
        tenant="acme",
        occurred_at=datetime(2024, 3, 12, 9, 30, 15, 123456, tzinfo=UTC),
        actor="agent:planner",
    )


_RECORD = MemoryRecord(
    id="mem-001",
    type=MemoryType.PREFERENCE,
    content="用户喜欢简洁的回答，并且偏好使用中文交流。The user prefers concise answers.",
    scope="user:alice",
    source_agent="agent:planner",
    created_at=datetime(2024, 3, 1, 8, 0, 0, 654321, tzinfo=UTC),
    ttl=86_400,
    tags=("language", "风格"),
    meta={"origin": {"app": "chat", "turn": 42}, "confidence": 0.875, "labels": ["a", None]},
)

SAMPLES: tuple[GoldenSample, ...] = (
    GoldenSample(
        "MemoryWritten",
        1,
        MemoryWritten(
            header=_header(1),
            record=_RECORD,
            version=3,
            # a literal, so the fixture never depends on how fingerprints are computed
            content_sha256="70c78f8354d907e77d9b8c68a95d9110bc8699c30e6b1f9c79e1ae36bb79b44e",
            state=MemoryState.ACTIVE,
            cause="import",
            import_batch_id="batch-2024-03-12",
        ),
    ),
    GoldenSample(
        "MemoryWritten",
        1,
        MemoryWritten(
            header=_header(2),
            record=MemoryRecord(
                id="mem-002",
                type=MemoryType.FACT,
                content="",
                scope="team:data-platform",
                source_agent="agent:extractor",
                created_at=datetime(2024, 3, 2, 0, 0, tzinfo=UTC),
            ),
            version=1,
            content_sha256="0" * 64,
            encryption=EncryptionEnvelope(
                key_id="tenant-acme/dek-7",
                algorithm="AES-256-GCM",
                nonce=bytes(range(12)),
                ciphertext=b"\x00\xff\x10ciphertext\x80",
            ),
        ),
        variant="encrypted",
    ),
    GoldenSample(
        "MemoryWritten",
        2,
        MemoryWritten(
            header=_header(1),
            record=_RECORD,
            version=3,
            # a literal, so the fixture never depends on how fingerprints are computed
            content_sha256="70c78f8354d907e77d9b8c68a95d9110bc8699c30e6b1f9c79e1ae36bb79b44e",
            state=MemoryState.ACTIVE,
            cause="import",
            import_batch_id="batch-2024-03-12",
        ),
    ),
    GoldenSample(
        "MemoryWritten",
        2,
        MemoryWritten(
            header=_header(2),
            record=MemoryRecord(
                id="mem-002",
                type=MemoryType.FACT,
                content="",
                scope="team:data-platform",
                source_agent="agent:extractor",
                created_at=datetime(2024, 3, 2, 0, 0, tzinfo=UTC),
            ),
            version=1,
            content_sha256="0" * 64,
            encryption=EncryptionEnvelope(
                key_id="tenant-acme/dek-7",
                algorithm="AES-256-GCM",
                nonce=bytes(range(12)),
                ciphertext=b"\x00\xff\x10ciphertext\x80",
            ),
            content_bytes=27,
        ),
        variant="encrypted",
    ),
    GoldenSample(
        "MemoryDeleted",
        1,
        MemoryDeleted(
            header=_header(3),
            memory_id="mem-001",
            scope="user:alice",
            reason="user_request",
            version=3,
        ),
    ),
    GoldenSample(
        "MemoryStateChanged",
        1,
        MemoryStateChanged(
            header=_header(4),
            memory_id="mem-001",
            scope="user:alice",
            from_state=MemoryState.ACTIVE,
            to_state=MemoryState.HISTORICAL,
            cause="conflict.theta.archive",
            decision_json='{"model":"nli-small","inputs":["mem-001","mem-009"],"output":0.93}',
        ),
    ),
    GoldenSample(
        "MemoriesRecalled",
        1,
        MemoriesRecalled(
            header=_header(5), scope="user:alice", memory_ids=("mem-001", "mem-002", "记忆-3")
        ),
    ),
    GoldenSample(
        "MemoriesImported",
        1,
        MemoriesImported(
            header=_header(6),
            batch_id="batch-2024-03-12",
            source="mem0-export.jsonl",
            received=120,
            written=100,
            unchanged=12,
            skipped_tombstoned=3,
            rejected=5,
        ),
    ),
    GoldenSample(
        "SubjectErased",
        1,
        SubjectErased(
            header=_header(10),
            erasure_id="era-001",
            criteria_json='{"scope":"user:alice"}',
            reason="subject request 2024-03-12",
            memory_ids=("mem-001", "记忆-3"),
            interaction_ids=("int-001",),
            key_ids=("memory/mem-001", "memory/记忆-3", "interaction/int-001"),
            keys_destroyed_at=datetime(2024, 3, 12, 9, 30, 16, tzinfo=UTC),
        ),
    ),
    GoldenSample(
        "SubjectErased",
        2,
        SubjectErased(
            header=_header(11),
            erasure_id="era-002",
            criteria_json='{"everything":true}',
            reason="tenant offboarding",
            memory_ids=("mem-001",),
            interaction_ids=(),
            key_ids=("memory/mem-001",),
            keys_destroyed_at=datetime(2024, 3, 12, 9, 31, 16, tzinfo=UTC),
            kek_versions_destroyed=(1, 2),
        ),
    ),
    GoldenSample(
        "InteractionRecorded",
        1,
        InteractionRecorded(
            header=_header(7),
            interaction_id="int-001",
            scope="user:alice",
            source_agent="planner",
            session_id="sess-42",
            text="I moved to Sydney last month. 我现在住在悉尼。",
            at=datetime(2024, 3, 12, 9, 30, 0, 250_000, tzinfo=UTC),
            extraction_json='{"extractor":"rules/1","memories":[{"slot":"fact/residence"}]}',
        ),
    ),
    GoldenSample(
        "InteractionRecorded",
        2,
        InteractionRecorded(
            header=_header(8),
            interaction_id="int-002",
            scope="user:alice",
            source_agent="planner",
            session_id=None,
            text="Bob prefers tea. 鲍勃喜欢茶。",
            at=datetime(2024, 3, 12, 9, 31, 0, 500_000, tzinfo=UTC),
            extraction_json='{"extractor":"rules/1","memories":[]}',
        ),
    ),
    GoldenSample(
        "InteractionRecorded",
        2,
        InteractionRecorded(
            header=_header(9),
            interaction_id="int-003",
            scope="user:alice",
            source_agent="planner",
            session_id="sess-42",
            text="",
            at=datetime(2024, 3, 12, 9, 32, 0, tzinfo=UTC),
            extraction_json=None,
            encryption=EncryptionEnvelope(
                key_id="interaction/int-003",
                algorithm="AES-256-GCM",
                nonce=b"\x01" * 12,
                ciphertext=b"\x00\xff\x10ciphertext\x80",
            ),
        ),
        variant="encrypted",
    ),
)


def golden_dir() -> Path:
    return schema_dir() / "golden"


def write_missing(
    directory: Path | None = None, serializer: AvroEventSerializer | None = None
) -> list[Path]:
    """Write the fixtures that do not exist yet and return their paths; never overwrite."""
    target = directory if directory is not None else golden_dir()
    codec = serializer if serializer is not None else AvroEventSerializer()
    written: list[Path] = []
    for sample in SAMPLES:
        path = target / sample.file_name
        if path.exists() or codec.catalog.latest(sample.name).version != sample.version:
            continue  # frozen, or an old version the current encoder no longer writes
        target.mkdir(parents=True, exist_ok=True)
        with path.open("xb") as out:  # "x": fail rather than overwrite
            out.write(codec.encode(sample.event))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Golden fixtures of the event schemas.")
    parser.add_argument("--write", action="store_true", help="write missing fixtures only")
    args = parser.parse_args(argv)
    if args.write:
        for path in write_missing():
            print(f"wrote {path}")
    missing = [s.file_name for s in SAMPLES if not (golden_dir() / s.file_name).exists()]
    for sample in SAMPLES:
        state = "MISSING" if sample.file_name in missing else "ok"
        print(f"{state:8} {sample.file_name}")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
