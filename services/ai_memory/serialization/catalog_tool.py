"""Check the schema folder, and register new schema versions in ``catalog.json``.

    python -m ai_memory.serialization.catalog_tool            # exit 1 on any problem
    python -m ai_memory.serialization.catalog_tool --write    # add entries for new files

``--write`` never changes an existing entry: a released schema is frozen.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .catalog import (
    CATALOG_FILE,
    SCHEMA_FILE_NAME,
    SchemaCatalog,
    compute_fingerprint,
    lint,
    schema_dir,
)
from .errors import SchemaCatalogError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the event schema folder and catalog.")
    parser.add_argument("--dir", type=Path, default=None, help="schema folder (default: found)")
    parser.add_argument("--write", action="store_true", help="add entries for new .avsc files")
    args = parser.parse_args(argv)
    root: Path = args.dir or schema_dir()
    if args.write:
        data = json.loads((root / CATALOG_FILE).read_text(encoding="utf-8"))
        listed = {item["file"] for item in data["schemas"]}
        for path in sorted((root / "events").glob("*.avsc")):
            rel = path.relative_to(root).as_posix()
            if rel not in listed and (match := SCHEMA_FILE_NAME.match(path.name)):
                schema = json.loads(path.read_text(encoding="utf-8"))
                data["schemas"].append(
                    {
                        "name": match["name"],
                        "version": int(match["version"]),
                        "file": rel,
                        "fingerprint": compute_fingerprint(schema).hex(),
                    }
                )
                print(f"added {rel}")
        data["schemas"].sort(key=lambda item: (item["name"], item["version"]))
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        (root / CATALOG_FILE).write_text(text, encoding="utf-8")
    problems = lint(root)
    try:
        SchemaCatalog.load(root)
    except SchemaCatalogError as e:
        problems.append(e.message)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
