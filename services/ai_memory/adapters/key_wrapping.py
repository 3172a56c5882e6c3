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
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.data_keys import KEY_BYTES, key_destroyed, root_key_mismatch
from ai_memory.core.errors import InvalidInput

_NONCE = 12


@dataclass(frozen=True)
class KeyRow:
    """A stored data key: ``wrapped`` is None once destroyed."""

    wrapped: bytes | None
    kek_version: int
    destroyed: bool


class VaultRows(Protocol):
    """What a backend stores for the vault: wrapped KEKs and wrapped data keys."""

    def kek(self, tenant: str) -> tuple[int, bytes] | None:
        """The tenant's newest KEK version and its wrapped bytes."""
        ...

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> tuple[int, bytes]:
        """Store the tenant's KEK unless one exists; the one that is stored wins."""
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

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        """Record ``destroyed_at`` and erase the wrapped key, creating the row if the id
        was never created."""
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
    return json.dumps(["aimem.wrap.v1", *parts], separators=(",", ":")).encode("utf-8")


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


class WrappedVault:
    """The ``DataKeyVault`` port over ``VaultRows``: wraps on create, unwraps on get."""

    def __init__(self, rows: VaultRows, root_key: bytes) -> None:
        if len(root_key) != KEY_BYTES:
            raise InvalidInput("AIMEM_ROOT_KEY", "length", f"must be {KEY_BYTES} bytes")
        self._rows = rows
        self._root = root_key
        self._keks: dict[str, tuple[int, bytes]] = {}  # tenant → (version, unwrapped KEK)
        self._lock = threading.Lock()

    def _kek(self, tenant: str) -> tuple[int, bytes] | None:
        """The tenant's (version, unwrapped KEK), None before its first data key."""
        with self._lock:
            cached = self._keks.get(tenant)
        if cached is not None:
            return cached
        stored = self._rows.kek(tenant)
        return None if stored is None else self._remember_kek(tenant, stored)

    def _kek_to_wrap(self, tenant: str) -> tuple[int, bytes]:
        """The KEK new data keys of ``tenant`` are wrapped with, made on first use."""
        found = self._kek(tenant)
        if found is not None:
            return found
        version = 1
        wrapped = _seal(self._root, os.urandom(KEY_BYTES), _aad("kek", tenant, version))
        return self._remember_kek(tenant, self._rows.add_kek(tenant, version, wrapped))

    def _remember_kek(self, tenant: str, stored: tuple[int, bytes]) -> tuple[int, bytes]:
        version, wrapped = stored
        kek = _open(self._root, wrapped, _aad("kek", tenant, version), f"the KEK of {tenant!r}")
        with self._lock:
            self._keks[tenant] = (version, kek)
        return version, kek

    def _unwrap(self, tenant: str, key_id: str, row: KeyRow) -> bytes | None:
        if row.destroyed or row.wrapped is None:
            return None
        found = self._kek(tenant)
        if found is None or found[0] != row.kek_version:
            raise root_key_mismatch(f"data key {key_id!r}: its KEK is missing")
        aad = _aad("data", tenant, row.kek_version, key_id)
        return _open(found[1], row.wrapped, aad, f"data key {key_id!r}")

    def create(self, tenant: str, key_id: str) -> bytes:
        row = self._rows.key(tenant, key_id)
        if row is None:
            version, kek = self._kek_to_wrap(tenant)
            wrapped = _seal(kek, os.urandom(KEY_BYTES), _aad("data", tenant, version, key_id))
            row = self._rows.add_key(tenant, key_id, wrapped, version)
        key = self._unwrap(tenant, key_id, row)
        if key is None:
            raise key_destroyed(tenant, key_id)
        return key

    def create_many(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(key_ids))
        rows = self._rows.keys(tenant, wanted) if wanted else {}
        missing = [k for k in wanted if k not in rows]
        if missing:
            version, kek = self._kek_to_wrap(tenant)
            new = [
                (k, _seal(kek, os.urandom(KEY_BYTES), _aad("data", tenant, version, k)), version)
                for k in missing
            ]
            rows.update(self._rows.add_keys(tenant, new))
        keys = {k: self._unwrap(tenant, k, row) for k, row in rows.items()}
        return {k: key for k, key in keys.items() if key is not None}

    def get(self, tenant: str, key_id: str) -> bytes | None:
        row = self._rows.key(tenant, key_id)
        return None if row is None else self._unwrap(tenant, key_id, row)

    def destroy(self, tenant: str, key_id: str) -> None:
        self._rows.destroy(tenant, key_id, time.time_ns() // 1000)

    def destroyed(self, tenant: str, key_id: str) -> bool:
        row = self._rows.key(tenant, key_id)
        return row is not None and row.destroyed

    def close(self) -> None:
        self._rows.close()
