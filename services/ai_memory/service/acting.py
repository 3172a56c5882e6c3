"""Who is acting: the authenticated actor of the request being served.

The door (HTTP ``KeyDoor``) authenticates a key and sets it here for the rest of the
request; the unit of work reads it when it writes an event header, so every event a key
causes records that key (``key:<id>``) as its actor — whatever the service, whatever the
agent claims. ``source_agent`` stays what the agent says it is; the actor is who it is.
Without a key (open development mode, the CLI on a data directory, the governor) the
actor is what the caller names, as before keys existed.

A context variable, because it follows the request through ``await`` and into the worker
thread a synchronous route runs on (both copy the context) without every service
signature carrying it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_actor: ContextVar[str | None] = ContextVar("ai_memory_authenticated_actor", default=None)


@contextmanager
def acting_as(actor: str | None) -> Iterator[None]:
    """Within the block, events record ``actor`` (None: no authenticated actor)."""
    token = _actor.set(actor)
    try:
        yield
    finally:
        _actor.reset(token)


def authenticated_actor() -> str | None:
    return _actor.get()
