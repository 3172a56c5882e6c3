"""``python -m ai_memory.entrypoints.cli`` — the same as the ``ai-memory`` console script."""

from ai_memory.entrypoints.cli.main import app

app(prog_name="ai-memory")
