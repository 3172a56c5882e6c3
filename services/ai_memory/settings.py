"""Settings from the environment (``AIMEM_*``), with embedded defaults.

One typed object (pydantic-settings): ``Settings(...)`` takes exactly the values it is
given (tests, ``migrate``), ``Settings.from_env()`` reads the environment, and a bad value
fails naming its variable (``AIMEM_WAIT_TIMEOUT: Input should be a valid number``).

Adapters are chosen by URL in ``bootstrap``:

* ``AIMEM_EVENT_LOG``     ``sqlite:///<path>`` (default ``<data>/events.db``)
* ``AIMEM_RECORD_STORE``  ``sqlite:///<path>`` (default ``<data>/records.db``)
* ``AIMEM_INDEX``         ``qdrant-edge:///<path>`` (default ``<data>/index``)
* ``AIMEM_EMBEDDER``      ``static`` (default) | ``minilm``
* ``AIMEM_GOVERN_INTERVAL`` seconds between governor passes in ``serve`` (3600; 0 = off)
* ``AIMEM_GOVERN_TENANTS``  comma-separated tenants the governor passes over (``default``)
* ``AIMEM_LLM_URL`` / ``AIMEM_LLM_MODEL`` / ``AIMEM_LLM_API_KEY`` / ``AIMEM_LLM_ROLES``:
  an OpenAI-compatible endpoint as conflict ``judge`` and/or ``extract`` (decisions are
  recorded in the events; replays never call it)
* ``AIMEM_GOVERNANCE``      JSON object overriding governance parameters, e.g.
  ``{"alpha": 0.4, "beta": 0.3, "gamma": 0.2, "delta": 0.1, "theta": 0.15}``

Limits of the HTTP edge (refused early with problem+json):

* ``AIMEM_MAX_BODY_BYTES``    JSON request bodies (1 MiB) → 413
* ``AIMEM_MAX_IMPORT_BYTES``  one ``/v1/import`` body (64 MiB) → 413
* ``AIMEM_MAX_LINE_BYTES``    one NDJSON import line (1 MiB) → that line rejected
* ``AIMEM_MAX_QUERY_CHARS``   a search ``query`` (4096) → 422
* ``AIMEM_BODY_TIMEOUT``      seconds between two body chunks (30) → 408
* ``AIMEM_HEADER_TIMEOUT``    seconds to send the request headers in ``serve`` (10)
* ``AIMEM_WAIT_TIMEOUT``      longest read-your-writes wait, seconds (10) → 503

Rates and quotas, per tenant and per API key (429 ``rate_limited`` with ``Retry-After``,
403 ``quota_exceeded``, 413 ``body_too_large``; README "Rate limits and quotas"):

* ``AIMEM_KEY_RATE`` / ``AIMEM_KEY_BURST``        requests/s of one key, per gateway
  (1000 / 2000; 0 = off)
* ``AIMEM_TENANT_RATE`` / ``AIMEM_TENANT_BURST``  requests/s of one tenant, per gateway
  (2000 / 4000; 0 = off)
* ``AIMEM_TENANT_MAX_MEMORIES``       live memories a tenant may store (0 = no quota)
* ``AIMEM_TENANT_MAX_REQUEST_BYTES``  a tenant's largest request body (0 = the route's)
* ``AIMEM_TENANT_LIMITS``  JSON object of per-tenant overrides, e.g.
  ``{"acme": {"rate": 50, "burst": 100, "key_rate": 10, "max_memories": 100000}}``

Browser protections:

* ``AIMEM_ALLOWED_HOSTS``  comma-separated extra ``Host`` names besides localhost,
  127.0.0.1, ::1 (``*`` = any; needed behind a load balancer or a Kubernetes probe)
* ``AIMEM_CORS_ORIGINS``   comma-separated origins allowed to call the API from a browser,
  including writes (none by default: cross-origin writes are refused)

Credentials in writes (every path: HTTP, MCP, A2A, SDK, CLI, import, migrate; README
"Secrets"):

* ``AIMEM_SECRET_POLICY``            ``refuse`` (default) | ``redact`` | ``allow``
* ``AIMEM_SECRET_POLICY_BY_TENANT``  JSON object of tenants that differ, e.g.
  ``{"acme": "redact", "lab": "allow"}``
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from ai_memory.core.record import Limits
from ai_memory.core.secrets import SecretPolicy

CommaList = Annotated[tuple[str, ...], NoDecode]


class SettingsError(ValueError):
    """A setting from the environment has a value that cannot be used."""


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

    data_dir: Path = Path("data")
    host: str = "127.0.0.1"
    port: int = 8080
    event_log_url: str = Field(default="", validation_alias="EVENT_LOG")
    record_store_url: str = Field(default="", validation_alias="RECORD_STORE")
    index_url: str = Field(default="", validation_alias="INDEX")
    embedder: str = "static"
    limits: Limits = Field(default_factory=Limits)
    max_content_bytes: int | None = Field(default=None, ge=1)
    wait_timeout: float = Field(default=10.0, ge=0)
    projector_batch: int = 500
    # seconds between governor passes; 0 = off
    govern_interval: float = Field(default=3600.0, ge=0)
    govern_tenants: CommaList = ("default",)
    # JSON object of GovernanceParams overrides (AIMEM_GOVERNANCE)
    governance: str = ""
    # OpenAI-compatible endpoint for the conflict judge / extractor
    llm_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    llm_roles: CommaList = ("judge",)
    # how long a gateway trusts what it read of an API key: a revoked key is refused by
    # every gateway within this many seconds (services/ai_memory/service/keys.py)
    key_cache_seconds: float = Field(default=2.0, ge=0, le=5)
    # a key from the deployment's secrets (``ai-memory keys generate``) that ``serve``
    # adopts as an admin key of ``admin_tenant`` at start (deploy/README.md)
    admin_key: SecretStr = SecretStr("")
    admin_tenant: str = "default"
    # --- limits of the HTTP edge ---------------------------------------------------------
    max_body_bytes: int = Field(default=1 << 20, ge=1024)
    max_import_bytes: int = Field(default=64 << 20, ge=1024)
    max_line_bytes: int = Field(default=1 << 20, ge=1024)
    max_query_chars: int = Field(default=4096, ge=1)
    body_timeout: float = Field(default=30.0, gt=0)
    header_timeout: float = Field(default=10.0, gt=0)
    # --- rates and quotas per tenant and per key (core/access/tenant_limits.py) ----------
    # Request rates are on by default but generous, as a managed API gateway's are: they
    # catch a runaway agent loop, not normal load (one gateway serves fewer requests/s
    # than these on the hardware in loadtest/RESULTS.md). Buckets are per gateway process;
    # 0 turns a rate off. Storage quotas are off by default, as in Kafka and Cassandra:
    # what a tenant may store is a capacity decision only the operator can make.
    key_rate: float = Field(default=1000.0, ge=0)
    key_burst: int = Field(default=2000, ge=1)
    tenant_rate: float = Field(default=2000.0, ge=0)
    tenant_burst: int = Field(default=4000, ge=1)
    tenant_max_memories: int = Field(default=0, ge=0)
    tenant_max_request_bytes: int = Field(default=0, ge=0)
    # JSON object, tenant → the limits that differ from the defaults above
    tenant_limits: str = ""
    # --- browser protections -------------------------------------------------------------
    allowed_hosts: CommaList = ()
    cors_origins: CommaList = ()
    # --- the distributed write path (deploy/WRITE_PATH.md) ---------------------------------
    # where this gateway's peer listener binds (host:port; port 0 = any free port) ...
    peer_listen: str = "127.0.0.1:0"
    # ... the URL other gateways reach it at (default: http://<listen host>:<bound port>)
    peer_url: str = ""
    # a shared secret every gateway presents to the others' peer listeners
    peer_token: str = ""
    # serve without API keys on an address beyond loopback (development only)
    insecure_open: bool = False
    # --- credentials in writes (service/secret_policy.py) ----------------------------------
    # Refused by default, as the agent tools always did: the log is append-only, so a
    # credential once stored stays in every replica, backup and export, while a refused
    # write costs one retry. A tenant that stores pasted configs or logs on purpose
    # chooses redact (or allow) for itself.
    secret_policy: SecretPolicy = "refuse"
    secret_policy_by_tenant: dict[str, SecretPolicy] = Field(default_factory=dict)
    # --- crypto-shredding (deploy/FORGETTING.md) -----------------------------------------
    # on (the default): memories' content, tags and meta, interactions' text and decision
    # evidence reach the log only sealed under a data key of their own, and forgetting
    # destroys that key — the only way a forget reaches an immutable, replicated log.
    # An embedded server makes its root key (data_dir/root.key); a distributed one needs
    # AIMEM_ROOT_KEY. off is for a deployment that accepts that forgotten content stays
    # readable on the log. Once on it stays on: without the vault every sealed write
    # reads as forgotten, so an embedded data directory with a root key refuses off.
    encryption: Literal["off", "on"] = "on"
    # the root of the key hierarchy, base64url of 32 bytes; an embedded deployment without
    # it generates data_dir/root.key (0600) on first start, like a development vault
    root_key: SecretStr = SecretStr("")
    # signs erasure receipts (Ed25519): PKCS#8 PEM or base64 of the 32-byte seed; an
    # embedded deployment without it generates data_dir/receipt.key (0600) when first needed
    receipt_key: SecretStr = SecretStr("")

    @field_validator("govern_tenants", "llm_roles", "allowed_hosts", "cors_origins", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

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
