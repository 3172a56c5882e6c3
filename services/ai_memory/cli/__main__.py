"""``python -m ai_memory.cli`` — the same as the ``ai-memory`` console script."""

from ai_memory.cli.main import app

app(prog_name="ai-memory")
