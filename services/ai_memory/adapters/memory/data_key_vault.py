"""The in-memory data-key vault: ``WrappedVault`` over dicts (tests, ``memory://``).

With ``issues_own_ids`` it keeps the layout of the Cassandra vault (a key id per
creation, a subject's destroy reaching every key issued for it), so that layout's
contract also runs without a server."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from ai_memory.adapters.key_wrapping import KekRow, KeyRow, WrappedVault
from ai_memory.core.data_keys import KeyPage, subject_of


@dataclass
class VaultBacking:
    """What a restart keeps: another vault opened on the same backing sees it."""

    keks: dict[tuple[str, int], KekRow] = field(default_factory=dict)
    keys: dict[tuple[str, str], KeyRow] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryVaultRows:
    def __init__(
        self, backing: VaultBacking | None = None, *, issues_own_ids: bool = False
    ) -> None:
        self._b = backing if backing is not None else VaultBacking()
        self.issues_own_ids = issues_own_ids

    def _get(self, tenant: str, key_id: str) -> KeyRow | None:
        row = self._b.keys.get((tenant, key_id))
        subject = subject_of(key_id)
        if row is None or subject == key_id or row.destroyed:
            return row
        gone = self._b.keys.get((tenant, subject))
        if gone is not None and gone.destroyed:  # issued for a subject destroyed since
            return KeyRow(None, row.kek_version, True, gone.destroyed_at_us)
        return row

    def keks(self, tenant: str) -> list[KekRow]:
        with self._b.lock:
            return [row for (t, _), row in self._b.keks.items() if t == tenant]

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> bool:
        with self._b.lock:
            if (tenant, version) in self._b.keks:
                return False
            self._b.keks[(tenant, version)] = KekRow(version, wrapped)
            return True

    def destroy_kek(self, tenant: str, version: int, at_us: int) -> None:
        with self._b.lock:
            self._b.keks[(tenant, version)] = KekRow(version, None)

    def key(self, tenant: str, key_id: str) -> KeyRow | None:
        with self._b.lock:
            return self._get(tenant, key_id)

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        with self._b.lock:
            return self._b.keys.setdefault((tenant, key_id), KeyRow(wrapped, kek_version, False))

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]:
        with self._b.lock:
            found = ((k, self._get(tenant, k)) for k in key_ids)
            return {k: row for k, row in found if row is not None}

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        return {k: self.add_key(tenant, k, wrapped, version) for k, wrapped, version in new}

    def issued_for(
        self, tenant: str, subjects: Sequence[str]
    ) -> dict[str, list[tuple[str, KeyRow]]]:
        wanted = set(subjects)
        found: dict[str, list[tuple[str, KeyRow]]] = {}
        with self._b.lock:
            for t, k in sorted(self._b.keys):
                subject = subject_of(k)
                if t == tenant and subject != k and subject in wanted:
                    row = self._get(t, k)
                    if row is not None:
                        found.setdefault(subject, []).append((k, row))
        return found

    def add_issued(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> None:
        assert self.issues_own_ids, "this vault keeps one key per subject"
        with self._b.lock:  # a blind write, as on Cassandra: the id is this caller's own
            for k, wrapped, version in new:
                self._b.keys[(tenant, k)] = KeyRow(wrapped, version, False)

    def keys_below(self, tenant: str, version: int, cursor: str | None, limit: int) -> KeyPage:
        with self._b.lock:
            ids = sorted(
                k
                for (t, k) in self._b.keys
                if t == tenant
                and (row := self._get(t, k)) is not None
                and row.wrapped is not None
                and row.kek_version < version
                and (cursor is None or k > cursor)
            )
        page = tuple(ids[:limit])
        return KeyPage(page, page[-1] if len(ids) > limit else None)

    def rewrap(
        self, tenant: str, key_id: str, old_version: int, wrapped: bytes, new_version: int
    ) -> bool:
        with self._b.lock:
            row = self._b.keys.get((tenant, key_id))
            if row is None or row.destroyed or row.kek_version != old_version:
                return False
            self._b.keys[(tenant, key_id)] = KeyRow(wrapped, new_version, False)
            return True

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        with self._b.lock:
            self._destroy(tenant, key_id, at_us)
            if self.issues_own_ids and subject_of(key_id) == key_id:
                issued = [k for (t, k) in self._b.keys if t == tenant and subject_of(k) == key_id]
                for k in issued:
                    if k != key_id:
                        self._destroy(tenant, k, at_us)

    def _destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        old = self._b.keys.get((tenant, key_id))
        if old is not None and old.destroyed:
            return  # the first destroy's time stands
        version = old.kek_version if old else 0
        self._b.keys[(tenant, key_id)] = KeyRow(None, version, True, at_us)

    def close(self) -> None:
        pass


def memory_vault(
    root_key: bytes, backing: VaultBacking | None = None, *, issues_own_ids: bool = False
) -> WrappedVault:
    return WrappedVault(MemoryVaultRows(backing, issues_own_ids=issues_own_ids), root_key)
