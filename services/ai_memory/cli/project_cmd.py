"""``ai-memory project --projection records|index``: a distributed projector worker."""

from __future__ import annotations

import logging
import os
from typing import Annotated

import typer

from ai_memory.bootstrap import PROJECTIONS, build_sink, scheme_of
from ai_memory.settings import Settings


def project_cmd(
    projection: Annotated[str, typer.Option(help="records|index")],
    metrics_port: Annotated[int, typer.Option(envvar="AIMEM_METRICS_PORT")] = 9464,
) -> None:
    """Run a Faust worker that projects the Kafka log into one view (until SIGTERM)."""
    from ai_memory.adapters.kafka.config import parse_kafka_url
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.bootstrap import build_head_store
    from ai_memory.projector.faust_app import create_app, run_worker
    from ai_memory.serialization import AvroEventSerializer

    if projection not in PROJECTIONS:
        raise typer.BadParameter(f"must be one of {', '.join(PROJECTIONS)}")
    settings = Settings.from_env().resolved()
    if scheme_of(settings.event_log_url) != "kafka":
        raise typer.BadParameter(
            "projector workers follow a Kafka log (AIMEM_EVENT_LOG=kafka://…); "
            "the embedded server projects in-process"
        )
    logging.basicConfig(level=os.environ.get("AIMEM_LOG_LEVEL", "INFO"))
    # Open the log once so the topics exist (and match) before the worker subscribes.
    KafkaEventLog.from_url(
        settings.event_log_url, build_head_store(settings), AvroEventSerializer()
    ).close()  # closes the head store too
    sink, _ = build_sink(settings, projection)
    app, worker = create_app(
        projection,
        parse_kafka_url(settings.event_log_url),
        sink,
        AvroEventSerializer(),
        metrics_port=metrics_port or None,
    )
    try:
        run_worker(app)
    finally:
        worker.close()
