"""What a load needs projected, in log positions, from the tokens its writes returned
(``ai_memory.benchmarks.positions`` decodes them with the deployment's own secret)."""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.benchmarks.positions import log_positions, settings_of
from ai_memory.core.positions import partition_of

__all__ = ["Acked", "log_positions", "settings_of"]


class Acked(dict[int, int]):
    """The highest log position per partition a load's writes were acknowledged at: what
    every view must reach before the load counts as projected. Fed the tokens the writes
    returned (``note``), it keeps their decoded positions (``position_of``:
    ``log_positions`` of the writers' tenant)."""

    def __init__(self, position_of: Callable[[int], int]) -> None:
        super().__init__()
        self.position_of = position_of

    def note(self, token: int | None) -> None:
        if token:
            position = self.position_of(token)
            p = partition_of(position)
            self[p] = max(self.get(p, 0), position)
