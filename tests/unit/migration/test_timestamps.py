"""Timestamp normalisation for imports: each source format becomes UTC ISO-8601."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.migration.generic import normalize_timestamp, timestamp_kind

NOW = datetime(2026, 3, 12, 9, 30, tzinfo=UTC)
SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (1710235800, "unix_s", "2024-03-12T09:30:00Z"),
        ("1710235800", "unix_s", "2024-03-12T09:30:00Z"),
        (1710235800.5, "unix_s", "2024-03-12T09:30:00.500000Z"),
        (1710235800123, "unix_ms", "2024-03-12T09:30:00.123000Z"),
        ("1710235800123", "unix_ms", "2024-03-12T09:30:00.123000Z"),
        ("2024-03-12 17:30:00", "naive", "2024-03-12T09:30:00Z"),
        ("2024-03-12T17:30:00", "naive", "2024-03-12T09:30:00Z"),
        ("2024-03-12", "date", "2024-03-11T16:00:00Z"),
        ("2024-03-12T17:30:00+08:00", "iso_offset", "2024-03-12T09:30:00Z"),
        ("2024-03-12T04:30:00-05:00", "iso_offset", "2024-03-12T09:30:00Z"),
        ("2024-03-12T09:30:00Z", "iso_offset", "2024-03-12T09:30:00Z"),
    ],
)
def test_each_format_normalises_to_utc(value: object, kind: str, expected: str) -> None:
    assert timestamp_kind(value) == kind
    assert normalize_timestamp(value, naive_tz=SHANGHAI, now=NOW) == expected


def test_naive_times_default_to_utc() -> None:
    assert normalize_timestamp("2024-03-12 09:30:00", now=NOW) == "2024-03-12T09:30:00Z"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("yesterday", "not a recognised timestamp"),
        ("12/03/2024", "not a recognised timestamp"),
        (True, "must be a timestamp"),
        (86400, "before 1990"),
        ("1985-01-01T00:00:00Z", "before 1990"),
        ("2027-01-01T00:00:00Z", "in the future"),
        (1_710_235_800_000_000, "out of range"),
    ],
)
def test_anomalies_are_rejected_with_a_reason(value: object, fragment: str) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_timestamp(value, now=NOW)
    assert fragment in info.value.message


def test_other_kinds() -> None:
    assert timestamp_kind(None) == "other"
    assert timestamp_kind(False) == "other"
    assert timestamp_kind("tomorrow") == "naive"
