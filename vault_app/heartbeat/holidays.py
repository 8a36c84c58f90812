"""Holidays as days: "for Christmas", "last Thanksgiving", "on Mother's Day 2025".

People date their lives by holidays more than by the calendar ("my parents are coming
for Christmas", "we got engaged on New Year's Eve"), and a fact kept for a year must say
which Christmas. `HOLIDAY` finds a holiday named as a time — after a preposition ("for",
"on", "at", "over", "until", "since", "before", "after", …), a direction ("last", "next",
"this") or a verb that spends one ("spent", "hosting", "celebrated") — and `day_of` gives
its day in a year:

    New Year's Day / New Year's      1 January       Valentine's Day     14 February
    Easter (Sunday)                  computed        Mother's Day        2nd Sunday of May
    Memorial Day                     last Monday of May
    Father's Day                     3rd Sunday of June
    Independence Day, the Fourth of July  4 July     Labor Day           1st Monday of September
    Halloween                        31 October      Thanksgiving        4th Thursday of November
    Christmas Eve                    24 December     Christmas (Day)     25 December
    New Year's Eve                   31 December

The movable days are the United States' (the household writes dates month/day, US style,
too). Holidays of a lunar calendar (Hanukkah, Diwali, Eid, Lunar New Year) are not read:
their days need tables this module does not keep, and a wrong day is worse than none.
`dates.resolve` appends the day found ("for Christmas" -> "for Christmas (2026-12-25)")
and `dates.dates_in` lists it; which year is `dates`' rule for a named day without one.

The pattern is a bounded alternation of literal words, linear in the text.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

_APOS = r"['’]?"
# (pattern, key): longer names first, so "Christmas Eve" is not read as "Christmas"
_NAMES = (
    (r"Christmas\s+Eve", "christmas eve"),
    (r"Christmas(?:\s+Day)?", "christmas"),
    (r"New\s+Year" + _APOS + r"s\s+Eve", "new year's eve"),
    (r"New\s+Year" + _APOS + r"s(?:\s+Day)?", "new year's day"),
    (r"Thanksgiving(?:\s+Day)?", "thanksgiving"),
    (r"Halloween", "halloween"),
    (r"Valentine" + _APOS + r"s\s+Day", "valentine's day"),
    (r"Easter(?:\s+Sunday)?", "easter"),
    (r"Mother" + _APOS + r"s\s+Day", "mother's day"),
    (r"Father" + _APOS + r"s\s+Day", "father's day"),
    (r"Memorial\s+Day", "memorial day"),
    (r"Labor\s+Day", "labor day"),
    (r"Independence\s+Day|(?:the\s+)?Fourth\s+of\s+July", "independence day"),  # "4th": a date
)
_LEAD = (
    r"(?P<lead>(?:on|for|at|over|until|till|since|before|after|around|through|during|by"
    r"|from|to|spent|spend|spending|host|hosting|hosted|celebrate|celebrated|celebrating)\s+)"
)
HOLIDAY = re.compile(
    r"\b(?:(?P<dir>last|next|this)\s+|" + _LEAD + r")"
    r"(?P<name>"
    + "|".join(f"(?P<h{n}>{pattern})" for n, (pattern, _) in enumerate(_NAMES))
    + r")(?:,?\s+(?P<year>\d{4}))?\b"
    # "for Christmas shopping" still dates; a holiday's own thing ("Christmas tree") has no
    # preposition before it, and "'s" ("Christmas's") is a possessive, not a time
    r"(?!['’]s\b)(?!\s*\(\d{4}-)",  # already dated: resolving twice adds nothing
    re.IGNORECASE,  # "for christmas", typed in lower case, is the same day
)

_WORDS = ("christmas", "new year", "thanksgiving", "halloween", "easter", "s day", "memorial",
          "labor", "independence", "fourth")  # fmt: skip


def mentions(text: str) -> bool:
    """Whether `text` holds a holiday's word at all: most text names none, and this scan
    (plain substrings) is far cheaper than `HOLIDAY`'s, which tries every preposition."""
    lower = text.lower()
    return any(word in lower for word in _WORDS)


_WHOLE = re.compile(
    r"(?:" + "|".join(pattern for pattern, _ in _NAMES) + r")(?:['’]s)?", re.IGNORECASE
)


def is_holiday(words: str) -> bool:
    """Whether `words` are a holiday's name ("Christmas Eve", "New Year's"): no one's."""
    return _WHOLE.fullmatch(words.strip()) is not None


def key_of(match: re.Match[str]) -> str:
    """The holiday a `HOLIDAY` match names ("christmas eve", "thanksgiving", …)."""
    for n, (_, key) in enumerate(_NAMES):
        if match.group(f"h{n}"):
            return key
    raise ValueError(match.group(0))  # unreachable: one alternative always matched


def day_of(key: str, year: int) -> dt.date:
    """The day of holiday `key` in `year`."""
    fixed = {
        "new year's day": (1, 1), "valentine's day": (2, 14), "independence day": (7, 4),
        "halloween": (10, 31), "christmas eve": (12, 24), "christmas": (12, 25),
        "new year's eve": (12, 31),
    }  # fmt: skip
    if key in fixed:
        return dt.date(year, *fixed[key])
    if key == "easter":
        return easter(year)
    month, weekday, nth = {
        "mother's day": (5, calendar.SUNDAY, 2),
        "memorial day": (5, calendar.MONDAY, -1),
        "father's day": (6, calendar.SUNDAY, 3),
        "labor day": (9, calendar.MONDAY, 1),
        "thanksgiving": (11, calendar.THURSDAY, 4),
    }[key]
    days = [d for d in calendar.Calendar().itermonthdates(year, month)
            if d.month == month and d.weekday() == weekday]  # fmt: skip
    return days[nth - 1] if nth > 0 else days[nth]


def easter(year: int) -> dt.date:
    """Easter Sunday of the Gregorian calendar (the anonymous algorithm, Meeus/Jones/
    Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    weekday = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * weekday) // 451
    month, day = divmod(h + weekday - 7 * m + 114, 31)
    return dt.date(year, month, day + 1)
