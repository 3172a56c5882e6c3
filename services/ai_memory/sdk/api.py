"""``MemoryApi``: the synchronous client interface, as a type.

``MemoryClient`` (HTTP) and ``InProcessClient`` (a container in this process) both
satisfy it, so the lifecycle helpers, the LangGraph store and the migration checks take
either; a typed check beside each client keeps it in step under ``mypy --strict``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from ._wire import BatchItem, ImportSource, Version
from .models import (
    AuditOut,
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
    InteractionOut,
    LineageOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    MemoryState,
    MemoryType,
    NoteSaveOut,
    NotesOut,
    PersonaOut,
    SearchIn,
    SearchOut,
    TurnIn,
    WriteOut,
    WriteTriggersOut,
)

__all__ = ["MemoryApi"]


class MemoryApi(Protocol):
    def write(
        self,
        content: str,
        *,
        scope: str,
        source_agent: str,
        type: MemoryType | str = ...,
        id: str | None = None,
        tags: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
        ttl: int | None = None,
        created_at: str | int | float | None = None,
        wait: bool = False,
        if_match: Version | None = None,
    ) -> WriteOut: ...

    def create(self, record: MemoryIn, *, wait: bool = False) -> WriteOut: ...

    def upsert(
        self,
        memory_id: str,
        record: MemoryIn,
        *,
        wait: bool = False,
        if_match: Version | None = None,
        if_none_match: Version | None = None,
    ) -> WriteOut: ...

    def write_many(self, items: Iterable[BatchItem], *, wait: bool = False) -> BatchWriteOut: ...

    def get(self, memory_id: str, *, min_position: int = 0) -> MemoryOut: ...

    def delete(
        self,
        memory_id: str,
        *,
        reason: str | None = None,
        wait: bool = False,
        if_match: Version | None = None,
    ) -> DeleteOut: ...

    def list_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: MemoryType | str | Sequence[MemoryType | str] | None = None,
        state: MemoryState | str | Sequence[MemoryState | str] | None = None,
        tag: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
        min_position: int = 0,
    ) -> MemoryListOut: ...

    def iter_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: MemoryType | str | Sequence[MemoryType | str] | None = None,
        state: MemoryState | str | Sequence[MemoryState | str] | None = None,
        tag: str | None = None,
        page_size: int = 200,
        min_position: int = 0,
    ) -> Iterator[MemoryOut]: ...

    def search(
        self,
        query: str,
        *,
        scope: str | None = None,
        tags: Sequence[str] | None = None,
        types: Sequence[MemoryType | str] | None = None,
        top_k: int = 10,
        mode: str = "hybrid",
        states: Sequence[MemoryState | str] | None = None,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
        rerank: bool = True,
        min_position: int = 0,
    ) -> SearchOut: ...

    def search_request(self, request: SearchIn, *, min_position: int = 0) -> SearchOut: ...

    def changes(
        self,
        scope: str | Sequence[str] | None = None,
        *,
        since: str | None = None,
        follow: bool = True,
        limit: int = 100,
        poll_timeout: float = 20.0,
    ) -> Iterator[ChangeOut]: ...

    def export_lines(self, scope: str | Sequence[str] | None = None) -> Iterator[str]: ...

    def export_to(self, path: str | Path, scope: str | Sequence[str] | None = None) -> int: ...

    def import_bundle(
        self, source: ImportSource, *, wait: bool = False, source_name: str | None = None
    ) -> ImportOut: ...

    def record_interaction(
        self,
        text: str,
        *,
        scope: str,
        source_agent: str,
        session_id: str | None = None,
        at: str | int | float | None = None,
        wait: bool = False,
    ) -> InteractionOut: ...

    def persona(
        self,
        scope: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> PersonaOut: ...

    def episodes(self, scope: str) -> EpisodesOut: ...

    def lineage(
        self,
        memory_id: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> LineageOut: ...

    def write_triggers(self, turn: TurnIn | str) -> WriteTriggersOut: ...

    def run_governance(self, *, wait: bool = False) -> GovernanceRunOut: ...

    def save_note(
        self,
        agent: str,
        topic: str | Iterable[str],
        note: str,
        *,
        type: MemoryType | str | None = None,
    ) -> NoteSaveOut: ...

    def recall_notes(
        self, agent: str, topic: str | None = None, *, min_position: int = 0
    ) -> NotesOut: ...

    def audit(
        self,
        *,
        since: str | None = None,
        actor: str | None = None,
        action: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
    ) -> AuditOut: ...

    def health(self) -> HealthOut: ...

    def erase(
        self,
        *,
        reason: str,
        scope: str | None = None,
        source_agent: str | None = None,
        ids: Sequence[str] | None = None,
        interaction_ids: Sequence[str] | None = None,
        everything: bool = False,
        erasure_id: str | None = None,
        wait: bool = False,
    ) -> ErasureOut: ...

    def erasure_receipt(self, erasure_id: str) -> ErasureReceipt: ...

    def erasure_public_key(self) -> ErasurePublicKeyOut: ...

    def forget_interaction(
        self, interaction_id: str, *, reason: str = ..., wait: bool = False
    ) -> ErasureOut: ...

    def close(self) -> None: ...
