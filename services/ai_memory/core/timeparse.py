"""Timestamp parsing and formatting: everything becomes timezone-aware UTC.

Accepted on input (documented in the README):

* ISO-8601 with an offset or ``Z``: ``2024-03-12T09:30:00+08:00`` → converted to UTC
* naive ISO-8601 ``2024-03-12T09:30:00`` and ``YYYY-MM-DD HH:mm:ss`` → interpreted in
  ``naive_tz`` (UTC unless the caller says otherwise, e.g. an importer's ``--tz`` flag)
* a date ``2024-03-12`` → midnight in ``naive_tz``
* Unix seconds (int/float or digit string) and Unix milliseconds: a number whose absolute
  value is ≥ 1e11 is taken as milliseconds (1e11 s is the year 5138, 1e11 ms is 1973)

Output is always ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

from .errors import InvalidInput

_MS_THRESHOLD = 100_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Anything outside these bounds is far more likely a unit mix-up than a real memory.
_MIN = datetime(1900, 1, 1, tzinfo=UTC)
_MAX = datetime(9999, 12, 31, tzinfo=UTC)
_NUMERIC = re.compile(r"^[+-]?\d+(\.\d+)?$")


def parse_timestamp(
    value: object, *, field: str = "created_at", naive_tz: tzinfo = UTC
) -> datetime:
    """Parse ``value`` into an aware UTC datetime or raise InvalidInput naming ``field``."""
    if isinstance(value, bool) or value is None:
        raise InvalidInput(field, "timestamp", f"{field} must be a timestamp, got {value!r}")
    if isinstance(value, datetime):
        parsed = value if value.tzinfo else value.replace(tzinfo=naive_tz)
    elif isinstance(value, int | float):
        parsed = _from_epoch(float(value), field)
    elif isinstance(value, str):
        text = value.strip()
        if _NUMERIC.match(text):
            parsed = _from_epoch(float(text), field)
        else:
            parsed = _from_iso(text, field, naive_tz)
    else:
        raise InvalidInput(field, "timestamp", f"{field} must be a string or a number")
    parsed = parsed.astimezone(UTC)
    if not _MIN <= parsed <= _MAX:
        raise InvalidInput(field, "timestamp_range", f"{field} is out of range: {value!r}")
    return parsed


def _from_epoch(number: float, field: str) -> datetime:
    seconds = number / 1000.0 if abs(number) >= _MS_THRESHOLD else number
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError) as e:
        raise InvalidInput(field, "timestamp_range", f"{field} is out of range: {number!r}") from e


def _from_iso(text: str, field: str, naive_tz: tzinfo) -> datetime:
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError as e:
        raise InvalidInput(
            field,
            "timestamp",
            f"{field} is not a recognised timestamp: {text!r} (use ISO-8601, "
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
    from datetime import timedelta

    return _EPOCH + timedelta(microseconds=micros)
