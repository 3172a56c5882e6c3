"""Comma-separated variables (``AIMEM_GOVERN_TENANTS=a,b``): a tuple of the non-empty,
stripped parts."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_settings import NoDecode


def split_commas(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


# NoDecode: pydantic-settings would otherwise parse a tuple's variable as JSON. The split
# runs before a field's own validators (``webhook_allowed_cidrs`` checks each range), as
# a type's validators do.
CommaList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(split_commas)]
