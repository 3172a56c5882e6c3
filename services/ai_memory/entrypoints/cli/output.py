"""How commands print data: ``--json`` on every command that prints any.

Commands that answer with a server document always print it as JSON; they accept
``--json`` too, so a script can pass it to every command. Commands that print a table
or a sentence print one JSON document instead (``keys list`` and ``dead-letters list``
print one object a line, NDJSON, so a long listing streams).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from pydantic import BaseModel

Json = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]
AlwaysJson = Annotated[
    bool,
    typer.Option("--json", help="Accepted for scripts: this command always prints JSON."),
]


def emit(answer: BaseModel) -> None:
    """Print an answer as the server sent it (indented JSON)."""
    emit_json(answer.model_dump(mode="json"))


def emit_json(body: Any) -> None:
    typer.echo(json.dumps(body, ensure_ascii=False, indent=2))
