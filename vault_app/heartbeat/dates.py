"""Relative dates made absolute against the day an entry was written.

A daily-note entry says "yesterday", "last Friday" or "in two weeks"; a fact kept for a
year must say which day that was. `resolve` rewrites every relative phrase it knows in
place, against `on` (the entry's date), and leaves the rest of the text alone:

    yesterday / today / tomorrow / tonight / this morning   -> "on 2026-11-19"
    the day before yesterday / the day after tomorrow       -> "on 2026-11-18"
    last / next / this / on <weekday>                       -> "on 2026-11-13"
    (on) <weekday> morning|afternoon|evening|night          -> "on the night of 2026-11-13"
    for <weekday>, moved (…) to <weekday> (the one to come) -> "for 2026-11-24"
    in N days|weeks, N days|weeks ago, a week ago           -> "on 2026-12-04"
    a few | a couple of days|weeks|months ago, in a few …   -> "a few weeks before 2026-11-20"
    about | nearly | over … N days|weeks|months|years ago   -> "about a year before 2026-11-20"
    last / next / this week                                 -> "in the week of 2026-11-09"
    last / next / this weekend                              -> "on the weekend of 2026-11-21"
    last / next / this month, in N months, N months ago     -> "in December 2026"
    last / next / this year, N years ago                    -> "in 2025"
    last / next / this spring|summer|fall|autumn|winter     -> "in the summer of 2026"
    last / next / this <Month>                              -> "in September 2027"
    in <Month> (no day, no year), once ("renews", "will")   -> "in February 2027"
    on the 23rd (not "of every month", "rent is due on …")  -> "on 2026-11-23" (so after
    "by", "from", "to", "until", "through", "arrives", "leaves": "arrives the 22nd")
    for Christmas, last Easter (`holidays`)                 -> "for Christmas (2026-12-25)"
    <event> is Thursday ("Maya's concert is Thursday")      -> "is on 2026-11-26"

Not someone's last or next one ("her last December cleaning"), nor a day of the month just
after its month is named ("in August, the 10th to the 17th": August's, as said).

A preposition before the phrase is kept ("since yesterday" -> "since 2026-11-19"); "on" is
only added where none stood. "last Friday" is the latest Friday before `on`, "next Friday"
the first one after it; a bare "on Friday" / "this Friday" (and "in June", "on the 5th":
this month's or the nearest) looks back when its clause
is in the past tense ("we went on Friday", "I won on Friday"; "On Friday, we went": a
phrase alone in its clause takes the sentence's) and forward otherwise ("the plumber
comes on Friday"); never where the sentence says it recurs ("every year in January").
`dates_in` lists the days a text names, relative ones resolved (a week stands
for its Monday, a weekend for its Saturday, a month for its first day) and absolute ones
read ("March 3", "3 March 2026", "March 3rd, 2026", "2026-03-03", "3/3", "3/3/2026";
slashes are month/day, US style, as the household writes them; a year left out is the
entry's year).

Every pattern is a bounded alternation of literal words and short digit runs, so a
regex pass is linear in the text (no nested quantifiers), whatever it holds.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import itertools
import re

from . import holidays, tense

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december",
)  # fmt: skip
MONTH_ABBR = {name[:3]: n for n, name in enumerate(MONTHS, 1)} | {"sept": 9}
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a few": 3,
}  # fmt: skip
# "a few weeks ago", "about a year ago": around then, no one day
_VAGUE = frozenset(("a few", "a couple of"))
_ABOUT = re.compile(r"\b(?:about|around|roughly|almost|nearly|over|more\s+than)\s+$", re.I)
MAX_OFFSET = 999  # "in 4000 days" is no date anyone means; the digit run is bounded too

_WD = "|".join(WEEKDAYS)
# after last/next/this a weekday may be short ("last Fri"); alone, "sat" or "wed" is a
# word, and "this sun" is the sun
_WD_SHORT = _WD + r"|(?:mon|tues?|wed|thu(?:rs)?|fri|sat|(?<!this\s)sun)\.?(?!\w)"
_NUM = r"\d{1,3}|a\s+couple\s+of|a\s+few|" + "|".join(
    word for word in NUMBER_WORDS if " " not in word
)
_PREP = r"(?:(?P<prep>on|since|until|till|by|from|before|after|through|starting|for|as\s+of)\s+)?"
_HABIT = r"(?!\s+(?:mornings|afternoons|evenings|nights)\b)"  # "on Sunday afternoons": a habit
_RELATIVE = re.compile(
    r"\b" + _PREP + r"(?:"
    r"(?P<dby>the\s+day\s+before\s+yesterday)"
    r"|(?P<dat>the\s+day\s+after\s+tomorrow)"
    r"|(?P<day>yesterday|today|tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening))"
    r"(?:\s+(?P<part0>morning|afternoon|evening|night)\b(?!s))?"
    r"|(?P<wdrel>last|next|this\s+past|this\s+coming|this|coming)\s+(?P<wd1>"
    + _WD_SHORT
    + r")"
    + _HABIT
    + r"|(?<=\bon\s)(?P<wd2>"
    + _WD
    + r")"
    + _HABIT
    + r"(?:\s+(?P<part2>morning|afternoon|evening|night)\b(?!s))?"
    # the day one is booked for or something is moved to ("booked for Tuesday", "moved my
    # appointment to Friday"; not "open Monday to Friday", a span of every week)
    + r"|(?:(?<=\bfor\s)|(?<=\bto\s)(?<!day\sto\s)(?<!days\sto\s))(?P<wd4>"
    + _WD
    + r")"
    + _HABIT
    + r"|(?<!every\s)(?<!each\s)(?<!other\s)(?P<wd3>"
    + _WD
    + r")\s+(?P<part>morning|afternoon|evening|night)"
    r"|(?P<span_dir>last|next|this)\s+(?P<span>week(?:end)?|month|year)"
    r"|(?P<season_dir>last|next|this)\s+(?P<season>spring|summer|fall|autumn|winter)"
    # "next September", "last March"; capitalised, for "this may be" is no May
    r"|(?P<mon_dir>last|next|this)\s+(?P<mon_rel>(?-i:"
    + "|".join(m.title() for m in MONTHS)
    + r"))(?![\s,]*\d)"
    r"|in\s+(?P<in_n>" + _NUM + r")\s+(?P<in_unit>day|week|month|year)s?"
    r"|(?P<ago_n>" + _NUM + r")\s+(?P<ago_unit>day|week|month|year)s?\s+ago"
    # a month with no day or year ("renews in February"), a day of the month ("on the 23rd")
    r"|(?<=\bin\s)(?P<mon>(?-i:" + "|".join(m.title() for m in MONTHS) + r"))(?![\s,]*\d)"
    r"|(?:(?<=\bon\s)|(?<=\bby\s)|(?<=\bto\s)|(?<=\buntil\s)|(?<=\bfrom\s)"
    r"|(?<=\bthrough\s)|(?<=\barrives\s)|(?<=\bleaves\s)|(?<=\barriving\s)"
    r"|(?<=\bleaving\s))the\s+(?P<nth>[12]\d|3[01]|[1-9])(?:st|nd|rd|th)(?!\s+of\b)"
    r")\b(?!-)",
    re.IGNORECASE,
)
# the bare weekday needs "on" before it; the lookbehind above reads it, the prefix eats it
_MONTH_NAMES = "|".join((*MONTHS, "sept", *(n[:3] for n in MONTHS if n != "may")))
_ABSOLUTE = re.compile(
    r"\b(?:"
    r"(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})"
    r"|(?<!score\s)(?<!rated\s)(?<!rating\s)(?<!of\s)"  # "score 5/5" is no date
    r"(?P<sm>\d{1,2})/(?P<sd>\d{1,2})(?:/(?P<sy>\d{4}|\d{2}))?(?!\s?(?:hp|in\b|inch|cup|of\b))"
    r"|(?P<mname>" + _MONTH_NAMES + r")\.?\s+(?P<md>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:\s?[-–]\s?\d{1,2}(?:st|nd|rd|th)?(?![/-]?\d)"  # a range of days: "Dec 8-11"
    r"(?!\s*(?:weeks?|days?|months?|years?|hours?|minutes?|times)\b))?"
    r"(?:,?\s+(?P<my>\d{4}))?"
    r"|(?P<dd>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dname>" + _MONTH_NAMES + r")\.?"
    r"(?:,?\s+(?P<dy>\d{4}))?"
    r")\b(?![/-]\d)",
    re.IGNORECASE,
)


def resolve(text: str, on: dt.date) -> str:
    """Relative dates in `text` made absolute against `on` (the entry's date):
    "yesterday" -> "on 2026-11-19", "last week" -> "in the week of 2026-11-09",
    "next month" -> "in December 2026"; a day of a named month given no year gets the one
    meant (`_with_year`: "on June 14th" -> "on June 14th, 2026"). Text without one comes
    back unchanged."""
    text = _on_weekday(text)  # "The concert is Thursday": on Thursday
    text = _RELATIVE.sub(lambda match: _rewrite(match, text, on), text)
    if holidays.mentions(text):
        text = holidays.HOLIDAY.sub(lambda match: _dated_holiday(match, text, on), text)
    if _YEARLY.search(text):
        return text  # "Her birthday is June 14": every year's
    years = _years(text, on)
    return _ABSOLUTE.sub(lambda match: _with_year(match, years), text)


# an event said to be on a weekday without "on" ("Maya's concert is Thursday at 6:30");
# not a day that comes back ("Trash day is Thursday", "Practice is Tuesday")
_EVENT_IS = re.compile(
    r"\b(?:concert|recital|party|appointment|game|sleepover|playdate|meeting|interview|exam"
    r"|surgery|checkup|check-up|wedding|funeral|graduation|performance|play|show|match"
    r"|tournament|conference|reunion|ceremony|visit|pickup|delivery|inspection|walkthrough"
    r"|flight|trip)\s+(?:is|was)\s+(?=(?:" + _WD + r")\b(?!s))",
    re.IGNORECASE,
)


def _on_weekday(text: str) -> str:
    """`text` with an "on" before a weekday an event is said to be (`_EVENT_IS`), looked
    for only where a weekday is named at all (a substring test, far cheaper)."""
    lower = text.lower()
    if not any(day in lower for day in WEEKDAYS):
        return text
    return _EVENT_IS.sub(r"\g<0>on ", text)


# a date that comes back every year: given no year, it keeps none
_YEARLY = re.compile(
    r"\b(?:birthdays?|anniversary|anniversaries|every|each|annual|annually|yearly"
    r"|name\s+day|born|usually|always)\b",
    re.IGNORECASE,
)


def _years(text: str, on: dt.date) -> dict[int, dt.date]:
    """The day meant by each named month's day with no year (by where it starts): the
    latest gone in a clause in the past tense ("we got married on June 12"), else the next
    to come (on `on` itself: that day); and the end of a span after its start, in the
    start's tense ("We were in Tahoe Dec 28 to Jan 3", "departing May 22, returning May
    29": one trip, not a year apart). Numeric and dated ones are left out."""
    meant: dict[int, dt.date] = {}
    found = list(_ABSOLUTE.finditer(text))
    for match in found:
        if not (match["mname"] or match["dname"]) or match["my"] or match["dy"]:
            continue
        day = _absolute(match, on)
        if day is None:
            continue
        ahead = _AHEAD.search(text, 0, match.start()) is not None  # "Moved it to Dec 20"
        back = not ahead and tense.past(text, *match.span())
        when = _year_meant(on, day.month, day.day, back=back)
        if when is not None:
            meant[match.start()] = when
    for first, then in itertools.pairwise(found):
        if first.start() not in meant or then.start() not in meant:
            continue
        one, two = meant[first.start()], meant[then.start()]
        if 0 <= (two - one).days <= 183:
            continue
        if _SPAN_LINK.fullmatch(text, first.end(), then.start()):
            meant[then.start()] = _after(two, one)  # the end is the first after the start
    return meant


def _after(day: dt.date, start: dt.date) -> dt.date:
    """`day`'s month and day in the first year that puts it on or after `start`."""
    for year in (start.year, start.year + 1):
        with contextlib.suppress(ValueError):
            if (moved := day.replace(year=year)) >= start:
                return moved
    return day


# what links the two ends of one span: "from May 22 to May 29", "May 22 - May 29",
# "departing May 22 at 7:05am, returning May 29"
_SPAN_LINK = re.compile(
    r"[^.!?]{0,60}?(?:\b(?:to|until|till|through|thru|returning|returns?|back(?:\s+on)?)"
    r"\s+(?:on\s+)?|\s*[-–—]\s*)",
    re.IGNORECASE,
)


def _with_year(match: re.Match[str], years: dict[int, dt.date]) -> str:
    """A named month's day with no year, given the one meant (`_years`)."""
    meant = years.get(match.start())
    if meant is None:
        return match.group(0)
    return f"{match.group(0)}, {meant.year}" if match["mname"] else f"{match.group(0)} {meant.year}"


_GAP = re.compile(r",?\s+")
# a day something was moved, set or due to: to come, whatever the tense around it
_AHEAD = re.compile(
    r"\b(?:to|for|until|till|through)\s+(?:the\s+)?(?:(?:" + _WD + r"),?\s+)?$"
    # the day a date was moved from is of the same time as the one it moved to: "Plumber
    # rough-in moved from Jan 20 to Jan 22"
    r"|\b(?:moved|rescheduled|pushed(?:\s+back)?|postponed|changed|bumped|shifted)\s+"
    r"(?:(?:it|them|this|that)\s+)?from\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def _year_meant(on: dt.date, month: int, day: int, *, back: bool) -> dt.date | None:
    """The `month`/`day` nearest `on` on the side the tense points to (None: no such day,
    a 29 February of a year that has none)."""
    for year in (on.year, on.year - 1) if back else (on.year, on.year + 1):
        try:
            meant = dt.date(year, month, day)
        except ValueError:
            continue
        if (meant <= on) if back else (meant >= on):
            return meant
    return None


def dates_in(text: str, on: dt.date) -> list[dt.date]:
    """The dates `text` names, relative ones resolved against `on`, in text order."""
    text = _on_weekday(text)
    found: list[tuple[int, dt.date]] = []
    for match in _RELATIVE.finditer(text):
        when = _interpret(match, text, on)
        if when is not None:
            found.append((match.start(), when[0]))
    for match in _ABSOLUTE.finditer(text):
        day = _absolute(match, on)
        if day is not None:
            found.append((match.start(), day))
    for match in holidays.HOLIDAY.finditer(text) if holidays.mentions(text) else ():
        day = _holiday(match, text, on)
        if day is not None:
            found.append((match.start("name"), day))
    return [day for _, day in sorted(found, key=lambda pair: pair[0])]


def _dated_holiday(match: re.Match[str], text: str, on: dt.date) -> str:
    """A holiday named as a time, its day appended: "for Christmas (2026-12-25)"."""
    day = _holiday(match, text, on)
    return match.group(0) if day is None else f"{match.group(0)} ({day.isoformat()})"


def _holiday(match: re.Match[str], text: str, on: dt.date) -> dt.date | None:
    """The day of the holiday `match` names: of the year it gives; "last" the latest
    before `on`, "next" the first after it, "this" this year's; else, as a named day
    without a year, the latest gone in a clause in the past tense (or after "since"), the
    next to come otherwise; None where the sentence says it recurs ("every Christmas")."""
    try:
        return _holiday_day(holidays.key_of(match), match, text, on)
    except ValueError:
        return None  # "Christmas 0000": no such year


def _holiday_day(key: str, match: re.Match[str], text: str, on: dt.date) -> dt.date | None:
    if match.group("year"):
        return holidays.day_of(key, int(match.group("year")))
    direction = (match.group("dir") or "").lower()
    if direction == "this":
        return holidays.day_of(key, on.year)
    if not direction and _RECURRING.search(tense.sentence_around(text, match.start(), match.end())):
        return None  # "we always go to my parents' for Thanksgiving": each year's
    if direction:
        back, strict = direction == "last", True
    else:
        lead = (match.group("lead") or "").strip().lower()
        # the lead is the clause's verb too: "we spent Thanksgiving", "we celebrated Easter"
        back = lead == "since" or tense.past(text, match.start("name"), match.end())
        strict = False
    meant = _holiday_side(key, on, back=back, strict=strict)
    lead = (match.group("lead") or "").strip().lower()
    pointed = lead in ("before", "after", "for", "until", "till", "by", "over", "through")
    if pointed and meant is not None and abs((meant - on).days) > HOLIDAY_FAR:
        # "Jordan got the Friday before Christmas off", "booked flights for Christmas",
        # told on December 9: the one weeks away, not the one a year gone, whatever tense
        # the getting was told in (not "got engaged on Christmas Eve": its own time)
        near = _holiday_side(key, on, back=not back, strict=False)
        if near is not None and abs((near - on).days) <= HOLIDAY_NEAR:
            return near
    return meant


HOLIDAY_FAR, HOLIDAY_NEAR = 180, 31  # days: a holiday the tense puts far off, and one near


def _holiday_side(key: str, on: dt.date, *, back: bool, strict: bool) -> dt.date | None:
    """The holiday's day nearest `on` on one side (`strict`: not `on` itself)."""
    for year in (on.year, on.year - 1) if back else (on.year, on.year + 1):
        day = holidays.day_of(key, year)
        if (day == on and not strict) or (day < on if back else day > on):
            return day
    return None


# -- relative phrases ----------------------------------------------------------------------


# what moves a thing of the calendar to a weekday: "moved my appointment to Friday" (a
# bare "to Friday" is no day: "I went to Friday prayers", "I look forward to Friday")
_MOVED_TO = re.compile(
    r"\b(?:moved|moving|moves|rescheduled|pushed|postponed|bumped|shifted|changed|switched)\b",
    re.IGNORECASE,
)


def _rewrite(match: re.Match[str], text: str, on: dt.date) -> str:
    moved = match["wd4"] and text.endswith(("to ", "To "), 0, match.start())
    if moved and not _MOVED_TO.search(tense.sentence_around(text, match.start(), match.end())):
        return match.group(0)
    when = _interpret(match, text, on)
    if when is None:
        return match.group(0)
    day, kind = when
    prep = match.group("prep")
    if kind == "day":
        phrase = day.isoformat()
        lead = "on"
    elif kind == "weekend":
        phrase = f"the weekend of {day.isoformat()}"
        lead = "on"
    elif kind == "week":
        phrase = f"the week of {day.isoformat()}"
        lead = "in"
    elif kind == "month":
        phrase = f"{calendar.month_name[day.month]} {day.year}"
        lead = "in"
    elif kind == "season":  # a winter spans two years: "the winter of 2026-27"
        years = f"{day.year}-{(day.year + 1) % 100:02d}" if day.month == 12 else str(day.year)
        phrase = f"the {_SEASONS[day.month]} of {years}"
        lead = "in"
    elif kind == "about":  # "a few weeks ago" -> "a few weeks before 2026-11-20"
        count, unit, sign = _counted(match)
        unit += "" if count in ("a", "an", "one") else "s"
        phrase = f"{count} {unit} {'after' if sign > 0 else 'before'} {on.isoformat()}"
        lead = ""
    else:  # year
        phrase = str(day.year)
        lead = "in"
    if match.group("mon") or (match.group("wd4") and prep is None):
        return phrase  # its "in" / "moved to" stands before it, outside the match
    part = match.group("part") or match.group("part0") or match.group("part2")
    if part:  # "Thursday morning" -> "on the morning of 2026-10-08"
        phrase = f"the {part.lower()} of {phrase}"
    before = text[max(0, match.start() - 40) : match.start()].rstrip()  # bounded: no O(n^2)
    if text.startswith(("'s", "’s"), match.end()):
        out = phrase  # "today's brief" -> "2026-11-20's brief"
    elif match.group("nth") and prep is None and before.lower().endswith((" to", " through")):
        out = phrase  # "from the 20th to the 27th": its "to" stands before it
    elif prep is None or prep.lower() == "on":
        out = f"{lead} {phrase}".lstrip()
    else:
        out = f"{prep} {phrase}"
    opens = match.start() == 0 or before[-1:] in (".", "!", "?", "")
    if opens and match.group(0)[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out


# "her last week of school", "our next December trip": a last or next one of theirs, no
# time from today (not after "'s": "diagnosed with Alzheimer's last month" is a time)
_OWNERS = frozenset(("her", "his", "its", "our", "my", "your", "their", "the"))


def _owned(match: re.Match[str], text: str) -> bool:
    """Whether a "last"/"next"/"this" phrase is someone's, a word of theirs before it."""
    if not (match["wdrel"] or match["span_dir"] or match["season_dir"] or match["mon_dir"]):
        return False
    before = text[max(0, match.start() - 8) : match.start()].split()
    return bool(before) and before[-1].lower() in _OWNERS


def _interpret(match: re.Match[str], text: str, on: dt.date) -> tuple[dt.date, str] | None:
    """(the day, its kind: day | week | weekend | month | year) of a relative phrase;
    None for a weekday its date follows ("on Tuesday, December 1": the date says which),
    and for someone's last or next one (`_owned`)."""
    group = match.group
    if _owned(match, text):
        return None
    if any(group(g) for g in ("wd1", "wd2", "wd3", "wd4")):
        gap = _GAP.match(text, match.end())
        if gap is not None and _ABSOLUTE.match(text, gap.end()):
            return None
    if group("dby"):
        return on - dt.timedelta(days=2), "day"
    if group("dat"):
        return on + dt.timedelta(days=2), "day"
    if day := group("day"):
        word = " ".join(day.lower().split())
        shift = -1 if word in ("yesterday", "last night") else 1 if word == "tomorrow" else 0
        return on + dt.timedelta(days=shift), "day"
    if weekday := group("wd4"):
        return _weekday(on, [w[:3] for w in WEEKDAYS].index(weekday.lower()[:3]), back=False), "day"
    if weekday := group("wd1") or group("wd2") or group("wd3"):
        target = [w[:3] for w in WEEKDAYS].index(weekday.lower()[:3])
        rel = " ".join((group("wdrel") or "").lower().split())
        if rel in ("last", "this past"):
            back = True
        elif rel in ("next", "this coming", "coming"):
            back = False
        elif rel == "this" and target == on.weekday():
            return on, "day"  # "this Friday", said on a Friday: today
        else:  # "on Friday", "this Friday": the sentence's tense decides
            back = tense.past(text, match.start(), match.end())
        return _weekday(on, target, back=back), "day"
    if span := group("span"):
        return _span(on, span.lower(), group("span_dir").lower())
    if season := group("season"):
        return _season(on, season.lower(), group("season_dir").lower()), "season"
    if month := group("mon_rel"):
        return _named_month(on, MONTHS.index(month.lower()) + 1, group("mon_dir").lower()), "month"
    if group("in_n") or group("ago_n"):
        count, unit, sign = _counted(match)
        when = _offset(on, sign * _number(count), unit)
        vague = count in _VAGUE or _ABOUT.search(text, 0, match.start()) is not None
        if when is None or not vague:
            return when
        return when[0], "about"  # "a few weeks ago": no one day, said of the entry's
    if group("mon") or group("nth"):
        if _RECURRING.search(tense.sentence_around(text, match.start(), match.end())):
            return None  # "every year in January", "on the 1st, always": no one day
        back = tense.past(text, match.start(), match.end())
        if group("mon"):
            if not back and not _ONE_OFF.search(
                tense.sentence_around(text, match.start(), match.end())
            ):
                return None  # "The water meter is read in March": each March, as said
            return _month_meant(on, MONTHS.index(group("mon").lower()) + 1, back=back), "month"
        said = tense.sentence_around(text, match.start(), match.end())
        if not back and _MONTHLY.search(said) and not tense.FUTURE.search(said):
            return None  # "Rent is due on the 1st": each month's 1st
        if _MONTH_BEFORE.search(text, max(0, match.start() - 60), match.start()):
            return None  # "in August, the 10th to the 17th": August's, as said
        day = _day_meant(on, int(group("nth")), back=back)
        return None if day is None else (day, "day")
    return None


# a month named just before a day of the month: the day is that month's
_MONTH_BEFORE = re.compile(r"\b(?:" + "|".join(m.title() for m in MONTHS) + r")\b[^.!?]{0,40}$")
# what happens once, in the month named ("renews in February", "we're moving in June")
_ONE_OFF = re.compile(
    r"\b(?:will|going\s+to|['’]ll|(?:is|are|am|['’]s|['’]re|['’]m)\s+[a-z]{2,20}ing|scheduled"
    r"|planned|booked|due|expires?|ends|renews?|starts|begins|deadline|next)\b",
    re.IGNORECASE,
)
# a day of the month money keeps to, month after month ("the rent is due on the 1st")
_MONTHLY = re.compile(
    r"\b(?:due|rent|bills?|payments?|paychecks?|payday|autopay|auto-pay|billed|charged"
    r"|deducted|comes\s+out|goes\s+out|drafts?|renews|(?:is|are|get|gets)\s+paid)\b",
    re.IGNORECASE,
)
_RECURRING = re.compile(
    r"\b(?:every|each|annually|yearly|usually|always|typically|normally)\b", re.IGNORECASE
)


def _month_meant(on: dt.date, month: int, *, back: bool) -> dt.date:
    """ "in February": this month's when it is this month, else the latest one gone in a
    clause in the past tense ("we went in June"), the next one to come otherwise."""
    year = on.year
    if back and month > on.month:
        year -= 1
    elif not back and month < on.month:
        year += 1
    return dt.date(year, month, 1)


def _day_meant(on: dt.date, day: int, *, back: bool) -> dt.date | None:
    """ "on the 23rd": this month's when it is today, else the latest gone (past tense)
    or the next to come; None for a day the month lacks ("on the 31st" in November)."""
    first = on.replace(day=1)
    if day != on.day and back == (day > on.day):
        first = _add_months(first, -1 if back else 1)
    try:
        return first.replace(day=day)
    except ValueError:
        return None


def _weekday(on: dt.date, target: int, *, back: bool) -> dt.date:
    if back:
        return on - dt.timedelta(days=(on.weekday() - target - 1) % 7 + 1)
    return on + dt.timedelta(days=(target - on.weekday() - 1) % 7 + 1)


def _span(on: dt.date, span: str, direction: str) -> tuple[dt.date, str] | None:
    step = {"last": -1, "next": 1, "this": 0}[direction]
    if span == "week":
        monday = on - dt.timedelta(days=on.weekday())
        return monday + dt.timedelta(weeks=step), "week"
    if span == "weekend":
        saturday = on + dt.timedelta(days=5 - on.weekday())
        if on.weekday() == 6:  # on a Sunday "this weekend" is the one under way
            saturday -= dt.timedelta(days=7)
        return saturday + dt.timedelta(weeks=step), "weekend"
    if span == "month":
        return _add_months(on.replace(day=1), step), "month"
    return on.replace(year=on.year + step, month=1, day=1), "year"


_SEASONS = {3: "spring", 6: "summer", 9: "fall", 12: "winter"}  # by the month it begins
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _season(on: dt.date, season: str, direction: str) -> dt.date:
    """The first day of the season meant (meteorological: spring from March, summer from
    June, fall from September, winter from December): "this" one is the season of this
    year's (the winter under way in January or February), "last" the latest to have begun
    before the one under way, "next" the first to begin after today."""
    start = _SEASON_START[season]
    year = on.year - 1 if start == 12 and on.month < 3 else on.year
    this = dt.date(year, start, 1)
    under_way = this <= on < _add_months(this, 3)
    if direction == "this":
        return this
    if direction == "last":
        return this if this <= on and not under_way else this.replace(year=this.year - 1)
    return this if this > on else this.replace(year=this.year + 1)


def _named_month(on: dt.date, month: int, direction: str) -> dt.date:
    """The first day of the month named: "this March" is this year's, "next March" the
    first to begin after the month under way, "last March" the latest to have ended."""
    if direction == "this":
        return dt.date(on.year, month, 1)
    if direction == "next":
        return dt.date(on.year if month > on.month else on.year + 1, month, 1)
    return dt.date(on.year if month < on.month else on.year - 1, month, 1)


def _offset(on: dt.date, n: int, unit: str) -> tuple[dt.date, str] | None:
    if abs(n) > MAX_OFFSET:
        return None
    try:
        if unit == "day":
            return on + dt.timedelta(days=n), "day"
        if unit == "week":
            return on + dt.timedelta(weeks=n), "day"
        if unit == "month":
            return _add_months(on.replace(day=1), n), "month"
        return on.replace(year=on.year + n, month=1, day=1), "year"
    except (OverflowError, ValueError):
        return None


def _counted(match: re.Match[str]) -> tuple[str, str, int]:
    """("a few", "week", -1) of "a few weeks ago": the count as said, its unit, its side."""
    ahead = bool(match["in_n"])
    count, unit = match.group(*(("in_n", "in_unit") if ahead else ("ago_n", "ago_unit")))
    return " ".join(count.lower().split()), unit.lower(), 1 if ahead else -1


def _number(word: str) -> int:
    key = " ".join(word.lower().split())
    return int(key) if key.isdigit() else NUMBER_WORDS[key]


def _add_months(first: dt.date, n: int) -> dt.date:
    index = first.year * 12 + first.month - 1 + n
    return dt.date(index // 12, index % 12 + 1, 1)


# -- absolute dates ------------------------------------------------------------------------


def _month(name: str) -> int | None:
    word = name.lower()
    if word in MONTHS:
        return MONTHS.index(word) + 1
    return MONTH_ABBR.get(word) if len(word) <= 4 else None


def _absolute(match: re.Match[str], on: dt.date) -> dt.date | None:
    group = match.group
    parts: tuple[int | None, int | None, int | None]
    if group("iy"):
        parts = int(group("iy")), int(group("im")), int(group("id"))
    elif group("sm"):
        year = group("sy")
        full = None if year is None else int(year) + (2000 if len(year) == 2 else 0)
        parts = full, int(group("sm")), int(group("sd"))
    elif group("mname"):
        parts = _opt_int(group("my")), _month(group("mname")), int(group("md"))
    else:
        parts = _opt_int(group("dy")), _month(group("dname")), int(group("dd"))
    year, month, day = parts
    if month is None or day is None:
        return None
    try:
        return dt.date(year if year is not None else on.year, month, day)
    except ValueError:
        return None  # "Feb 30", "13/45": not a date


def _opt_int(text: str | None) -> int | None:
    return None if text is None else int(text)
