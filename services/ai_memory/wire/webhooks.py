"""Wire models of ``/v1/webhooks`` (the rules are ``core.webhooks`` and
``service.webhooks``; one definition shared by the server's document and the SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .changes import ChangeKind


class WebhookIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        description="Where deliveries are POSTed: http or https, no credentials; its host "
        "must resolve to public addresses only, unless the deployment allows others.",
        json_schema_extra={"minLength": 1, "maxLength": 2048},
    )
    scopes: list[str] = Field(
        description='The scopes to follow (1-16), or ["*"] for every scope of the tenant.',
        json_schema_extra={"minItems": 1, "maxItems": 16},
    )
    kinds: list[ChangeKind] | None = Field(
        None, description="Which changes to deliver (default: all three kinds)."
    )
    description: str = Field("", description="Free text for people (≤ 500 chars).")


class WebhookPosition(BaseModel):
    partition: int
    position: int


class WebhookOut(BaseModel):
    """A subscription and its delivery state — never its secret."""

    id: str
    url: str
    scopes: list[str]
    kinds: list[ChangeKind]
    description: str
    created_at: str
    created_by: str = Field(description="The actor that created it (key:<id>).")
    status: Literal["active", "paused"]
    paused_reason: str | None
    cursor: str = Field(
        description="The change-feed cursor after the last change the receiver acknowledged "
        "(GET /v1/changes?since=<cursor> lists what is still to deliver)."
    )
    positions: list[WebhookPosition] = Field(description="The cursor as log positions.")
    delivered: int = Field(description="Changes acknowledged so far.")
    failures: int = Field(description="Consecutive failed attempts (0 after a success).")
    failing_since: str | None
    last_attempt_at: str | None
    last_success_at: str | None
    last_status: int | None = Field(description="HTTP status of the last attempt (null: none).")
    last_error: str | None


class WebhookCreated(WebhookOut):
    secret: str = Field(
        description="Signs every delivery (X-AIMemory-Signature). Shown only in this answer."
    )


class WebhookList(BaseModel):
    webhooks: list[WebhookOut]
