"""The one ``Settings`` class: the sections' fields under the ``AIMEM_`` prefix, and how
they are read (only what the constructor is given, or the environment as well)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ai_memory.core.record import Limits

from . import environment
from .api_keys import ApiKeySettings
from .command_line import CommandLineSettings
from .data_protection import DataProtectionSettings
from .errors import SettingsError, describe
from .governance import GovernanceSettings
from .http_edge import HttpEdgeSettings
from .peers import PeerSettings
from .storage import StorageSettings
from .webhooks import WebhookSettings


# The sections are listed last to first: pydantic collects fields from the last base to
# the first, and this keeps the order the fields had on one class (an error lists the
# bad values in it; dumps and the JSON schema follow it).
class Settings(
    CommandLineSettings,
    WebhookSettings,
    DataProtectionSettings,
    PeerSettings,
    HttpEdgeSettings,
    ApiKeySettings,
    GovernanceSettings,
    StorageSettings,
    BaseSettings,
):
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
        raw = environment.value_any_case(name)
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
