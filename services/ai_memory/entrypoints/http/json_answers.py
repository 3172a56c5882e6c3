"""Answers a handler has already shaped as the API document says, sent as they are.

FastAPI validates what a handler returns against the route's ``response_model`` and then
serializes the validated model: for a search of ten memories that is ≈ 0.12 ms of server
CPU per request, a sixth of what the whole HTTP stack costs it (``python -m
loadtest.probe_http_stack``; ``loadtest/RESULTS.md``, "What a live search's milliseconds
are"). The reads below build their answers from the
core's ``to_json`` shapes, which are the wire models' fields exactly, so they answer with
those bytes directly; their decorators keep ``response_model`` for the OpenAPI document.
``tests/integration/test_json_answers.py`` holds each such answer to its model (every
field, no other), and schemathesis holds every answer to the document.

Only answers whose shape already is the model's are sent this way: a write's answer
leaves out fields its model fills with ``null``, so writes still go through the model.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_json
from starlette.responses import Response

from ai_memory.service.search_reads import SearchHit


class JsonAnswer(Response):
    """``content`` (plain dicts, lists, strings, numbers) as compact UTF-8 JSON, as
    FastAPI's own serialization writes it: a number that is not finite becomes ``null``."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return to_json(content, inf_nan_mode="null")


def search_hit(hit: SearchHit) -> dict[str, Any]:
    """One result of ``SearchOut``; its model declares the components as floats."""
    return {
        "record": hit.stored.to_json(),
        "score": float(hit.score),
        "components": {name: float(value) for name, value in hit.components.items()},
        "explanation": hit.explanation,
    }
