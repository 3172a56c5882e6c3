"""What every part of the in-process client stands on: the container, the tenant, the
actor, and the read-your-writes wait."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Self

from ai_memory.core.record import DEFAULT_TENANT

if TYPE_CHECKING:
    from ai_memory.bootstrap import Container

__all__ = ["InProcessBase"]


class InProcessBase:
    """``MemoryClient``'s methods over ``container``'s services, as ``tenant``.

    ``actor`` replaces the actor the HTTP routes record for deletes, imports and erasures
    (``api`` / ``import`` / ``http``), e.g. ``"migrate"``. The container belongs to the
    caller: ``close`` does not close it."""

    def __init__(
        self, container: Container, *, tenant: str = DEFAULT_TENANT, actor: str | None = None
    ) -> None:
        self.container = container
        self.tenant = tenant
        self.actor = actor
        self._memory = container.service

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release: the container is the caller's."""

    def _reach(self, min_position: int) -> None:
        if min_position:
            self._memory.check_position(min_position)
            self._memory.wait_for(min_position)
