"""The doors: each transport translates its protocol into calls of the services facade
(``ai_memory.service.facade.Services``) and sees nothing else of the server — no adapter,
no composition container, no projector, no serialization (``tests/architecture``).

* ``http``: the FastAPI app (routes, problem+json, body limits, browser guards, metrics);
* ``mcp``: the MCP server (stdio and streamable HTTP at ``/mcp``);
* ``a2a``: the A2A agent card and JSON-RPC endpoint at ``/a2a``;
* ``agent_tools`` / ``agent_tool_specs``: the tools an agent calls, shared by MCP and A2A;
* ``cli``: the ``ai-memory`` command line. It is the process's ``main``, so unlike the
  transports it may call the composition root (``ai_memory.bootstrap``) to build what it
  runs — still never an adapter, a projector or the serialization directly.

This package and ``cli`` import nothing at load time: the console script
(``cli.launcher``) must start on a client-only install to name the missing extra.
"""
