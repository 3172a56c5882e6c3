"""Typed request and response models of the HTTP API.

The core models are the server's own (``ai_memory.wire.models``: importing them pulls
in only pydantic and the pure ``ai_memory.core.record``), so the wire shape of records,
writes, searches and imports has one definition. The models of the notes and governance
routes live next to their FastAPI routers, which import the server's composition root;
they are mirrored here instead, and ``tests/unit/test_sdk_surface.py`` checks that each
mirror has the same JSON schema as the server's model. Response models of routes that
have no declared server model accept unknown fields (``extra="allow"``) so a newer
server never breaks an older SDK.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidatorFunctionWrapHandler,
    model_validator,
)

from ai_memory.core.receipt_format import parse_signed
from ai_memory.core.record import MemoryState, MemoryType
from ai_memory.wire.audit import AuditEntryOut, AuditOut
from ai_memory.wire.changes import ChangeOut
from ai_memory.wire.governance import InteractionIn, TurnIn
from ai_memory.wire.models import (
    BatchItemOut,
    BatchWriteOut,
    DeleteOut,
    ImportError_,
    ImportOut,
    ItemProblemOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    SearchHitOut,
    SearchIn,
    SearchOut,
    WriteOut,
)
from ai_memory.wire.notes import (
    NoteIn,
    NoteSaveOut,
    NotesOut,
    TopicNoteOut,
    WhyOut,
    YourTopicOut,
)
from ai_memory.wire.usage import UsageOut
from ai_memory.wire.webhooks import (
    WebhookCreated,
    WebhookIn,
    WebhookList,
    WebhookOut,
    WebhookPosition,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = [
    "AuditEntryOut",
    "AuditOut",
    "BatchItemOut",
    "BatchWriteOut",
    "ChangeOut",
    "DeleteOut",
    "Episode",
    "EpisodesOut",
    "ErasureOut",
    "ErasurePublicKeyOut",
    "ErasureReceipt",
    "ErasureReceiptBody",
    "GovernanceRunOut",
    "HealthOut",
    "ImportLineError",
    "ImportOut",
    "InteractionIn",
    "InteractionOut",
    "ItemProblemOut",
    "LineageOut",
    "MemoryIn",
    "MemoryListOut",
    "MemoryOut",
    "MemoryState",
    "MemoryType",
    "NoteIn",
    "NoteSaveOut",
    "NotesOut",
    "PersonaOut",
    "ProjectionStatus",
    "SearchHitOut",
    "SearchIn",
    "SearchOut",
    "TopicNoteOut",
    "TurnIn",
    "UsageOut",
    "WebhookCreated",
    "WebhookIn",
    "WebhookList",
    "WebhookOut",
    "WebhookPosition",
    "WhyOut",
    "WriteOut",
    "WriteSuggestion",
    "WriteTriggersOut",
    "YourTopicOut",
]

#: One rejected line of an import (the server's ``ImportError_``, under a clearer name).
ImportLineError = ImportError_


class _Open(BaseModel):
    """A response model that keeps fields a newer server adds."""

    model_config = ConfigDict(extra="allow")


# --- governance (mirrors entrypoints/http/governance_routes.py) ------------------------
class InteractionOut(_Open):
    """What recording an interaction did: the memories extracted and state changes."""

    interaction_id: str
    position: int
    memories: list[dict[str, Any]]
    transitions: list[dict[str, Any]]


class PersonaOut(_Open):
    """L3: the current active memories of a scope, by kind."""

    scope: str
    preferences: list[dict[str, Any]] = []
    goals: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    skills: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []


class Episode(_Open):
    """The memories extracted from one conversation."""

    session_id: str
    memories: list[dict[str, Any]]


class EpisodesOut(_Open):
    """L2: extracted memories grouped by conversation."""

    scope: str
    episodes: list[Episode]


class LineageOut(_Open):
    """What a memory superseded, what superseded it, and every event behind it."""

    id: str
    state: str
    version: int | None
    supersedes: list[str]
    superseded_by: list[str]
    events: list[dict[str, Any]]
    valid_from: str | None = None  # valid time (docs/design/TIME.md); None for a forgotten one
    valid_to: str | None = None  # None while nothing has ended it


class GovernanceRunOut(_Open):
    """The state transitions one governor pass made."""

    transitions: list[dict[str, Any]]


class WriteSuggestion(_Open):
    """One write trigger that fired: what to write, as which type, and why."""

    trigger: str
    type: MemoryType
    content: str | None = Field(description="None: the agent composes it (task, summary).")
    reason: str
    importance: float


class WriteTriggersOut(_Open):
    """``POST /v1/write-triggers``: whether and what to write (advisory)."""

    suggestions: list[WriteSuggestion]


# --- health ---------------------------------------------------------------------------
class ProjectionStatus(_Open):
    """One projection (partition) and how far behind the log it is."""

    projection: str
    partition: int
    position: int
    head: int
    lag: int
    in_process: bool


class HealthOut(_Open):
    """``GET /healthz``. With keys in force, only an admin or operator key is shown
    more than ``status``: the other fields are then empty."""

    status: str
    version: str = ""
    projections: list[ProjectionStatus] = []
    lag: dict[str, int] = {}
    embedder: str = ""


# --- erasure (mirrors entrypoints/http/erasure_routes.py and core/erasure.py) ----------
class ErasureOut(_Open):
    """``POST /v1/erasures`` / ``DELETE /v1/interactions/{id}``: what was erased."""

    erasure_id: str
    position: int
    memories: int  # memories forgotten (notes and extracted memories included)
    interactions: int  # raw turns forgotten
    already_done: bool  # True: this erasure_id was done before; nothing new happened
    receipt: str  # the receipt's path, ``/v1/erasures/{erasure_id}``


class ErasurePublicKeyOut(_Open):
    """``GET /v1/erasures/public-key``: the key that verifies this server's receipts."""

    algorithm: str
    key_id: str
    pem: str


class ErasureCriteriaOut(_Open):
    """The request as the receipt records it: one criterion and the reason."""

    criteria: dict[str, Any]
    reason: str


class ErasedIds(_Open):
    memory_ids: list[str]
    interaction_ids: list[str]


class ErasureEvents(_Open):
    erasure: int  # position of the SubjectErased event
    tombstones: dict[str, int]  # memory id -> position of its tombstone


class ProjectionApplied(_Open):
    projection: str
    partition: int
    position: int
    applied: bool  # the projection has applied the erasure's events on that partition


class KeyDestroyed(_Open):
    key_id: str
    destroyed_at: str | None  # None: the vault has no time for it (encryption off, …)


class ErasureKeys(_Open):
    encryption: str  # "on": data keys were destroyed; "off": nothing was encrypted
    key_ids: list[str]
    destroyed_at: str | None  # by when every key was gone
    # Added by newer servers (receipt fields are only ever added): empty from older ones.
    destroyed: list[KeyDestroyed] = []
    kek_versions_destroyed: list[int] = []  # the tenant's KEK versions an offboarding destroyed


class ErasureVerification(_Open):
    """The scan the server made when it issued the receipt."""

    at: str
    keys_checked: int
    keys_live: list[str]
    memories_readable: list[str]
    events_scanned: int
    events_readable: int
    kek_versions_live: list[int] = []  # from newer servers: destroyed KEK versions live again
    passed: bool  # nothing of the subject could be read any more


class ErasureReceiptBody(_Open):
    """What a receipt says (ids, positions, times — never content)."""

    format: str
    erasure_id: str
    tenant: str
    actor: str
    requested_at: str
    request: ErasureCriteriaOut
    erased: ErasedIds
    events: ErasureEvents
    projections: list[ProjectionApplied]
    keys: ErasureKeys
    verification: ErasureVerification
    issued_at: str


class ReceiptSignature(_Open):
    algorithm: str
    key_id: str
    value: str


class ErasureReceipt(_Open):
    """``GET /v1/erasures/{id}``: a signed receipt, typed, that keeps the document exactly
    as it was served (``raw``): the signature covers those values, so verification and an
    auditor get ``raw``, never a re-serialised model."""

    receipt: ErasureReceiptBody
    signature: ReceiptSignature
    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_raw(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # Wrapped so that every way in (model_validate, model_validate_json, the SDK's
        # parsers) keeps the input, not only a dedicated constructor. Text is parsed
        # strictly first: a duplicated key or a number written two ways is refused
        # before anyone verifies or archives the document.
        text = None
        if isinstance(data, str | bytes | bytearray):
            text = parse_signed(bytes(data) if isinstance(data, bytearray) else data)
        out = handler(data)
        if isinstance(out, ErasureReceipt):
            if isinstance(data, ErasureReceipt):
                out._raw = copy.deepcopy(data._raw)
            elif text is not None:
                out._raw = text
            elif isinstance(data, dict):
                out._raw = copy.deepcopy(data)
        return out

    @property
    def raw(self) -> dict[str, Any]:
        """The signed document as served (a copy): save it, or hand it to an auditor."""
        return copy.deepcopy(self._raw)

    def verify(self, public_key: str | bytes | Ed25519PublicKey) -> ErasureReceiptBody:
        """Check the signature offline (``ai_memory.sdk.receipts.verify_receipt``);
        ``ReceiptInvalidError`` if the receipt was changed or signed by another key."""
        from .receipts import verify_receipt

        return verify_receipt(self, public_key).receipt
