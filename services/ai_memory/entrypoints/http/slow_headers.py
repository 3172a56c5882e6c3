"""The HTTP protocol of ``ai-memory serve``: uvicorn's httptools parser, with a deadline
for request headers and a bound on their size (uvicorn has neither for httptools).

Why httptools: it parses HTTP/1.1 in C (llhttp) where h11 does it in Python, and it is
what ``uvicorn[standard]`` deployments run; with uvloop the server spent ≈ 0.2 ms less CPU
on a read and ≈ 0.6 ms less on a write (``loadtest/RESULTS.md``, "The HTTP server in C").
What h11 gave for free has to be added back:

* **A header deadline.** A client that opens a connection and trickles header bytes
  (slowloris) would otherwise hold it forever. Each connection must deliver a request's
  headers within ``header_timeout`` seconds of opening, or of the previous response on a
  kept-alive connection; then it is closed. A request whose headers arrived is never cut
  off here: its body has its own timeout (``body_limits``) and the app its own work.
* **A size bound.** httptools hands every header to the protocol as it parses, and
  uvicorn keeps them all: a client streaming one endless header would grow the server's
  memory until the deadline. The request line and headers of one request may take
  ``MAX_HEAD_BYTES``; beyond it the answer is ``431`` problem+json, and the connection
  closes once what is still arriving has drained (read and dropped, never parsed).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .problems import PROBLEM_JSON, problem_body

# The request line plus all headers of one request. Browsers send a few KiB; 64 KiB is
# what h11 buffered here before (``h11_max_incomplete_event_size``), twice nginx's default
# (``large_client_header_buffers 4 8k``).
MAX_HEAD_BYTES = 64 * 1024
# How long a refused request's connection keeps draining before it is closed (_linger).
LINGER_SECONDS = 2.0


class HeaderDeadline(HttpToolsProtocol):
    header_timeout = 10.0
    _deadline: asyncio.TimerHandle | None = None
    _reading_head = True
    _head_bytes = 0
    _head_too_large = False
    _discarding = False

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    # The size bound. httptools hands a header over only once its line is complete and
    # buffers a partial one inside the parser, so the bytes are counted as they arrive:
    # from the end of the previous request to the end of this one's headers.
    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return  # the rest of a refused request: read and dropped, never parsed
        if self._reading_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._reading_head and self._head_bytes > MAX_HEAD_BYTES and not self._discarding:
            # Still no end of the headers after the bound (a chunk that also carried the
            # body completed them above, whatever its size).
            self._head_too_large = True
            self.send_400_response("")

    def on_headers_complete(self) -> None:
        self._reading_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # What follows is the next request's head; a pipelined one that began in the
        # chunk just parsed is counted from the next chunk (at most one chunk unseen).
        self._reading_head, self._head_bytes = True, 0

    def send_400_response(self, msg: str) -> None:
        """Answer a request the parser refused, as problem+json (uvicorn's is text)."""
        if self._head_too_large:
            status, reason = 431, b"Request Header Fields Too Large"
            body = problem_body(
                431,
                "headers_too_large",
                f"the request line and headers exceed {MAX_HEAD_BYTES} bytes",
                field="headers",
            )
        else:
            status, reason = 400, b"Bad Request"
            body = problem_body(400, "malformed_request", "not a valid HTTP/1.1 request")
        payload = json.dumps(body).encode()
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s"
            % (status, reason, PROBLEM_JSON.encode(), len(payload), payload)
        )
        self._linger()

    def _linger(self) -> None:
        """Close after the answer, the way nginx's ``lingering_close`` does.

        A client still sending the refused request has unread bytes in our receive
        buffer; closing at once makes the kernel answer with a reset that destroys the
        response in flight, so the client sees "connection reset" instead of the
        problem. Half-close instead (the response and a FIN go out), drop whatever
        still arrives, and close for good after ``LINGER_SECONDS``."""
        self._discarding = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    # The deadline.
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
