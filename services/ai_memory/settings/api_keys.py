"""API keys: how long a gateway trusts one, refused keys per address, the adopted
admin key, and the keys the client commands send."""

from __future__ import annotations

from pydantic import Field, SecretStr

from .section import Section


class ApiKeySettings(Section):
    key_cache_seconds: float = Field(
        default=2.0,
        ge=0,
        le=5,
        description="How long a gateway trusts what it read of an API key: a revoked key "
        "is refused by every gateway within this many seconds.",
    )
    auth_failure_burst: int = Field(
        default=20,
        ge=0,
        description="Refused API keys one client address may send at once before it is "
        "answered 429 (`auth_failures`, with `Retry-After`) without a key lookup; 0 = no "
        "limit. A key this gateway has seen valid still passes from that address.",
    )
    auth_failure_rate: float = Field(
        default=1.0,
        gt=0,
        description="Refused API keys a client address regains per second after its burst.",
    )
    admin_key: SecretStr = Field(
        default=SecretStr(""),
        description="A key from the deployment's secrets (`ai-memory keys generate`) that "
        "`serve` adopts at start as an admin key of `AIMEM_ADMIN_TENANT`.",
    )
    admin_tenant: str = Field(default="default", description="The tenant of `AIMEM_ADMIN_KEY`.")
    api_key: SecretStr = Field(
        default=SecretStr(""),
        description="The key the client commands (`write`, `get`, `search`, `delete`, `audit`, "
        "`export`, `import`, `erase`, `sync`, `migrate --to http://…`) send, and the key of "
        "an `ai-memory mcp` stdio session.",
    )
    from_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="`ai-memory sync`: the key for the source instance (else `AIMEM_API_KEY`).",
    )
    to_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="`ai-memory sync`: the key for the target instance (else `AIMEM_API_KEY`).",
    )
