from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.errors import InvalidInput
from ai_memory.core.timeparse import format_timestamp, from_micros, parse_timestamp, to_micros

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


def test_out_of_range_is_rejected() -> None:
    with pytest.raises(InvalidInput) as e:
        parse_timestamp("1066-10-14T00:00:00Z")
    assert e.value.rule == "timestamp_range"


def test_format_is_utc_with_z() -> None:
    assert format_timestamp(EXPECTED) == "2024-03-12T01:30:00Z"
    assert format_timestamp(EXPECTED.replace(microsecond=5)) == "2024-03-12T01:30:00.000005Z"
    assert format_timestamp(parse_timestamp("2024-03-12T09:30:00+08:00")).endswith("Z")


@given(
    st.datetimes(
        min_value=datetime(1900, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    )
)
def test_format_parse_and_micros_round_trip(value: datetime) -> None:
    assert parse_timestamp(format_timestamp(value)) == value
    assert from_micros(to_micros(value)) == value
