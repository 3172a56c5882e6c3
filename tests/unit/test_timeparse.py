from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.errors import InvalidInput
from ai_memory.core.timeparse import (
    MAX_TIMESTAMP,
    MIN_TIMESTAMP,
    format_timestamp,
    from_micros,
    parse_timestamp,
    to_micros,
)

EXPECTED = datetime(2024, 3, 12, 1, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        "2024-03-12T09:30:00+08:00",  # ISO with offset
        "2024-03-12T01:30:00Z",  # ISO Z
        "2024-03-12T01:30:00",  # naive ISO → UTC
        "2024-03-12 01:30:00",  # YYYY-MM-DD HH:mm:ss → UTC
        1710207000,  # Unix seconds
        "1710207000",  # Unix seconds as a string
        1710207000000,  # Unix milliseconds
        1710207000.0,
    ],
)
def test_accepted_forms_normalise_to_utc(value: object) -> None:
    assert parse_timestamp(value) == EXPECTED


def test_naive_input_uses_the_given_zone() -> None:
    tokyo = timezone(timedelta(hours=9))
    assert parse_timestamp("2024-03-12 10:30:00", naive_tz=tokyo) == EXPECTED


@pytest.mark.parametrize("value", ["yesterday", "", "2024-13-01", None, True, [1], "12:00"])
def test_rejected_forms_name_the_field(value: object) -> None:
    with pytest.raises(InvalidInput) as e:
        parse_timestamp(value, field="created_at")
    assert e.value.field == "created_at"


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T23:00:00-05:00",  # the offset pushes it past year 9999
        "0001-01-01T00:00:00+05:00",  # the offset pushes it before year 1
        "0001-01-01",  # midnight in a zone ahead of UTC is the year 0 in UTC
        -62135596801,  # one second before 0001-01-01T00:00:00Z
        253402300800000,  # 10000-01-01T00:00:00Z as Unix milliseconds
        "1e400",  # not a numeral here, and no date either
        10**400,  # too large for a float
        float("inf"),
        float("nan"),
        "9" * 5000,  # a numeral of 5000 digits
    ],
)
def test_out_of_range_is_refused_never_crashes(value: object) -> None:
    tz = timezone(timedelta(hours=3))
    with pytest.raises(InvalidInput) as e:
        parse_timestamp(value, naive_tz=tz)
    assert e.value.field == "created_at"
    assert e.value.rule in ("timestamp_range", "timestamp")
    assert len(e.value.message) < 300


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1066-10-14T00:00:00Z", datetime(1066, 10, 14, tzinfo=UTC)),
        ("0001-01-01T00:00:00Z", MIN_TIMESTAMP),
        ("0001-01-01T05:00:00+05:00", MIN_TIMESTAMP),
        ("9999-12-31T23:59:59.999999Z", MAX_TIMESTAMP),
        ("9999-12-31T18:59:59.999999-05:00", MAX_TIMESTAMP),
    ],
)
def test_bounds_are_years_1_to_9999_in_utc(value: str, expected: datetime) -> None:
    assert parse_timestamp(value) == expected


def test_the_bounds_are_representable_as_micros() -> None:
    for bound in (MIN_TIMESTAMP, MAX_TIMESTAMP):
        assert from_micros(to_micros(bound)) == bound
        assert parse_timestamp(format_timestamp(bound)) == bound


def test_format_is_utc_with_z() -> None:
    assert format_timestamp(EXPECTED) == "2024-03-12T01:30:00Z"
    assert format_timestamp(EXPECTED.replace(microsecond=5)) == "2024-03-12T01:30:00.000005Z"
    assert format_timestamp(parse_timestamp("2024-03-12T09:30:00+08:00")).endswith("Z")


@given(
    st.datetimes(
        min_value=datetime(1, 1, 1),
        max_value=datetime(9999, 12, 31, 23, 59, 59, 999999),
        timezones=st.just(UTC),
    )
)
def test_format_parse_and_micros_round_trip(value: datetime) -> None:
    assert parse_timestamp(format_timestamp(value)) == value
    assert from_micros(to_micros(value)) == value
