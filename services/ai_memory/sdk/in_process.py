"""The SDK client over a deployment in this process: ``MemoryClient`` (and
``AsyncMemoryClient``) with the HTTP app as their transport — no socket, no server, and
no second implementation of any route. For embedded use (a tool that opens a data dir,
tests, notebooks) and for code written against the client that should run either way.

    from ai_memory.bootstrap import build
    from ai_memory.sdk.in_process import InProcessClient

    container = build(settings)
    container.start()
    memory = InProcessClient(container)               # the embedded deployment's caller
    reader = InProcessClient(container, api_key=key)  # exactly that key: a reader gets 403

Each call is the HTTP request the network client would send, answered by the same app
(``entrypoints.http.app.create_app``) over the same services, so it is judged, limited
and answered as over HTTP: the same models, the same typed errors, the same rules.

**The caller.** With ``api_key`` the client is that key, as over HTTP. Without one it is
the embedded deployment's own caller: the app is served as in open development mode (no
key door), exactly as the HTTP app treats a request without a key while no key exists —
tenant ``default``, every scope. ``tenant`` names another tenant for that caller (open
mode has no way to say it over HTTP, so the request carries an admin principal of that
tenant, as an admin key of it would); ``actor`` is what the events it causes record
(``migrate``, say) instead of what open mode records (the writing agent, or the route's
``api``/``import``/``http``).

**The transports.** The async client runs the app on the caller's loop
(``httpx.ASGITransport``). The sync client's ``ThreadedAsgiTransport`` runs it on one
private event loop in a daemon thread, shared by every sync in-process client of the
process: each request is a coroutine handed to that loop, the calling thread waits for
its answer (as Starlette's ``TestClient`` does with its portal, without depending on a
test utility). Building the app is slow (~0.2 s), so one app per services object and
caller kind is kept (a few, least recently used first out).

It needs the server's dependencies (``ai-memory[server]``); ``import ai_memory.sdk``
never imports this module.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Coroutine
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_memory.core.access import AccessPrincipal
from ai_memory.core.record import DEFAULT_TENANT
from ai_memory.service.acting import acting_as
from ai_memory.service.facade import Services

from .async_client import AsyncMemoryClient
from .client import MemoryClient
from .retry import RetryPolicy

if TYPE_CHECKING:
    from ai_memory.bootstrap import Container

__all__ = [
    "AsyncInProcessClient",
    "InProcessClient",
    "Options",
    "ThreadedAsgiTransport",
    "asgi_app",
]

T = TypeVar("T")
#: The base URL of in-process requests (a host the app's trusted-host check admits).
BASE_URL = "http://localhost"
# Where the HTTP door leaves the caller's principal for the routes (``auth.principal_of``
# reads it; in open mode the door leaves it as it finds it).
_PRINCIPAL = "principal"
# The key id of the principal ``tenant=`` presents (events it causes record it as actor).
EMBEDDED_KEY_ID = "in-process"


def _services(target: Container | Services) -> Services:
    return target if isinstance(target, Services) else target.services


# The apps built so far, newest last: (id of the services, with keys) → (services, app).
# The services stay referenced here, so their id is never another object's meanwhile.
_APPS: OrderedDict[tuple[int, bool], tuple[Services, ASGIApp]] = OrderedDict()
_APPS_KEPT = 8
_APPS_LOCK = threading.Lock()


def _app(services: Services, with_keys: bool) -> ASGIApp:
    """The HTTP app over ``services``: with the key door when a key is given, else as the
    open deployment (no key store: every request is the open caller)."""
    from ai_memory.entrypoints.http.app import create_app

    key = (id(services), with_keys)
    with _APPS_LOCK:
        if key in _APPS:
            _APPS.move_to_end(key)
            return _APPS[key][1]
        app = create_app(services if with_keys else replace(services, keys=None))
        _APPS[key] = (services, app)
        if len(_APPS) > _APPS_KEPT:
            _APPS.popitem(last=False)
        return app


class _EmbeddedCaller:
    """ASGI middleware: every request is ``principal`` (None: the open caller), and the
    events it causes record ``actor`` (None: what the route records)."""

    def __init__(self, app: ASGIApp, principal: AccessPrincipal | None, actor: str | None):
        self.app, self.principal, self.actor = app, principal, actor

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.principal is not None:
            scope = {**scope, "state": {**scope.get("state", {}), _PRINCIPAL: self.principal}}
        with acting_as(self.actor):
            await self.app(scope, receive, send)


def asgi_app(
    target: Container | Services,
    *,
    api_key: str | None = None,
    tenant: str | None = None,
    actor: str | None = None,
) -> ASGIApp:
    """The app an in-process client of ``target`` talks to, as the caller the module
    docstring describes."""
    if api_key is not None and (tenant is not None or actor is not None):
        raise ValueError("with api_key the key is the caller: its tenant and its actor")
    app = _app(_services(target), api_key is not None)
    principal = None
    if tenant is not None and tenant != DEFAULT_TENANT:
        principal = AccessPrincipal(tenant, EMBEDDED_KEY_ID, "admin", ("*",))
    if principal is None and actor is None:
        return app
    return _EmbeddedCaller(app, principal, actor)


class _LoopThread:
    """A private event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, name="ai-memory-in-process", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        # Run a root task that never ends rather than ``run_forever``: the worker threads
        # that run the app's sync routes (anyio's) are kept while the loop's root task
        # lives, and without one each request's task is the root, so every request would
        # start a new thread (~3 ms a call).
        self.loop.run_until_complete(_forever())

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for its result in this thread."""
        if threading.current_thread() is self.thread:
            coroutine.close()
            # Waiting here for the loop we are running on would never return.
            raise RuntimeError("a sync in-process call from inside the app: use the async client")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


async def _forever() -> None:
    await asyncio.Event().wait()


@cache
def _loop_thread() -> _LoopThread:
    return _LoopThread()


class _AsyncChunks(httpx.AsyncByteStream):
    """A sync request body (an import streamed from a file, say) as the async stream
    ``ASGITransport`` reads; its chunks are pulled on the loop thread, one at a time."""

    def __init__(self, stream: httpx.SyncByteStream | httpx.AsyncByteStream) -> None:
        self.stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if isinstance(self.stream, httpx.AsyncByteStream):
            async for chunk in self.stream:
                yield chunk
        else:
            for chunk in self.stream:
                yield chunk


class ThreadedAsgiTransport(httpx.BaseTransport):
    """A sync httpx transport answering from an ASGI app on the private loop thread."""

    def __init__(self, app: ASGIApp) -> None:
        # Like the network: an app's failure is a 500 answer, not an exception here.
        self.asgi = httpx.ASGITransport(app=app, raise_app_exceptions=False)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        stream = request.stream
        assert isinstance(stream, httpx.SyncByteStream | httpx.AsyncByteStream)
        body = _AsyncChunks(stream)
        forwarded = httpx.Request(request.method, request.url, headers=request.headers, stream=body)
        status, headers, content = _loop_thread().run(self._answer(forwarded))
        # The body is whole already (ASGITransport collects it), so no stream is held.
        return httpx.Response(status, headers=headers, stream=httpx.ByteStream(content))

    async def _answer(self, request: httpx.Request) -> tuple[int, httpx.Headers, bytes]:
        response = await self.asgi.handle_async_request(request)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        content = b"".join([chunk async for chunk in response.stream])  # still encoded
        return response.status_code, response.headers, content


class Options(TypedDict, total=False):
    """Who an in-process client is (see the module docstring), and its retries."""

    api_key: str | None
    tenant: str | None
    actor: str | None
    retries: int | RetryPolicy


def _client_options(target: Container | Services, caller: Options) -> dict[str, Any]:
    """The ``MemoryClient``/``AsyncMemoryClient`` arguments (but the transport)."""
    api_key = caller.get("api_key")
    app = asgi_app(target, api_key=api_key, tenant=caller.get("tenant"), actor=caller.get("actor"))
    return {"app": app, "api_key": api_key, "retries": caller.get("retries", 3)}


class InProcessClient(MemoryClient):
    """``MemoryClient`` over ``target``'s HTTP app in this process, as ``caller``. The
    container belongs to the caller: ``close`` does not close it."""

    def __init__(self, target: Container | Services, **caller: Unpack[Options]) -> None:
        options = _client_options(target, caller)
        transport = ThreadedAsgiTransport(options.pop("app"))
        super().__init__(BASE_URL, transport=transport, **options)


class AsyncInProcessClient(AsyncMemoryClient):
    """``AsyncMemoryClient`` over ``target``'s HTTP app, on the caller's event loop."""

    def __init__(self, target: Container | Services, **caller: Unpack[Options]) -> None:
        options = _client_options(target, caller)
        transport = httpx.ASGITransport(app=options.pop("app"), raise_app_exceptions=False)
        super().__init__(BASE_URL, transport=transport, **options)
