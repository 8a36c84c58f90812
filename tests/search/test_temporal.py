"""Temporal queries: the date range a query speaks of, or None."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_app.search import temporal

TODAY = dt.date(2026, 11, 21)  # a Saturday
D = dt.date


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what happened last week", (D(2026, 11, 9), D(2026, 11, 15))),
        ("plumber in March", (D(2026, 3, 1), D(2026, 3, 31))),
        ("december bills", (D(2025, 12, 1), D(2025, 12, 31))),
        ("in may 2025", (D(2025, 5, 1), D(2025, 5, 31))),
        ("leak on 2026-11-03", (D(2026, 11, 3), D(2026, 11, 3))),
        ("the call yesterday", (D(2026, 11, 20), D(2026, 11, 20))),
        ("today's notes", (TODAY, TODAY)),
        ("3 days ago", (D(2026, 11, 18), D(2026, 11, 18))),
        ("two weeks ago", (D(2026, 11, 4), D(2026, 11, 10))),
        ("past 2 weeks", (D(2026, 11, 7), TODAY)),
        ("this month", (D(2026, 11, 1), TODAY)),
        ("last month", (D(2026, 10, 1), D(2026, 10, 31))),
        ("this year", (D(2026, 1, 1), TODAY)),
        ("on Monday", (D(2026, 11, 16), D(2026, 11, 16))),
        ("last friday", (D(2026, 11, 20), D(2026, 11, 20))),
        ("recently", (D(2026, 11, 14), TODAY)),
        ("between 2026-11-01 and 2026-11-05", (D(2026, 11, 1), D(2026, 11, 5))),
    ],
)
def test_temporal_queries(query: str, expected: tuple[dt.date, dt.date]) -> None:
    assert temporal.date_range(query, TODAY) == expected


@pytest.mark.parametrize(
    "query", ["roof quote", "may I see the budget", "jan called about the roof", "2026-13-45"]
)
def test_queries_without_time(query: str) -> None:
    assert temporal.date_range(query, TODAY) is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # days in words, as people (and LoCoMo's questions) write them
        ("What is Nate creating on 9 November, 2022?", (D(2022, 11, 9), D(2022, 11, 9))),
        ("What did Tim finish on 8th December, 2023?", (D(2023, 12, 8), D(2023, 12, 8))),
        ("the picture shared on December 1,2023", (D(2023, 12, 1), D(2023, 12, 1))),
        ("Which team did John sign with on 21 May, 2023?", (D(2023, 5, 21), D(2023, 5, 21))),
        ("November 9, 2022", (D(2022, 11, 9), D(2022, 11, 9))),
        ("the party on May 21", (D(2026, 5, 21), D(2026, 5, 21))),  # the latest such day
        ("the call on December 3", (D(2025, 12, 3), D(2025, 12, 3))),  # not after today
        # a day without its year takes the year said beside it
        ("between August 11 and August 15 2023", (D(2023, 8, 11), D(2023, 8, 15))),
        # years
        ("his ankle injury in 2023", (D(2023, 1, 1), D(2023, 12, 31))),
        ("since 2025", (D(2025, 1, 1), TODAY)),
        # relative words read from the day the query gives...
        ("last week, as mentioned on November 6, 2023", (D(2023, 10, 30), D(2023, 11, 6))),
        # ... and add nothing beside only a month or a year
        ("what did John organize recently in 2024", (D(2024, 1, 1), D(2024, 12, 31))),
        ("in March, as he said in 2024", (D(2024, 3, 1), D(2024, 3, 31))),
    ],
)
def test_dates_in_words_and_years(query: str, expected: tuple[dt.date, dt.date]) -> None:
    assert temporal.date_range(query, TODAY) == expected


@pytest.mark.parametrize("query", ["I may 3 times", "room 42 on floor 3", "chapter 12"])
def test_what_is_no_date(query: str) -> None:
    assert temporal.date_range(query, TODAY) is None


def test_a_date_in_words_is_stripped_from_the_topic() -> None:
    assert temporal.strip("What did Tim read on 8th December, 2023?", TODAY) == (
        "what did tim read on ?"
    )
