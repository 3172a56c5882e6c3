"""The governor's passes, the model endpoint it may call, and the notes tools' quota."""

from __future__ import annotations

from pydantic import Field

from .comma_list import CommaList
from .section import Section


class GovernanceSettings(Section):
    govern_interval: float = Field(
        default=3600.0,
        ge=0,
        description="Seconds between the governor's passes in `serve` (0 = off).",
    )
    govern_tenants: CommaList = Field(
        default=("default",),
        description="Comma-separated tenants the governor passes over.",
    )
    governance: str = Field(
        default="",
        description="JSON object overriding governance parameters, e.g. "
        '`{"alpha": 0.4, "beta": 0.3, "gamma": 0.2, "delta": 0.1, "theta": 0.15}`.',
    )
    llm_url: str = Field(
        default="",
        description="An OpenAI-compatible endpoint used as conflict judge and/or extractor "
        "(its decisions are recorded in the events; replays never call it).",
    )
    llm_model: str = Field(default="", description="The model name sent to `AIMEM_LLM_URL`.")
    llm_api_key: str = Field(default="", description="The key sent to `AIMEM_LLM_URL`.")
    llm_roles: CommaList = Field(
        default=("judge",),
        description="Comma-separated roles of the endpoint: `judge`, `extract`.",
    )
    note_quota: int = Field(
        default=50, ge=1, description="Notes one agent may keep (the notes tools)."
    )
