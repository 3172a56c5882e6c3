"""Domain errors as the SDK's typed errors: the in-process client raises what the HTTP
client would for the status the server answers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from ai_memory.core import errors as core
from ai_memory.core.preconditions import Preconditions

from .. import _wire as w
from .. import errors as sdk

__all__ = ["as_sdk_error", "preconditions", "typed_errors"]

P = ParamSpec("P")
T = TypeVar("T")

# The status the HTTP edge answers for each domain error, and the SDK class for it.
_AS_SDK: tuple[tuple[type[core.AiMemoryError], int, type[sdk.ApiError]], ...] = (
    (core.InvalidInput, 422, sdk.InvalidInputError),
    (core.NotFound, 404, sdk.NotFoundError),
    (core.Gone, 410, sdk.GoneError),
    (core.PreconditionFailed, 412, sdk.PreconditionFailedError),  # before its Conflict
    (core.Conflict, 409, sdk.ConflictError),
    (core.Unauthenticated, 401, sdk.UnauthenticatedError),
    (core.Forbidden, 403, sdk.ForbiddenError),
    (core.Timeout, 503, sdk.WaitTimeoutError),
    (core.Unavailable, 503, sdk.UnavailableError),
)


def as_sdk_error(error: core.AiMemoryError) -> sdk.ApiError:
    """The typed error the HTTP client would raise for the problem ``error`` becomes."""
    for domain, status, cls in _AS_SDK:
        if isinstance(error, domain):
            return cls(
                error.message,
                status=status,
                code=error.code,
                field=getattr(error, "field", ""),
                rule=getattr(error, "rule", ""),
                retry_after=float(getattr(error, "retry_after", 0.0)),
            )
    return sdk.ServerError(error.message, status=500, code=error.code)


def preconditions(
    if_match: w.Version | None, if_none_match: w.Version | None
) -> Preconditions | None:
    """The headers the HTTP client would send, parsed as the route parses them."""
    headers = w.conditions(if_match, if_none_match)
    if not headers:
        return None
    return Preconditions.parse(headers.get("If-Match"), headers.get("If-None-Match"))


def typed_errors(method: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except sdk.ApiError:
            raise
        except core.AiMemoryError as e:
            raise as_sdk_error(e) from e

    return call
