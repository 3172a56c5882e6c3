"""``ai-memory project --projection records|index|usage``: a distributed projector worker
(a Faust app: ``docs/design/PROJECTORS.md``)."""

from __future__ import annotations

import logging
import logging.config
from typing import Annotated

import typer

from ai_memory.bootstrap import WORKERS, build_projector_worker, run_projector_worker
from ai_memory.core.errors import InvalidInput
from ai_memory.entrypoints import heap_freeze
from ai_memory.entrypoints.cli.observability import start_tracing
from ai_memory.settings import Settings
from ai_memory.telemetry.logs import process_log_config


def project_cmd(
    projection: Annotated[str, typer.Option(help="records|index|usage")],
    metrics_port: Annotated[int, typer.Option(envvar="AIMEM_METRICS_PORT")] = 9464,
) -> None:
    """Run a worker that projects the Kafka log into one view (until SIGTERM)."""
    if projection not in WORKERS:
        raise typer.BadParameter(f"must be one of {', '.join(WORKERS)}")
    settings = Settings.from_env()
    # Text: Faust's own lines, as before (operators and tests read its "[^Worker]: Ready").
    # JSON: our configuration, for this process and again for Faust's worker.
    as_json = settings.log_format == "json"
    if as_json:
        logging.config.dictConfig(process_log_config(settings.log_format, settings.log_level))
    else:
        logging.basicConfig(level=settings.log_level)
    stop_tracing = start_tracing(settings, f"ai-memory-projector-{projection}")
    try:
        app, worker = build_projector_worker(
            settings, projection, metrics_port=metrics_port or None
        )
    except InvalidInput as e:
        stop_tracing()
        raise typer.BadParameter(e.message) from e
    # A worker's heap is mostly its code (≈ 130,000 objects, a 60–70 ms full collection
    # that stops its event loop): frozen at once, and again as it grows (docs/design/HEAP.md).
    heap_freeze.start_for(None)
    try:
        run_projector_worker(
            app,
            worker,
            loglevel=settings.log_level.lower(),
            # a copy: dictConfig consumes the one it is given, Faust configures again
            logging_config=(
                process_log_config(settings.log_format, settings.log_level) if as_json else None
            ),
        )
    finally:
        worker.close()
        stop_tracing()
