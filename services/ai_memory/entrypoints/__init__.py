"""The doors: each transport translates its protocol into calls of the services facade
(``ai_memory.service.facade.Services``) and sees nothing else of the server — no adapter,
no composition container, no projector, no serialization (``tests/architecture``).

* ``http``: the FastAPI app (routes, problem+json, body limits, browser guards, metrics);
* ``mcp``: the MCP server (stdio and streamable HTTP at ``/mcp``);
* ``a2a``: the A2A agent card and JSON-RPC endpoint at ``/a2a``;
* ``agent_tools`` / ``agent_tool_specs``: the tools an agent calls, shared by MCP and A2A.

The command line (``ai_memory.cli``) will join them here.
"""
