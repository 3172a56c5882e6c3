"""A deadline for request headers in ``ai-memory serve`` (uvicorn has none of its own).

A client that opens a connection and trickles header bytes (slowloris) would otherwise
hold it forever. Each connection must deliver a request's headers within
``header_timeout`` seconds of opening, or of the previous response on a kept-alive
connection; then it is closed. A request whose headers arrived is never cut off here:
its body has its own timeout (``body_limits``) and the app its own work.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderDeadline(H11Protocol):
    header_timeout = 10.0
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        idle_or_reading_headers = self.cycle is None or self.cycle.response_complete
        if idle_or_reading_headers and not self.transport.is_closing():
            self.transport.close()


def with_header_timeout(seconds: float) -> type[HeaderDeadline]:
    """The protocol class to hand uvicorn (``http=``) with this deadline."""
    return type("HeaderDeadline", (HeaderDeadline,), {"header_timeout": seconds})
