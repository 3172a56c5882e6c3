"""CassandraKeyStore: API keys shared by every gateway of a distributed deployment.

Tables from migration ``0003_api_keys``. Creating and revoking are lightweight
transactions, so a key id is never issued twice and the first revocation time is the
one kept; reads are plain (LOCAL_QUORUM by default) and see every committed LWT. The
tenant listing is written before the key itself: a crash between the two leaves an id
in the listing without a key, which ``list`` skips, never a key no listing shows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from ai_memory.core.access import ApiKey, KeyInfo
from ai_memory.core.errors import Conflict
from ai_memory.core.timeparse import from_micros, to_micros

from .migrations import migrate
from .session import CassandraSession, was_applied

_INFO = "key_id, tenant, name, role, scopes, created_at_us, expires_at_us, revoked_at_us"
_GET = f"SELECT {_INFO}, secret_hash FROM api_keys WHERE key_id = ?"
_CREATE = f"INSERT INTO api_keys ({_INFO}, secret_hash) VALUES (?,?,?,?,?,?,?,?,?) IF NOT EXISTS"
_LISTED = "INSERT INTO api_keys_by_tenant (tenant, key_id) VALUES (?, ?)"
_IDS = "SELECT key_id FROM api_keys_by_tenant WHERE tenant = ?"
_REVOKE = "UPDATE api_keys SET revoked_at_us = ? WHERE key_id = ? IF revoked_at_us = null"
_ANY = "SELECT key_id FROM api_keys LIMIT 1"
HAS_KEYS_TIMEOUT: Final = 2.0  # seconds; see has_keys


class CassandraKeyStore:
    """The KeyStore port on Cassandra. ``session`` must be migrated (``migrate``)."""

    def __init__(self, session: CassandraSession, *, owns_session: bool = False) -> None:
        self._s = session
        self._owns = owns_session

    @classmethod
    def from_url(cls, url: str) -> CassandraKeyStore:
        session = CassandraSession.from_url(url)
        migrate(session)
        return cls(session, owns_session=True)

    def create(self, key: ApiKey) -> None:
        i = key.info
        self._s.execute(self._s.prepare(_LISTED), (i.tenant, i.key_id))
        values = (
            i.key_id,
            i.tenant,
            i.name,
            i.role,
            list(i.scopes),
            to_micros(i.created_at),
            _micros(i.expires_at),
            _micros(i.revoked_at),
            key.secret_hash,
        )
        if not was_applied(self._s.execute(self._s.prepare(_CREATE), values)):
            raise Conflict(f"key {i.key_id} exists", code="key_exists")

    def get(self, key_id: str) -> ApiKey | None:
        row = self._s.execute(self._s.prepare(_GET), (key_id,)).one()
        return None if row is None else ApiKey(_info(row), str(row.secret_hash))

    def list_keys(self, tenant: str) -> list[KeyInfo]:
        ids = [r.key_id for r in self._s.execute(self._s.prepare(_IDS), (tenant,))]
        stmt = self._s.prepare(_GET)
        rows = [rs.one() for rs in self._s.execute_many([(stmt, (i,)) for i in ids])]
        # A listed id of another tenant cannot happen (ids are unique, LWT); checked anyway.
        infos = [_info(r) for r in rows if r is not None and r.tenant == tenant]
        return sorted(infos, key=lambda i: (i.created_at, i.key_id))

    def revoke(self, key_id: str, at: datetime) -> KeyInfo | None:
        if self.get(key_id) is None:
            return None  # an LWT update of a missing row would create one
        self._s.execute(self._s.prepare(_REVOKE), (to_micros(at), key_id))
        # SERIAL: sees our revocation or the one that beat it.
        row = self._s.execute(self._s.prepare(_GET), (key_id,), serial=True).one()
        return None if row is None else _info(row)

    def has_keys(self) -> bool:
        # A range read: Cassandra never sends one to another replica when a replica is
        # slow (speculative_retry is for single partitions), so a frozen node held it for
        # the whole request timeout (10 s; loadtest/bench_frozen_replica.py). It is read
        # on the request path only while no key exists (open mode; once true it stays
        # cached), and a timeout falls back to the last answer (KeyService.required), so
        # it gets a short one.
        return self._s.execute(self._s.prepare(_ANY), timeout=HAS_KEYS_TIMEOUT).one() is not None

    def close(self) -> None:
        if self._owns:
            self._s.close()


def _micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def _at(micros: Any) -> datetime | None:
    return None if micros is None else from_micros(int(micros))


def _info(row: Any) -> KeyInfo:
    return KeyInfo(
        key_id=str(row.key_id),
        tenant=str(row.tenant),
        name=str(row.name),
        role=row.role,
        scopes=tuple(row.scopes or ()),
        created_at=from_micros(int(row.created_at_us)),
        expires_at=_at(row.expires_at_us),
        revoked_at=_at(row.revoked_at_us),
    )
