"""Temporal queries: find the date range a query speaks of ("last week", "in March", a date).

`date_range(query, today)` returns the inclusive (first, last) days a query refers to, or
None when it has no temporal aspect. Understood, case-insensitively: ISO dates
(`2026-03-04`), dates in words (`9 November, 2022`, `8th December 2023`, `November 9,
2022`, `December 1,2023`, `on May 21`), years (`in 2023`, `during 2023`, `since 2023`),
`today`, `yesterday`, `this/last week|month|year`, `past/last N days|weeks`, `N
days/weeks ago`, weekday names (`on Monday`, `last friday`: the most recent such day
before today), month names (`in March`, `March 2026`: the latest such month not after
today unless a year is given), and `recent(ly)` / `lately` (the past 7 days). When a query
names several, the union of their ranges is taken.

A date said without its year takes the year the query says elsewhere ("between August 11
and August 15 2023"), else the latest such day not after today. Relative words are read
from the query's own date when it gives one ("last week, as mentioned on November 6,
2023": the week before that day); when it gives only a month or a year, vague or relative
words ("recently in 2024") add nothing: the days it names are the ones it asks about.
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
_MONTH_NAME = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH_NAME})\b\.?(?:\s*,?\s*(\d{{4}})\b)?")
_MONTH_DAY = re.compile(
    rf"\b({_MONTH_NAME})\.?\s+{_DAY}\b(?!\s*(?::|am\b|pm\b|%))(?:\s*,?\s*(\d{{4}})\b)?"
)
_LEAD = re.compile(r"\b(?:on|by|since|until|before|after|from|of)\s+$")
_YEAR_ALONE = re.compile(r"\b(in|during|of|since|throughout)\s+((?:19|20)\d{2})\b")
_ANY_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")

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
    years = [(m.start(), int(m[1])) for m in _ANY_YEAR.finditer(text)]
    days, text = _days(text, years, today)
    found: list[Range] = [(d, d) for d in days]
    absolute = bool(days)
    used = {d.year for d in days}  # a year that dates a day or a month is no range itself
    for word, said in _month_matches(text):
        if said is None and years:  # "in March" of a query that says 2024 elsewhere
            said = str(_nearest(years, text.find(word)))
        found.append(_latest_month(MONTHS[word], today, said))
        if said is not None:
            absolute = True
            used.add(int(said))
    for match in _YEAR_ALONE.finditer(text):
        first = dt.date(int(match[2]), 1, 1)
        absolute = True
        if first.year not in used:
            found.append((first, today if match[1] == "since" else first.replace(month=12, day=31)))
    # relative words: from the query's own day when it gives one, else from today; not
    # at all when it names only a month or a year (their day is then unknown)
    anchor = max(days) if days else today
    if absolute and not days:
        return _union(found)
    if re.search(r"\btoday\b", text):
        found.append((anchor, anchor))
    if re.search(r"\byesterday\b", text):
        found.append((anchor - dt.timedelta(days=1),) * 2)
    if not days and re.search(r"\b(recent|recently|lately)\b", text):
        found.append((anchor - dt.timedelta(days=7), anchor))
    for match in _RELATIVE.finditer(text):
        which, unit = match[1], match[2]
        found.append(_relative(which, unit, anchor))
    for match in _SPAN.finditer(text):
        span = int(match[1]) * UNITS[match[2]]
        found.append((anchor - dt.timedelta(days=span), anchor))
    for match in _AGO.finditer(text):
        count = _WORDS.get(match[1]) or int(match[1])
        then = anchor - dt.timedelta(days=count * UNITS[match[2]])
        width = 0 if match[2].startswith("day") else 3  # "2 weeks ago": that week, roughly
        found.append((then - dt.timedelta(days=width), then + dt.timedelta(days=width)))
    for weekday_match in _WEEKDAY.finditer(text):
        weekday = WEEKDAYS[weekday_match[2]]
        back = (anchor.weekday() - weekday) % 7 or 7
        if weekday_match[1] == "this" and weekday <= anchor.weekday():
            back = anchor.weekday() - weekday
        when = anchor - dt.timedelta(days=back)
        found.append((when, when))
    return _union(found)


def _union(found: list[Range]) -> Range | None:
    if not found:
        return None
    return min(r[0] for r in found), max(r[1] for r in found)


def _days(text: str, years: list[tuple[int, int]], today: dt.date) -> tuple[list[dt.date], str]:
    """The days `text` names (ISO, or in words), and `text` with them blanked out (so
    that their month and year are not read again as a month or a year)."""
    days: list[dt.date] = []
    spans: list[tuple[int, int]] = []
    for match in _ISO.finditer(text):
        try:
            days.append(dt.date(int(match[1]), int(match[2]), int(match[3])))
        except ValueError:
            continue
        spans.append(match.span())
    for pattern, day_at, month_at in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in spans):
                continue
            word = match[month_at]
            if word in AMBIGUOUS and not match[3] and not _LEAD.search(text, 0, match.start()):
                continue  # "I may 3 times": a verb, unless a year or "on" says it is a date
            month, day = MONTHS[word], int(match[day_at])
            year = int(match[3]) if match[3] else _nearest(years, match.start())
            when = _a_day(year, month, day, today)
            if when is not None:
                days.append(when)
                spans.append(match.span())
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return days, text


def _nearest(years: list[tuple[int, int]], at: int) -> int | None:
    """The year the query says nearest after position `at`, else before it."""
    after = [y for pos, y in years if pos >= at]
    before = [y for pos, y in years if pos < at]
    return after[0] if after else (before[-1] if before else None)


def _a_day(year: int | None, month: int, day: int, today: dt.date) -> dt.date | None:
    """That day of `year`, or without a year the latest such day not after today."""
    try:
        if year is not None:
            return dt.date(year, month, day)
        when = dt.date(today.year, month, day)
        return when if when <= today else dt.date(today.year - 1, month, day)
    except ValueError:  # "31 February", or 29 February of a common year
        return None


_PHRASES = [
    _ISO,
    _DAY_MONTH,
    _MONTH_DAY,
    _YEAR_ALONE,
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
