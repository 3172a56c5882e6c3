"""``KeyStore`` in a dict keyed by key id, with the semantics of the SQLite table."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime

from ai_memory.core.access import ApiKey, KeyInfo
from ai_memory.core.errors import Conflict


@dataclass
class KeyBacking:
    keys: dict[str, ApiKey] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryKeyStore:
    def __init__(self, backing: KeyBacking | None = None) -> None:
        self.backing = backing or KeyBacking()

    def create(self, key: ApiKey) -> None:
        with self.backing.lock:
            if key.key_id in self.backing.keys:
                raise Conflict(f"key {key.key_id} exists", code="key_exists")
            self.backing.keys[key.key_id] = key

    def get(self, key_id: str) -> ApiKey | None:
        with self.backing.lock:
            return self.backing.keys.get(key_id)

    def list_keys(self, tenant: str) -> list[KeyInfo]:
        with self.backing.lock:
            infos = [k.info for k in self.backing.keys.values() if k.info.tenant == tenant]
        return sorted(infos, key=lambda i: (i.created_at, i.key_id))

    def revoke(self, key_id: str, at: datetime) -> KeyInfo | None:
        with self.backing.lock:
            key = self.backing.keys.get(key_id)
            if key is None:
                return None
            if key.info.revoked_at is None:
                key = replace(key, info=replace(key.info, revoked_at=at))
                self.backing.keys[key_id] = key
            return key.info

    def has_keys(self) -> bool:
        with self.backing.lock:
            return bool(self.backing.keys)

    def close(self) -> None:
        pass
