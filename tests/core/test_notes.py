"""Hermes' `§` entry lists: counting as Hermes counts, budgets, unique-substring matches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_app.core import notes


def test_reads_entries_around_the_delimiter_and_counts_the_joined_text() -> None:
    text = "first\n§\nsecond line\nstill second\n§\nthird"
    items = notes.entries(text)
    assert items == ["first", "second line\nstill second", "third"]
    assert notes.usage(items) == len(text)
    assert notes.join(items) == text
    assert notes.round_trips(text)


def test_empty_text_has_no_entries_and_uses_nothing() -> None:
    assert notes.entries("") == [] and notes.entries(" \n\n") == []
    assert notes.usage([]) == 0


def test_a_section_sign_inside_a_line_stays_in_its_entry() -> None:
    items = notes.add(["see §4 of the lease"], "§ 12 applies\n(and §13)", 100)
    assert notes.entries(notes.join(items)) == items


def test_usage_counts_characters_not_bytes() -> None:
    assert notes.usage(["é" * 10]) == 10
    assert notes.usage(["a", "b"]) == len("a\n§\nb") == 5


def test_add_exactly_at_the_limit_is_kept() -> None:
    items = notes.add(["a" * 10], "b" * 7, 20)  # 10 + 3 + 7
    assert notes.usage(items) == 20


def test_add_one_over_the_limit_is_refused_with_the_figures() -> None:
    before = ["a" * 10]
    with pytest.raises(notes.BudgetError) as caught:
        notes.add(before, "b" * 8, 20)
    error = caught.value
    assert (error.current, error.limit, error.attempted) == (10, 20, 21)
    assert "21/20" in str(error) and "10/20" in str(error) and "nothing changed" in str(error)
    assert error.to_dict()["usage"] == "10/20" and error.to_dict()["error"] == "over_budget"
    assert before == ["a" * 10]  # the input list is never changed


def test_the_first_entry_costs_no_delimiter() -> None:
    assert notes.add([], "x" * 5, 5) == ["x" * 5]
    with pytest.raises(notes.BudgetError):
        notes.add([], "x" * 6, 5)


def test_a_multi_line_entry_counts_its_newlines() -> None:
    entry = "line one\nline two\nline three"
    assert notes.usage(notes.add([], entry, len(entry))) == len(entry)
    with pytest.raises(notes.BudgetError):
        notes.add([], entry, len(entry) - 1)


def test_duplicates_are_refused_after_stripping() -> None:
    with pytest.raises(notes.DuplicateError, match="already there"):
        notes.add(["likes tea"], "  likes tea \n", 100)


@pytest.mark.parametrize("bad", ["", "   \n ", "top\n§\nbottom", "ends with\n§"])
def test_empty_entries_and_separator_lines_are_refused(bad: str) -> None:
    with pytest.raises(notes.EntryError):
        notes.add(["x"], bad, 1000)


def test_a_lone_section_sign_or_a_leading_one_reads_back() -> None:
    items = notes.add(["a", "b"], "§", 100)
    assert notes.entries(notes.join(items)) == ["a", "b", "§"]
    more = notes.add(notes.add(items, "§\nstarts with", 100), "c", 100)
    assert notes.entries(notes.join(more)) == more == ["a", "b", "§", "§\nstarts with", "c"]


def test_replace_finds_the_entry_by_a_unique_substring() -> None:
    items = ["uses vim", "prefers dark mode", "lives in Lyon"]
    assert notes.replace(items, "dark", "prefers light mode", 100) == [
        "uses vim",
        "prefers light mode",
        "lives in Lyon",
    ]


def test_an_ambiguous_substring_is_refused_with_the_candidates() -> None:
    items = ["prefers dark mode", "prefers tea", "lives in Lyon"]
    with pytest.raises(notes.MatchError) as caught:
        notes.remove(items, "prefers")
    assert caught.value.candidates == ["prefers dark mode", "prefers tea"]
    assert "'prefers dark mode'" in str(caught.value) and "'prefers tea'" in str(caught.value)
    assert caught.value.to_dict()["matches"] == ["prefers dark mode", "prefers tea"]


def test_no_match_is_refused() -> None:
    with pytest.raises(notes.MatchError, match="no entry holds 'coffee'"):
        notes.replace(["tea"], "coffee", "x", 100)


def test_entries_read_as_hermes_reads_them() -> None:
    """Any line ending is "\\n" and an entry repeated is read once: a CRLF file holds the
    three entries Hermes sees, and no rewrite of it holds fewer distinct entries."""
    assert notes.entries("same\n§\nother\n§\nsame") == ["same", "other"]
    crlf = "one\r\n§\r\ntwo\r\n§\r\nthree"
    assert notes.entries(crlf) == ["one", "two", "three"]
    assert notes.entries("one\r§\rtwo") == ["one", "two"]  # a lone CR (old Mac)
    assert notes.round_trips(crlf)
    assert notes.replace(notes.entries(crlf), "two", "B", 100) == ["one", "B", "three"]
    assert notes.remove(notes.entries(crlf), "two") == ["one", "three"]


def test_replace_over_budget_changes_nothing() -> None:
    items = ["a" * 5, "b" * 5]  # 13 used
    with pytest.raises(notes.BudgetError) as caught:
        notes.replace(items, "aaa", "c" * 8, 15)
    assert (caught.value.current, caught.value.attempted) == (13, 16)
    assert notes.usage(notes.replace(items, "aaa", "c" * 7, 15)) == 15


def test_replace_into_a_duplicate_of_another_entry_is_refused() -> None:
    with pytest.raises(notes.DuplicateError):
        notes.replace(["one", "two"], "one", "two", 100)


def test_remove_by_substring() -> None:
    assert notes.remove(["one", "two", "three"], "thr") == ["one", "two"]
    with pytest.raises(notes.EntryError):
        notes.remove(["one"], "  ")


def test_hand_written_files_that_would_not_round_trip_are_detected() -> None:
    assert notes.round_trips("first\n§\nsecond\n")  # a trailing newline: Hermes strips it
    assert not notes.round_trips("first\n\n§\n\nsecond")
    assert notes.round_trips("")


def test_usage_meter_as_hermes_writes_it() -> None:
    usage = notes.Usage(924, 2200)
    assert usage.fraction() == "924/2,200"
    assert usage.meter() == "42% — 924/2,200 chars"
    assert notes.Usage(3000, 2200).percent == 100 and notes.Usage(3000, 2200).over
    assert notes.Usage(638, 2200).percent == 28  # Hermes' int(638 / 2200 * 100), not 29


entry_text = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() == t and t)


@given(st.lists(entry_text, max_size=8, unique=True))
def test_every_accepted_entry_list_reads_back_as_itself(candidates: list[str]) -> None:
    items: list[str] = []
    for candidate in candidates:
        try:
            items = notes.add(items, candidate, 10_000)
        except notes.EntryError:
            continue
    assert notes.entries(notes.join(items)) == items
    assert notes.usage(items) == len(notes.join(items))


def test_validate_a_whole_list() -> None:
    assert notes.validate(["a", " b "], 10) == ["a", "b"]
    with pytest.raises(notes.DuplicateError):
        notes.validate(["a", "b", "a"], 100)
    with pytest.raises(notes.BudgetError) as caught:
        notes.validate(["a" * 6, "b" * 6], 14, current=3)
    assert (caught.value.current, caught.value.attempted) == (3, 15)
    with pytest.raises(notes.EntryError):
        notes.validate(["ends\n§", "x"], 100)
    assert notes.validate([], 1) == []
