"""Deployment policy the composition root reads from settings: rates and quotas per
tenant, governance overrides, and the model plugins (``AIMEM_LLM_*``)."""

from __future__ import annotations

import json
from typing import Any

from ai_memory.core.access.tenant_limits import LimitTable, TenantLimits
from ai_memory.core.errors import InvalidInput
from ai_memory.core.governance import GovernanceParams
from ai_memory.settings import Settings


def tenant_limit_table(s: Settings) -> LimitTable:
    """Rates and quotas per tenant: the ``AIMEM_KEY_*``/``AIMEM_TENANT_*`` defaults and
    the ``AIMEM_TENANT_LIMITS`` overrides (a bad override fails the start, naming it)."""
    default = TenantLimits(
        rate=s.tenant_rate,
        burst=s.tenant_burst,
        key_rate=s.key_rate,
        key_burst=s.key_burst,
        max_memories=s.tenant_max_memories,
        max_request_bytes=s.tenant_max_request_bytes,
    )
    return LimitTable.parse(default, s.tenant_limits)


def governance_params(s: Settings) -> GovernanceParams:
    """Deployment overrides of the governance defaults (``AIMEM_GOVERNANCE`` JSON)."""
    if not s.governance:
        return GovernanceParams()
    try:
        raw = json.loads(s.governance)
    except ValueError as e:
        raise InvalidInput("AIMEM_GOVERNANCE", "json", "AIMEM_GOVERNANCE must be JSON") from e
    if not isinstance(raw, dict):
        raise InvalidInput("AIMEM_GOVERNANCE", "json_object", "AIMEM_GOVERNANCE: a JSON object")
    return GovernanceParams.from_mapping(raw)


def model_plugins(s: Settings) -> tuple[Any, Any]:
    """(extractor, detector) backed by an OpenAI-compatible model, or the rule-based
    defaults (None) when no ``AIMEM_LLM_URL`` is configured."""
    if not s.llm_url:
        return None, None
    from ai_memory.adapters.llm_openai import ModelExtractor, OpenAICompatibleClient
    from ai_memory.core.governance import LLMJudgeDetector

    unknown = set(s.llm_roles) - {"judge", "extract"}
    if unknown or not s.llm_model:
        raise InvalidInput(
            "AIMEM_LLM_ROLES", "enum", "AIMEM_LLM_MODEL is required and roles are judge,extract"
        )
    client = OpenAICompatibleClient(s.llm_url, s.llm_model, api_key=s.llm_api_key or None)
    extractor = ModelExtractor(client) if "extract" in s.llm_roles else None
    detector = LLMJudgeDetector(client) if "judge" in s.llm_roles else None
    return extractor, detector
