"""The SDK's public surface is pinned: adding or removing a name is a deliberate change
to this list. Mirrored wire models must match the server's, and every problem status maps
to its typed error (under the core error classes)."""

from __future__ import annotations

import httpx
import pytest

import ai_memory.sdk
from ai_memory.core import errors as core
from ai_memory.sdk import errors, models

EXPECTED = [
    "AiMemoryStore",
    "ApiError",
    "AsyncMemoryClient",
    "AuditEntryOut",
    "AuditOut",
    "BatchItemOut",
    "BatchWriteOut",
    "ChangeOut",
    "ConflictError",
    "ConnectionFailedError",
    "DeleteOut",
    "EpisodesOut",
    "ErasureOut",
    "ErasurePublicKeyOut",
    "ErasureReceipt",
    "ForbiddenError",
    "GoneError",
    "GovernanceRunOut",
    "HealthOut",
    "ImportOut",
    "InteractionIn",
    "InteractionOut",
    "InvalidInputError",
    "ItemProblemOut",
    "LineageOut",
    "MemoryClient",
    "MemoryIn",
    "MemoryListOut",
    "MemoryOut",
    "MemoryState",
    "MemoryType",
    "NotFoundError",
    "NoteIn",
    "NoteSaveOut",
    "NotesOut",
    "Observation",
    "PersonaOut",
    "PreconditionFailedError",
    "RateLimitedError",
    "ReceiptInvalidError",
    "RetryPolicy",
    "SearchHitOut",
    "SearchIn",
    "SearchOut",
    "ServerError",
    "TurnIn",
    "UnauthenticatedError",
    "UnavailableError",
    "UsageOut",
    "WaitTimeoutError",
    "WebhookCreated",
    "WebhookList",
    "WebhookOut",
    "WriteOut",
    "WriteSuggestion",
    "WriteTriggersOut",
    "end_session",
    "estimate_tokens",
    "observe",
    "verify_receipt",
    "wake_up",
]


def test_all_exports() -> None:
    assert ai_memory.sdk.__all__ == EXPECTED


def test_every_export_resolves_and_belongs_to_the_sdk_or_the_wire() -> None:
    for name in ai_memory.sdk.__all__:
        member = getattr(ai_memory.sdk, name)
        module = getattr(member, "__module__", "")
        wire = (
            "ai_memory.wire.models",
            "ai_memory.wire.notes",
            "ai_memory.wire.governance",
            "ai_memory.wire.audit",
            "ai_memory.wire.changes",
            "ai_memory.wire.usage",
            "ai_memory.wire.webhooks",
        )
        assert module.startswith(("ai_memory.sdk", *wire, "ai_memory.core")), (
            name,
            module,
        )


def test_core_models_are_the_servers_own() -> None:
    from ai_memory.wire import models as server

    for name in (
        "MemoryIn",
        "MemoryOut",
        "WriteOut",
        "SearchIn",
        "SearchOut",
        "ImportOut",
        "BatchWriteOut",
    ):
        assert getattr(models, name) is getattr(server, name)


def test_notes_and_governance_models_are_the_servers_own() -> None:
    from ai_memory.entrypoints.http import governance_routes, notes_routes

    for name in ("InteractionIn", "TurnIn"):
        assert getattr(models, name) is getattr(governance_routes, name)
    for name in ("NoteIn", "NoteSaveOut", "NotesOut"):
        assert getattr(models, name) is getattr(notes_routes, name)


@pytest.mark.parametrize(
    ("status", "code", "cls", "core_cls"),
    [
        (400, "malformed_json", errors.InvalidInputError, core.InvalidInput),
        (401, "invalid_api_key", errors.UnauthenticatedError, core.Unauthenticated),
        (403, "role_forbidden", errors.ForbiddenError, core.Forbidden),
        (422, "invalid_input", errors.InvalidInputError, core.InvalidInput),
        (404, "memory_not_found", errors.NotFoundError, core.NotFound),
        (410, "memory_forgotten", errors.GoneError, core.Gone),
        (409, "scope_immutable", errors.ConflictError, core.Conflict),
        (429, "rate_limited", errors.RateLimitedError, core.RetryableError),
        (503, "unavailable", errors.UnavailableError, core.Unavailable),
        (503, "projection_lag", errors.WaitTimeoutError, core.Timeout),
        (500, "internal_error", errors.ServerError, core.AiMemoryError),
    ],
)
def test_problem_json_maps_to_typed_errors(
    status: int, code: str, cls: type[errors.ApiError], core_cls: type[core.AiMemoryError]
) -> None:
    body = {"status": status, "code": code, "detail": "what happened", "field": "scope"}
    response = httpx.Response(status, json=body, headers={"retry-after": "3"})
    error = errors.error_from_response(response)
    assert type(error) is cls and isinstance(error, core_cls)
    assert (error.status, error.code, error.detail, error.field) == (
        status,
        code,
        "what happened",
        "scope",
    )
    assert error.retry_after == 3.0 and error.problem == body
    assert str(error) == f"{status} {code} [scope]: what happened"


def test_a_non_json_failure_still_maps() -> None:
    error = errors.error_from_response(httpx.Response(502, text="<html>bad gateway</html>"))
    assert isinstance(error, errors.ServerError) and error.code == "server_error"
    assert error.detail == "Bad Gateway" and error.field == ""
