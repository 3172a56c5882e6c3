"""``ai-memory mcp``: the memory tools over MCP on stdin/stdout.

An MCP client (an agent host) launches this command and speaks MCP on its stdin/stdout.
It runs an embedded container on ``AIMEM_DATA_DIR`` exactly like ``ai-memory serve``
(projections and the governor in this process, so stop any server on the same data
directory first) and exits cleanly when the client closes stdin. stdout carries only MCP
messages; logs go to stderr.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import anyio
import typer


def mcp_cmd(
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
) -> None:
    """Serve the memory and notes tools over MCP (stdio) on an embedded data directory."""
    from ai_memory.bootstrap import build
    from ai_memory.entrypoints.mcp.server import build_server, serve_stdio
    from ai_memory.settings import Settings

    logging.basicConfig(level=logging.WARNING)  # stderr: stdout belongs to the protocol
    overrides: dict[str, object] = {} if data_dir is None else {"data_dir": data_dir}
    # On Kafka a stdio server appends through the gateways (it owns no partition).
    container = build(Settings.from_env(**overrides), owns_partitions=False)
    container.start(governor=True)
    try:
        anyio.run(serve_stdio, build_server(container.services))
    except KeyboardInterrupt:
        pass
    finally:
        container.close()
