"""The periodic governor: runs a governance pass for each configured tenant every
``interval`` seconds (TTL expiry, soft forgetting, slow-update takeovers), each decision
appended as a ``MemoryStateChanged`` event with its cause."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from .governance import GovernanceService

log = logging.getLogger(__name__)


class Governor:
    def __init__(
        self, governance: GovernanceService, tenants: Sequence[str], interval: float
    ) -> None:
        self.governance = governance
        self.tenants = list(tenants)
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.passes = 0
        self.transitions = 0

    def run_once(self) -> int:
        done = 0
        for tenant in self.tenants:
            try:
                done += len(self.governance.govern(tenant))
            except Exception:  # a failed pass is retried at the next interval
                log.exception("governor pass failed for tenant %s", tenant)
        self.passes += 1
        self.transitions += done
        return done

    def start(self) -> None:
        if self.interval > 0 and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="governor", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.run_once()
