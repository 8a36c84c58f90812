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
