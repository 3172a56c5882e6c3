"""Ports: the narrow interfaces the core needs from the outside world.

Each port has an embedded adapter (the default, shipped production code) and a
distributed adapter, and one contract test suite in ``tests/contract`` that both pass.
Adapters raise only ``ai_memory.core.errors`` exceptions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from .access import ApiKey, KeyInfo
from .events import DomainEvent, Head, LoggedEvent, TenantPage
from .listing import ListQuery, RecordPage
from .projection import IndexMutation, LineageEntry, RecordMutation
from .record import MemoryRecord, MemoryState, MemoryType, StoredRecord, Tombstone
from .usage import TenantUsage
from .webhooks.model import DeliveryState, Subscription

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class EncodedEvent:
    """An event and its frame on the log (the serializer's bytes), encoded once by the
    append pipeline and handed to the log as they are."""

    event: DomainEvent
    frame: bytes
    event_type: str


def encode_events(serializer: EventSerializer, events: Sequence[DomainEvent]) -> list[EncodedEvent]:
    """Every event encoded, in order (an unencodable event fails before any is kept)."""
    return [EncodedEvent(e, serializer.encode(e), serializer.event_type(e)) for e in events]


class EventLog(Protocol):
    """The log of record, split into partitions (the embedded log has one, partition 0).

    Positions are positive and strictly increasing within a partition; on a partitioned
    log they pack partition and offset (``ai_memory.core.positions``). All events with
    the same partition key (tenant/scope) land in one partition, in append order."""

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        """Append in order; return each event's position. Atomic on the embedded log;
        on a partitioned log each event is durable (acks=all) when this returns.

        Appending an event whose ``event_id`` is already on the log is a no-op that
        returns the original position (a retried append never duplicates). The same as
        ``append_encoded`` of the events encoded by the log's serializer."""
        ...

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        """``append`` of events already encoded (by a serializer that writes what this
        log's serializer reads): the frames are written as they are, never re-encoded."""
        ...

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        """``read_tenant`` restricted to ``CHANGE_EVENT_TYPES`` of events whose partition
        key is ``tenant/<scope>`` for one of ``scopes`` (every scope when None); a log
        that can skips events of other scopes by key, undecoded (the change feed)."""
        ...

    def writers(self) -> dict[str, Any]:
        """Who writes which partition, for health (a partitioned log with single
        writers); empty for a log every appender writes directly."""
        ...

    def partitions(self) -> list[int]:
        """The partition numbers of the log."""
        ...

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        """Events of ``partition`` with position > ``after``, ascending, at most ``limit``."""
        ...

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        """Events of ``tenant`` in ``partition`` with position > ``after``, ascending, at
        most ``limit`` (the audit trail). A log that must look at other tenants' events
        to find them examines at most ``scan`` events per call, so a call stays cheap
        however large the partition; ``scanned_to`` says where to continue."""
        ...

    def last_position(self, partition: int = 0) -> int:
        """Position of the newest event of ``partition``, 0 when it is empty."""
        ...

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        """Block until ``partition`` has an event with position > ``after`` or ``timeout``."""
        ...

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        """The latest write/delete fact for each id that has one (the write model)."""
        ...

    def close(self) -> None: ...


CHANGE_EVENT_TYPES = ("MemoryWritten", "MemoryStateChanged", "MemoryDeleted")


class RecordStore(Protocol):
    """Records, tombstones, states and read counts: the ``records`` projection."""

    def apply(
        self, mutations: Sequence[RecordMutation], *, checkpoint: int, partition: int = 0
    ) -> None:
        """Apply mutations and advance the checkpoint of ``partition`` (atomically where
        the store allows). Order-safe and idempotent: a mutation older than what is
        stored for its id is ignored; a checkpoint never moves backwards."""
        ...

    def checkpoint(self, partition: int = 0) -> int: ...

    def get(self, tenant: str, memory_id: str) -> StoredRecord | Tombstone | None: ...

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        """The live records among ``memory_ids``. With ``sealed``, a store that seals
        personal fields at rest may return them still sealed — content, tags and meta
        unreadable, every other field as it is — for a reader that ranks many records by
        those other fields and returns a few, which ``unseal`` then opens."""
        ...

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        """``records`` read with ``sealed=True``, opened, in order; one that does not open
        (its key destroyed since, or never there) is left out, as ``get_many`` leaves it
        out. A store that seals nothing returns them as they are."""
        ...

    def tombstoned(self, tenant: str, memory_ids: Sequence[str]) -> set[str]: ...

    def scan_records(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[StoredRecord]:
        """Every live record of the tenant (optionally of some scopes), ordered by id."""
        ...

    def scan_tombstones(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[Tombstone]: ...

    def count(self, tenant: str) -> int: ...

    def list_records(self, query: ListQuery) -> RecordPage:
        """One bounded page of the tenant's live records matching ``query``, ordered by
        id, starting after ``query.after``. Scopes are filtered in the storage query
        (a key limited to some scopes never makes the store read others)."""
        ...

    def lineage(self, tenant: str, memory_id: str) -> list[LineageEntry]:
        """Every lineage entry of a memory, oldest first (also after it was forgotten)."""
        ...

    def reset(self) -> None:
        """Drop everything (before a rebuild from position 0)."""
        ...

    def close(self) -> None: ...


class UsageSource(Protocol):
    """Per-tenant usage (``core.usage``): the live memories the records view holds — what
    ``RecordStore.count`` counts, archived ones included — and the UTF-8 bytes of their
    content. Embedded: read from the record store; distributed: read from the usage
    fold's table."""

    def usage(self, tenant: str) -> TenantUsage:
        """The tenant's usage; ``positions`` says, per log partition, up to where every
        event is counted (a tenant it never saw: zeros, no positions)."""
        ...

    def tenants(self) -> list[str]:
        """The tenants it reports, sorted: every tenant that holds or held memories —
        or none, for a source that cannot list them without reading every record."""
        ...


@dataclass(frozen=True)
class SparseVector:
    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class IndexQuery:
    tenant: str
    dense: Vector | None
    sparse: SparseVector | None
    now: datetime  # memories whose TTL has passed by ``now`` are excluded
    limit: int = 10
    scopes: Sequence[str] | None = None
    types: Sequence[MemoryType] | None = None
    tags: Sequence[str] | None = None  # any of
    states: Sequence[MemoryState] = (MemoryState.ACTIVE,)
    mode: Literal["hybrid", "semantic", "keyword"] = "hybrid"
    # Score interactions with their conversation context (``core.conversation_context``).
    context: bool = False
    # Periods the query names, as [start, end) Unix seconds (``core.query_dates``): the
    # memories created in them also compete in their own right (hybrid mode only).
    periods: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class HitFacts:
    """What the index holds of a hit that the rerank reads (``core.governance.ranking``):
    enough to rank candidates before reading their records, so that a search reads only
    those that can make its answer (``MemoryService.search``)."""

    memory_type: MemoryType
    created_at: datetime
    # The log position of the write or state change whose version the index holds (the
    # record's ``position`` once the records view applied it); ``None`` when the point
    # does not say. A search's cached rows answer only for this very version
    # (``service.search_row_cache``).
    position: int | None = None


@dataclass(frozen=True)
class IndexHit:
    memory_id: str
    score: float
    components: dict[str, float] = field(default_factory=dict)
    # None: the index said nothing of it, and the search reads its record to rank it.
    facts: HitFacts | None = None


class VectorIndex(Protocol):
    """Dense + sparse vectors per live memory: the ``index`` projection."""

    def apply(
        self,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        *,
        checkpoint: int,
        partition: int = 0,
    ) -> None:
        """Apply mutations; ``vectors`` maps a mutation's position to the vectors of its
        record (for ``IndexPut``). Order-safe, idempotent, and the checkpoint of
        ``partition`` persisted with the view."""
        ...

    def checkpoint(self, partition: int = 0) -> int: ...

    def search(self, query: IndexQuery) -> list[IndexHit]: ...

    def count(self, tenant: str) -> int: ...

    def flush(self) -> None:
        """Make everything applied so far durable (called when the projector is idle)."""
        ...

    def optimize(self) -> bool:
        """Build search structures after bulk loads and purge deleted data. May be slow:
        run it offline (after a replay). Returns whether anything changed."""
        ...

    def start_compaction(self) -> None:
        """A serving process owns this index: keep it compacted in the background from now
        on (search structures built, forgotten vectors purged) without stopping searches.
        A no-op where the engine does that itself."""
        ...

    def compaction_status(self) -> dict[str, float]:
        """Background compaction for ``/metrics``: ``running`` (0/1: runs or is due),
        ``points_since``, ``forgotten_pending``, ``last_seconds``, ``outcome_<done|
        abandoned|failed|cancelled>`` counts; empty where the engine compacts itself."""
        ...

    def reset(self) -> None: ...

    def rebuild(self) -> IndexRebuild:
        """Begin rebuilding this projection from the log: replay into the rebuild's
        ``target``, then ``switch`` it in (``ai-memory replay --projection index``).
        Where the engine allows it, the target is a new generation beside this index and
        searches never see a partial one; otherwise the index is reset and refilled in
        place (offline). ``core.index_rebuild`` has both shapes."""
        ...

    def close(self) -> None: ...


class IndexRebuild(Protocol):
    """A rebuild in progress: ``target`` is what the replay fills; ``switch`` makes it
    the index searches read; ``close`` releases what the rebuild holds (never the live
    index)."""

    @property
    def target(self) -> VectorIndex: ...

    def switch(self) -> None: ...

    def close(self) -> None: ...


class Embedder(Protocol):
    """Text → L2-normalised float32 vectors. ``name`` identifies the model and its
    weights exactly; an index built with one name is never queried with another."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vector:
        """Shape (len(texts), dim), float32, unit length rows."""
        ...


class Clock(Protocol):
    def now(self) -> datetime: ...


def index_text(record: MemoryRecord) -> str:
    """What the index embeds: the content plus tags (tags are retrieval aids)."""
    if record.tags:
        return f"{record.content}\n{' '.join(record.tags)}"
    return record.content


@dataclass(frozen=True)
class DeadLetter:
    """An event a projection could not apply on its own, parked so the projection moves on.

    ``raw`` holds the event's bytes as they were on the log (empty when unknown);
    ``attempts`` counts every failed try, across re-drives."""

    projection: str
    position: int
    partition: int
    reason: str  # a stable word: an undecodable reason or ``projection:<error code>``
    error: str  # the last error, ``Type: message``
    raw: bytes
    attempts: int
    first_failed_at: datetime
    last_failed_at: datetime


class DeadLetters(Protocol):
    """Where projections park events they cannot apply (the dead-letter port)."""

    def put(self, letter: DeadLetter) -> DeadLetter:
        """Park ``letter``; parking the same (projection, position) again keeps the first
        failure time and adds the attempts. Returns what is stored."""
        ...

    def get(self, projection: str, position: int) -> DeadLetter | None: ...

    def entries(self, projection: str | None = None, *, limit: int = 1000) -> list[DeadLetter]:
        """Unresolved entries ordered by (projection, position)."""
        ...

    def counts(self) -> dict[str, int]:
        """Unresolved entries per projection (projections without any are absent)."""
        ...

    def resolve(self, projection: str, position: int) -> bool:
        """Remove an entry (re-driven or discarded); False when there was none."""
        ...

    def close(self) -> None: ...


class EventSerializer(Protocol):
    """Domain event ↔ bytes (Avro single-object encoding in production)."""

    def encode(self, event: DomainEvent) -> bytes: ...

    def decode(self, data: bytes) -> DomainEvent: ...

    def event_type(self, event: DomainEvent) -> str: ...


class DecodesMany(Protocol):
    """A serializer that decodes a batch at once cheaper than event by event (the data
    keys of a batch of sealed events in one vault read)."""

    def decode_many(self, datas: Sequence[bytes]) -> list[DomainEvent | Exception]: ...


def decode_all(
    serializer: EventSerializer, datas: Sequence[bytes]
) -> list[DomainEvent | Exception]:
    """Each of ``datas`` decoded, or the exception its decoding raised, in order."""
    # ``DecodesMany`` by its method, not a runtime-checkable ``isinstance``: that inspects
    # every member on each call (≈ 20 µs), and every projection step decodes a page.
    decode_many = getattr(serializer, "decode_many", None)
    if decode_many is not None:
        decoded_many: list[DomainEvent | Exception] = decode_many(datas)
        return decoded_many
    decoded: list[DomainEvent | Exception] = []
    for data in datas:
        try:
            decoded.append(serializer.decode(data))
        except Exception as e:  # reported in its place: the caller judges each event
            decoded.append(e)
    return decoded


class KeyStore(Protocol):
    """API keys (``core.access``): their public part and the digest of their secret; a
    store never sees a secret. Keys are never deleted, so a revoked key stays revoked
    and its id is never issued again."""

    def create(self, key: ApiKey) -> None:
        """Store a new key; ``Conflict`` (code ``key_exists``) if its id is taken."""
        ...

    def get(self, key_id: str) -> ApiKey | None:
        """The key with its digest (for authentication), None when unknown."""
        ...

    def list_keys(self, tenant: str) -> list[KeyInfo]:
        """The tenant's keys, revoked and expired included, oldest first; never digests."""
        ...

    def revoke(self, key_id: str, at: datetime) -> KeyInfo | None:
        """Revoke for good: a second revocation keeps the first time. None when unknown."""
        ...

    def has_keys(self) -> bool:
        """Whether any key was ever created (revoked ones count: revoking the last key
        must not reopen the server)."""
        ...

    def close(self) -> None: ...


class DataKeys(Protocol):
    """The data keys of envelope encryption (crypto-shredding, ``docs/design/FORGETTING.md``),
    as the append pipeline uses them."""

    def prepare(self, events: Sequence[DomainEvent]) -> None:
        """Fetch or issue the keys the events will be sealed under, in one vault round
        trip per tenant, before they are encoded."""
        ...

    def forget(self, tenant: str, key_id: str) -> None:
        """Destroy a subject's keys for good."""
        ...


class ProjectabilityProof(Protocol):
    """Proves that every projection can apply an encoded event, as it will read it."""

    def prove(self, encoded: EncodedEvent) -> None:
        """Raise ``InvalidInput(field="event", rule="projectable")`` unless every
        projection can apply the event; a ``RetryableError`` when a store the proof
        needs is unreachable (an outage, not an unprojectable event)."""
        ...


class WebhookStore(Protocol):
    """Webhook subscriptions and their delivery state (``core.webhooks``), kept where the
    deployment keeps its API keys, so a restarted or another gateway picks them up."""

    def create(self, subscription: Subscription) -> None:
        """Store a new subscription; ``Conflict`` (``webhook_exists``) if its id is taken."""
        ...

    def get(self, tenant: str, webhook_id: str) -> Subscription | None: ...

    def list_tenant(self, tenant: str) -> list[Subscription]:
        """The tenant's subscriptions, oldest first."""
        ...

    def list_all(self) -> list[Subscription]:
        """Every tenant's subscriptions (what the dispatcher follows)."""
        ...

    def delete(self, tenant: str, webhook_id: str) -> bool:
        """Remove for good; whether it existed."""
        ...

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        """Replace the delivery state; False (nothing written, nothing re-created) when
        the subscription no longer exists."""
        ...

    def claim(self, lease: str, owner: str, ttl: float, now: datetime) -> bool:
        """Take or renew ``lease`` for ``ttl`` seconds: True while ``owner`` holds it
        (free, expired or already its own), False while another owner does. Its owner
        releases it with ``ttl`` 0 (a store may round up to a second)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DeliveryAttempt:
    """What a delivery attempt got: a status, or no answer at all (``status`` None)."""

    status: int | None
    error: str | None = None  # None on a 2xx
    # The address policy refused every address the name resolved to at delivery time
    # (never sent); counted apart, as it points at DNS or configuration, not the receiver.
    refused_destination: bool = False

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class WebhookSender(Protocol):
    """Posts a signed delivery to a subscribed URL, re-checking where it goes."""

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> DeliveryAttempt:
        """One attempt; never raises for the receiver's or the network's failures."""
        ...

    async def aclose(self) -> None: ...


class HostResolver(Protocol):
    def resolve(self, host: str, port: int) -> list[str]:
        """Every address ``host`` resolves to (an address resolves to itself);
        ``InvalidInput`` naming ``url`` when it resolves to none."""
        ...
