"""The composition root's security builders: the key hierarchy, the data-key vault and
the sealing stage, API keys, erasures and their signing key (``docs/design/FORGETTING.md``).

Each chooses its adapter by the same URLs as the rest of ``ai_memory.bootstrap``: the
vault and the key store live with the records (Cassandra when distributed, else files in
the data directory, or memory beside an in-memory log).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ai_memory.adapters.private_dir import ensure_private_dir
from ai_memory.clock import SystemClock
from ai_memory.core.data_keys import DataKeyVault
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import EventLog, KeyStore
from ai_memory.core.sealing import derived_key
from ai_memory.projector.progress import Projections
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.sealer import Sealer
from ai_memory.service.erasure import ErasureService, KeyVault
from ai_memory.service.key_rotation import KekRotated, rotate_kek
from ai_memory.service.keys import KeyService
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.service.vault_reconcile import VaultReconciled, reconcile_vault
from ai_memory.service.writing import Writing
from ai_memory.settings import Settings

from .by_url import build_event_log
from .urls import scheme_of


def root_key(s: Settings) -> bytes | None:
    """The root of the key hierarchy when encryption is on (``adapters.root_key``)."""
    from ai_memory.adapters.root_key import ROOT_KEY_FILE, load_root_key

    s = s.resolved()
    if s.encryption != "on":
        on_disk = scheme_of(s.event_log_url) != "memory"
        if on_disk and (s.data_dir / ROOT_KEY_FILE).exists():
            # Its log holds sealed writes: read without the vault, every one of them
            # would look forgotten.
            raise InvalidInput(
                "AIMEM_ENCRYPTION",
                "stays_on",
                f"{s.data_dir} was written with encryption on (it has {ROOT_KEY_FILE}); "
                "it cannot be read with AIMEM_ENCRYPTION=off",
            )
        return None
    configured = s.root_key.get_secret_value()
    if scheme_of(s.event_log_url) == "memory" and not configured.strip():
        return os.urandom(32)  # nothing survives the process, so neither does its key
    ensure_private_dir(s.data_dir)
    shared = scheme_of(s.record_store_url) == "cassandra"
    return load_root_key(configured, s.data_dir, embedded=not shared)


def position_tokens(s: Settings, root: bytes | None) -> PositionTokens:
    """What tenants are shown of log positions (``service.position_tokens``), keyed by a
    secret every gateway of the deployment shares: the root key when encryption is on;
    else AIMEM_RECEIPT_KEY (a distributed deployment sets it); else a generated
    ``<data_dir>/positions.key`` (embedded), or a fresh one beside an in-memory log."""
    if root is not None:
        return PositionTokens(derived_key(root, "positions"))
    s = s.resolved()
    if scheme_of(s.event_log_url) == "memory":
        return PositionTokens(os.urandom(32))  # nothing survives the process
    receipt = s.receipt_key.get_secret_value()
    if receipt.strip():
        from ai_memory.adapters.receipt_key import parse_receipt_key

        seed = parse_receipt_key(receipt).private_bytes_raw()
        return PositionTokens(derived_key(seed, "positions"))
    if scheme_of(s.record_store_url) == "cassandra":
        raise InvalidInput(
            "AIMEM_RECEIPT_KEY",
            "required",
            "a distributed deployment with AIMEM_ENCRYPTION=off keys its position tokens "
            "with AIMEM_RECEIPT_KEY (every gateway must show a tenant the same tokens)",
        )
    from ai_memory.adapters.root_key import POSITIONS_KEY_FILE, generated_key

    def generated() -> bytes:  # when first needed: a worker or a CLI command makes none
        ensure_private_dir(s.data_dir)
        return generated_key(s.data_dir / POSITIONS_KEY_FILE)

    return PositionTokens(generated)


def index_tag_key(root: bytes | None) -> bytes | None:
    return None if root is None else derived_key(root, "index-tags")


def note_id_key(root: bytes | None) -> bytes | None:
    """What a note's id is keyed with (``service.notes.note_id``); None: encryption off."""
    return None if root is None else derived_key(root, "note-ids")


def view_tag_key(root: bytes) -> bytes:
    """The key of the tag digests a sealed records view keeps (a purpose of its own: the
    view's digests and the index's say nothing of each other)."""
    return derived_key(root, "view-tags")


def build_data_key_vault(s: Settings, root: bytes) -> DataKeyVault:
    """Data keys (crypto-shredding) live with the records: in Cassandra for a distributed
    deployment (every gateway and projector shares them; AIMEM_ROOT_KEY required), in
    memory beside an in-memory log, else ``vault.db`` in the data directory."""
    s = s.resolved()
    if scheme_of(s.record_store_url) == "cassandra":
        from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault_from_url

        return cassandra_vault_from_url(s.record_store_url, root)
    if scheme_of(s.event_log_url) == "memory":
        from ai_memory.adapters.memory.data_key_vault import memory_vault

        return memory_vault(root)
    from ai_memory.adapters.sqlite_data_key_vault import sqlite_vault

    return sqlite_vault(s.data_dir / "vault.db", root)


def build_sealer(s: Settings) -> Sealer | None:
    """The sealing stage of every serializer of this process, when encryption is on."""
    root = root_key(s)
    return None if root is None else Sealer(build_data_key_vault(s, root))


def run_vault_reconcile(settings: Settings) -> VaultReconciled:
    """``ai-memory vault reconcile``: destroy again every key whose forget is on the log
    (after restoring a vault backup, or a destroy that failed)."""
    s = settings.resolved()
    root = root_key(s)
    if root is None:
        raise InvalidInput("AIMEM_ENCRYPTION", "on", "the vault is used only with encryption on")
    # Tombstones and interaction ids are clear: the log is read without opening anything.
    log = build_event_log(s, AvroEventSerializer(), writer=False)
    vault = build_data_key_vault(s, root)
    try:
        return reconcile_vault(log, vault)
    finally:
        vault.close()
        log.close()


def run_vault_rotate(
    settings: Settings, tenant: str, *, wait: Callable[[float], None] | None = None
) -> KekRotated:
    """``ai-memory vault rotate``: a new KEK version for ``tenant``, every data key wrapped
    again under it, the old versions destroyed (safe while the server runs)."""
    s = settings.resolved()
    root = root_key(s)
    if root is None:
        raise InvalidInput("AIMEM_ENCRYPTION", "on", "the vault is used only with encryption on")
    vault = build_data_key_vault(s, root)
    try:
        return rotate_kek(vault, tenant) if wait is None else rotate_kek(vault, tenant, wait=wait)
    finally:
        vault.close()


def build_key_store(s: Settings) -> KeyStore:
    """API keys live with the records: in Cassandra for a distributed deployment (every
    gateway shares them), else ``keys.db`` in the data directory."""
    s = s.resolved()
    if scheme_of(s.record_store_url) == "cassandra":
        from ai_memory.adapters.cassandra.key_store import CassandraKeyStore

        return CassandraKeyStore.from_url(s.record_store_url)
    if scheme_of(s.record_store_url) == "memory":
        from ai_memory.adapters.memory import MemoryKeyStore

        return MemoryKeyStore()
    from ai_memory.adapters.sqlite_key_store import SqliteKeyStore

    return SqliteKeyStore(s.data_dir / "keys.db")


def build_key_service(settings: Settings) -> KeyService:
    """The key store alone behind ``ai-memory keys`` (works while the server runs);
    ``close()`` it when done."""
    return KeyService(build_key_store(settings), SystemClock())


def build_erasures(
    s: Settings,
    writing: Writing,
    log: EventLog,
    projections: Projections,
    sealer: Sealer | None,
    positions: PositionTokens | None = None,
) -> ErasureService:
    """Subject erasure over the process's forget path; its receipts are signed with
    AIMEM_RECEIPT_KEY, or a generated data_dir/receipt.key (embedded), read when first
    needed so a process that never signs never makes one."""

    @functools.cache
    def signing_key() -> Ed25519PrivateKey:
        return receipt_signing_key(s)

    vault = (
        None
        if sealer is None
        else KeyVault(
            sealer.forget,
            sealer.vault.destroyed,
            sealer.vault.destroyed_at,
            sealer.vault.kek_versions,
            sealer.vault.destroy_kek,
        )
    )
    return ErasureService(
        writing,
        log,
        signing_key,
        projections.status,
        vault,
        packed_positions=projections.packed_positions,
        positions=positions,
    )


def receipt_signing_key(s: Settings) -> Ed25519PrivateKey:
    """AIMEM_RECEIPT_KEY, or data_dir/receipt.key (generated on first use) when embedded."""
    from ai_memory.adapters.receipt_key import load_receipt_key

    s = s.resolved()
    shared = scheme_of(s.record_store_url) == "cassandra"
    configured = s.receipt_key.get_secret_value()
    return load_receipt_key(configured, s.data_dir, embedded=not shared)
