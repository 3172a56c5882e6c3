"""``ai-memory project``: the projector workers that follow a Kafka log."""

from __future__ import annotations

from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.serialization import AvroEventSerializer
from ai_memory.settings import Settings

from .by_url import build_dead_letters
from .projections import PROJECTIONS, build_sink
from .security import build_sealer
from .urls import scheme_of

#: What ``ai-memory project`` runs: the projections, and the usage table.
WORKERS = (*PROJECTIONS, "usage")


def run_projector_worker(
    app: Any, worker: Any, *, loglevel: str = "info", logging_config: dict[str, Any] | None = None
) -> None:
    """Run a worker from ``build_projector_worker`` until it stops (SIGTERM)."""
    from ai_memory.projector.faust_worker import run_worker

    run_worker(app, loglevel=loglevel, stopping=worker.stopping, logging_config=logging_config)


def build_projector_worker(
    settings: Settings, projection: str, *, metrics_port: int | None = None
) -> tuple[Any, Any]:
    """A projector worker for one projection of a Kafka log (``ai-memory project``): a
    Faust app and its worker ``(ProjectorApp, ProjectorWorker)``; close the worker after
    the app stops."""
    from ai_memory.adapters.kafka.config import parse_kafka_url
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.projector.faust_worker import create_app

    s = settings.resolved()
    if scheme_of(s.event_log_url) != "kafka":
        raise InvalidInput(
            "AIMEM_EVENT_LOG",
            "scheme",
            "projector workers follow a Kafka log (AIMEM_EVENT_LOG=kafka://…); "
            "the embedded server projects in-process",
        )
    # Open the log once so the topics exist (and match) before the worker subscribes.
    KafkaEventLog.from_url(s.event_log_url, AvroEventSerializer()).close()
    if projection == "usage":
        from ai_memory.projector.usage_worker import UsageWorker, usage_app

        usage = UsageWorker(AvroEventSerializer(sealer=build_sealer(s)))
        return usage_app(parse_kafka_url(s.event_log_url), usage), usage
    sink, _ = build_sink(s, projection)
    return create_app(
        projection,
        parse_kafka_url(s.event_log_url),
        sink,
        AvroEventSerializer(sealer=build_sealer(s)),
        build_dead_letters(s),
        metrics_port=metrics_port,
    )
