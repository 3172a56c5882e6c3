"""``DeadLetters`` in a dict keyed by (projection, position)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from ai_memory.core.ports import DeadLetter


@dataclass
class DeadLetterBacking:
    letters: dict[tuple[str, int], DeadLetter] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryDeadLetters:
    def __init__(self, backing: DeadLetterBacking | None = None) -> None:
        self.backing = backing or DeadLetterBacking()

    def put(self, letter: DeadLetter) -> DeadLetter:
        key = (letter.projection, letter.position)
        with self.backing.lock:
            old = self.backing.letters.get(key)
            if old is not None:
                # As the SQLite table: the first failure and the known bytes are kept.
                letter = replace(
                    letter,
                    partition=old.partition,
                    raw=letter.raw or old.raw,
                    attempts=old.attempts + letter.attempts,
                    first_failed_at=old.first_failed_at,
                )
            self.backing.letters[key] = letter
            return letter

    def get(self, projection: str, position: int) -> DeadLetter | None:
        with self.backing.lock:
            return self.backing.letters.get((projection, position))

    def entries(self, projection: str | None = None, *, limit: int = 1000) -> list[DeadLetter]:
        with self.backing.lock:
            keys = sorted(k for k in self.backing.letters if projection in (None, k[0]))
            return [self.backing.letters[k] for k in keys[:limit]]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        with self.backing.lock:
            for projection, _ in sorted(self.backing.letters):
                out[projection] = out.get(projection, 0) + 1
        return out

    def resolve(self, projection: str, position: int) -> bool:
        with self.backing.lock:
            return self.backing.letters.pop((projection, position), None) is not None

    def close(self) -> None:
        pass
