"""Timestamp parsing and formatting: everything becomes timezone-aware UTC.

Accepted on input (documented in docs/API.md, "The record"):

* ISO-8601 with an offset or ``Z``: ``2024-03-12T09:30:00+08:00`` → converted to UTC
* naive ISO-8601 ``2024-03-12T09:30:00`` and ``YYYY-MM-DD HH:mm:ss`` → interpreted in
  ``naive_tz`` (UTC unless the caller says otherwise, e.g. an importer's ``--tz`` flag)
* a date ``2024-03-12`` → midnight in ``naive_tz``
* Unix seconds (int/float or digit string) and Unix milliseconds: a number whose absolute
  value is ≥ 1e11 is taken as milliseconds (1e11 s is the year 5138, 1e11 ms is 1973)

Output is always ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``.

Bounds: every accepted timestamp lies in ``MIN_TIMESTAMP`` … ``MAX_TIMESTAMP``, i.e.
``0001-01-01T00:00:00Z`` … ``9999-12-31T23:59:59.999999Z``, *after* conversion to UTC: an
offset that pushes a value outside (``9999-12-31T23:00:00-05:00``,
``0001-01-01T00:00:00+05:00``) is refused with rule ``timestamp_range``, like any value
outside. That range is what every projection holds without loss: Python ``datetime``,
Avro ``timestamp-micros`` (a signed 64-bit count of microseconds), the record stores'
integer microseconds and the index's float seconds. Values derived from a timestamp (a
memory's expiry, ``created_at + ttl``) must stay inside it too (``core.record``).

Every failure is an ``InvalidInput`` naming the field: rule ``timestamp`` for text that is
not a timestamp, ``timestamp_range`` for one outside the bounds.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

from .errors import InvalidInput

_MS_THRESHOLD = 100_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: The bounds of every timestamp the system stores (see the module docstring).
MIN_TIMESTAMP = datetime(1, 1, 1, tzinfo=UTC)
MAX_TIMESTAMP = datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
_NUMERIC = re.compile(r"^[+-]?\d+(\.\d+)?$")
# Longer text is never a timestamp; refusing it early keeps error messages short and
# float()/fromisoformat() from chewing on megabytes.
_MAX_TEXT = 64


def parse_timestamp(
    value: object, *, field: str = "created_at", naive_tz: tzinfo = UTC
) -> datetime:
    """Parse ``value`` into an aware UTC datetime or raise InvalidInput naming ``field``.

    Never raises anything else: overflow while converting an offset or a number is a
    ``timestamp_range`` refusal."""
    out_of_range = f"{field} is out of range (years 1–9999 in UTC): {short_repr(value)}"
    try:
        parsed = _parse(value, field, naive_tz).astimezone(UTC)
    except (OverflowError, OSError, ValueError) as e:
        raise InvalidInput(field, "timestamp_range", out_of_range) from e
    if not MIN_TIMESTAMP <= parsed <= MAX_TIMESTAMP:
        raise InvalidInput(field, "timestamp_range", out_of_range)
    return parsed


def _parse(value: object, field: str, naive_tz: tzinfo) -> datetime:
    if isinstance(value, bool) or value is None:
        raise InvalidInput(field, "timestamp", f"{field} must be a timestamp, got {value!r}")
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=naive_tz)
    if isinstance(value, int | float):
        return _from_epoch(float(value), field)
    if not isinstance(value, str):
        raise InvalidInput(field, "timestamp", f"{field} must be a string or a number")
    text = value.strip()
    if len(text) > _MAX_TEXT:
        raise InvalidInput(field, "timestamp", f"{field} is not a recognised timestamp")
    if _NUMERIC.match(text):
        return _from_epoch(float(text), field)
    return _from_iso(text, field, naive_tz)


def short_repr(value: object, max_chars: int = 80) -> str:
    """A short repr for error messages; always printable and encodable (repr escapes
    surrogates and control characters; a huge int has no repr at all: Python refuses)."""
    try:
        text = repr(value[: max_chars + 1] if isinstance(value, str) else value)
    except ValueError:
        return "<a number too large to show>"
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _from_epoch(number: float, field: str) -> datetime:
    seconds = number / 1000.0 if abs(number) >= _MS_THRESHOLD else number
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError) as e:
        raise InvalidInput(
            field, "timestamp_range", f"{field} is out of range: {short_repr(number)}"
        ) from e


def _from_iso(text: str, field: str, naive_tz: tzinfo) -> datetime:
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError as e:
        raise InvalidInput(
            field,
            "timestamp",
            f"{field} is not a recognised timestamp: {short_repr(text)} (use ISO-8601, "
            "'YYYY-MM-DD HH:mm:ss', or Unix seconds/milliseconds)",
        ) from e
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=naive_tz)


def format_timestamp(value: datetime) -> str:
    """UTC ISO-8601 with a ``Z`` suffix; microseconds only when present."""
    utc = value.astimezone(UTC)
    text = utc.isoformat(timespec="microseconds" if utc.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def to_micros(value: datetime) -> int:
    delta = value.astimezone(UTC) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)
