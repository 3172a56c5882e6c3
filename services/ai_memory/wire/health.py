"""Wire model of ``GET /healthz`` (documented in the OpenAPI document; the route returns
``service.health.report``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ProjectionStatusOut(BaseModel):
    projection: str
    partition: int
    position: int
    head: int
    lag: int
    in_process: bool


class HealthOut(BaseModel):
    """Without a key (once keys exist) or with a reader or writer key, only ``status``;
    an admin or operator key sees the positions, lag and writers of every tenant."""

    status: Literal["ok", "degraded"] = Field(
        description="degraded: a projection is stuck or dead letters wait (still 200)."
    )
    version: str | None = None
    projections: list[ProjectionStatusOut] | None = None
    lag: dict[str, int] | None = Field(None, description="Events behind, per projection.")
    embedder: str | None = None
    stuck: list[dict[str, Any]] | None = None
    dead_letters: dict[str, Any] | None = None
    dead_letters_error: str | None = None
    writers: dict[str, Any] | None = None
    warnings: list[Any] | None = None
