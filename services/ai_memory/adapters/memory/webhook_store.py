"""``WebhookStore`` in dicts, with the semantics of the SQLite table."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from ai_memory.core.errors import Conflict
from ai_memory.core.webhooks.model import DeliveryState, Subscription


@dataclass
class WebhookBacking:
    subscriptions: dict[tuple[str, str], Subscription] = field(default_factory=dict)
    leases: dict[str, tuple[str, datetime]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryWebhookStore:
    def __init__(self, backing: WebhookBacking | None = None) -> None:
        self.backing = backing or WebhookBacking()

    def create(self, subscription: Subscription) -> None:
        with self.backing.lock:
            if any(k[1] == subscription.id for k in self.backing.subscriptions):
                raise Conflict(f"webhook {subscription.id} exists", code="webhook_exists")
            self.backing.subscriptions[(subscription.tenant, subscription.id)] = subscription

    def get(self, tenant: str, webhook_id: str) -> Subscription | None:
        with self.backing.lock:
            return self.backing.subscriptions.get((tenant, webhook_id))

    def list_tenant(self, tenant: str) -> list[Subscription]:
        return [s for s in self.list_all() if s.tenant == tenant]

    def list_all(self) -> list[Subscription]:
        with self.backing.lock:
            found = list(self.backing.subscriptions.values())
        return sorted(found, key=lambda s: (s.tenant, s.created_at, s.id))

    def delete(self, tenant: str, webhook_id: str) -> bool:
        with self.backing.lock:
            return self.backing.subscriptions.pop((tenant, webhook_id), None) is not None

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        with self.backing.lock:
            found = self.backing.subscriptions.get((tenant, webhook_id))
            if found is None:
                return False
            self.backing.subscriptions[(tenant, webhook_id)] = replace(found, state=state)
            return True

    def claim(self, lease: str, owner: str, ttl: float, now: datetime) -> bool:
        with self.backing.lock:
            held = self.backing.leases.get(lease)
            if held is not None and held[0] != owner and held[1] > now:
                return False
            self.backing.leases[lease] = (owner, now + timedelta(seconds=ttl))
            return True

    def close(self) -> None:
        pass
