"""The one reader of the process environment: every other module of the package asks
here (``tests/architecture/test_environment_reads.py`` allows no other)."""

from __future__ import annotations

import os


def value(name: str) -> str:
    """The variable ``name``, stripped; "" when unset."""
    return os.environ.get(name, "").strip()


def value_any_case(name: str) -> str:
    """The variable ``name`` whatever the case of its letters, stripped, as
    pydantic-settings reads ``AIMEM_*`` variables; "" when unset."""
    wanted = name.upper()
    return next((v for k, v in os.environ.items() if k.upper() == wanted), "").strip()
