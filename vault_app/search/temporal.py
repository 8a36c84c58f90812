"""Temporal queries: find the date range a query speaks of ("last week", "in March", a date).

`date_range(query, today)` returns the inclusive (first, last) days a query refers to, or
None when it has no temporal aspect. Understood, case-insensitively: ISO dates
(`2026-03-04`), `today`, `yesterday`, `this/last week|month|year`, `past/last N days|weeks`,
`N days/weeks ago`, weekday names (`on Monday`, `last friday`: the most recent such day
before today), month names (`in March`, `March 2026`: the latest such month not after
today unless a year is given), and `recent(ly)` / `lately` (the past 7 days). When a query
names several, the union of their ranges is taken.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
AMBIGUOUS = {"may", "mar", "jan"}  # a verb, a verb, a name: months only after "in"/before a year
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_RELATIVE = re.compile(r"\b(this|last|past|previous)\s+(week|month|year)\b")
_SPAN = re.compile(r"\b(?:past|last|previous)\s+(\d{1,3})\s+(days?|weeks?)\b")
_AGO = re.compile(r"\b(\d{1,3}|a|one|two|three)\s+(days?|weeks?)\s+ago\b")
_MONTH_WORD = re.compile(r"\b(?:(in|during|since|last|of)\s+)?([a-z]+)\b(?:\s+(\d{4})\b)?")
_WEEKDAY = re.compile(r"\b(?:(on|last|this)\s+)?(" + "|".join(WEEKDAYS) + r")\b")
_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3}

Range = tuple[dt.date, dt.date]


def _month_range(year: int, month: int) -> Range:
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


def _latest_month(month: int, today: dt.date, year: str | None) -> Range:
    if year:
        return _month_range(int(year), month)
    y = today.year if month <= today.month else today.year - 1
    return _month_range(y, month)


def date_range(query: str, today: dt.date) -> Range | None:
    """The days `query` refers to, or None if it has no temporal aspect."""
    text = query.lower()
    found: list[Range] = []
    for match in _ISO.finditer(text):
        try:
            day = dt.date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            continue
        found.append((day, day))
    if re.search(r"\btoday\b", text):
        found.append((today, today))
    if re.search(r"\byesterday\b", text):
        found.append((today - dt.timedelta(days=1),) * 2)
    if re.search(r"\b(recent|recently|lately)\b", text):
        found.append((today - dt.timedelta(days=7), today))
    for match in _RELATIVE.finditer(text):
        which, unit = match[1], match[2]
        found.append(_relative(which, unit, today))
    for match in _SPAN.finditer(text):
        days = int(match[1]) * UNITS[match[2]]
        found.append((today - dt.timedelta(days=days), today))
    for match in _AGO.finditer(text):
        count = _WORDS.get(match[1]) or int(match[1])
        then = today - dt.timedelta(days=count * UNITS[match[2]])
        width = 0 if match[2].startswith("day") else 3  # "2 weeks ago": that week, roughly
        found.append((then - dt.timedelta(days=width), then + dt.timedelta(days=width)))
    for word, year in _month_matches(text):
        found.append(_latest_month(MONTHS[word], today, year))
    for weekday_match in _WEEKDAY.finditer(text):
        weekday = WEEKDAYS[weekday_match[2]]
        back = (today.weekday() - weekday) % 7 or 7
        if weekday_match[1] == "this" and weekday <= today.weekday():
            back = today.weekday() - weekday
        when = today - dt.timedelta(days=back)
        found.append((when, when))
    if not found:
        return None
    return min(r[0] for r in found), max(r[1] for r in found)


_PHRASES = [
    _ISO,
    re.compile(r"\b(today|yesterday|recent|recently|lately)\b"),
    _RELATIVE,
    _SPAN,
    _AGO,
    _WEEKDAY,
    re.compile(r"\b(what|anything)\s+happened\b|\bhappened\b"),
]


def strip(query: str, today: dt.date) -> str:
    """`query` without its temporal phrases (for relevance ranking), if it has any."""
    if date_range(query, today) is None:
        return query
    text = query
    for pattern in _PHRASES:
        text = pattern.sub(" ", text.lower() if pattern is not _ISO else text)
    for word, year in _month_matches(text.lower()):
        text = re.sub(
            rf"\b(in|during|since|last|of)?\s*{word}\b(\s+{year})?"
            if year
            else rf"\b(in|during|since|last|of)?\s*{word}\b",
            " ",
            text,
        )
    return " ".join(text.split())


def _month_matches(text: str) -> list[tuple[str, str | None]]:
    result = []
    for match in _MONTH_WORD.finditer(text):
        lead, word, year = match[1], match[2], match[3]
        if word in MONTHS and (word not in AMBIGUOUS or lead or year):
            result.append((word, year))
    return result


def _relative(which: str, unit: str, today: dt.date) -> Range:
    if unit == "week":
        start = today - dt.timedelta(days=today.weekday())
        if which == "this":
            return start, today
        if which == "past":
            return today - dt.timedelta(days=7), today
        return start - dt.timedelta(days=7), start - dt.timedelta(days=1)
    if unit == "month":
        if which == "this":
            return today.replace(day=1), today
        if which == "past":
            return today - dt.timedelta(days=30), today
        last = today.replace(day=1) - dt.timedelta(days=1)
        return last.replace(day=1), last
    if which == "this":
        return dt.date(today.year, 1, 1), today
    if which == "past":
        return today - dt.timedelta(days=365), today
    return dt.date(today.year - 1, 1, 1), dt.date(today.year - 1, 12, 31)
