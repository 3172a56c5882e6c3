"""Usage: a tenant's live memories, the bytes of their content, and its quota
(``GET /v1/usage``, and the ``aimem_tenant_*`` gauges of ``/metrics``).

Who may read it is ``access.reported_tenant``, as for the audit trail: an admin key its
own tenant's; an operator key the tenant it names (it runs the deployment: it sees
counts, never content); the deployment itself (no key in force) its own, or the one it
names. Readers and writers are refused (403 ``role_forbidden``), and an admin naming
another tenant is refused before anything is looked up (403 ``tenant_forbidden``), so
the answer never says whether that tenant exists.

What is counted is what the records view holds (``core.usage``): the memories
``RecordStore.count`` counts — the ones the stored-memories quota (``quotas``) is
checked against — and the UTF-8 bytes of their content. ``as_of`` says, per log
partition, up to which position every event is counted: a write the caller made at
``position`` is in the answer once ``as_of`` of its partition reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ai_memory.core.access.tenant_limits import LimitTable
from ai_memory.core.ports import UsageSource

from . import access
from .access import Who


@dataclass(frozen=True)
class UsageReport:
    tenant: str
    memories: int
    bytes: int
    max_memories: int | None  # None: no quota
    positions: Mapping[int, int]  # partition → up to where every event is counted

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "memories": self.memories,
            "bytes": self.bytes,
            "quota": {"max_memories": self.max_memories},
            "as_of": [
                {"partition": p, "position": self.positions[p]} for p in sorted(self.positions)
            ],
        }


class UsageService:
    def __init__(self, source: UsageSource, limits: LimitTable) -> None:
        self._source = source
        self._limits = limits

    def usage(self, who: Who, *, tenant: str | None = None) -> UsageReport:
        """The usage of the caller's tenant, or (an operator, the deployment) of the
        ``tenant`` it names."""
        return self._report(access.reported_tenant(access.caller_of(who), tenant, "the usage"))

    def every_tenant(self) -> list[UsageReport]:
        """The usage of every tenant the source lists, for ``/metrics`` (whose reader
        the health service judges: ``HealthService.may_read_metrics``)."""
        return [self._report(tenant) for tenant in self._source.tenants()]

    def _report(self, tenant: str) -> UsageReport:
        used = self._source.usage(tenant)
        quota = self._limits.of(tenant).max_memories
        return UsageReport(tenant, used.memories, used.bytes, quota or None, used.positions)
