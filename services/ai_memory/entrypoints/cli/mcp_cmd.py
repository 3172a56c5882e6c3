"""``ai-memory mcp``: the memory tools over MCP on stdin/stdout.

An MCP client (an agent host) launches this command and speaks MCP on its stdin/stdout.
It runs an embedded container on ``AIMEM_DATA_DIR`` exactly like ``ai-memory serve``
(projections and the governor in this process, so stop any server on the same data
directory first) and exits cleanly when the client closes stdin. stdout carries only MCP
messages; logs go to stderr.

Once the deployment has API keys, the process needs one in ``AIMEM_API_KEY`` (it does
not start without a valid one) and every tool call is judged as that key — its tenant,
role and scopes — exactly as over HTTP; events record it as their actor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer

from ai_memory.core.errors import AiMemoryError

if TYPE_CHECKING:
    from ai_memory.core.access import AccessPrincipal
    from ai_memory.service.keys import KeyService


def session_key(keys: KeyService | None, token: str | None) -> Callable[[], AccessPrincipal] | None:
    """The caller of a stdio session: None in open development mode (the deployment
    itself); else the key in
    ``AIMEM_API_KEY``, refused now if it is not valid and checked again on every call
    (through the key cache), so revoking it ends the session's rights within seconds."""
    if keys is None or not keys.required():
        return None
    keys.authenticate(token)  # Unauthenticated: the process does not start

    def current() -> AccessPrincipal:
        return keys.authenticate(token)

    return current


def mcp_cmd(
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
) -> None:
    """Serve the memory and notes tools over MCP (stdio) on an embedded data directory."""
    from ai_memory.bootstrap import build
    from ai_memory.entrypoints import heap_freeze
    from ai_memory.entrypoints.mcp.server import build_server, serve_stdio
    from ai_memory.settings import Settings

    logging.basicConfig(level=logging.WARNING)  # stderr: stdout belongs to the protocol
    overrides: dict[str, object] = {} if data_dir is None else {"data_dir": data_dir}
    # On Kafka a stdio server appends through the gateways (it owns no partition).
    settings = Settings.from_env(**overrides)
    container = build(settings, owns_partitions=False)
    try:
        session = session_key(container.services.keys, settings.api_key.get_secret_value() or None)
    except AiMemoryError as e:
        container.close()
        typer.echo(f"ai-memory mcp: {e} (set AIMEM_API_KEY to a key of this deployment)", err=True)
        raise typer.Exit(2) from None
    container.start(governor=True)
    # The same frozen heap as ``serve``'s: an agent's searches wait for no long collection.
    heap_freeze.start_for(container.services.index_compaction)
    try:
        anyio.run(serve_stdio, build_server(container.services, session_caller=session))
    except KeyboardInterrupt:
        pass
    finally:
        container.close()
