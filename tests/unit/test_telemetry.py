"""The telemetry helpers: nothing at all while tracing is off; the W3C context through
record headers, refusing what is not one; a batch span's parent and links; log lines
with the request's fields and trace ids, as JSON."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ai_memory import telemetry
from ai_memory.telemetry import EventContexts, logs, tracing
from ai_memory.telemetry.log_context import unbind_log_fields
from ai_memory.telemetry.setup import TracingUnavailable, configure_tracing


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.enable(provider)
    yield spans
    tracing.disable()


def test_off_every_helper_is_a_no_op() -> None:
    assert not telemetry.enabled()
    with telemetry.span("aimem.x", {"a": 1}) as s:
        assert s is None
        assert not trace.get_current_span().get_span_context().is_valid  # nothing attached
        assert telemetry.trace_headers() == []
    contexts = EventContexts()
    contexts.remember(["e1"])
    assert contexts.lookup(["e1"]) == []
    assert telemetry.context_from_headers([("traceparent", b"00-" + b"1" * 32 + b"-")]) is None


def test_the_context_goes_through_record_headers(exporter: InMemorySpanExporter) -> None:
    with telemetry.span("aimem.log.append") as append:
        assert append is not None
        headers = telemetry.trace_headers()
    assert [k for k, _ in headers] == ["traceparent"]
    # a record's other headers are ignored, whatever their names' case
    found = telemetry.context_from_headers([("aimem.event_type", b"x"), *headers])
    assert found is not None
    assert found.trace_id == append.get_span_context().trace_id
    assert found.span_id == append.get_span_context().span_id
    assert found.is_remote
    as_mapping = telemetry.context_from_headers({"TraceParent": headers[0][1].decode()})
    assert as_mapping is not None and as_mapping.span_id == found.span_id


@pytest.mark.parametrize(
    "value",
    [
        b"",
        b"garbage",
        b"00-00000000000000000000000000000000-0000000000000000-01",  # all-zero ids
        b"00-" + b"z" * 32 + b"-" + b"1" * 16 + b"-01",
        b"\xff\xfe" * 40,
        b"00-" + b"a" * 32 + b"-" + b"b" * 16 + b"-01" + b"x" * 10_000,
    ],
)
def test_a_hostile_traceparent_starts_no_trace(
    exporter: InMemorySpanExporter, value: bytes
) -> None:
    assert telemetry.context_from_headers([("traceparent", value)]) is None


def test_a_batch_span_is_the_child_of_its_first_write_and_links_the_others(
    exporter: InMemorySpanExporter,
) -> None:
    contexts = EventContexts(capacity=3)
    with telemetry.span("write-1"):
        contexts.remember(["e1", "e2"])
    with telemetry.span("write-2"):
        contexts.remember(["e3"])
    parents = contexts.lookup(["e1", "e2", "e3", "unknown"])
    assert parents[3] is None and parents[0] == parents[1]
    with telemetry.batch_span("aimem.projection.apply", parents, {"aimem.events": 4}):
        pass
    w1, w2, batch = exporter.get_finished_spans()
    assert batch.parent is not None and batch.parent.span_id == w1.context.span_id
    assert [link.context.span_id for link in batch.links] == [w2.context.span_id]
    assert (batch.attributes or {})["aimem.traced_writes"] == 2
    contexts.remember(["e4"])  # capacity 3: the oldest goes first
    with telemetry.span("write-3"):
        contexts.remember(["e4"])
    assert contexts.lookup(["e1"]) == [None]


def test_a_failing_step_records_its_type_never_its_message(
    exporter: InMemorySpanExporter,
) -> None:
    with pytest.raises(ValueError), telemetry.span("aimem.memory.write"):
        raise ValueError("content: my secret diary")
    (failed,) = exporter.get_finished_spans()
    assert "my secret diary" not in failed.to_json()
    assert (failed.attributes or {})["error.type"] == "ValueError"
    assert failed.events == ()


def test_json_log_lines_carry_the_request_fields_and_the_trace(
    exporter: InMemorySpanExporter,
) -> None:
    out = io.StringIO()
    config: dict[str, Any] = logs.process_log_config("json", "INFO")
    config["handlers"]["stderr"]["stream"] = out
    del config["root"]  # the test session's own logging stays as it is
    config["loggers"] = {"otel-test": {"handlers": ["stderr"], "level": "INFO"}}
    logging.config.dictConfig(config)
    log = logging.getLogger("otel-test")
    token = telemetry.bind_log_fields(lambda: {"request_id": "r-1", "tenant": "acme"})
    try:
        with telemetry.span("GET /x") as s:
            assert s is not None
            log.info("served %s", "it")
    finally:
        unbind_log_fields(token)
    log.info("outside")
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["message"] == "served it" and first["level"] == "INFO"
    assert (first["request_id"], first["tenant"]) == ("r-1", "acme")
    assert first["trace_id"] == format(s.get_span_context().trace_id, "032x")
    assert "request_id" not in second and "trace_id" not in second


def test_an_unknown_exporter_is_refused_naming_the_variable() -> None:
    with pytest.raises(TracingUnavailable, match="OTEL_TRACES_EXPORTER: jaeger"):
        configure_tracing("otlp,jaeger", "ai-memory-gateway")
    assert not telemetry.enabled()


def test_the_console_exporter_writes_one_span_a_line_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    stop = configure_tracing("console", "ai-memory-test", traces_file=path)
    try:
        assert telemetry.enabled()
        with telemetry.span("aimem.a"), telemetry.span("aimem.b"):
            pass
    finally:
        stop()
    assert not telemetry.enabled()
    spans = [json.loads(x) for x in path.read_text().splitlines()]
    assert [s["name"] for s in spans] == ["aimem.b", "aimem.a"]
    assert spans[0]["parent_id"] == spans[1]["context"]["span_id"]
    assert spans[0]["resource"]["attributes"]["service.name"] == "ai-memory-test"
