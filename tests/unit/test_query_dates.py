"""The periods a query names (``core.query_dates``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ai_memory.core.query_dates import MAX_PERIODS, Period, named_periods

NOW = datetime(2026, 12, 5, 12, 30, tzinfo=UTC)  # a Saturday


def days(query: str, now: datetime = NOW) -> list[tuple[str, str]]:
    return [
        (p.start.date().isoformat(), p.end.date().isoformat()) for p in named_periods(query, now)
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What painting did Melanie show on October 13, 2023?", [("2023-10-13", "2023-10-14")]),
        ("What did Jon find on 1 February, 2023?", [("2023-02-01", "2023-02-02")]),
        ("on the 13th of Oct, 2023", [("2023-10-13", "2023-10-14")]),
        ("Sept. 3rd 2022", [("2022-09-03", "2022-09-04")]),
        ("logged at 2023-10-13 by the agent", [("2023-10-13", "2023-10-14")]),
        ("What did John attend in March 2023?", [("2023-03-01", "2023-04-01")]),
        ("in december 2023", [("2023-12-01", "2024-01-01")]),
        ("Which state did Joanna visit in summer 2021?", [("2021-06-01", "2021-09-01")]),
        ("the winter of 2021", [("2021-12-01", "2022-03-01")]),
        ("career-high performances in 2023", [("2023-01-01", "2024-01-01")]),
        ("during the year 1999", [("1999-01-01", "2000-01-01")]),
        ("what did I say yesterday", [("2026-12-04", "2026-12-05")]),
        ("notes from today", [("2026-12-05", "2026-12-06")]),
        ("last week", [("2026-11-23", "2026-11-30")]),
        ("this week", [("2026-11-30", "2026-12-07")]),
        ("last month", [("2026-11-01", "2026-12-01")]),
        ("this month", [("2026-12-01", "2027-01-01")]),
        ("last year", [("2025-01-01", "2026-01-01")]),
        (
            "March 2023 and summer of 2021",
            [("2021-06-01", "2021-09-01"), ("2023-03-01", "2023-04-01")],
        ),
    ],
)
def test_named_periods(query: str, expected: list[tuple[str, str]]) -> None:
    assert days(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "Where did Caroline move from 4 years ago?",  # vague: no period
        "When did Melanie go camping in June?",  # a month without its year
        "What did Melanie realize after the charity race?",
        "Who scored 2023 points?",  # a bare number is not a year
        "FIFA 23 tournament",
        "the mayor of the town",  # "may" inside a word
        "",
    ],
)
def test_vague_or_no_periods(query: str) -> None:
    assert named_periods(query, NOW) == ()


def test_a_day_wins_over_the_month_it_is_written_in() -> None:
    # "May 3, 2023" holds "May ... 2023" too; the day is read, not the month.
    assert days("Who did Maria have dinner with on May 3, 2023?") == [("2023-05-03", "2023-05-04")]


def test_an_impossible_day_is_read_as_its_month() -> None:
    assert days("on 31 February 2023") == [("2023-02-01", "2023-03-01")]
    assert days("2023-02-31") == []


def test_relative_periods_follow_the_clock_given() -> None:
    january = datetime(2024, 1, 3, tzinfo=UTC)
    assert days("last month", january) == [("2023-12-01", "2024-01-01")]
    assert days("last week", january) == [("2023-12-25", "2024-01-01")]
    # Read in UTC whatever zone the clock is in.
    late = datetime.fromisoformat("2026-12-05T23:30:00-05:00")  # 04:30 UTC on the 6th
    assert days("today", late) == [("2026-12-06", "2026-12-07")]


def test_at_most_max_periods_and_no_duplicates() -> None:
    query = " and ".join(f"in {year}" for year in range(2000, 2010)) + " in 2000"
    found = named_periods(query, NOW)
    assert len(found) == MAX_PERIODS
    assert len(set(found)) == len(found)
    assert list(found) == sorted(found)


def test_hostile_queries_are_read_in_linear_time() -> None:
    # Near-misses repeated: every pattern must give up on each without backtracking into
    # the rest of the text (the query is user input; AIMEM_MAX_QUERY_CHARS bounds it).
    query = ("13 " * 5000) + ("October " * 5000) + ("in " * 5000) + "summer of"
    assert named_periods(query, NOW) == ()


def test_periods_are_half_open_and_utc() -> None:
    (period,) = named_periods("on 13 October 2023", NOW)
    assert period == Period(datetime(2023, 10, 13, tzinfo=UTC), datetime(2023, 10, 14, tzinfo=UTC))
