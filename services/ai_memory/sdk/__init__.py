"""The Python SDK of ai-memory: typed sync and async clients, lifecycle helpers, and a
LangGraph store.

    from ai_memory.sdk import MemoryClient

    with MemoryClient("http://127.0.0.1:8080") as memory:
        memory.write("Alice prefers short bullet lists.", type="preference",
                     scope="user:alice", source_agent="planner", wait=True)
        hits = memory.search("how should replies be formatted", scope="user:alice")

Webhooks: ``memory.create_webhook(url, scopes=[...])`` (an admin key) and
``ai_memory.sdk.webhooks.verify_webhook`` on the receiving side.

Subject erasure: ``memory.erase(scope="user:alice", reason=...)``, then
``verify_receipt(memory.erasure_receipt(id), memory.erasure_public_key().pem)`` offline.

``AiMemoryStore`` (LangGraph) is imported lazily, so the SDK does not need LangGraph
unless you use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .async_client import AsyncMemoryClient
from .client import MemoryClient
from .errors import (
    ApiError,
    ConflictError,
    ConnectionFailedError,
    ForbiddenError,
    GoneError,
    InvalidInputError,
    NotFoundError,
    PreconditionFailedError,
    RateLimitedError,
    ServerError,
    UnauthenticatedError,
    UnavailableError,
    WaitTimeoutError,
)
from .lifecycle import Observation, end_session, estimate_tokens, observe, wake_up
from .models import (
    AuditEntryOut,
    AuditOut,
    BatchItemOut,
    BatchWriteOut,
    ChangeOut,
    DeleteOut,
    EpisodesOut,
    ErasureOut,
    ErasurePublicKeyOut,
    ErasureReceipt,
    GovernanceRunOut,
    HealthOut,
    ImportOut,
    InteractionIn,
    InteractionOut,
    ItemProblemOut,
    LineageOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    MemoryState,
    MemoryType,
    NoteIn,
    NoteSaveOut,
    NotesOut,
    PersonaOut,
    SearchHitOut,
    SearchIn,
    SearchOut,
    TurnIn,
    UsageOut,
    WebhookCreated,
    WebhookList,
    WebhookOut,
    WriteOut,
    WriteSuggestion,
    WriteTriggersOut,
)
from .receipts import ReceiptInvalidError, verify_receipt
from .retry import RetryPolicy

if TYPE_CHECKING:
    from .langgraph_store import AiMemoryStore

__all__ = [
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


def __getattr__(name: str) -> Any:
    """Import ``AiMemoryStore`` (and with it LangGraph) only when it is asked for."""
    if name == "AiMemoryStore":
        try:
            from .langgraph_store import AiMemoryStore
        except ModuleNotFoundError as e:
            if not (e.name or "").startswith("langgraph"):
                raise
            # The SDK alone (`pip install ai-memory`) has no LangGraph: say what to install.
            raise ImportError(
                "AiMemoryStore needs LangGraph, which the SDK alone does not install: "
                "pip install 'ai-memory[langgraph]'",
                name=e.name,
            ) from e
        return AiMemoryStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
