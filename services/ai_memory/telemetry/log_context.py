"""What a log line says about the request it was written for.

An entry point binds a function giving the request's fields (request id, tenant, key id
— read when a line is written, since the key is known only once the door has run); the
log filter (``logs``) adds them, and the current trace and span ids, to every line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar, Token

FieldsOf = Callable[[], Mapping[str, str]]

_fields: ContextVar[FieldsOf | None] = ContextVar("aimem_log_fields", default=None)


def bind_log_fields(fields: FieldsOf) -> Token[FieldsOf | None]:
    return _fields.set(fields)


def unbind_log_fields(token: Token[FieldsOf | None]) -> None:
    _fields.reset(token)


def log_fields() -> Mapping[str, str]:
    fields = _fields.get()
    return fields() if fields is not None else {}
