"""``python -m ai_memory.entrypoints.cli.openapi_doc > docs/openapi.json``: the OpenAPI
document of a server with the default settings, as committed (``make docs``).

A process of its own, like the command line: it wires a throw-away server (on a temporary
data directory) to ask its app for the document, and prints it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from ai_memory.bootstrap import build
from ai_memory.settings import Settings

from ..http.app import create_app
from ..http.openapi_doc import render


def generated() -> dict[str, Any]:
    """The document of a server with the default settings."""
    with tempfile.TemporaryDirectory() as scratch:
        container = build(Settings(data_dir=Path(scratch) / "data"))
        try:
            return create_app(container.services).openapi()
        finally:
            container.close()


def main() -> None:
    sys.stdout.write(render(generated()))


if __name__ == "__main__":
    main()
