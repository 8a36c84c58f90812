"""Three-way merge of markdown text (core.merge): clean merges, conflicts, line endings."""

from __future__ import annotations

import pytest

from vault_app.core.merge import MergeResult, count_conflicts, merge_text

BASE = "# Jane\n\nPlumber.\nLives in Portland.\nHas a van.\n"


def test_edits_to_different_lines_merge_cleanly() -> None:
    mine = BASE.replace("Plumber.", "Plumber and electrician.")
    theirs = BASE.replace("Has a van.", "Has a white van.")
    result = merge_text(BASE, mine, theirs)
    assert result == MergeResult(
        "# Jane\n\nPlumber and electrician.\nLives in Portland.\nHas a white van.\n", 0
    )
    assert result.clean


def test_overlapping_edits_are_marked_and_counted() -> None:
    mine = BASE.replace("Lives in Portland.", "Lives in Seattle.")
    theirs = BASE.replace("Lives in Portland.", "Lives in Tacoma.")
    result = merge_text(BASE, mine, theirs)
    assert result.conflicts == 1 and not result.clean
    assert result.text == (
        "# Jane\n\nPlumber.\n"
        "<<<<<<< mine\nLives in Seattle.\n=======\nLives in Tacoma.\n>>>>>>> on disk\n"
        "Has a van.\n"
    )
    assert count_conflicts(result.text) == 1


def test_two_separate_conflicts_are_counted_apart() -> None:
    base = "a\nb\nc\nd\ne\n"
    result = merge_text(base, "A1\nb\nc\nd\nE1\n", "A2\nb\nc\nd\nE2\n")
    assert result.conflicts == 2
    assert result.text.count("<<<<<<< mine\n") == 2
    assert count_conflicts(result.text) == 2


def test_the_same_change_on_both_sides_is_taken_once() -> None:
    both = BASE.replace("Has a van.", "Has a van.\nFixes boilers.")
    assert merge_text(BASE, both, both) == MergeResult(both, 0)
    # the same change plus one more on one side only
    mine = both.replace("Plumber.", "Master plumber.")
    assert merge_text(BASE, mine, both) == MergeResult(mine, 0)


def test_conflicts_keep_lines_both_sides_agree_on_outside_the_markers() -> None:
    base = "a\nb\nc\nd\n"
    result = merge_text(base, "a\nB\nC\nd\n", "a\nB\nZ\nd\n")
    assert result.text == "a\nB\n<<<<<<< mine\nC\n=======\nZ\n>>>>>>> on disk\nd\n"
    assert result.conflicts == 1


def test_empty_base() -> None:
    assert merge_text("", "", "theirs\n") == MergeResult("theirs\n", 0)
    assert merge_text("", "mine\n", "") == MergeResult("mine\n", 0)
    result = merge_text("", "# Mine\n", "# Theirs\n")  # both created the file
    assert result == MergeResult("<<<<<<< mine\n# Mine\n=======\n# Theirs\n>>>>>>> on disk\n", 1)


def test_both_add_at_the_end() -> None:
    mine = BASE + "Mine at the end.\n"
    theirs = BASE + "Theirs at the end.\n"
    result = merge_text(BASE, mine, theirs)
    assert result.conflicts == 1
    assert result.text.startswith(BASE)
    assert result.text.endswith(
        "<<<<<<< mine\nMine at the end.\n=======\nTheirs at the end.\n>>>>>>> on disk\n"
    )
    # one adds at the end, the other at the start: no conflict
    result = merge_text(BASE, BASE + "Tail.\n", "Head.\n" + BASE)
    assert result == MergeResult("Head.\n" + BASE + "Tail.\n", 0)


def test_a_missing_final_newline_is_not_a_change_of_the_last_line() -> None:
    base = "a\nb"
    assert merge_text(base, "a\nb\nmine", "A\nb") == MergeResult("A\nb\nmine", 0)
    # one side adds the final newline, the other edits elsewhere: both are taken
    assert merge_text(base, "a\nb\n", "A\nb") == MergeResult("A\nb\n", 0)
    assert merge_text("a\nb\n", "a\nB\n", "a\nb") == MergeResult("a\nB", 0)
    # only the ending differs and nobody else changed anything
    assert merge_text("x\n", "x", "x\n") == MergeResult("x", 0)


def test_crlf_on_disk_merges_with_the_editors_newlines() -> None:
    base = "a\r\nb\r\nc\r\n"
    theirs = "a\r\nb\r\nC\r\n"
    assert merge_text(base, "A\nb\nc\n", theirs) == MergeResult("A\nb\nC\n", 0)


def test_one_side_unchanged_takes_the_other_exactly() -> None:
    assert merge_text(BASE, BASE, "other") == MergeResult("other", 0)
    assert merge_text(BASE, "mine", BASE) == MergeResult("mine", 0)
    assert merge_text(BASE, "", BASE) == MergeResult("", 0)  # emptied on purpose: kept


def test_deleting_against_an_edit_is_a_conflict_with_an_empty_side() -> None:
    base = "keep\ngone\nkeep too\n"
    result = merge_text(base, "keep\nkeep too\n", "keep\nchanged\nkeep too\n")
    assert result == MergeResult(
        "keep\n<<<<<<< mine\n=======\nchanged\n>>>>>>> on disk\nkeep too\n", 1
    )


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("", 0),
        ("Title\n=======\n", 0),  # a markdown heading underline is not a conflict
        ("<<<<<<< mine\nx\n=======\ny\n>>>>>>> on disk\n", 1),
        ("<<<<<<< mine\nx\n=======\ny\n", 1),  # a half-removed block still counts
        ("x\n>>>>>>> on disk", 1),
        ("<<<<<<< mine extra\n", 0),  # only exact marker lines
    ],
)
def test_count_conflicts(text: str, count: int) -> None:
    assert count_conflicts(text) == count
