"""Relative dates made absolute against a fixed entry date; absolute dates read."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_app.heartbeat import dates

ON = dt.date(2026, 11, 20)  # a Friday


@pytest.mark.parametrize(
    ("text", "resolved"),
    [
        ("Yesterday the boiler broke.", "On 2026-11-19 the boiler broke."),
        ("The plumber comes tomorrow.", "The plumber comes on 2026-11-21."),
        ("Paid it today.", "Paid it on 2026-11-20."),
        ("She arrived last night.", "She arrived on 2026-11-19."),
        ("the day before yesterday", "on 2026-11-18"),
        ("the day after tomorrow", "on 2026-11-22"),
        ("We met last Friday.", "We met on 2026-11-13."),
        ("The roofer comes next Tuesday.", "The roofer comes on 2026-11-24."),
        ("last Monday", "on 2026-11-16"),
        ("We went hiking last Fri.", "We went hiking on 2026-11-13."),  # a short weekday
        ("Next Thurs the plumber comes.", "On 2026-11-26 the plumber comes."),
        ("See you next Sun!", "See you on 2026-11-22!"),
        ("The recital is this Friday.", "The recital is on 2026-11-20."),
        ("The recital is this Sunday.", "The recital is on 2026-11-22."),
        ("We painted this Tuesday.", "We painted on 2026-11-17."),
        ("We went to the vet on Monday.", "We went to the vet on 2026-11-16."),
        ("The plumber comes on Monday.", "The plumber comes on 2026-11-23."),
        ("He can come Thursday morning.", "He can come on the morning of 2026-11-26."),
        ("in 3 days", "on 2026-11-23"),
        ("in two weeks", "on 2026-12-04"),
        # a vague count is no one day: said of the entry's, not a false exact date
        ("in a couple of weeks", "a couple of weeks after 2026-11-20"),
        ("We went camping a few weeks ago.", "We went camping a few weeks before 2026-11-20."),
        ("A few days ago it broke.", "A few days before 2026-11-20 it broke."),
        ("since a few months ago", "since a few months before 2026-11-20"),
        ("I started about a year ago.", "I started about a year before 2026-11-20."),
        ("We moved nearly two years ago.", "We moved nearly two years before 2026-11-20."),
        ("two weeks ago", "on 2026-11-06"),
        ("a week ago", "on 2026-11-13"),
        ("It started last week.", "It started in the week of 2026-11-09."),
        ("next week", "in the week of 2026-11-23"),
        ("this weekend we paint", "on the weekend of 2026-11-21 we paint"),
        ("It closes next month.", "It closes in December 2026."),
        ("She moved last month.", "She moved in October 2026."),
        ("in 3 months", "in February 2027"),
        ("We bought it last year.", "We bought it in 2025."),
        ("Dry since yesterday.", "Dry since 2026-11-19."),
        ("Booked for tomorrow.", "Booked for 2026-11-21."),
        ("Valid until next week.", "Valid until the week of 2026-11-23."),
        ("An inspection tomorrow morning.", "An inspection on the morning of 2026-11-21."),
        ("Drafted today's brief.", "Drafted 2026-11-20's brief."),
        ("The bins go out on Wednesday night.", "The bins go out on the night of 2026-11-25."),
        ("We got home on Sunday evening.", "We got home on the evening of 2026-11-15."),
        # a season: the last one begun before the one under way, a winter across two years
        ("The panel was upgraded last spring.", "The panel was upgraded in the spring of 2026."),
        ("We closed the pool last winter.", "We closed the pool in the winter of 2025-26."),
        ("Next summer we visit Maine.", "In the summer of 2027 we visit Maine."),
        ("We paint this fall.", "We paint in the fall of 2026."),
        ("Last fall we paved.", "In the fall of 2025 we paved."),
        # an irregular past is past too
        ("I won my fourth tournament on Monday!", "I won my fourth tournament on 2026-11-16!"),
        ("Maya made the chess team on Tuesday.", "Maya made the chess team on 2026-11-17."),
        # the tense is the weekday's clause's, not another's of the sentence
        (
            "The pickup moved to Thursdays, the bins go out on Wednesday night.",
            "The pickup moved to Thursdays, the bins go out on the night of 2026-11-25.",
        ),
        (
            "The van came early, the plumber comes on Monday.",
            "The van came early, the plumber comes on 2026-11-23.",
        ),
        ("On Monday, we went to the vet.", "On 2026-11-16, we went to the vet."),
        # a month with no year, a day of the month: the one to come, or gone in the past tense
        ("The membership renews in February.", "The membership renews in February 2027."),
        ("We moved in June.", "We moved in June 2026."),
        ("We moved in December.", "We moved in December 2025."),
        ("The lease ends in November.", "The lease ends in November 2026."),
        ("Nadia is flying in on the 23rd.", "Nadia is flying in on 2026-11-23."),
        ("Grandma visits on the 5th.", "Grandma visits on 2026-12-05."),
        (
            "She arrives the 22nd and leaves the 28th.",
            "She arrives on 2026-11-22 and leaves on 2026-11-28.",
        ),
        ("We're away from the 22nd to the 28th.", "We're away from 2026-11-22 to 2026-11-28."),
        ("Pay it by the 25th.", "Pay it by 2026-11-25."),
        ("We paid it on the 5th.", "We paid it on 2026-11-05."),
        ("We paid it on the 28th.", "We paid it on 2026-10-28."),
        ("It was due on the 20th.", "It was due on 2026-11-20."),
        ("The bill will be paid on the 28th.", "The bill will be paid on 2026-11-28."),
        ("We met on the 31st.", "We met on 2026-10-31."),
        # "for" a weekday: what is booked for the one to come, whatever the tense
        ("Booked the plumber for Tuesday.", "Booked the plumber for 2026-11-24."),
        ("The table is reserved for Friday.", "The table is reserved for 2026-11-27."),
        ("The appointment got moved to Monday.", "The appointment got moved to 2026-11-23."),
        # a thing moved to a weekday, by whoever moved it; a bare "to Friday" is no day
        (
            "The dentist moved my appointment to Friday.",
            "The dentist moved my appointment to 2026-11-27.",
        ),
        (
            "They pushed the meeting back to Monday at 3pm.",
            "They pushed the meeting back to 2026-11-23 at 3pm.",
        ),
        ("The shop is open Monday to Friday.", "The shop is open Monday to Friday."),
        ("We went to Friday prayers.", "We went to Friday prayers."),
        ("I look forward to Sunday.", "I look forward to Sunday."),
        (
            "We went to the vet on Monday, and it rained.",
            "We went to the vet on 2026-11-16, and it rained.",
        ),
    ],
)
def test_relative_dates_are_resolved_against_the_entry_date(text: str, resolved: str) -> None:
    assert dates.resolve(text, ON) == resolved


@pytest.mark.parametrize(
    "text",
    [
        "We meet every Friday morning.",
        "Payment comes within two weeks.",
        "Lessons are on Tuesdays.",
        "The insurance renews every year in January.",  # no one day: it recurs
        "Rent is due on the 1st of every month.",
        "The bill is paid on the 1st, always.",
        "Rent is due on the 1st.",  # money keeps to its day, month after month
        "The car payment comes out on the 15th.",
        "He was born in Paris in 1990.",
        "The water meter is read in March.",  # each March, as far as it says
        "Pay it in March 2027.",
        "I may go, in may.",  # a month is written with its capital
        "The plumber comes on the 31st.",  # November has no 31st
        "Nothing relative here at all.",
        "Todayish, yesterdays, Mondays.",
        "The 1/2 hp pump.",
        "I sat on the porch, this sun is hot.",  # a short weekday only after last/next/this
        "The last fridge we had broke.",
        "",
    ],
)
def test_text_without_a_relative_date_comes_back_unchanged(text: str) -> None:
    assert dates.resolve(text, ON) == text


@pytest.mark.parametrize(
    ("text", "resolved"),
    [  # a named month's day with no year: the next to come, the latest gone when past
        ("The exam is on 18 May.", "The exam is on 18 May 2027."),
        ("Mum turns 60 on June 14th.", "Mum turns 60 on June 14th, 2027."),
        ("The party is on November 20.", "The party is on November 20, 2026."),  # today
        ("We got married on June 12.", "We got married on June 12, 2026."),
        ("We went to Lisbon on Dec 3.", "We went to Lisbon on Dec 3, 2025."),
        ("I'll be away from December 20 to January 3.",
         "I'll be away from December 20, 2026 to January 3, 2027."),
        ("I moved the dentist to Dec 2.", "I moved the dentist to Dec 2, 2026."),  # to come
        # a clause in its own present after a past one: what is to come
        ("I got promoted, starting Dec 1.", "I got promoted, starting Dec 1, 2026."),
        ("We found a flat, the lease starts Dec 1.",
         "We found a flat, the lease starts Dec 1, 2026."),
        ("We found a flat, it was due Nov 1.", "We found a flat, it was due Nov 1, 2026."),
        ("I told Alex the quote expires on Dec 3.",
         "I told Alex the quote expires on Dec 3, 2026."),
        # a range of days is one date with its year, after its last day
        ("Jordan is in Chicago Dec 8-11 for work.",
         "Jordan is in Chicago Dec 8-11, 2026 for work."),
        # an amount's decimal point ends no sentence: "Paid" is still the tense
        ("Paid the bill ($89.99) via autopay on Nov 3.",
         "Paid the bill ($89.99) via autopay on Nov 3, 2026."),
        # every year's day, one with its year, and a number's day stay as they are
        ("Her birthday is June 14.", "Her birthday is June 14."),
        ("Maya was born on March 3.", "Maya was born on March 3."),
        ("Our anniversary is May 2.", "Our anniversary is May 2."),
        ("We met on June 14, 2019.", "We met on June 14, 2019."),
        ("The bill is due 12/5.", "The bill is due 12/5."),
    ],
)  # fmt: skip
def test_a_day_of_a_named_month_gets_the_year_meant(text: str, resolved: str) -> None:
    assert dates.resolve(text, ON) == resolved


def test_seasons_around_the_year() -> None:
    in_july, in_january = dt.date(2026, 7, 10), dt.date(2027, 1, 15)
    assert dates.resolve("last summer", in_july) == "in the summer of 2025"  # this one is on
    assert dates.resolve("this winter", in_january) == "in the winter of 2026-27"
    assert dates.resolve("next winter", in_january) == "in the winter of 2027-28"
    assert dates.dates_in("We met last autumn.", in_july) == [dt.date(2025, 9, 1)]


def test_a_month_named_with_last_next_or_this() -> None:
    in_october = dt.date(2026, 10, 5)
    said = "I'm training for the Berlin marathon next September."
    assert dates.resolve(said, in_october) == (
        "I'm training for the Berlin marathon in September 2027."
    )
    assert dates.resolve("next December", in_october) == "in December 2026"  # still to come
    assert dates.resolve("next October", in_october) == "in October 2027"  # this one is on
    assert dates.resolve("We moved here last March.", in_october) == "We moved here in March 2026."
    assert dates.resolve("last October", in_october) == "in October 2025"
    assert dates.resolve("Since last November", in_october) == "Since November 2025"
    assert dates.resolve("by next January", in_october) == "by January 2027"
    assert dates.resolve("this March", in_october) == "in March 2026"
    assert dates.dates_in("Next June we fly.", in_october) == [dt.date(2027, 6, 1)]
    assert dates.resolve("This may be hard, next may too.", in_october) == (
        "This may be hard, next may too."  # a month is written with its capital
    )


def test_year_and_month_boundaries() -> None:
    assert dates.resolve("next month", dt.date(2026, 12, 31)) == "in January 2027"
    assert dates.resolve("last month", dt.date(2027, 1, 15)) == "in December 2026"
    assert dates.resolve("tomorrow", dt.date(2026, 12, 31)) == "on 2027-01-01"
    assert dates.resolve("in 1 month", dt.date(2026, 1, 31)) == "in February 2026"


def test_dates_in_reads_absolute_and_relative_dates_in_text_order() -> None:
    text = "Born 3 March 2015; renewed 2026-03-01, due 3/3 and March 4th, 2027. Back tomorrow."
    assert dates.dates_in(text, ON) == [
        dt.date(2015, 3, 3),
        dt.date(2026, 3, 1),
        dt.date(2026, 3, 3),
        dt.date(2027, 3, 4),
        dt.date(2026, 11, 21),
    ]
    assert dates.dates_in("Jordan's birthday is October 19.", ON) == [dt.date(2026, 10, 19)]
    assert dates.dates_in("Sept. 9 and the 12th of May", ON) == [
        dt.date(2026, 9, 9),
        dt.date(2026, 5, 12),
    ]


def test_impossible_and_non_dates_are_not_dates() -> None:
    assert dates.dates_in("February 30, 13/45, 24/7, a 1/2 hp pump, 12x24 tile", ON) == []
    assert dates.dates_in("score 5/5, rated 4/5, 3/4 of the way", ON) == []
    assert dates.dates_in("in 5000 days", ON) == []
    assert dates.dates_in("The roof is 22 years old.", ON) == []


def test_a_huge_offset_is_left_alone() -> None:
    assert dates.resolve("in 999 years", ON) == "in 3025"
    assert dates.resolve("in 5000 days", ON) == "in 5000 days"


@given(
    st.text(max_size=300), st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2900, 1, 1))
)
def test_any_text_and_date_never_fail(text: str, on: dt.date) -> None:
    out = dates.resolve(text, on)
    assert isinstance(out, str)
    assert all(isinstance(day, dt.date) for day in dates.dates_in(text, on))


def test_hostile_text_is_read_in_linear_time() -> None:
    # patterns that would backtrack badly if a quantifier were nested: a long run of
    # near-matches ("in in in ...", digits, weekdays, blanks) finishes; no timing asserted
    blobs = ("in " * 100_000, "1/" * 100_000, "on Friday " * 10_000, " " * 500_000, "\x00" * 10**5)
    for blob in blobs:
        assert isinstance(dates.resolve(blob, ON), str)
        assert isinstance(dates.dates_in(blob, ON), list)


def test_a_weekday_its_date_follows_is_that_date() -> None:
    text = "Demolition is confirmed for Tuesday, December 1, starting 8:00."
    assert dates.resolve(text, ON) == (
        "Demolition is confirmed for Tuesday, December 1, 2026, starting 8:00."
    )
    assert dates.dates_in(text, ON) == [dt.date(2026, 12, 1)]


@pytest.mark.parametrize(
    ("text", "resolved"),
    [
        # ON is Friday 2026-11-20: Thanksgiving 2026 is the 26th, still to come
        ("My parents fly in for Christmas.", "My parents fly in for Christmas (2026-12-25)."),
        ("We got engaged on Christmas Eve!", "We got engaged on Christmas Eve (2025-12-24)!"),
        ("We spent Thanksgiving in Portland.", "We spent Thanksgiving (2025-11-27) in Portland."),
        ("We're hosting Thanksgiving.", "We're hosting Thanksgiving (2026-11-26)."),
        ("I've been sick since Halloween.", "I've been sick since Halloween (2026-10-31)."),
        (
            "School is closed until after New Year's.",
            "School is closed until after New Year's (2027-01-01).",
        ),
        ("Last Christmas we went to Vermont.", "Last Christmas (2025-12-25) we went to Vermont."),
        ("next Mother's Day", "next Mother's Day (2027-05-09)"),
        ("this Easter", "this Easter (2026-04-05)"),
        ("on Father's Day 2025", "on Father's Day 2025 (2025-06-15)"),
        ("by labor day", "by labor day (2027-09-06)"),  # lower case is the same day
        ("over Memorial Day weekend", "over Memorial Day (2027-05-31) weekend"),
        ("for Valentine's Day", "for Valentine's Day (2027-02-14)"),
        ("on the Fourth of July", "on the Fourth of July (2027-07-04)"),
        # no time: a holiday's own thing, one that recurs, a possessive, already dated
        ("We bought a Christmas tree.", "We bought a Christmas tree."),
        ("We always go to Ohio for Thanksgiving.", "We always go to Ohio for Thanksgiving."),
        ("Every Easter we dye eggs.", "Every Easter we dye eggs."),
        ("for Christmas (2026-12-25)", "for Christmas (2026-12-25)"),
        ("on Christmas 0000", "on Christmas 0000"),
    ],
)
def test_a_holiday_named_as_a_time_gets_its_day(text: str, resolved: str) -> None:
    assert dates.resolve(text, ON) == resolved


def test_a_holiday_is_one_of_the_days_a_text_names() -> None:
    assert dates.dates_in("Grandma arrives the day before Thanksgiving.", ON) == [
        dt.date(2026, 11, 26)
    ]
    assert dates.dates_in("We met on Valentine's Day 2019.", ON) == [dt.date(2019, 2, 14)]
    # said on the day itself: that day, unless "last" or "next" says otherwise
    christmas = dt.date(2026, 12, 25)
    assert dates.dates_in("The kids open presents on Christmas.", christmas) == [christmas]
    assert dates.dates_in("next Christmas", christmas) == [dt.date(2027, 12, 25)]
    assert dates.dates_in("last Christmas", christmas) == [dt.date(2025, 12, 25)]


def test_the_movable_holidays_fall_on_their_days() -> None:
    from vault_app.heartbeat import holidays

    easters = {2024: (3, 31), 2025: (4, 20), 2026: (4, 5), 2027: (3, 28), 2038: (4, 25)}
    for year, (month, day) in easters.items():
        assert holidays.easter(year) == dt.date(year, month, day)
    assert holidays.day_of("thanksgiving", 2026) == dt.date(2026, 11, 26)
    assert holidays.day_of("thanksgiving", 2029) == dt.date(2029, 11, 22)
    assert holidays.day_of("memorial day", 2026) == dt.date(2026, 5, 25)
    assert holidays.day_of("labor day", 2026) == dt.date(2026, 9, 7)
    assert holidays.day_of("mother's day", 2026) == dt.date(2026, 5, 10)
    assert holidays.day_of("father's day", 2026) == dt.date(2026, 6, 21)


def test_a_present_passive_is_no_past() -> None:
    # "are collected" is the bins' habit, not a Friday gone
    assert dates.resolve("The bins are collected on Friday.", ON) == (
        "The bins are collected on 2026-11-27."
    )
    assert dates.resolve("The car was fixed on Friday.", ON) == "The car was fixed on 2026-11-13."


def test_what_arrives_or_ships_is_to_come_after_a_past_order() -> None:
    # "ordered" is past; "it arrives April 20", its own clause, is not
    assert dates.resolve("The crib we ordered is the Hudson, it arrives April 20.", ON) == (
        "The crib we ordered is the Hudson, it arrives April 20, 2027."
    )
    assert dates.resolve("I ordered a couch, it ships May 3.", ON) == (
        "I ordered a couch, it ships May 3, 2027."
    )


def test_someones_last_or_next_is_no_time_from_today() -> None:
    for text in (
        "with her last December cleaning",
        "It's her last week of school.",
        "Maya's next birthday party",
        "our next Friday off",
        "the last week was rough",
    ):
        assert dates.resolve(text, ON) == text
    assert dates.resolve("We met last week.", ON) == "We met in the week of 2026-11-09."


@pytest.mark.parametrize(
    ("text", "on", "resolved"),
    [  # the two ends of one span are one trip, in the start's tense, not a year apart
        ("Booked flights departing May 22 at 7:05am, returning May 29.", dt.date(2027, 2, 1),
         "Booked flights departing May 22, 2027 at 7:05am, returning May 29, 2027."),
        ("Booked the hotel from May 22 to May 29.", dt.date(2027, 2, 1),
         "Booked the hotel from May 22, 2027 to May 29, 2027."),
        ("We were in Tahoe Dec 28 to Jan 3.", dt.date(2027, 2, 1),
         "We were in Tahoe Dec 28, 2026 to Jan 3, 2027."),
        ("We were in Tahoe from Dec 28 to Jan 3.", dt.date(2026, 12, 30),
         "We were in Tahoe from Dec 28, 2026 to Jan 3, 2027."),
        ("I flew out May 22 and I'm returning May 29.", dt.date(2026, 5, 25),
         "I flew out May 22, 2026 and I'm returning May 29, 2026."),
        # no span: each its own tense
        ("We got married on June 12 and the trip is on May 30.", dt.date(2027, 1, 10),
         "We got married on June 12, 2026 and the trip is on May 30, 2027."),
    ],
)  # fmt: skip
def test_a_spans_end_follows_its_start(text: str, on: dt.date, resolved: str) -> None:
    assert dates.resolve(text, on) == resolved
