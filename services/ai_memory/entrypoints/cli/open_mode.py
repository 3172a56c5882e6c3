"""``serve --insecure-open``: said loudly for as long as it is true.

Open development mode beyond loopback means anyone who reaches the port is the
deployment itself (tenant ``default``, every right). The flag is allowed for development,
so the server starts; but it logs a warning at start and every hour, and ``/healthz``
carries it in ``warnings``, until a key exists (then requests need one and the mode is
over: the key store is asked each time, as the auth door asks it).
"""

from __future__ import annotations

import logging
import threading

from ai_memory.service.keys import KeyService

log = logging.getLogger("ai_memory.serve")

EVERY = 3600.0


class OpenModeWarning:
    def __init__(self, keys: KeyService | None, bind: str, *, every: float = EVERY) -> None:
        self.keys = keys
        self.bind = bind
        self.every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def message(self) -> str | None:
        """The warning while the mode lasts, else None."""
        if self.keys is not None and self.keys.required():
            return None
        return (
            f"open development mode on {self.bind} (--insecure-open): no API key exists, so "
            "anyone who reaches the port can read, search and forget every memory; create "
            "a key (ai-memory keys create) to close it"
        )

    def start(self) -> None:
        self._say()
        self._thread = threading.Thread(target=self._run, name="open-mode-warning", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._say()

    def _say(self) -> None:
        try:
            message = self.message()
        except Exception:  # the key store is down: say it anyway, it may be open
            log.warning("open development mode on %s (--insecure-open)", self.bind)
            return
        if message is not None:
            log.warning(message)
