"""Domain events: past-tense facts appended to the log.

Every event carries the same header (``EventHeader``): a unique id (used to deduplicate
re-delivered appends), the tenant, when it happened (from the injected clock) and the actor
that caused it. Events are encoded with Avro (see ``ai_memory.serialization``); the schema
of each event type is versioned in ``schemas/``.

The partition key of an event is ``tenant/scope``: all events of one scope stay ordered on
every log, and a record never changes scope (see ``decide``), so all events of one record
are ordered too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .record import MemoryRecord, MemoryState


@dataclass(frozen=True)
class EventHeader:
    event_id: str
    tenant: str
    occurred_at: datetime
    actor: str


@dataclass(frozen=True)
class EncryptionEnvelope:
    """Where content is encrypted (crypto-shredding), the ciphertext lives here and
    ``MemoryRecord.content`` in the event is empty. Destroying ``key_id`` forgets it."""

    key_id: str
    algorithm: str
    nonce: bytes
    ciphertext: bytes


@dataclass(frozen=True)
class MemoryWritten:
    header: EventHeader
    record: MemoryRecord
    version: int
    content_sha256: str
    state: MemoryState = MemoryState.ACTIVE
    cause: str = "api"  # api | import | extractor | ...
    import_batch_id: str | None = None
    encryption: EncryptionEnvelope | None = None
    # The UTF-8 bytes of the content, known apart from it only while it is sealed (read
    # back after its key was destroyed): the log keeps the size in clear (schema v2), and
    # an event passed on sealed must keep it. None otherwise — the content says it.
    content_bytes: int | None = None

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/{self.record.scope}"

    @property
    def memory_id(self) -> str:
        return self.record.id

    @property
    def sealed(self) -> bool:
        """Read back still sealed: its data key was destroyed, so its content, tags and
        meta no longer exist (``serialization.sealer`` opens every other sealed event)."""
        return self.encryption is not None


@dataclass(frozen=True)
class MemoryDeleted:
    header: EventHeader
    memory_id: str
    scope: str
    reason: str
    version: int  # the last version that existed; 0 for a tombstone-only delete

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/{self.scope}"


@dataclass(frozen=True)
class MemoryStateChanged:
    header: EventHeader
    memory_id: str
    scope: str
    from_state: MemoryState
    to_state: MemoryState
    cause: str  # the rule, e.g. "conflict.theta.archive", "ttl.expired", "score.below_forget"
    decision_json: str | None = (
        None  # a recorded non-deterministic decision (model, inputs, output)
    )

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/{self.scope}"


@dataclass(frozen=True)
class MemoriesRecalled:
    """A batch of recalls (search results returned, reads) for read-count reinforcement."""

    header: EventHeader
    scope: str
    memory_ids: tuple[str, ...]

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/{self.scope}"


@dataclass(frozen=True)
class MemoriesImported:
    """Provenance and statistics of one import batch."""

    header: EventHeader
    batch_id: str
    source: str
    received: int
    written: int
    unchanged: int
    skipped_tombstoned: int
    rejected: int

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/_imports"


@dataclass(frozen=True)
class InteractionRecorded:
    """L0: one raw interaction turn, kept on the log as said.

    ``extraction_json`` records what the extractor decided (its name and version, the
    memories it found, the conflict decisions taken) so a replay reads the decision
    instead of running an extractor or a model again."""

    header: EventHeader
    interaction_id: str
    scope: str
    source_agent: str
    session_id: str | None
    text: str
    at: datetime
    extraction_json: str | None = None
    encryption: EncryptionEnvelope | None = None  # set only when read back still sealed

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/{self.scope}"

    @property
    def sealed(self) -> bool:
        """Read back still sealed: its data key was destroyed, so its text and
        extraction no longer exist."""
        return self.encryption is not None


@dataclass(frozen=True)
class SubjectErased:
    """A subject erasure (``docs/design/FORGETTING.md``): the request, every memory and raw
    interaction it forgot and every data key it destroyed. The memories' tombstones
    precede it on their own partitions, and it is appended once every key is gone, so
    ``keys_destroyed_at`` is a fact (None: encryption was off, no key to destroy)."""

    header: EventHeader
    erasure_id: str
    criteria_json: str
    reason: str
    memory_ids: tuple[str, ...]
    interaction_ids: tuple[str, ...]
    key_ids: tuple[str, ...] = ()
    keys_destroyed_at: datetime | None = None
    # v2: an offboarding (everything) destroys the tenant's KEK versions after its keys.
    kek_versions_destroyed: tuple[int, ...] = ()

    @property
    def partition_key(self) -> str:
        return f"{self.header.tenant}/_erasures"


DomainEvent = (
    MemoryWritten
    | MemoryDeleted
    | MemoryStateChanged
    | MemoriesRecalled
    | MemoriesImported
    | InteractionRecorded
    | SubjectErased
)


@dataclass(frozen=True)
class LoggedEvent:
    """An event as read back from a log, with the position the log gave it."""

    position: int
    event: DomainEvent


@dataclass(frozen=True)
class TenantPage:
    """One tenant's events from one partition (``EventLog.read_tenant``).

    ``scanned_to`` is where the next read continues: every event of the tenant up to it
    was returned, so it may lie beyond the last returned event when the events after
    that belonged to other tenants. ``complete``: the read reached the partition's end."""

    events: list[LoggedEvent]
    scanned_to: int
    complete: bool


@dataclass(frozen=True)
class Head:
    """The latest known fact about one memory id, kept by the log for decisions."""

    memory_id: str
    scope: str
    version: int
    content_sha256: str
    deleted: bool
    position: int
    created_at: datetime | None
