"""The in-memory data-key vault: ``WrappedVault`` over dicts (tests, ``memory://``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from ai_memory.adapters.key_wrapping import KeyRow, WrappedVault


@dataclass
class VaultBacking:
    """What a restart keeps: another vault opened on the same backing sees it."""

    keks: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    keys: dict[tuple[str, str], KeyRow] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryVaultRows:
    def __init__(self, backing: VaultBacking | None = None) -> None:
        self._b = backing if backing is not None else VaultBacking()

    def kek(self, tenant: str) -> tuple[int, bytes] | None:
        with self._b.lock:
            return self._b.keks.get(tenant)

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> tuple[int, bytes]:
        with self._b.lock:
            return self._b.keks.setdefault(tenant, (version, wrapped))

    def key(self, tenant: str, key_id: str) -> KeyRow | None:
        with self._b.lock:
            return self._b.keys.get((tenant, key_id))

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        with self._b.lock:
            return self._b.keys.setdefault((tenant, key_id), KeyRow(wrapped, kek_version, False))

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]:
        with self._b.lock:
            found = ((k, self._b.keys.get((tenant, k))) for k in key_ids)
            return {k: row for k, row in found if row is not None}

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        return {k: self.add_key(tenant, k, wrapped, version) for k, wrapped, version in new}

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        with self._b.lock:
            old = self._b.keys.get((tenant, key_id))
            self._b.keys[(tenant, key_id)] = KeyRow(None, old.kek_version if old else 0, True)

    def close(self) -> None:
        pass


def memory_vault(root_key: bytes, backing: VaultBacking | None = None) -> WrappedVault:
    return WrappedVault(MemoryVaultRows(backing), root_key)
