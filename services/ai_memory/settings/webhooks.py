"""Webhooks (docs/design/WEBHOOKS.md): which addresses they may reach, and how
deliveries are batched, retried and paused."""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator

from .comma_list import CommaList
from .section import Section


class WebhookSettings(Section):
    # A subscribed URL must not reach the gateway's own network (server-side request
    # forgery): only globally routable addresses, checked when subscribed and at every
    # delivery, unless the deployment says otherwise here.
    webhook_allow_private: bool = Field(
        default=False,
        description="Let webhooks reach loopback, private, link-local and other "
        "non-public addresses (a lab or a test; never on a shared gateway).",
    )
    webhook_allowed_cidrs: CommaList = Field(
        default=(),
        description="Comma-separated CIDR ranges webhooks may reach although they are not "
        "public (e.g. `10.20.0.0/16` for an internal receiver).",
    )
    webhook_timeout: float = Field(
        default=10.0, gt=0, le=60, description="Seconds a webhook receiver has to answer."
    )
    webhook_batch: int = Field(
        default=100, ge=1, le=1000, description="At most this many changes per webhook POST."
    )
    webhook_backoff_base: float = Field(
        default=1.0, gt=0, description="Seconds before the first retry of a failed delivery."
    )
    webhook_backoff_max: float = Field(
        default=600.0, gt=0, description="The longest wait between two delivery attempts."
    )
    webhook_max_failures: int = Field(
        default=10,
        ge=1,
        description="Consecutive failed deliveries after which a webhook is paused.",
    )
    webhook_pause_after: float = Field(
        default=86400.0,
        gt=0,
        description="Seconds of failing without a success after which a webhook is paused.",
    )
    webhook_max_per_tenant: int = Field(
        default=25, ge=0, description="Webhook subscriptions one tenant may hold."
    )

    @field_validator("webhook_allowed_cidrs")
    @classmethod
    def _cidrs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for cidr in value:
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                raise ValueError(f"{cidr!r} is not a CIDR range (e.g. 10.20.0.0/16)") from None
        return value
