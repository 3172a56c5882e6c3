"""Request bodies are bounded before they are read, and while they stream.

A declared ``Content-Length`` over the route's limit is refused at once (413), without
reading a byte of the body; a chunked or under-declared body is counted as it arrives
and refused the moment it passes the limit. A client that stops sending mid-body is cut
off after ``timeout`` seconds of silence (408), so a slow upload cannot hold a request
open forever. Limits depend on the route class: JSON bodies are small, imports large.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class EdgeRefusal(Exception):
    """A request the edge refuses as a whole (mapped to a problem+json response)."""

    status = 400
    code = "bad_request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class BodyTooLarge(EdgeRefusal):
    status = 413
    code = "body_too_large"


class BodyTimeout(EdgeRefusal):
    status = 408
    code = "body_timeout"


class BadContentLength(EdgeRefusal):
    status = 400
    code = "bad_content_length"


def refusal_behind(exc: BaseException | None, depth: int = 0) -> EdgeRefusal | None:
    """The edge refusal (body too large, too slow) behind ``exc``, even inside a group
    or re-raised by a library as another error."""
    if exc is None or depth > 8:
        return None
    if isinstance(exc, EdgeRefusal):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = refusal_behind(inner, depth + 1)
            if found is not None:
                return found
    return refusal_behind(exc.__cause__ or exc.__context__, depth + 1)


class BodyLimit:
    """``limit_for(path)`` → the most bytes a body on that path may have; ``subject`` is
    whose limit the refusal names (a tenant's own limit reuses this, ``rate_limits``)."""

    def __init__(
        self,
        app: ASGIApp,
        limit_for: Callable[[str], int],
        timeout: float,
        subject: str = "this route",
    ) -> None:
        self.app = app
        self.limit_for = limit_for
        self.timeout = timeout
        self.subject = subject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                raise BadContentLength(f"Content-Length {declared[:40]!r} is not a byte count")
            if int(declared) > limit:
                raise BodyTooLarge(
                    f"the body declares {int(declared)} bytes; {self.subject} takes at most "
                    f"{limit} bytes"
                )
        received = 0
        complete = False

        async def limited_receive() -> Message:
            nonlocal received, complete
            if complete:  # after the body: waiting for a disconnect is not a body read
                return await receive()
            try:
                # asyncio's own timeout, not anyio's cancel scope: the same deadline on
                # the same task for a third of the CPU, on every request with a body.
                async with asyncio.timeout(self.timeout):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeout(
                    f"no part of the body arrived for {self.timeout:g}s; send it faster"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(
                        f"the body passed {limit} bytes, the most {self.subject} takes"
                    )
                complete = not message.get("more_body", False)
            return message

        await self.app(scope, limited_receive, send)
