"""Merge per hunk (`merge.plan`, `MergePlan.resolve`) and the two-pane diff
(`text_diff.side_by_side`): the logic behind the window's merge and "Keep mine…" dialogs
(issue 16)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vault_app.core import merge, text_diff

BASE = "# Jane\n\nPlumber.\n\nLives in Portland.\n\nHas a van.\n"
MINE = BASE.replace("Plumber.", "Plumber and electrician.").replace("Portland", "Seattle")
THEIRS = BASE.replace("Portland", "Tacoma").replace("Has a van.", "Has a white van.")


def test_hunks_say_who_changed_what() -> None:
    plan = merge.plan(BASE, MINE, THEIRS)
    kinds = [h.kind for h in plan.hunks]
    assert kinds == ["same", "mine", "same", "conflict", "same", "theirs"]
    assert plan.hunks[1].base == plan.hunks[1].theirs == ("Plumber.\n",)
    assert plan.hunks[1].mine == ("Plumber and electrician.\n",)
    conflict = plan.hunks[3]
    assert (conflict.mine, conflict.theirs) == (("Lives in Seattle.\n",), ("Lives in Tacoma.\n",))
    assert plan.hunks[5].mine == plan.hunks[5].base == ("Has a van.\n",)
    assert plan.changed == [1, 3, 5]
    assert conflict.choices == ("mine", "theirs", "both", "mark")
    assert plan.hunks[5].choices == ("mine", "theirs", "both")
    assert plan.hunks[0].choices == ()


def test_resolving_per_hunk() -> None:
    plan = merge.plan(BASE, MINE, THEIRS)
    assert plan.resolve() == merge.merge_text(BASE, MINE, THEIRS)
    assert plan.resolve().conflicts == 1
    mine = plan.resolve({3: "mine"})
    assert mine == merge.MergeResult(
        "# Jane\n\nPlumber and electrician.\n\nLives in Seattle.\n\nHas a white van.\n", 0
    )
    theirs = plan.resolve({1: "theirs", 3: "theirs", 5: "mine"})
    assert theirs.text == BASE.replace("Portland", "Tacoma")
    both = plan.resolve({3: "both", 5: "both"})
    assert both.text == (
        "# Jane\n\nPlumber and electrician.\n\nLives in Seattle.\nLives in Tacoma.\n\n"
        "Has a van.\nHas a white van.\n"
    )
    assert both.clean
    with pytest.raises(ValueError, match="no choice to make in hunks"):
        plan.resolve({0: "mine"})
    with pytest.raises(ValueError, match="'mark' is not a choice here"):
        plan.resolve({5: "mark"})


def test_endings_and_trivial_merges() -> None:
    plan = merge.plan("a\nb", "a\nB", "a\nb")
    assert plan.resolve().text == "a\nB"  # no newline added at the end
    same = merge.plan("a\n", "b\n", "b\n")
    assert same.changed == [] and same.resolve().text == "b\n"
    crlf = merge.plan("a\r\n\r\nb\r\n", "a\r\n\r\nB\r\n", "A\r\n\r\nb\r\n")
    assert crlf.resolve().text == "A\n\nB\n"


lines = st.lists(st.sampled_from(["a", "b", "c", "d", "", "e e"]), max_size=7)


@settings(max_examples=200, deadline=None)
@given(lines, lines, lines, st.booleans())
def test_resolve_with_defaults_is_merge_text(
    base: list[str], mine: list[str], theirs: list[str], ending: bool
) -> None:
    texts = ["\n".join(x) + ("\n" if ending and x else "") for x in (base, mine, theirs)]
    assert merge.plan(*texts).resolve() == merge.merge_text(*texts)


def test_side_by_side_aligns_rows() -> None:
    left = "one\ntwo\nthree\nfour\n"
    right = "one\n2\nthree\nthree and a half\nfour\nfive\n"
    rows = text_diff.side_by_side(left, right)
    assert [(r.kind, r.left, r.right) for r in rows] == [
        ("equal", "one", "one"),
        ("changed", "two", "2"),
        ("equal", "three", "three"),
        ("added", None, "three and a half"),
        ("equal", "four", "four"),
        ("added", None, "five"),
    ]
    assert [(r.left_no, r.right_no) for r in rows] == [
        (1, 1), (2, 2), (3, 3), (None, 4), (4, 5), (None, 6),
    ]  # fmt: skip
    assert text_diff.hunk_starts(rows) == [1, 3, 5]
    assert text_diff.counts(rows) == {"equal": 3, "changed": 1, "removed": 0, "added": 2}
    gone = text_diff.side_by_side("a\nb\nc\n", "a\nX\n")
    assert [(r.kind, r.left, r.right) for r in gone] == [
        ("equal", "a", "a"),
        ("changed", "b", "X"),
        ("removed", "c", None),
    ]
    assert text_diff.side_by_side("", "") == []


def test_changed_spans_mark_the_words_that_differ() -> None:
    left, right = text_diff.changed_spans("Lives in Portland.", "Lives in Tacoma.")
    assert ["Lives in Portland."[a:b] for a, b in left] == ["Portland"]  # whole words
    assert ["Lives in Tacoma."[a:b] for a, b in right] == ["Tacoma"]
    left, right = text_diff.changed_spans("Has a van.", "Has a white van.")
    assert left == [] and ["Has a white van."[a:b] for a, b in right] == ["white "]
    assert text_diff.changed_spans("same", "same") == ([], [])


def _lines_of(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


@settings(max_examples=200, deadline=None)
@given(lines, lines)
def test_side_by_side_keeps_every_line_in_order(left: list[str], right: list[str]) -> None:
    a, b = "\n".join(left), "\n".join(right)
    rows = text_diff.side_by_side(a, b)
    assert [r.left for r in rows if r.left is not None] == _lines_of(a)
    assert [r.right for r in rows if r.right is not None] == _lines_of(b)
    assert [r.left_no for r in rows if r.left_no is not None] == list(
        range(1, len(_lines_of(a)) + 1)
    )
    assert all((r.left == r.right) == (r.kind == "equal") for r in rows if r.kind != "changed")
