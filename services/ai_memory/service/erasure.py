"""Subject erasure and its signed receipt (``POST /v1/erasures``, ``GET /v1/erasures/{id}``).

An erasure runs the ordinary forget for every memory of its subject (``core.erasure``
says which), in one unit of work: each ``MemoryDeleted`` goes through the append pipeline,
which destroys the memory's key (and its source turn's) once the tombstone is durable.
Then the keys of the subject's raw interaction turns are destroyed, and only then is
``SubjectErased`` appended — the record of the request, of every id and every destroyed
key, with the time by which they were all gone. A crash before that append leaves keys
destroyed and no record: the safe side; the same request (same ``erasure_id``) runs
again and finds nothing left to do but record it.

The receipt is computed from the log at the time it is asked for (the erasure's
events, each projection's position, a verification scan) and signed
(``core.receipts``). Both read the tenant's whole log: O(log), an audit operation.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from ai_memory.core import positions as log_positions
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.erasure import (
    ErasureRequest,
    ProjectionApplied,
    Verification,
    check_erasure_id,
    receipt_body,
    tombstone_reason,
)
from ai_memory.core.errors import NotFound
from ai_memory.core.events import (
    InteractionRecorded,
    LoggedEvent,
    MemoryDeleted,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import EventLog
from ai_memory.core.record import StoredRecord
from ai_memory.core.timeparse import format_timestamp, from_micros

from . import access
from .access import Caller, Who
from .append_pipeline import MAX_EXTRACTED
from .health import ProjectionPosition
from .position_tokens import PositionTokens
from .receipts import public_key_pem, sign_receipt
from .unit_of_work import UnitOfWork
from .writing import Writing, delete_in

_PAGE = 1000
_SCAN = 5000


@dataclass(frozen=True)
class KeyVault:
    """What an erasure needs of the vault; None with encryption off."""

    destroy: Callable[[str, str], None]  # (tenant, key id)
    destroyed: Callable[[str, str], bool]
    destroyed_at: Callable[[str, Sequence[str]], dict[str, int | None]]  # UTC microseconds
    kek_versions: Callable[[str, bool], list[int]]  # (tenant, include destroyed ones)
    destroy_kek: Callable[[str, int], None]  # (tenant, version)

    def destroy_keks(self, tenant: str) -> tuple[int, ...]:
        """Destroy every KEK version of the tenant (an offboarding, once its data keys are
        gone); the versions it ever had, so a run resumed after a crash still names the
        ones destroyed before it. A later write gets a fresh KEK numbered above them."""
        every = self.kek_versions(tenant, True)
        for version in self.kek_versions(tenant, False):
            self.destroy_kek(tenant, version)
        return tuple(every)


@dataclass(frozen=True)
class ErasureResult:
    erasure_id: str
    position: int
    memory_ids: tuple[str, ...]
    interaction_ids: tuple[str, ...]
    already_done: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "erasure_id": self.erasure_id,
            "position": self.position,
            "memories": len(self.memory_ids),
            "interactions": len(self.interaction_ids),
            "already_done": self.already_done,
            "receipt": f"/v1/erasures/{self.erasure_id}",
        }


class ErasureService:
    def __init__(
        self,
        deps: Writing,
        log: EventLog,
        signing_key: Callable[[], Ed25519PrivateKey],
        statuses: Callable[[], Sequence[ProjectionPosition]],
        vault: KeyVault | None,
        *,
        packed_positions: bool = False,  # a partitioned log packs (partition, offset)
        positions: PositionTokens | None = None,  # what a tenant is shown of positions
    ) -> None:
        self.deps = deps
        self._positions = positions
        self.log = log
        self.clock = deps.clock
        self._signing_key = signing_key
        self._statuses = statuses
        self.vault = vault
        self._packed = packed_positions

    # --- erase ---------------------------------------------------------------------------
    def parse(self, body: object) -> ErasureRequest:
        return ErasureRequest.parse(body, self.deps.limits, lambda: f"era-{uuid.uuid4()}")

    def erase(
        self, who: Who, request: ErasureRequest, *, actor: str, wait: bool = False
    ) -> ErasureResult:
        """Erase a subject of the tenant of ``who``, who must own the tenant (an admin key
        or the deployment); ``actor`` is recorded when the caller is not a key."""
        caller = self.owner(who)
        tenant, actor = caller.tenant, access.actor_of(caller, actor)
        done = self._find(tenant, request.erasure_id)
        if done is not None:
            e = done.event
            assert isinstance(e, SubjectErased)
            return ErasureResult(
                e.erasure_id, done.position, e.memory_ids, e.interaction_ids, already_done=True
            )
        reason, _ = self.deps.secrets.text(tenant, "reason", request.reason)
        memory_ids, interaction_ids = self._subject(tenant, request)
        tombstone = tombstone_reason(request.erasure_id)

        def step(uow: UnitOfWork) -> tuple[int, list[int]]:
            appended = []
            for memory_id in memory_ids:
                result = delete_in(uow, memory_id, reason=tombstone)
                if not result.already_forgotten:
                    appended.append(result.position)
                elif self.vault is not None:
                    # Forgotten before (an earlier attempt killed between its tombstone
                    # and the key's destroy, or a destroy that failed): destroy again.
                    self.vault.destroy(tenant, memory_key_id(memory_id))
            key_ids = [memory_key_id(m) for m in memory_ids]
            destroyed_at = None
            keks: tuple[int, ...] = ()
            if self.vault is not None:
                for interaction_id in interaction_ids:
                    self.vault.destroy(tenant, interaction_key_id(interaction_id))
                key_ids += [interaction_key_id(i) for i in interaction_ids]
                if request.everything:
                    keks = self.vault.destroy_keks(tenant)
                destroyed_at = self.clock.now()
            record = SubjectErased(
                uow.header(),
                request.erasure_id,
                json.dumps(request.criteria(), sort_keys=True, separators=(",", ":")),
                reason,
                memory_ids,
                interaction_ids,
                tuple(key_ids) if self.vault is not None else (),
                destroyed_at,
                keks,
            )
            (position,) = uow.append([record])
            return position, appended

        position, appended = self.deps.units.run(tenant, actor, step)
        if wait:
            self.deps.units.wait_for_all([*appended, position])
        return ErasureResult(
            request.erasure_id, position, memory_ids, interaction_ids, already_done=False
        )

    def _subject(self, tenant: str, request: ErasureRequest) -> tuple[tuple[str, ...], ...]:
        """(memory ids, interaction ids) of the subject, each closed over the other: the
        turns the memories came from, the memories extracted from the turns.

        Read from the log, not from the projections: a memory written a moment ago whose
        write a projection has not applied yet (or parked as a dead letter) is the
        subject's all the same. Scope, source agent and ids are clear on every event."""
        wanted_ids = set(request.ids)
        notes = None if request.source_agent is None else f"agent:{request.source_agent}"
        reason = tombstone_reason(request.erasure_id)
        memories: dict[str, None] = {}
        turns: dict[str, None] = dict.fromkeys(request.interaction_ids)
        earlier: dict[str, None] = {}  # forgotten by an earlier attempt of this erasure
        forgotten: set[str] = set()
        written: set[str] = set()
        all_turns: list[str] = []
        for logged in self._events(tenant):
            e = logged.event
            if isinstance(e, MemoryWritten):
                r = e.record
                written.add(r.id)
                if (
                    request.everything
                    or r.id in wanted_ids
                    or (request.scope is not None and r.scope == request.scope)
                    or (notes is not None and r.source_agent == request.source_agent)
                    or (notes is not None and r.scope == notes)  # its notebook is its own
                ):
                    memories[r.id] = None
            elif isinstance(e, MemoryDeleted):
                forgotten.add(e.memory_id)
                if e.reason == reason:
                    earlier[e.memory_id] = None
            elif isinstance(e, InteractionRecorded):
                all_turns.append(e.interaction_id)
                if (
                    request.everything
                    or (request.scope is not None and e.scope == request.scope)
                    or (notes is not None and e.source_agent == request.source_agent)
                ):
                    turns[e.interaction_id] = None
        # A memory forgotten before is not this erasure's (it has its own tombstone),
        # unless this erasure forgot it in an attempt killed before its record.
        memories = {m: None for m in memories if m not in forgotten or m in earlier}
        memories.update(earlier)
        store = self.deps.store
        for stored in store.get_many(tenant, list(memories)).values():
            turn = _source_turn(stored)
            if turn is not None:
                turns[turn] = None
        # An extractor numbers a turn's memories 0, 1, … with no gap and writes every
        # one, so each walk below stops at the first id never written. The turns the
        # earlier attempt's memories came from (no longer in the store to ask):
        if earlier:
            for turn in all_turns:
                for index in range(MAX_EXTRACTED):
                    derived = extracted_memory_id(turn, index)
                    if derived not in written:
                        break
                    if derived in earlier:
                        turns[turn] = None
                        break
        # The memories extracted from the subject's turns:
        for turn in list(turns):
            for index in range(MAX_EXTRACTED):
                derived = extracted_memory_id(turn, index)
                if derived not in written:
                    break
                if derived not in forgotten:
                    memories[derived] = None
        return tuple(memories), tuple(turns)

    # --- receipts ------------------------------------------------------------------------
    def public_key_pem(self) -> str:
        return public_key_pem(self.public_key())

    def owner(self, who: Who) -> Caller:
        """``who`` as the caller of an erasure use: an owner of its tenant (an admin key
        or the deployment), else ``Forbidden`` (``role_forbidden``)."""
        caller = access.caller_of(who)
        access.require_admin(caller, "an erasure")
        return caller

    def receipt_key(self, who: Who) -> Ed25519PublicKey:
        """The key that verifies receipts, as served to an owner of a tenant."""
        self.owner(who)
        return self.public_key()

    def forget_interaction(
        self, who: Who, interaction_id: str, *, reason: str, actor: str, wait: bool = False
    ) -> ErasureResult:
        """Forget one raw turn: an erasure of ``interaction_ids: [id]`` (its receipt is
        the erasure's); ``interaction_not_found`` for a turn the tenant never had."""
        caller = self.owner(who)
        if not self.has_interaction(caller.tenant, interaction_id):
            raise NotFound("this interaction does not exist", code="interaction_not_found")
        parsed = self.parse({"interaction_ids": [interaction_id], "reason": reason})
        return self.erase(caller, parsed, actor=actor, wait=wait)

    def receipt(self, who: Who, erasure_id: str) -> dict[str, Any]:
        """The signed receipt of an erasure of the tenant of ``who`` (an owner)."""
        caller = self.owner(who)
        tenant = caller.tenant
        check_erasure_id(erasure_id, "erasure_id")
        found: LoggedEvent | None = None
        tombstones: dict[str, int] = {}
        written: list[MemoryWritten] = []
        turns: list[InteractionRecorded] = []
        reason = tombstone_reason(erasure_id)
        events = list(self._events(tenant))
        for logged in events:
            e = logged.event
            if isinstance(e, SubjectErased) and e.erasure_id == erasure_id and found is None:
                found = logged
            elif isinstance(e, MemoryDeleted) and e.reason == reason:
                tombstones[e.memory_id] = logged.position
        if found is None:
            raise NotFound(f"erasure {erasure_id!r} does not exist", code="erasure_not_found")
        erased = found.event
        assert isinstance(erased, SubjectErased)
        memory_ids, interaction_ids = set(erased.memory_ids), set(erased.interaction_ids)
        for logged in events:
            e = logged.event
            if isinstance(e, MemoryWritten) and e.record.id in memory_ids:
                written.append(e)
            elif isinstance(e, InteractionRecorded) and e.interaction_id in interaction_ids:
                turns.append(e)
        verification = self._verify(tenant, erased, written, turns)
        body = receipt_body(
            erasure_id=erasure_id,
            tenant=tenant,
            actor=erased.header.actor,
            requested_at=format_timestamp(erased.header.occurred_at),
            criteria_json=erased.criteria_json,
            reason=erased.reason,
            memory_ids=erased.memory_ids,
            interaction_ids=erased.interaction_ids,
            erasure_position=found.position,
            tombstones=tombstones,
            projections=self._applied([found.position, *tombstones.values()]),
            key_ids=erased.key_ids,
            keys_destroyed_at=None
            if erased.keys_destroyed_at is None
            else format_timestamp(erased.keys_destroyed_at),
            verification=verification,
            issued_at=format_timestamp(self.clock.now()),
            key_destroyed_at=self._key_times(tenant, erased.key_ids),
            kek_versions_destroyed=erased.kek_versions_destroyed,
            shown=self._shown(caller),
        )
        return sign_receipt(self._signing_key(), body)

    def _shown(self, who: Who) -> Callable[[int], int]:
        """A receipt is an answer to a tenant like any other: its positions are the
        tenant's tokens, or two receipts would tell how much other tenants wrote."""
        tokens = self._positions
        if tokens is None:
            return lambda p: p
        return lambda p: tokens.shown(who, p)

    def _key_times(self, tenant: str, key_ids: tuple[str, ...]) -> dict[str, str | None]:
        """Each key's own destruction time, as the vault recorded it."""
        if self.vault is None or not key_ids:
            return {}
        times = self.vault.destroyed_at(tenant, key_ids)
        return {
            k: None if (us := times.get(k)) is None else format_timestamp(from_micros(us))
            for k in key_ids
        }

    def _verify(
        self,
        tenant: str,
        erased: SubjectErased,
        written: list[MemoryWritten],
        turns: list[InteractionRecorded],
    ) -> Verification:
        keys_live: tuple[str, ...] = ()
        keks_live: tuple[int, ...] = ()
        if self.vault is not None:
            vault = self.vault
            keys_live = tuple(k for k in erased.key_ids if not vault.destroyed(tenant, k))
            live_versions = set(vault.kek_versions(tenant, False))
            keks_live = tuple(v for v in erased.kek_versions_destroyed if v in live_versions)
        live = self.deps.store.get_many(tenant, list(erased.memory_ids))
        # A decoded event still sealed is one whose key is gone; a clear one is readable.
        readable = sum(1 for e in written if not e.sealed) + sum(1 for t in turns if not t.sealed)
        return Verification(
            at=format_timestamp(self.clock.now()),
            keys_checked=len(erased.key_ids),
            keys_live=keys_live,
            memories_readable=tuple(sorted(live)),
            events_scanned=len(written) + len(turns),
            events_readable=readable,
            kek_versions_live=keks_live,
        )

    def _applied(self, event_positions: list[int]) -> list[ProjectionApplied]:
        needed: dict[int, int] = {}
        for p in event_positions:
            partition = log_positions.partition_of(p) if self._packed else 0
            needed[partition] = max(needed.get(partition, 0), p)
        return [
            ProjectionApplied(s.projection, s.partition, s.position, needed.get(s.partition, 0))
            for s in sorted(self._statuses(), key=lambda s: (s.projection, s.partition))
        ]

    def has_interaction(self, tenant: str, interaction_id: str) -> bool:
        return any(
            isinstance(logged.event, InteractionRecorded)
            and logged.event.interaction_id == interaction_id
            for logged in self._events(tenant)
        )

    def public_key(self) -> Ed25519PublicKey:
        return self._signing_key().public_key()

    # --- the log -------------------------------------------------------------------------
    def _find(self, tenant: str, erasure_id: str) -> LoggedEvent | None:
        for logged in self._events(tenant):
            e = logged.event
            if isinstance(e, SubjectErased) and e.erasure_id == erasure_id:
                return logged
        return None

    def _events(self, tenant: str) -> Iterator[LoggedEvent]:
        for partition in self.log.partitions():
            after = 0
            while True:
                page = self.log.read_tenant(
                    tenant, after=after, limit=_PAGE, scan=_SCAN, partition=partition
                )
                yield from page.events
                if page.complete:
                    break
                after = page.scanned_to


def _source_turn(stored: StoredRecord) -> str | None:
    source = stored.record.meta.get("source")
    turn = source.get("interaction_id") if isinstance(source, dict) else None
    if not isinstance(turn, str):
        return None
    derived = (extracted_memory_id(turn, i) for i in range(MAX_EXTRACTED))
    return turn if stored.record.id in derived else None
