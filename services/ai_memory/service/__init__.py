"""The service layer: every entry point (HTTP, MCP, CLI) calls these use cases."""
