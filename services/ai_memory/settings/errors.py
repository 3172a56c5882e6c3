"""A bad setting's error: one line per bad value, naming its ``AIMEM_*`` variable."""

from __future__ import annotations

from pydantic import ValidationError


class SettingsError(ValueError):
    """A setting from the environment has a value that cannot be used."""


def describe(error: ValidationError) -> str:
    """One line per bad value, each naming the variable and what it got."""
    lines = []
    for err in error.errors():
        name = ".".join(str(p) for p in err.get("loc", ())) or "settings"
        if not name.startswith("AIMEM_"):
            name = f"AIMEM_{name.upper()}" if name.isidentifier() else name
        lines.append(f"{name}: {err.get('msg', 'invalid value')} (got {err.get('input')!r})")
    return "invalid settings: " + "; ".join(lines)
