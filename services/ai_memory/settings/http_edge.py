"""The HTTP edge: the limits refused early with problem+json, the rates and quotas
per tenant and per key, and the browser protections."""

from __future__ import annotations

from pydantic import Field

from .comma_list import CommaList
from .section import Section


class HttpEdgeSettings(Section):
    max_body_bytes: int = Field(
        default=1 << 20, ge=1024, description="Largest JSON request body, bytes → 413."
    )
    max_import_bytes: int = Field(
        default=64 << 20, ge=1024, description="Largest `/v1/import` body, bytes → 413."
    )
    max_line_bytes: int = Field(
        default=1 << 20,
        ge=1024,
        description="Largest NDJSON import line, bytes: a longer one ends the import with 413 "
        "`line_too_long` naming it (the lines before it land).",
    )
    max_query_chars: int = Field(
        default=4096, ge=1, description="Longest search `query`, characters → 422."
    )
    body_timeout: float = Field(
        default=30.0, gt=0, description="Seconds allowed between two body chunks → 408."
    )
    header_timeout: float = Field(
        default=10.0, gt=0, description="Seconds to send the request headers in `serve`."
    )
    # --- rates and quotas per tenant and per key (core/access/tenant_limits.py) ----------
    # Request rates are on by default but generous, as a managed API gateway's are: they
    # catch a runaway agent loop, not normal load (one gateway serves fewer requests/s
    # than these on the hardware in loadtest/RESULTS.md). Buckets are per gateway process;
    # 0 turns a rate off. Storage quotas are off by default, as in Kafka and Cassandra:
    # what a tenant may store is a capacity decision only the operator can make.
    key_rate: float = Field(
        default=1000.0,
        ge=0,
        description="Requests/s of one API key, per gateway (0 = off) → 429 with `Retry-After`.",
    )
    key_burst: int = Field(default=2000, ge=1, description="Burst of one API key's bucket.")
    tenant_rate: float = Field(
        default=2000.0,
        ge=0,
        description="Requests/s of one tenant, per gateway (0 = off) → 429 with `Retry-After`.",
    )
    tenant_burst: int = Field(default=4000, ge=1, description="Burst of one tenant's bucket.")
    tenant_max_memories: int = Field(
        default=0,
        ge=0,
        description="Live memories a tenant may store (0 = no quota) → 403 `quota_exceeded`.",
    )
    tenant_max_request_bytes: int = Field(
        default=0,
        ge=0,
        description="A tenant's largest request body (0 = the route's limit) → 413.",
    )
    tenant_limits: str = Field(
        default="",
        description="JSON object of per-tenant overrides, e.g. "
        '`{"acme": {"rate": 50, "burst": 100, "key_rate": 10, "max_memories": 100000}}`.',
    )
    # --- browser protections -------------------------------------------------------------
    allowed_hosts: CommaList = Field(
        default=(),
        description="Comma-separated `Host` names accepted besides localhost, 127.0.0.1 and "
        "::1 (`*` = any; needed behind a load balancer or a Kubernetes probe).",
    )
    cors_origins: CommaList = Field(
        default=(),
        description="Comma-separated origins allowed to call the API from a browser "
        "(none by default: cross-origin API requests are refused, reads included).",
    )
