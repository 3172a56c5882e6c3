"""``Settings`` is composed of sections (``ai_memory/settings/<section>.py``): what the
composition must keep — every field in exactly one section (pydantic would let a later
base's field of the same name silently win), the sections' validators run from the
environment as they did on one class, and a bad value is still named by its variable with
the value it was given."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from ai_memory.settings import VARIABLES, Settings, SettingsError
from ai_memory.settings.section import Section


@pytest.fixture(autouse=True)
def no_settings_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def sections() -> list[type[BaseModel]]:
    return [base for base in Settings.__mro__ if base is not Section and issubclass(base, Section)]


def test_every_field_is_declared_by_exactly_one_section() -> None:
    declared: dict[str, list[str]] = {}
    for section in sections():
        for name in section.__annotations__:
            declared.setdefault(name, []).append(section.__name__)
    assert {n: s for n, s in declared.items() if len(s) > 1} == {}
    assert set(declared) == set(Settings.model_fields)


def test_the_sections_validators_run_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AIMEM_GOVERN_TENANTS", " a, b ,,c")
    monkeypatch.setenv("AIMEM_WEBHOOK_ALLOWED_CIDRS", "10.0.0.0/8, 192.168.0.0/16")
    monkeypatch.setenv("AIMEM_LOG_LEVEL", "debug")
    s = Settings.from_env()
    assert s.govern_tenants == ("a", "b", "c")
    assert s.webhook_allowed_cidrs == ("10.0.0.0/8", "192.168.0.0/16")
    assert s.log_level == "DEBUG"


def test_a_bad_range_is_named_with_the_value_the_variable_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comma split runs before the range check, so the error quotes the variable's
    value, not the tuple it was split into."""
    monkeypatch.setenv("AIMEM_WEBHOOK_ALLOWED_CIDRS", "10.0.0.0/8,nope")
    with pytest.raises(SettingsError) as e:
        Settings.from_env()
    assert str(e.value) == (
        "invalid settings: AIMEM_WEBHOOK_ALLOWED_CIDRS: Value error, 'nope' is not a CIDR "
        "range (e.g. 10.20.0.0/16) (got '10.0.0.0/8,nope')"
    )
