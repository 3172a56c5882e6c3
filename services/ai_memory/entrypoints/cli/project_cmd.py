"""``ai-memory project --projection records|index|usage``: a distributed projector worker
(a Faust app: ``docs/design/PROJECTORS.md``)."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from ai_memory.bootstrap import WORKERS, build_projector_worker, run_projector_worker
from ai_memory.core.errors import InvalidInput
from ai_memory.settings import Settings


def project_cmd(
    projection: Annotated[str, typer.Option(help="records|index|usage")],
    metrics_port: Annotated[int, typer.Option(envvar="AIMEM_METRICS_PORT")] = 9464,
) -> None:
    """Run a worker that projects the Kafka log into one view (until SIGTERM)."""
    if projection not in WORKERS:
        raise typer.BadParameter(f"must be one of {', '.join(WORKERS)}")
    settings = Settings.from_env()
    logging.basicConfig(level=settings.log_level)
    try:
        app, worker = build_projector_worker(
            settings, projection, metrics_port=metrics_port or None
        )
    except InvalidInput as e:
        raise typer.BadParameter(e.message) from e
    try:
        run_projector_worker(app, worker, loglevel=settings.log_level.lower())
    finally:
        worker.close()
