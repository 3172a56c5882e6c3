"""The vault's key hierarchy, shared by every ``DataKeyVault`` adapter.

    root key (AIMEM_ROOT_KEY, never stored by the vault)
     └─ tenant KEK, versioned, stored wrapped by the root key
         └─ data key, stored wrapped by its tenant's KEK

Wrapping is AES-256-GCM with a random 96-bit nonce (stored as ``nonce ‖ ciphertext``)
and an AAD naming what is wrapped (tenant, KEK version, key id), so a wrapped key copied
onto another tenant or id does not open. ``WrappedVault`` implements the port on top of
``VaultRows``, the few storage operations each backend provides; the backends never see
an unwrapped key.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.data_keys import (
    KEK_CACHE_SECONDS,
    KEY_BYTES,
    KeyPage,
    issued_key_id,
    key_destroyed,
    root_key_mismatch,
    subject_of,
)
from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.json_array import json_array
from ai_memory.core.single_flight import SingleFlight

_NONCE = 12


@dataclass(frozen=True)
class KeyRow:
    """A stored data key: ``wrapped`` is None once destroyed."""

    wrapped: bytes | None
    kek_version: int
    destroyed: bool
    destroyed_at_us: int | None = None


@dataclass(frozen=True)
class KekRow:
    """A stored KEK version: ``wrapped`` is None once destroyed, and the row stays so the
    version number is never used again (a backup's rows under it must never open)."""

    version: int
    wrapped: bytes | None


class VaultRows(Protocol):
    """What a backend stores for the vault: wrapped KEKs and wrapped data keys."""

    #: True: every issued key gets an id of its own (``add_issued``, a plain write), and
    #: ``key``/``keys`` of such an id report it destroyed once its subject is. False: one
    #: key per subject, created by ``add_keys`` (create unless it exists).
    issues_own_ids: bool

    def keks(self, tenant: str) -> list[KekRow]:
        """Every KEK version the tenant ever had, destroyed ones included."""
        ...

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> bool:
        """Store a KEK version unless that version has a row (live or destroyed); True
        when this call stored it (racing creators: one wins, the others read it)."""
        ...

    def destroy_kek(self, tenant: str, version: int, at_us: int) -> None:
        """Erase the wrapped KEK and keep a marker of its version."""
        ...

    def key(self, tenant: str, key_id: str) -> KeyRow | None: ...

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]: ...

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        """Store a data key unless the id has a row (live or destroyed); the stored row
        wins, so two racing creators end with the same key."""
        ...

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        """``add_key`` for many (key id, wrapped, KEK version) at once."""
        ...

    def add_issued(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> None:
        """Store keys under ids nobody else ever writes (``issued_key_id``), listed for
        rotation before they are stored. Only where ``issues_own_ids``."""
        ...

    def issued_for(
        self, tenant: str, subjects: Sequence[str]
    ) -> dict[str, list[tuple[str, KeyRow]]]:
        """A few of the keys issued for each subject (id, row), for reusing one; subjects
        with none are left out. Only where ``issues_own_ids``."""
        ...

    def keys_below(self, tenant: str, version: int, cursor: str | None, limit: int) -> KeyPage:
        """Ids of live data keys wrapped under a KEK version below ``version``, by pages."""
        ...

    def rewrap(
        self, tenant: str, key_id: str, old_version: int, wrapped: bytes, new_version: int
    ) -> bool:
        """Replace the wrapped key only if the row is still under ``old_version`` and not
        destroyed; True when replaced."""
        ...

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        """Record ``destroyed_at`` and erase the wrapped key, creating the row if the id
        was never created. A second destroy keeps the first time. With
        ``issues_own_ids``, destroying a subject also destroys every key issued for it."""
        ...

    def close(self) -> None: ...


def _seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(_NONCE)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def _open(key: bytes, blob: bytes, aad: bytes, what: str) -> bytes:
    try:
        return AESGCM(key).decrypt(blob[:_NONCE], blob[_NONCE:], aad)
    except (InvalidTag, ValueError) as e:
        raise root_key_mismatch(what) from e


def _aad(*parts: object) -> bytes:
    """``json.dumps(["aimem.wrap.v1", *parts])``, compact and ASCII (``json_array``)."""
    return json_array(("aimem.wrap.v1", *parts), ensure_ascii=True)


def parse_root_key(text: str) -> bytes:
    """AIMEM_ROOT_KEY: 32 bytes, base64url (padding optional)."""
    try:
        key = base64.urlsafe_b64decode(text.strip() + "=" * (-len(text.strip()) % 4))
    except ValueError as e:
        raise InvalidInput("AIMEM_ROOT_KEY", "base64url", "not base64url text") from e
    if len(key) != KEY_BYTES:
        raise InvalidInput(
            "AIMEM_ROOT_KEY", "length", f"must decode to {KEY_BYTES} bytes, got {len(key)}"
        )
    return key


@dataclass(frozen=True)
class _Keks:
    """A tenant's KEK versions as last read: live ones still wrapped by the root key."""

    live: dict[int, bytes]
    destroyed: frozenset[int]
    highest: int  # every version ever stored, destroyed ones included (0: none yet)
    expires: float

    @property
    def newest(self) -> int | None:
        return max(self.live) if self.live else None


_GONE: Final = "destroyed"


class WrappedVault:
    """The ``DataKeyVault`` port over ``VaultRows``: wraps on create, unwraps on get.

    A tenant's KEK versions are cached for ``kek_cache_seconds`` of ``clock`` (at most
    ``KEK_CACHE_SECONDS``): a rotation in another process reaches this one within that
    time, and a version destroyed elsewhere stops opening anything here. A version the
    cache does not know is read at once (another process added it).
    """

    def __init__(
        self,
        rows: VaultRows,
        root_key: bytes,
        *,
        clock: Callable[[], float] = time.monotonic,
        kek_cache_seconds: float = KEK_CACHE_SECONDS,
    ) -> None:
        if len(root_key) != KEY_BYTES:
            raise InvalidInput("AIMEM_ROOT_KEY", "length", f"must be {KEY_BYTES} bytes")
        if not 0 <= kek_cache_seconds <= KEK_CACHE_SECONDS:
            raise InvalidInput(
                "kek_cache_seconds", "range", f"the KEK cache keeps 0-{KEK_CACHE_SECONDS} s"
            )
        self._rows = rows
        self._root = root_key
        self._clock = clock
        self._ttl = kek_cache_seconds
        self._keks: dict[str, _Keks] = {}
        self._lock = threading.Lock()
        self._kek_reads: SingleFlight[str, tuple[list[KekRow], float]] = SingleFlight()

    @property
    def issues_own_ids(self) -> bool:
        return self._rows.issues_own_ids

    # --- KEKs -------------------------------------------------------------------------
    def _tenant_keks(self, tenant: str, *, fresh: bool = False) -> _Keks:
        now = self._clock()
        with self._lock:
            cached = self._keks.get(tenant)
        if cached is not None and not fresh and now < cached.expires:
            return cached

        # An expired entry is refreshed once for all who miss it together; a caller that
        # must see a change (``fresh``: a version just added or not yet known) reads alone.
        # Its expiry counts from when the read began (a late joiner's ``now`` is later).
        def read() -> tuple[list[KekRow], float]:
            return self._rows.keks(tenant), now

        stored, read_at = read() if fresh else self._kek_reads.do(tenant, read)
        found = _Keks(
            {r.version: r.wrapped for r in stored if r.wrapped is not None},
            frozenset(r.version for r in stored if r.wrapped is None),
            max((r.version for r in stored), default=0),
            read_at + self._ttl,
        )
        with self._lock:
            self._keks[tenant] = found
        return found

    def _open_kek(self, tenant: str, version: int, wrapped: bytes) -> bytes:
        aad = _aad("kek", tenant, version)
        return _open(self._root, wrapped, aad, f"the KEK v{version} of {tenant!r}")

    def _wrapped_kek(self, tenant: str, version: int) -> bytes | str | None:
        """The wrapped KEK ``version``, ``_GONE`` once destroyed, None if unknown."""
        keks = self._tenant_keks(tenant)
        if version not in keks.live and version not in keks.destroyed:
            keks = self._tenant_keks(tenant, fresh=True)
        return _GONE if version in keks.destroyed else keks.live.get(version)

    def _kek_at(self, tenant: str, version: int) -> bytes | str | None:
        """The unwrapped KEK ``version``, ``_GONE`` once destroyed, None if unknown."""
        wrapped = self._wrapped_kek(tenant, version)
        if not isinstance(wrapped, bytes):
            return wrapped
        return self._open_kek(tenant, version, wrapped)

    def _kek_to_wrap(self, tenant: str, *, fresh: bool = False) -> tuple[int, bytes]:
        """The newest live KEK, the one new data keys are wrapped with. The first one of
        a tenant — or the first after an offboarding destroyed them all — is made here,
        numbered above every version the tenant ever had."""
        keks = self._tenant_keks(tenant, fresh=fresh)
        if keks.newest is None and not fresh:
            keks = self._tenant_keks(tenant, fresh=True)
        if keks.newest is None:
            self._add_kek(tenant, keks.highest + 1)
            keks = self._tenant_keks(tenant, fresh=True)
        if keks.newest is None:
            raise Unavailable(f"the KEK of {tenant!r} was not stored")
        return keks.newest, self._open_kek(tenant, keks.newest, keks.live[keks.newest])

    def _add_kek(self, tenant: str, version: int) -> None:
        wrapped = _seal(self._root, os.urandom(KEY_BYTES), _aad("kek", tenant, version))
        self._rows.add_kek(tenant, version, wrapped)

    def kek_versions(self, tenant: str, include_destroyed: bool = False) -> list[int]:
        keks = self._tenant_keks(tenant, fresh=True)
        return sorted({*keks.live, *(keks.destroyed if include_destroyed else ())})

    def add_kek_version(self, tenant: str) -> int:
        self._add_kek(tenant, self._tenant_keks(tenant, fresh=True).highest + 1)
        return self._kek_to_wrap(tenant, fresh=True)[0]

    def destroy_kek(self, tenant: str, version: int) -> None:
        self._rows.destroy_kek(tenant, version, time.time_ns() // 1000)
        with self._lock:
            self._keks.pop(tenant, None)

    # --- data keys --------------------------------------------------------------------
    def _unwrap(
        self,
        tenant: str,
        key_id: str,
        row: KeyRow,
        keks: dict[int, bytes | str | None] | None = None,
    ) -> bytes | None:
        """``keks``: the KEKs already unwrapped by the same call (``get_many``), so a
        page of data keys under one KEK opens it once, not once per key."""
        if row.destroyed or row.wrapped is None:
            return None
        if keks is None:
            kek = self._kek_at(tenant, row.kek_version)
        elif row.kek_version in keks:
            kek = keks[row.kek_version]
        else:
            kek = keks[row.kek_version] = self._kek_at(tenant, row.kek_version)
        if kek is _GONE:
            # A rotation may have re-wrapped it since the row was read; else the key
            # went with its KEK (an offboarding).
            again = self._rows.key(tenant, key_id)
            if again is not None and again.kek_version > row.kek_version:
                return self._unwrap(tenant, key_id, again)
            return None
        if not isinstance(kek, bytes):
            raise root_key_mismatch(f"data key {key_id!r}: its KEK is missing")
        aad = _aad("data", tenant, row.kek_version, key_id)
        return _open(kek, row.wrapped, aad, f"data key {key_id!r}")

    def _settle(self, tenant: str, ours: dict[str, bytes], version: int) -> None:
        """After storing new data keys wrapped under ``version``: if that is no longer
        the newest live KEK (a rotation started while this process's cache was stale,
        or an offboarding destroyed it), wrap them again under the newest. The caller
        still holds the plain keys, so no rotation can lose them: either its scan sees
        the rows, or this read sees its new version (FORGETTING.md, the race)."""
        if not ours:
            return
        newest, kek = self._kek_to_wrap(tenant, fresh=True)
        if newest == version:
            return
        for key_id, key in ours.items():
            wrapped = _seal(kek, key, _aad("data", tenant, newest, key_id))
            self._rows.rewrap(tenant, key_id, version, wrapped, newest)

    def create(self, tenant: str, key_id: str) -> bytes:
        row = self._rows.key(tenant, key_id)
        if row is None:
            version, kek = self._kek_to_wrap(tenant)
            key = os.urandom(KEY_BYTES)
            wrapped = _seal(kek, key, _aad("data", tenant, version, key_id))
            row = self._rows.add_key(tenant, key_id, wrapped, version)
            if row.wrapped == wrapped:  # this call's key was stored
                self._settle(tenant, {key_id: key}, version)
                return key
        found = self._unwrap(tenant, key_id, row)
        if found is None:
            raise key_destroyed(tenant, key_id)
        return found

    def create_many(
        self, tenant: str, key_ids: Sequence[str], *, new: Collection[str] = ()
    ) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(key_ids))
        # Ids expected to be new go straight to ``add_keys``, which answers with the stored
        # row when one exists after all: a read saved per new memory (on Cassandra, one
        # request next to the lightweight transaction that creates the key).
        fresh = set(new)
        known = [k for k in wanted if k not in fresh]
        rows = self._rows.keys(tenant, known) if known else {}
        missing = [k for k in wanted if k not in rows]
        ours: dict[str, bytes] = {}
        if missing:
            version, kek = self._kek_to_wrap(tenant)
            plain = {k: os.urandom(KEY_BYTES) for k in missing}
            rows_to_add = [
                (k, _seal(kek, plain[k], _aad("data", tenant, version, k)), version)
                for k in missing
            ]
            stored = self._rows.add_keys(tenant, rows_to_add)
            ours = {k: plain[k] for k, wrapped, _ in rows_to_add if stored[k].wrapped == wrapped}
            rows.update(stored)
            self._settle(tenant, ours, version)
        keys = {k: ours.get(k) or self._unwrap(tenant, k, row) for k, row in rows.items()}
        return {k: key for k, key in keys.items() if key is not None}

    def issue_many(
        self, tenant: str, subjects: Sequence[str], *, new: Collection[str] = ()
    ) -> dict[str, tuple[str, bytes]]:
        if not self._rows.issues_own_ids:
            made = self.create_many(tenant, subjects, new=new)
            return {subject: (subject, key) for subject, key in made.items()}
        wanted = list(dict.fromkeys(subjects))
        # A subject not hinted new may be destroyed (refused) or hold a key from before
        # keys had ids of their own (kept: its versions stay under one key). Every destroy
        # of a subject writes the subject's own row, so that one read tells both.
        fresh = set(new)
        known = [s for s in wanted if s not in fresh]
        rows = self._rows.keys(tenant, known) if known else {}
        issued: dict[str, tuple[str, bytes]] = {}
        for subject, row in rows.items():
            key = None if row.destroyed else self._unwrap(tenant, subject, row)
            if key is not None:
                issued[subject] = (subject, key)
        # A subject with keys of its own already (this process restarted, or its cached
        # key expired) keeps sealing under one of them: a memory ends with about one key
        # per creator that raced, not one per cache expiry.
        unknown = [s for s in known if s not in rows]
        for subject, found in (self._rows.issued_for(tenant, unknown) if unknown else {}).items():
            for key_id, row in found:
                key = None if row.destroyed else self._unwrap(tenant, key_id, row)
                if key is not None:
                    issued[subject] = (key_id, key)
                    break
        # None that opens (new, or every key went with its KEK): a key of its own now.
        mint = [s for s in wanted if s not in rows and s not in issued]
        if mint:
            version, kek = self._kek_to_wrap(tenant)
            plain = {issued_key_id(s, os.urandom(9).hex()): os.urandom(KEY_BYTES) for s in mint}
            self._rows.add_issued(
                tenant,
                [
                    (k, _seal(kek, key, _aad("data", tenant, version, k)), version)
                    for k, key in plain.items()
                ],
            )
            self._settle(tenant, plain, version)
            issued.update({subject_of(k): (k, key) for k, key in plain.items()})
        return issued

    def get(self, tenant: str, key_id: str) -> bytes | None:
        row = self._rows.key(tenant, key_id)
        return None if row is None else self._unwrap(tenant, key_id, row)

    def get_many(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(key_ids))
        rows = self._rows.keys(tenant, wanted) if wanted else {}
        keks: dict[int, bytes | str | None] = {}
        keys = {k: self._unwrap(tenant, k, row, keks) for k, row in rows.items()}
        return {k: key for k, key in keys.items() if key is not None}

    def destroy(self, tenant: str, key_id: str) -> None:
        self._rows.destroy(tenant, key_id, time.time_ns() // 1000)

    def destroyed(self, tenant: str, key_id: str) -> bool:
        row = self._rows.key(tenant, key_id)
        if row is None:
            return False
        return row.destroyed or (
            self._wrapped_kek(tenant, row.kek_version) is _GONE and self.get(tenant, key_id) is None
        )

    def destroyed_at(self, tenant: str, key_ids: Sequence[str]) -> dict[str, int | None]:
        rows = self._rows.keys(tenant, list(dict.fromkeys(key_ids))) if key_ids else {}
        return {k: (row.destroyed_at_us if (row := rows.get(k)) else None) for k in key_ids}

    def keys_below(
        self, tenant: str, version: int, cursor: str | None = None, limit: int = 500
    ) -> KeyPage:
        return self._rows.keys_below(tenant, version, cursor, limit)

    def rewrap(self, tenant: str, key_id: str) -> bool:
        row = self._rows.key(tenant, key_id)
        if row is None or row.destroyed or row.wrapped is None:
            return False
        newest, kek = self._kek_to_wrap(tenant, fresh=True)
        if row.kek_version >= newest:
            return False
        key = self._unwrap(tenant, key_id, row)
        if key is None:  # its KEK is gone already: nothing left to save
            return False
        wrapped = _seal(kek, key, _aad("data", tenant, newest, key_id))
        return self._rows.rewrap(tenant, key_id, row.kek_version, wrapped, newest)

    def close(self) -> None:
        self._rows.close()
