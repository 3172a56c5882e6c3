"""What a write holding a credential gets (service/secret_policy.py), and
crypto-shredding (docs/design/FORGETTING.md): the root key and the receipts' signing key."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from ai_memory.core.secrets import SecretPolicy

from .section import Section


class DataProtectionSettings(Section):
    # Refused by default, as the agent tools always did: the log is append-only, so a
    # credential once stored stays in every replica, backup and export, while a refused
    # write costs one retry. A tenant that stores pasted configs or logs on purpose
    # chooses redact (or allow) for itself.
    secret_policy: SecretPolicy = Field(
        default="refuse",
        description="What a write holding a credential gets, on every path (HTTP, MCP, "
        "A2A, SDK, CLI, import, migrate): `refuse` (422), `redact` or `allow`.",
    )
    secret_policy_by_tenant: dict[str, SecretPolicy] = Field(
        default_factory=dict,
        description='JSON object of tenants whose policy differs, e.g. `{"acme": "redact"}`.',
    )
    # --- crypto-shredding (docs/design/FORGETTING.md) ------------------------------------
    # Once on it stays on: without the vault every sealed write reads as forgotten, so an
    # embedded data directory with a root key refuses off.
    encryption: Literal["off", "on"] = Field(
        default="on",
        description="`on`: content, tags, meta, interactions' text and decision evidence "
        "reach the log sealed under a data key of their own, and forgetting destroys that "
        "key. `off` accepts that forgotten content stays readable on the log; an embedded "
        "data directory that has a root key refuses it.",
    )
    root_key: SecretStr = Field(
        default=SecretStr(""),
        description="The root of the key hierarchy, base64url of 32 bytes. Required when "
        "distributed; an embedded deployment without it generates `<data_dir>/root.key` "
        "(0600) on first start.",
    )
    receipt_key: SecretStr = Field(
        default=SecretStr(""),
        description="Signs erasure receipts (Ed25519): PKCS#8 PEM or base64 of the 32-byte "
        "seed; an embedded deployment without it generates `<data_dir>/receipt.key` (0600) "
        "when first needed.",
    )
