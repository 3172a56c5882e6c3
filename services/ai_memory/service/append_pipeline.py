"""The append pipeline: what happens to the events of a write, in order, until they are on
the log of record.

A write goes through seven steps. The first two belong to the use case, which owns the
input and the decision; the last five are ``AppendPipeline.append``, read top to bottom:

1. **screen secrets** — the use case hands every record, reason and note to the tenant's
   secret policy (``MemoryService.admit``, ``SecretGuard`` in ``secret_policy``) before
   any event is built from it: refused, redacted, or let through.
2. **decide** — in a unit of work (``unit_of_work``): the write model's heads, the pure
   decision (``core.decide``, ``core.governance``), and the stored-memories quota
   (``UnitOfWork.append``). The events it decides come here.
3. **make data keys** — with encryption on, the keys of the batch's new memories and
   turns are fetched or issued in one vault round trip per tenant, before sealing.
4. **encode once** — each event is encoded (and sealed) exactly once; the frames are
   what the next steps prove and what the log writes (``EventLog.append_encoded``).
5. **prove projectable** — every frame is decoded as a projector will read it and run
   through every projection (``ProjectabilityProof``). A refused event refuses the whole
   batch (422) and nothing is appended; a vault outage on the way is retryable (503).
6. **append** — one call; it returns when every event is durable (one transaction on
   the embedded log, acks=all on Kafka).
7. **destroy keys of what was forgotten** — only now that the tombstones are durable
   (``docs/design/FORGETTING.md``): the data key of every ``MemoryDeleted`` memory (and of
   the turn it was extracted from), and of every turn a ``SubjectErased`` names.

If the vault fails in step 7, the error reaches the caller and the key outlives the
tombstone (the content stays readable to whoever holds the vault) until a later
destroy; the forget itself stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import DomainEvent, MemoryDeleted, SubjectErased
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import (
    DataKeys,
    EncodedEvent,
    EventLog,
    EventSerializer,
    ProjectabilityProof,
    RecordStore,
)
from ai_memory.core.projection import unprojectable
from ai_memory.core.record import StoredRecord
from ai_memory.telemetry import EVENT_CONTEXTS, annotate, span

RelatedKeys = Callable[[str, str], Sequence[str]]  # (tenant, memory id) → more key ids

# Extracted memories get the ids extracted_memory_id(interaction, 0..n-1); an extractor
# finds a handful per turn, this bounds the check.
MAX_EXTRACTED = 256


class AppendPipeline:
    """The one way events reach the log (every unit of work appends through it).

    ``keys`` (encryption on) makes and destroys data keys; ``related`` names the keys a
    forget takes with it besides the memory's own (``source_interaction_keys``)."""

    def __init__(
        self,
        log: EventLog,
        serializer: EventSerializer,
        proof: ProjectabilityProof,
        *,
        keys: DataKeys | None = None,
        related: RelatedKeys | None = None,
    ) -> None:
        self.log = log
        self._serializer = serializer
        self._proof = proof
        self._keys = keys
        self._related = related

    @property
    def serializer(self) -> EventSerializer:
        """What encodes (and proves) every event this pipeline appends."""
        return self._serializer

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        """Append ``events`` at once; their positions, in order."""
        if not events:
            return []
        with span("aimem.log.append", {"aimem.events": len(events)}):
            self._make_data_keys(events)
            encoded = self._encode_once(events)
            self._prove_projectable(encoded)
            doomed = self._keys_forgotten_by(events)
            # Before the append: an in-process projection may read the events at once.
            # An event a grouped single write remembered in its own trace keeps it.
            EVENT_CONTEXTS.remember((e.header.event_id for e in events), keep=True)
            positions = self.log.append_encoded(encoded)
            annotate({"aimem.position.last": max(positions, default=0)})
            self._destroy_keys(doomed)
            return positions

    # --- the steps, in order ------------------------------------------------------------
    def _make_data_keys(self, events: Sequence[DomainEvent]) -> None:
        if self._keys is not None:
            self._keys.prepare(events)

    def _encode_once(self, events: Sequence[DomainEvent]) -> list[EncodedEvent]:
        encoded: list[EncodedEvent] = []
        for event in events:
            try:
                frame = self._serializer.encode(event)
            except RetryableError:
                raise  # the vault, while sealing: an outage, not an unprojectable event
            except Exception as e:  # no projection could read what cannot be written
                raise unprojectable(type(event).__name__, e) from e
            encoded.append(EncodedEvent(event, frame, self._serializer.event_type(event)))
        return encoded

    def _prove_projectable(self, encoded: Sequence[EncodedEvent]) -> None:
        for frame in encoded:  # all of them before the append: a refused batch appends nothing
            self._proof.prove(frame)

    def _keys_forgotten_by(self, events: Sequence[DomainEvent]) -> list[tuple[str, str]]:
        """(tenant, key id) of what the batch forgets, read before its tombstones land
        (``related`` reads the record the tombstone will remove)."""
        if self._keys is None:
            return []
        doomed: list[tuple[str, str]] = []
        for event in events:
            if isinstance(event, MemoryDeleted):
                tenant = event.header.tenant
                doomed.append((tenant, memory_key_id(event.memory_id)))
                if self._related is not None:
                    doomed += [(tenant, k) for k in self._related(tenant, event.memory_id)]
            elif isinstance(event, SubjectErased):  # the tombstone of its raw turns
                tenant = event.header.tenant
                doomed += [(tenant, interaction_key_id(i)) for i in event.interaction_ids]
        return list(dict.fromkeys(doomed))

    def _destroy_keys(self, doomed: Sequence[tuple[str, str]]) -> None:
        if self._keys is not None:
            for tenant, key_id in doomed:
                self._keys.forget(tenant, key_id)


def source_interaction_keys(store: RecordStore) -> RelatedKeys:
    """The key of the interaction a memory was extracted from: forgetting the memory
    forgets the raw turn too, which said the same thing (docs/design/FORGETTING.md). Read from
    the record store before the tombstone is appended. Only a memory whose id is one the
    extractor derives from that interaction counts, so a ``meta.source`` written by a
    client cannot make a forget destroy another interaction's key."""

    def related(tenant: str, memory_id: str) -> list[str]:
        found = store.get(tenant, memory_id)
        if not isinstance(found, StoredRecord):
            return []
        source = found.record.meta.get("source")
        interaction = source.get("interaction_id") if isinstance(source, dict) else None
        if not isinstance(interaction, str):
            return []
        derived = (extracted_memory_id(interaction, i) for i in range(MAX_EXTRACTED))
        return [interaction_key_id(interaction)] if memory_id in derived else []

    return related
