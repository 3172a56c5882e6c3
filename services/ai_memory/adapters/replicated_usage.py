"""``ReplicatedUsage``: the usage source of a distributed gateway.

Every gateway keeps a replica of the usage table the usage worker folds
(``adapters/kafka/usage_replica.py``); until that replica has read the table's changelog
to its end (no usage worker has run yet, or it is still loading) the record store answers
instead. Kept apart from the Kafka adapter so the composition root can tell this source
from the others without importing a Kafka client.
"""

from __future__ import annotations

from typing import Protocol

from ai_memory.core.ports import UsageSource
from ai_memory.core.usage import TenantUsage


class UsageReplica(UsageSource, Protocol):
    @property
    def ready(self) -> bool: ...

    def close(self) -> None: ...


class ReplicatedUsage:
    def __init__(self, replica: UsageReplica, fallback: UsageSource) -> None:
        self.replica = replica
        self.fallback = fallback

    def usage(self, tenant: str) -> TenantUsage:
        return (self.replica if self.replica.ready else self.fallback).usage(tenant)

    def tenants(self) -> list[str]:
        return (self.replica if self.replica.ready else self.fallback).tenants()

    def close(self) -> None:
        self.replica.close()
