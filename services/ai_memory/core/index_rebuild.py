"""The two shapes of an index rebuild (``VectorIndex.rebuild``), for the adapters.

* ``GenerationRebuild``: a new generation beside the live index (e.g. a collection behind
  an alias); searches keep reading the live one until ``switch`` repoints them.
* ``InPlaceRebuild``: the index is reset and refilled where it is — for engines one process
  owns (the server is stopped while it runs); ``switch`` compacts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .ports import VectorIndex


@dataclass
class GenerationRebuild:
    target: VectorIndex
    switch_to: Callable[[VectorIndex], None]  # repoints searches at the new generation

    def switch(self) -> None:
        self.switch_to(self.target)

    def close(self) -> None:
        self.target.close()


@dataclass
class InPlaceRebuild:
    target: VectorIndex

    @classmethod
    def begin(cls, index: VectorIndex) -> InPlaceRebuild:
        index.reset()
        return cls(index)

    def switch(self) -> None:
        # Bulk loads leave an unindexed segment: build the search structures now, offline.
        self.target.optimize()

    def close(self) -> None:
        """The target is the live index itself: its owner closes it."""
