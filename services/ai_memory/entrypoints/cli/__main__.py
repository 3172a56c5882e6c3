"""``python -m ai_memory.entrypoints.cli`` — the same as the ``ai-memory`` console script."""

from ai_memory.entrypoints.cli.launcher import main

main(prog_name="ai-memory")
