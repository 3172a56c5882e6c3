"""Print the server's OpenAPI document without serving it (a build step, not a command of
``ai-memory``: it starts the composition root, which only the command line may).

``python -m ai_memory.entrypoints.cli.openapi_dump [PATH]`` builds the HTTP app on a
throwaway data directory with default settings (so the document does not depend on who
runs it) and writes ``/openapi.json`` as it would be served — sorted keys, two-space
indent, so generated clients diff cleanly — to ``PATH`` or stdout. The TypeScript SDK
generates its types from it (``make sdk-ts-generate``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def document() -> dict[str, Any]:
    """The OpenAPI document of an app on a temporary data directory."""
    from ai_memory.bootstrap import build
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.settings import Settings

    with tempfile.TemporaryDirectory(prefix="aimem-openapi-") as tmp:
        container = build(Settings(data_dir=Path(tmp) / "data"))
        try:
            return create_app(container.services).openapi()
        finally:
            container.close()


def main(argv: list[str]) -> int:
    text = json.dumps(document(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if argv:
        Path(argv[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
