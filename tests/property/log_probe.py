"""What a write appended to the log, leaving out read reinforcement.

Searches and note reads record ``MemoriesRecalled`` events from a background thread at
any moment, so "nothing was appended" means: no event other than those."""

from __future__ import annotations

from ai_memory.bootstrap import Container
from ai_memory.core.events import DomainEvent, MemoriesRecalled


def appended_since(container: Container, position: int) -> list[DomainEvent]:
    events = container.log.read(after=position, limit=10_000)
    return [e.event for e in events if not isinstance(e.event, MemoriesRecalled)]
