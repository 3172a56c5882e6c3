"""On a vault that issues a key id per creation, a creator racing a forget (a fenced,
zombie partition owner) can store a key for the subject after the destroy read the
subject's keys. It never opens — the subject is marked destroyed — but its wrapped bytes
are on disk until ``ai-memory vault reconcile`` destroys the subject again."""

from __future__ import annotations

from ai_memory.adapters.key_wrapping import WrappedVault
from ai_memory.adapters.memory.data_key_vault import MemoryVaultRows, VaultBacking
from ai_memory.adapters.memory.event_log import MemoryEventLog
from ai_memory.core.data_keys import memory_key_id
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.vault_reconcile import reconcile_vault
from tests.contract.data_key_vault_contract import ROOT
from tests.factories import deleted, written


def _issuing_vault() -> tuple[WrappedVault, VaultBacking]:
    backing = VaultBacking()
    return WrappedVault(MemoryVaultRows(backing, issues_own_ids=True), ROOT), backing


def test_reconcile_sweeps_a_key_issued_after_its_subject_was_destroyed() -> None:
    vault, backing = _issuing_vault()
    subject = memory_key_id("m1")
    key_id, _ = vault.issue_many("default", [subject], new=[subject])[subject]
    vault.destroy("default", subject)
    # The zombie's key, written after the destroy (a blind write, as on Cassandra).
    late = f"{subject}/~late"
    MemoryVaultRows(backing, issues_own_ids=True).add_issued("default", [(late, b"w" * 60, 1)])
    assert vault.get("default", late) is None  # it never opens
    assert vault.destroyed("default", late)
    assert backing.keys[("default", late)].wrapped is not None  # but its bytes are there

    log = MemoryEventLog(AvroEventSerializer())
    log.append([written(), deleted("m1")])
    done = reconcile_vault(log, vault)

    assert done.destroyed == []  # the subject was destroyed before: nothing new to say
    swept = backing.keys[("default", late)]
    assert swept.wrapped is None and swept.destroyed
    assert backing.keys[("default", key_id)].wrapped is None


def test_a_vault_with_one_key_per_subject_is_not_destroyed_twice() -> None:
    backing = VaultBacking()
    vault = WrappedVault(MemoryVaultRows(backing), ROOT)
    vault.create("default", memory_key_id("m1"))
    vault.destroy("default", memory_key_id("m1"))
    first = backing.keys[("default", memory_key_id("m1"))]
    log = MemoryEventLog(AvroEventSerializer())
    log.append([written(), deleted("m1")])
    assert reconcile_vault(log, vault).destroyed == []
    assert backing.keys[("default", memory_key_id("m1"))] == first
