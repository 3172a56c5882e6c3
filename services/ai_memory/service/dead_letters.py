"""Events a projection parked: list, show, re-drive, discard (``ai-memory dead-letters``).

The store is a port; re-driving needs the log and the projection's sink, which only the
composition root can open, so it is handed in as a callable (``None``: this service was
opened without the views, for the operations that only touch the store).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeadLetter, DeadLetters

LIMIT = 1_000_000  # "every entry": far more than a deployment should ever park


@dataclass(frozen=True)
class Redriven:
    letter: DeadLetter
    resolved: bool  # False: it failed again and stays, with the new error
    error: str | None = None


# Re-drives one entry of the projection it was made for.
Redrive = Callable[[DeadLetter], Redriven]
# The projection's re-drive; raises ``InvalidInput`` when the deployment lacks it.
RedriveFor = Callable[[str], Redrive]


class DeadLetterService:
    def __init__(
        self,
        store: DeadLetters,
        *,
        describe: Callable[[bytes], str],
        redrive_for: RedriveFor | None = None,
        close: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._describe = describe
        self._redrive_for = redrive_for
        self._close = close or store.close

    def entries(self, projection: str | None = None) -> list[DeadLetter]:
        """Unresolved entries, oldest position first."""
        return self._store.entries(projection, limit=LIMIT)

    def get(self, projection: str, position: int) -> DeadLetter | None:
        return self._store.get(projection, position)

    def describe(self, entry: DeadLetter) -> str:
        """The parked event, decoded (raises whatever decoding raises: that is news)."""
        return self._describe(entry.raw)

    def discard(self, chosen: list[DeadLetter]) -> int:
        """Remove entries without applying them; how many were still there."""
        return sum(self._store.resolve(e.projection, e.position) for e in chosen)

    def redriver(self, projection: str) -> Redrive:
        if self._redrive_for is None:
            raise InvalidInput(
                "projection", "unavailable", "re-driving needs the views: open with redrive"
            )
        return self._redrive_for(projection)

    def close(self) -> None:
        self._close()
