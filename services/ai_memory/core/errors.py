"""The exception tree every layer speaks.

    AiMemoryError
    ├── PermanentError                 retrying the same request will fail again
    │   ├── InvalidInput      (400/422) field + rule named
    │   ├── NotFound          (404)     never existed
    │   ├── Gone              (410)     existed, was forgotten
    │   ├── Conflict          (409)     valid but contradicts stored state
    │   │   └── PreconditionFailed (412)  If-Match / If-None-Match not met
    │   ├── Unauthenticated   (401)     no valid API key (one code for every reason)
    │   └── Forbidden         (403)     the key may not do this (``code`` says why)
    └── RetryableError                 try again later (honour retry_after)
        ├── Unavailable       (503)     a dependency is down
        └── Timeout           (503)     waited for a projection and gave up

The event serializer port adds two permanent errors: ``UndecodableEvent`` (bytes that
cannot become a domain event: dead-letter them) and ``UnencodableEvent`` (an event that
does not fit its schema: a bug upstream).

Adapters translate driver errors into these (``raise Unavailable(...) from e``);
the HTTP/MCP/CLI edges translate these into problem+json / tool errors / exit codes.
Each error carries a stable machine-readable ``code``.
"""

from __future__ import annotations


class AiMemoryError(Exception):
    code: str = "internal_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class PermanentError(AiMemoryError):
    pass


class InvalidInput(PermanentError):
    code = "invalid_input"

    def __init__(self, field: str, rule: str, message: str, *, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.field = field
        self.rule = rule


class NotFound(PermanentError):
    code = "not_found"


class Gone(PermanentError):
    code = "gone"


class Conflict(PermanentError):
    code = "conflict"


class PreconditionFailed(Conflict):
    """A conditional write (``If-Match`` / ``If-None-Match``) whose condition did not
    hold when the write was decided: nothing was written."""

    code = "precondition_failed"


class Unauthenticated(PermanentError):
    """Missing, malformed, unknown, wrong, revoked or expired key: deliberately one
    answer, so a caller learns nothing about which keys exist."""

    code = "invalid_api_key"


class Forbidden(PermanentError):
    """A valid key whose role or scopes do not allow the action (``role_forbidden``,
    ``scope_forbidden``, ``scope_required``)."""

    code = "forbidden"


class RetryableError(AiMemoryError):
    def __init__(self, message: str, *, retry_after: float = 1.0, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after


class Unavailable(RetryableError):
    code = "unavailable"


class Timeout(RetryableError):
    code = "timeout"


class DataDirInUse(AiMemoryError):
    """Another process has this embedded data directory open (``adapters.data_dir_lock``)."""

    code = "data_dir_in_use"


#: Every ``UndecodableEvent.reason``.
UNDECODABLE_REASONS = frozenset(
    {
        "truncated",  # shorter than the frame header, or the body ends early
        "bad_magic",  # does not start with the single-object marker C3 01
        "unknown_fingerprint",  # written with a schema this catalog does not know
        "malformed_body",  # the Avro body does not match its writer schema
        "trailing_bytes",  # bytes left after the body
        "unmappable",  # valid Avro, but not a valid domain event (e.g. unknown state)
        "codec",  # the codec stage rejected the payload
        "unsealable",  # a sealed field does not open: tampered, moved, or a wrong key
        "key_missing",  # the vault has no key for a sealed event, and it was not destroyed
    }
)


class UndecodableEvent(PermanentError):
    """Bytes that can never be decoded into a domain event by this code."""

    code = "undecodable_event"

    def __init__(self, reason: str, message: str, *, fingerprint: bytes | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.fingerprint = fingerprint


class UnencodableEvent(PermanentError):
    """A domain event whose values do not fit the current schema of its type."""

    code = "unencodable_event"


class Rewind(Exception):
    """The view's stored checkpoint went back: the batch is not applied, and the driver
    must read the log again from ``checkpoint`` (``projector.policy``). Raised by a
    driver's guard, or by a view that lost what it was given (``adapters.index_process``)."""

    def __init__(self, partition: int, checkpoint: int, expected: int) -> None:
        super().__init__(
            f"partition {partition}: the view's checkpoint is {checkpoint}, "
            f"behind {expected} that was applied"
        )
        self.partition = partition
        self.checkpoint = checkpoint
        self.expected = expected
