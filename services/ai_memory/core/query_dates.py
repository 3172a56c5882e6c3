"""The periods a query names: "in March 2023", "on 13 October 2023", "last week".

A question about a time ("What did Melanie paint in July 2023?") is answered by a memory
*written* then — a conversation turn dated July 2023 that says "we painted a lake
sunrise" — and the words "July 2023" are in neither the turn nor its vector. Search
therefore reads the period out of the query and lets the memories created in it compete
in their own right (a dense and a keyword retriever restricted to the period, fused
beside the unrestricted ones, ``adapters/index_payload.plan_search``). It is a boost,
never a filter: a memory from another time still ranks by its own relevance.

Recognised, case-insensitive, English:

* a day: ``13 October 2023``, ``13th of Oct, 2023``, ``October 13, 2023``, ``2023-10-13``;
* a month: ``October 2023``, ``Oct. 2023``;
* a season of a year: ``summer 2021``, ``the winter of 2021`` (meteorological, northern
  hemisphere: winter 2021 is December 2021 to February 2022);
* a year after ``in``, ``during`` or ``throughout``: ``in 2023`` (a bare number is too
  often a count or a name: "FIFA 23", "2023 people");
* relative to the search's time (its ``as_of``, else now): ``today``, ``yesterday``,
  ``this`` / ``last`` ``week`` / ``month`` / ``year`` (weeks start on Monday, UTC).

Vaguer expressions ("a few weeks ago", "in June" without a year, "after the race") name
no period: reading them needs the conversation's own chronology, which a query does not
carry. Measured on LoCoMo (``docs/design/RETRIEVAL.md``): 253 of its 1,982 questions
name a period this way.

Pure: the clock is passed in. Linear-time patterns only (queries are user input).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

# At most this many periods per query: each one widens the dated retrievers' filter, and
# a query naming more is a list, not a question about a time.
MAX_PERIODS = 4

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
# Longest names first, so "sept" is read whole and "may" is not taken from "mayor".
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"

_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}}){_ORD},?\s+{_YEAR}\b", re.I)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b", re.I)
_SEASON_YEAR = re.compile(rf"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?{_YEAR}\b", re.I)
_IN_YEAR = re.compile(rf"\b(?:in|during|throughout)\s+(?:the\s+year\s+)?{_YEAR}\b", re.I)
_RELATIVE = re.compile(r"\b(today|yesterday|(?:this|last)\s+(?:week|month|year))\b", re.I)

_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


@dataclass(frozen=True, order=True)
class Period:
    """``start`` inclusive, ``end`` exclusive, both aware UTC."""

    start: datetime
    end: datetime


def named_periods(query: str, now: datetime) -> tuple[Period, ...]:
    """The periods ``query`` names, earliest first, at most ``MAX_PERIODS``; relative
    expressions are read against ``now`` (aware). A day inside a named month or year
    wins over it: "on 3 May 2023" is that day, not May."""
    found: list[Period] = []
    spans: list[tuple[int, int]] = []  # the text already read as a more precise period

    def take(pattern: re.Pattern[str], read: Callable[[re.Match[str]], Period | None]) -> None:
        for match in pattern.finditer(query):
            if any(a < match.end() and match.start() < b for a, b in spans):
                continue
            period = read(match)
            if period is not None:
                found.append(period)
                spans.append(match.span())

    take(_DAY_MONTH_YEAR, lambda m: _day(m.group(3), _MONTHS[m.group(2).lower()], m.group(1)))
    take(_MONTH_DAY_YEAR, lambda m: _day(m.group(3), _MONTHS[m.group(1).lower()], m.group(2)))
    take(_ISO_DAY, lambda m: _day(m.group(1), int(m.group(2)), m.group(3)))
    take(_MONTH_YEAR, lambda m: _month(int(m.group(2)), _MONTHS[m.group(1).lower()]))
    take(_SEASON_YEAR, lambda m: _season(m.group(1).lower(), int(m.group(2))))
    take(_IN_YEAR, lambda m: _years(int(m.group(1)), 1))
    take(_RELATIVE, lambda m: _relative(" ".join(m.group(1).lower().split()), now))
    return tuple(sorted(set(found)))[:MAX_PERIODS]


def _day(year: str, month: int, day: str) -> Period | None:
    try:
        start = datetime(int(year), month, int(day), tzinfo=UTC)
    except ValueError:  # 31 February, year 0, month 13
        return None
    return Period(start, start + timedelta(days=1))


def _month(year: int, month: int, count: int = 1) -> Period | None:
    if not 1 <= year <= 9998:
        return None
    start = datetime(year, month, 1, tzinfo=UTC)
    index = year * 12 + month - 1 + count
    return Period(start, datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC))


def _season(name: str, year: int) -> Period | None:
    return _month(year, _SEASON_START[name], 3)


def _years(year: int, count: int) -> Period | None:
    return _month(year, 1, 12 * count)


def _relative(expression: str, now: datetime) -> Period | None:
    now = now.astimezone(UTC)
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    if expression == "today":
        return Period(today, today + timedelta(days=1))
    if expression == "yesterday":
        return Period(today - timedelta(days=1), today)
    which, unit = expression.split()
    back = 1 if which == "last" else 0
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) - timedelta(weeks=back)
        return Period(monday, monday + timedelta(weeks=1))
    if unit == "month":
        index = now.year * 12 + now.month - 1 - back
        return _month(index // 12, index % 12 + 1)
    return _years(now.year - back, 1)
