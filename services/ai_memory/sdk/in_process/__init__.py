"""``InProcessClient``: the ``MemoryClient`` interface over the services of a container
in this process — no HTTP, no server. For embedded use (a tool that opens a data dir,
tests, notebooks) and for code written against the client that should run either way.

It answers with the same models and raises the same typed errors as the HTTP client:
each call does what the HTTP route does (the same service call, the same JSON shape,
the same read-your-writes wait) and a domain error becomes the SDK error of the status
the server would have answered. It needs the server's dependencies (``ai-memory[server]``);
``import ai_memory.sdk`` never imports this module.

    from ai_memory.bootstrap import build
    from ai_memory.sdk.in_process import InProcessClient

    container = build(settings)
    container.start()
    memory = InProcessClient(container)

The client is split by area — memories and search (``client``), change feed and
export/import (``transfer``), governed memory, notes and operations (``governance``),
subject erasure (``erasure``) — over one base (``base``) holding the container.
"""

from __future__ import annotations

from .client import InProcessClient
from .errors import as_sdk_error

__all__ = ["InProcessClient", "as_sdk_error"]
