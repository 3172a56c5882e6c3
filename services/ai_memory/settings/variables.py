"""Every variable ``Settings.from_env`` reads: spelled out, and as the fields derive them."""

from __future__ import annotations

from .model import Settings

#: Every variable ``Settings.from_env`` reads, spelled out for the reader and for the
#: checks of the deployment manifests (a test keeps it equal to the fields).
VARIABLES = (
    "AIMEM_DATA_DIR",
    "AIMEM_HOST",
    "AIMEM_PORT",
    "AIMEM_EVENT_LOG",
    "AIMEM_RECORD_STORE",
    "AIMEM_INDEX",
    "AIMEM_EMBEDDER",
    "AIMEM_MAX_CONTENT_BYTES",
    "AIMEM_WAIT_TIMEOUT",
    "AIMEM_PROJECTOR_BATCH",
    "AIMEM_PROJECTOR_LINGER",
    "AIMEM_INDEX_COMPACT_AFTER",
    "AIMEM_INDEX_FORGET_DELAY",
    "AIMEM_INDEX_PROCESS",
    "AIMEM_INDEX_SEARCH_THREADS",
    "AIMEM_SEARCH_CACHE_ROWS",
    "AIMEM_SEARCH_CACHE_SECONDS",
    "AIMEM_GOVERN_INTERVAL",
    "AIMEM_GOVERN_TENANTS",
    "AIMEM_GOVERNANCE",
    "AIMEM_LLM_URL",
    "AIMEM_LLM_MODEL",
    "AIMEM_LLM_API_KEY",
    "AIMEM_LLM_ROLES",
    "AIMEM_KEY_CACHE_SECONDS",
    "AIMEM_ADMIN_KEY",
    "AIMEM_ADMIN_TENANT",
    "AIMEM_AUTH_FAILURE_BURST",
    "AIMEM_AUTH_FAILURE_RATE",
    "AIMEM_MAX_BODY_BYTES",
    "AIMEM_MAX_IMPORT_BYTES",
    "AIMEM_MAX_LINE_BYTES",
    "AIMEM_MAX_QUERY_CHARS",
    "AIMEM_BODY_TIMEOUT",
    "AIMEM_HEADER_TIMEOUT",
    "AIMEM_KEY_RATE",
    "AIMEM_KEY_BURST",
    "AIMEM_TENANT_RATE",
    "AIMEM_TENANT_BURST",
    "AIMEM_TENANT_MAX_MEMORIES",
    "AIMEM_TENANT_MAX_REQUEST_BYTES",
    "AIMEM_TENANT_LIMITS",
    "AIMEM_ALLOWED_HOSTS",
    "AIMEM_CORS_ORIGINS",
    "AIMEM_PEER_LISTEN",
    "AIMEM_PEER_URL",
    "AIMEM_PEER_TOKEN",
    "AIMEM_INSECURE_OPEN",
    "AIMEM_SECRET_POLICY",
    "AIMEM_SECRET_POLICY_BY_TENANT",
    "AIMEM_ENCRYPTION",
    "AIMEM_ROOT_KEY",
    "AIMEM_RECEIPT_KEY",
    "AIMEM_QDRANT_API_KEY",
    "AIMEM_MODEL_DIR",
    "AIMEM_SCHEMA_DIR",
    "AIMEM_NOTE_QUOTA",
    "AIMEM_API_KEY",
    "AIMEM_FROM_API_KEY",
    "AIMEM_TO_API_KEY",
    "AIMEM_LOG_LEVEL",
    "AIMEM_LOG_FORMAT",
    "AIMEM_TRACES_FILE",
    "AIMEM_DEBUG",
    "AIMEM_METRICS_PORT",
    "AIMEM_WEBHOOK_ALLOW_PRIVATE",
    "AIMEM_WEBHOOK_ALLOWED_CIDRS",
    "AIMEM_WEBHOOK_TIMEOUT",
    "AIMEM_WEBHOOK_BATCH",
    "AIMEM_WEBHOOK_BACKOFF_BASE",
    "AIMEM_WEBHOOK_BACKOFF_MAX",
    "AIMEM_WEBHOOK_MAX_FAILURES",
    "AIMEM_WEBHOOK_PAUSE_AFTER",
    "AIMEM_WEBHOOK_MAX_PER_TENANT",
    "AIMEM_URL",
    "AIMEM_AGENT",
)


def variable_names() -> tuple[str, ...]:
    """The variables the fields read, as pydantic-settings derives them."""
    names = []
    for name, info in Settings.model_fields.items():
        if name == "limits":  # set through AIMEM_MAX_CONTENT_BYTES
            continue
        alias = info.validation_alias if isinstance(info.validation_alias, str) else name
        names.append(f"AIMEM_{alias.upper()}")
    return tuple(names)
