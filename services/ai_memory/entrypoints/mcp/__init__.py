"""MCP: the agent tools as an MCP server (stdio and streamable HTTP)."""
