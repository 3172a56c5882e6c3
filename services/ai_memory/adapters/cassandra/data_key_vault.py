"""The data-key vault on Cassandra: every gateway and projector shares it.

Tables from migration ``0005_data_keys``. Creating a KEK or a data key is a lightweight
transaction (``IF NOT EXISTS``), and the loser reads the winner at the serial level, so
two gateways creating the first version of one memory at once seal it under one key.
A destroy writes ``destroyed_at_us`` and nulls the wrapped cell in one statement at the
session's consistency (LOCAL_QUORUM by default): a reader that sees ``destroyed_at_us``
treats the key as gone even if a replica still holds the cell, until compaction purges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ai_memory.adapters.key_wrapping import KeyRow, WrappedVault
from ai_memory.core.errors import Unavailable

from .migrations import migrate
from .session import CassandraSession

_KEK = "SELECT version, wrapped FROM tenant_keks WHERE tenant = ? LIMIT 1"
_ADD_KEK = "INSERT INTO tenant_keks (tenant, version, wrapped) VALUES (?, ?, ?) IF NOT EXISTS"
_KEY = "SELECT wrapped, kek_version, destroyed_at_us FROM data_keys WHERE tenant = ? AND key_id = ?"
_ADD_KEY = (
    "INSERT INTO data_keys (tenant, key_id, wrapped, kek_version) VALUES (?, ?, ?, ?) IF NOT EXISTS"
)
_DESTROY = (
    "UPDATE data_keys SET destroyed_at_us = ?, wrapped = null WHERE tenant = ? AND key_id = ?"
)


class CassandraVaultRows:
    def __init__(self, session: CassandraSession, *, owns_session: bool = False) -> None:
        self._s = session
        self._owns = owns_session

    def kek(self, tenant: str) -> tuple[int, bytes] | None:
        return self._kek(tenant, serial=False)

    def _kek(self, tenant: str, *, serial: bool) -> tuple[int, bytes] | None:
        row = self._s.execute(self._s.prepare(_KEK), (tenant,), serial=serial).one()
        return None if row is None else (int(row.version), bytes(row.wrapped))

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> tuple[int, bytes]:
        self._s.execute(self._s.prepare(_ADD_KEK), (tenant, version, wrapped))
        found = self._kek(tenant, serial=True)
        if found is None:
            raise Unavailable(f"the KEK of {tenant!r} was not stored")
        return found

    def key(self, tenant: str, key_id: str) -> KeyRow | None:
        return _row(self._s.execute(self._s.prepare(_KEY), (tenant, key_id)).one())

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        self._s.execute(self._s.prepare(_ADD_KEY), (tenant, key_id, wrapped, kek_version))
        row = _row(self._s.execute(self._s.prepare(_KEY), (tenant, key_id), serial=True).one())
        if row is None:
            raise Unavailable(f"data key {key_id!r} was not stored")
        return row

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]:
        stmt = self._s.prepare(_KEY)
        results = self._s.execute_many([(stmt, (tenant, k)) for k in key_ids])
        found = ((k, _row(rs.one())) for k, rs in zip(key_ids, results, strict=True))
        return {k: row for k, row in found if row is not None}

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        # One lightweight transaction per key: a conditional batch spans one partition only.
        return {k: self.add_key(tenant, k, wrapped, version) for k, wrapped, version in new}

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        self._s.execute(self._s.prepare(_DESTROY), (at_us, tenant, key_id))

    def close(self) -> None:
        if self._owns:
            self._s.close()


def _row(row: Any) -> KeyRow | None:
    if row is None:
        return None
    destroyed = row.destroyed_at_us is not None
    wrapped = None if destroyed or row.wrapped is None else bytes(row.wrapped)
    return KeyRow(wrapped, int(row.kek_version or 0), destroyed)


def cassandra_vault(session: CassandraSession, root_key: bytes) -> WrappedVault:
    """A vault on a migrated session (``migrate``)."""
    return WrappedVault(CassandraVaultRows(session), root_key)


def cassandra_vault_from_url(url: str, root_key: bytes) -> WrappedVault:
    session = CassandraSession.from_url(url)
    migrate(session)
    return WrappedVault(CassandraVaultRows(session, owns_session=True), root_key)
