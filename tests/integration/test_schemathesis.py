"""schemathesis over every operation of the OpenAPI document, in process.

Positive data from the documented constraints (so writes create real memories and reads
find them), then negative data that breaks them, a bounded number of examples per
operation; each answer must not be a server error and must conform to the document
(status code, content type, body schema). The
``/mcp`` and ``/a2a`` mounts are not in the document; ``test_http_hardening`` covers them
with hostile input.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.http.app import create_app

# Examples per operation and mode (valid data, then data breaking the document): 16
# operations × 2 × this stays well within a minute or two on two cores.
MAX_EXAMPLES = 50
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
]


@schemathesis.serializer("application/x-ndjson")
def _ndjson(_: schemathesis.SerializationContext, value: Any) -> bytes:
    """The import body is documented as its lines: one JSON value per line."""
    if isinstance(value, list):
        return b"".join(json.dumps(item).encode() + b"\n" for item in value)
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value).encode()


def test_every_operation_answers_within_its_document(container: Container) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(container.services))
    failures: dict[str, str] = {}
    labels = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an invalid document fails
        labels.append(operation.label)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            positive = mode is GenerationMode.POSITIVE

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=MAX_EXAMPLES,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate],  # report, don't spend time shrinking
            )
            def exercise(case: Case[Any]) -> None:
                # (run within this iteration: the loop variable cannot change under it)
                if case.path == "/v1/changes" and positive:  # noqa: B023
                    # A valid long-poll or event stream may rightly wait up to its
                    # timeout (60 s) for a change: answer within a second here.
                    case.query = {**(case.query or {}), "timeout": 1}
                case.call_and_validate(checks=CHECKS)

            try:
                exercise()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE, operation.label  # nothing to break
            except Exception as e:  # collect every operation's failure, then report them all
                failures[f"{operation.label} ({mode.value})"] = f"{type(e).__name__}: {e}"[:3000]
    assert len(labels) >= 16, labels  # the document lists every operation
    assert not failures, "\n\n".join(f"{k}\n{v}" for k, v in failures.items())
