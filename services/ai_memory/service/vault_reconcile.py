"""Destroy again every key whose forget is on the log: ``ai-memory vault reconcile``.

The log is the record of every forget, so the vault can always be brought back in line
with it. Two cases need that:

* **a vault backup restored** — keys destroyed after the backup was taken are live again
  in the restored copy (docs/design/FORGETTING.md: backups must honour deletions);
* **a destroy that failed** after its tombstone was appended (the vault was down): the
  forget stands, but the key outlived it.

An offboarding's ``SubjectErased`` names the KEK versions it destroyed: a restored
backup holds them wrapped by the root key, so the pass destroys them again — those
versions only, never one made after the offboarding for the tenant's new writes.

A pass reads the whole log (clear fields only: a tombstone and an interaction's id are
never sealed), then destroys the key of every tombstoned memory, and of every interaction
an erasure forgot or one of whose extracted memories is tombstoned, that is not destroyed
yet (on a vault that issues a key id per creation, every one: a destroy there also sweeps
a key a fenced writer issued for the subject after its destroy). Idempotent; cost O(log)
reads and one vault read (or destroy) per tombstone, so it runs offline or on a schedule.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ai_memory.core.data_keys import DataKeyVault, interaction_key_id, memory_key_id
from ai_memory.core.events import (
    InteractionRecorded,
    MemoryDeleted,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import EventLog

_PAGE = 1000


@dataclass(frozen=True)
class VaultReconciled:
    events: int  # read from the log
    tombstones: int
    destroyed: list[tuple[str, str]]  # (tenant, key id) destroyed by this pass
    keks_destroyed: tuple[tuple[str, int], ...] = ()  # (tenant, KEK version) likewise


def reconcile_vault(log: EventLog, vault: DataKeyVault) -> VaultReconciled:
    tombstoned: dict[str, set[str]] = defaultdict(set)
    written: dict[str, set[str]] = defaultdict(set)
    interactions: dict[str, list[str]] = defaultdict(list)
    erased: dict[str, set[str]] = defaultdict(set)  # raw turns an erasure forgot
    offboarded: dict[str, set[int]] = defaultdict(set)  # KEK versions an erasure destroyed
    events = 0
    for partition in log.partitions():
        after = 0
        while page := log.read(after=after, limit=_PAGE, partition=partition):
            for logged in page:
                event = logged.event
                if isinstance(event, MemoryWritten):
                    written[event.header.tenant].add(event.record.id)
                elif isinstance(event, MemoryDeleted):
                    tombstoned[event.header.tenant].add(event.memory_id)
                elif isinstance(event, InteractionRecorded):
                    interactions[event.header.tenant].append(event.interaction_id)
                elif isinstance(event, SubjectErased):
                    erased[event.header.tenant].update(event.interaction_ids)
                    offboarded[event.header.tenant].update(event.kek_versions_destroyed)
            events += len(page)
            after = page[-1].position
    doomed = [(t, memory_key_id(m)) for t, ids in tombstoned.items() for m in sorted(ids)]
    for tenant, turns in interactions.items():
        gone, seen = tombstoned.get(tenant, set()), written[tenant]
        for turn in turns:
            if turn in erased[tenant] or any(m in gone for m in _extracted(turn, seen)):
                doomed.append((tenant, interaction_key_id(turn)))
    destroyed = []
    for tenant, key_id in doomed:
        was = vault.destroyed(tenant, key_id)
        # Destroyed already, a vault that issues a key id per creation is swept anyway:
        # a fenced creator racing the destroy may have stored a key for the subject since.
        if not was or vault.issues_own_ids:
            vault.destroy(tenant, key_id)
        if not was:
            destroyed.append((tenant, key_id))
    keks = []
    for tenant, versions in sorted(offboarded.items()):
        for version in sorted(versions & set(vault.kek_versions(tenant))):
            vault.destroy_kek(tenant, version)
            keks.append((tenant, version))
    tombstones = sum(len(ids) for ids in tombstoned.values())
    return VaultReconciled(events, tombstones, destroyed, tuple(keks))


def _extracted(interaction_id: str, written: set[str]) -> list[str]:
    """The ids of the memories extracted from a turn: 0, 1, … as long as they were
    written (one turn's memories are appended together, so their indexes are contiguous)."""
    found: list[str] = []
    while (m := extracted_memory_id(interaction_id, len(found))) in written:
        found.append(m)
    return found
