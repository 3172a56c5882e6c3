"""A serving process's long-lived heap, frozen out of the collector's full collections.

A full collection walks every container the process tracks, and holds the interpreter
lock while it does: at 100,000 memories an embedded server's took 156–191 ms, every
≈ 11 s under 100 writes/s and searches, and was the longest latency of every search run.
Almost all of that heap lives as long as the process (modules, the app, an index's
timelines and kept turn fields, caches), so there is nothing for the collector to find in
it. ``gc.freeze()`` moves everything alive into a permanent generation that collections
skip: measured, full collections then took 12–19 ms (every ≈ 6 s), the longest search of
7,000 fell from 199 to 65 ms (``loadtest/RESULTS.md``, "The collector's pauses").

When:

* **once the process is ready** (``ready``: the index has read its points into
  conversation context's timelines), after one last full collection so that no garbage
  is frozen — or after ``ready_timeout`` whatever ``ready`` says;
* **again when the heap has grown** (a guard: a server started empty and given 60,000
  memories kept its full collections at 15–29 ms, the freeze of its start sufficing):
  when a full collection took at least ``refreeze_pause`` and the last freeze is
  ``refreeze_every`` old, its survivors are frozen without another collection (the one
  that just ran found the garbage; cycles made in the moment since stay, which is the
  cost of not pausing twice).

Frozen objects are still freed when nothing refers to them (reference counting); only a
reference cycle among them would outlive its last reference, as with any object the
collector never looks at again.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ai_memory.telemetry import gc_pauses
from ai_memory.telemetry.gc_pauses import GcPauses

log = logging.getLogger(__name__)

READY_TIMEOUT = 300.0  # s: freeze anyway; an index past its timelines' limit never warms
REFREEZE_PAUSE = 0.05  # s: a full collection this long means a grown unfrozen heap
REFREEZE_EVERY = 60.0  # s: at most one freeze per this long
POLL = 1.0  # s


def freeze_heap(collect: bool) -> None:
    if collect:
        gc.collect()
    gc.freeze()


@dataclass(frozen=True)
class Policy:
    refreeze_pause: float = REFREEZE_PAUSE
    refreeze_every: float = REFREEZE_EVERY

    def refreeze_due(
        self, last_full: tuple[float, float] | None, frozen_at: float, now: float
    ) -> bool:
        """Whether to freeze again: the latest full collection (its pause, when it ended)
        came after the last freeze and was long, and that freeze is old enough."""
        if last_full is None:
            return False
        pause, ended = last_full
        return (
            ended > frozen_at
            and pause >= self.refreeze_pause
            and now - frozen_at >= self.refreeze_every
        )


class HeapFreezer:
    """A daemon thread that freezes the heap when ``ready()`` and again as it grows."""

    def __init__(
        self,
        pauses: GcPauses,
        ready: Callable[[], bool],
        *,
        policy: Policy | None = None,
        ready_timeout: float = READY_TIMEOUT,
        poll: float = POLL,
        freeze: Callable[[bool], None] = freeze_heap,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pauses = pauses
        self._ready = ready
        self._policy = policy or Policy()
        self._ready_timeout = ready_timeout
        self._poll = poll
        self._freeze = freeze
        self._monotonic = monotonic
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="aimem-heap-freeze", daemon=True)
        self.freezes = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _is_ready(self) -> bool:
        try:
            return self._ready()
        except Exception:  # a status read failing is not a reason to never freeze
            log.debug("heap freeze: readiness not known", exc_info=True)
            return False

    def _run(self) -> None:
        deadline = self._monotonic() + self._ready_timeout
        while not self._is_ready() and self._monotonic() < deadline:
            if self._stop.wait(self._poll):
                return
        frozen_at = self._do_freeze(collect=True)
        while not self._stop.wait(self._poll):
            now = self._monotonic()
            if self._policy.refreeze_due(self._pauses.last_full, frozen_at, now):
                frozen_at = self._do_freeze(collect=False)

    def _do_freeze(self, collect: bool) -> float:
        self._freeze(collect)
        self.freezes += 1
        log.info("heap frozen out of full collections: %d objects", gc.get_freeze_count())
        return self._monotonic()


def start_for(index_status: Callable[[], dict[str, float]] | None) -> HeapFreezer:
    """The freezer of a process (``serve``, ``mcp``, ``project``) whose index reports
    ``index_status`` (``compaction_status``; None or no ``context_warming``: nothing to
    wait for), its pauses measured."""
    status = index_status or dict
    freezer = HeapFreezer(gc_pauses.watch(), lambda: not status().get("context_warming", 0.0))
    freezer.start()
    return freezer
