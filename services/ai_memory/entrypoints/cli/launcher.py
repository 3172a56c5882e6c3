"""The ``ai-memory`` console script. Standard library only, so that a client-only install
(``pip install ai-memory``) answers a command it cannot run with the extra to install
instead of a traceback."""

from __future__ import annotations

import os
import sys

# Top-level modules of each extra that are not part of the base install.
_EXTRA_OF = {
    "typer": "cli",
    "rich": "cli",
    "pydantic_settings": "cli",
    "click": "cli",
    "langgraph": "langgraph",
    "aiokafka": "distributed",
    "cassandra": "distributed",
    "mode": "distributed",
    "qdrant_client": "distributed",
}


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The extra that provides the module ``error`` misses; None for our own modules
    (a bug, not an install problem)."""
    top = (error.name or "").split(".")[0]
    if not top or top == "ai_memory":
        return None
    return _EXTRA_OF.get(top, "server")


def explain(error: ModuleNotFoundError, extra: str) -> str:
    what = {
        "cli": "the command line",
        "server": "this command (it runs the server or works on its data)",
        "distributed": "this command (it needs the distributed adapters)",
        "langgraph": "this command",
    }[extra]
    return (
        f"ai-memory: {what} needs the '{extra}' extra (module {error.name!r} is not "
        f"installed):\n    pip install 'ai-memory[{extra}]'"
    )


# A data directory another process holds (``adapters.data_dir_lock``): nothing was
# touched; try again once that process has stopped (sysexits' EX_TEMPFAIL).
EXIT_IN_USE = 75


def main(prog_name: str | None = None) -> None:
    from ai_memory.core.errors import DataDirInUse

    # Everything a command creates — data files, keys, exports — is its owner's alone
    # (adapters/private_dir.py): memory content is never world-readable by accident.
    os.umask(0o077)
    try:
        from ai_memory.entrypoints.cli.main import app

        app(prog_name=prog_name)
    except DataDirInUse as e:
        print(f"ai-memory: {e}", file=sys.stderr)
        sys.exit(EXIT_IN_USE)
    except ModuleNotFoundError as e:
        extra = missing_extra(e)
        if extra is None:
            raise
        print(explain(e, extra), file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
