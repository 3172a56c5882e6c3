"""What each tenant may use: request rates (its own and each of its keys'), stored
memories and bytes per request — the deployment's defaults and per-tenant overrides.

Overrides are one JSON object, tenant → the fields that differ from the defaults::

    {"acme": {"rate": 50, "burst": 100, "max_memories": 100000},
     "globex": {"key_rate": 0, "max_request_bytes": 65536}}

=====================  ================================================================
``rate``, ``burst``     requests/s of the whole tenant and how many at once (0: no limit)
``key_rate``,           requests/s of each API key of the tenant, and its burst
``key_burst``
``max_memories``        live memories the tenant may store (0: no limit)
``max_request_bytes``   the largest request body of the tenant (0: each route's own
                        limit; a tenant's limit can only lower a route's, never raise it)
=====================  ================================================================

Pure: parsing refuses an unknown tenant name or field, a negative number, a burst below
one, naming where it is, so a typo fails the start rather than silently not applying.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ai_memory.core.errors import InvalidInput

from .keys import validate_tenant

_SETTING = "AIMEM_TENANT_LIMITS"


@dataclass(frozen=True)
class TenantLimits:
    """One tenant's limits; the zero values mean "no limit"."""

    rate: float = 0.0
    burst: int = 1
    key_rate: float = 0.0
    key_burst: int = 1
    max_memories: int = 0
    max_request_bytes: int = 0

    def __post_init__(self) -> None:
        for name in ("rate", "key_rate"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise InvalidInput(name, "range", f"{name} is requests per second, >= 0")
        for name in ("burst", "key_burst"):
            if getattr(self, name) < 1:
                raise InvalidInput(name, "range", f"{name} is at least 1 request")
        for name in ("max_memories", "max_request_bytes"):
            if getattr(self, name) < 0:
                raise InvalidInput(name, "range", f"{name} is >= 0 (0: no limit)")


_FIELDS = {f.name: f.type for f in fields(TenantLimits)}


@dataclass(frozen=True)
class LimitTable:
    """The defaults and the tenants that differ from them."""

    default: TenantLimits = field(default_factory=TenantLimits)
    overrides: Mapping[str, TenantLimits] = field(default_factory=dict)

    def of(self, tenant: str) -> TenantLimits:
        return self.overrides.get(tenant, self.default)

    @property
    def any_memory_quota(self) -> bool:
        """Whether some tenant has a stored-memories quota (if none, nothing is counted)."""
        return self.default.max_memories > 0 or any(
            o.max_memories > 0 for o in self.overrides.values()
        )

    @staticmethod
    def parse(default: TenantLimits, text: str) -> LimitTable:
        """The table of ``default`` and the JSON overrides in ``text`` ("" or "{}": none)."""
        if not text.strip():
            return LimitTable(default)
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise InvalidInput(_SETTING, "json", f"{_SETTING} must be JSON: {e}") from None
        if not isinstance(raw, dict):
            raise InvalidInput(_SETTING, "json_object", f"{_SETTING} is a JSON object")
        overrides = {}
        for tenant, values in raw.items():
            where = f"{_SETTING}[{tenant!r}]"
            try:
                validate_tenant(tenant)
            except InvalidInput as e:
                raise InvalidInput(_SETTING, "tenant_format", f"{where}: {e.message}") from None
            overrides[tenant] = _override(default, values, where)
        return LimitTable(default, overrides)


def _override(default: TenantLimits, values: Any, where: str) -> TenantLimits:
    if not isinstance(values, dict):
        raise InvalidInput(_SETTING, "json_object", f"{where} is a JSON object of limits")
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise InvalidInput(
            _SETTING, "unknown_field", f"{where}: unknown {unknown}; known: {sorted(_FIELDS)}"
        )
    for name, value in values.items():
        whole = _FIELDS[name] == "int"
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (whole and not float(value).is_integer())
        ):
            kind = "a whole number" if whole else "a number"
            raise InvalidInput(_SETTING, "number", f"{where}.{name} is {kind}")
    typed: dict[str, Any] = {
        n: int(v) if _FIELDS[n] == "int" else float(v) for n, v in values.items()
    }
    try:
        return replace(default, **typed)
    except InvalidInput as e:
        raise InvalidInput(_SETTING, e.rule, f"{where}: {e.message}") from None
