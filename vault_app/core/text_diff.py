"""Two texts side by side: their lines aligned in rows, and the changed characters of a
changed line, for a two-pane diff (the window's "Keep mine…" dialog).

Design
------
`side_by_side(left, right)` walks difflib's opcodes over the two texts' lines and gives
one `Row` per visual row: an equal line on both sides; a changed line (a "replace" is
paired line by line, the longer side's extra lines left alone on their side); a line
only on the left ("removed": the right pane shows a gap there) or only on the right
("added"). Rows carry the 1-based line numbers, so both panes scroll as one and every
row is aligned. `changed_spans(a, b)` gives the character ranges that differ between the
two versions of a changed line, so the face can highlight the words, not only the line.
`hunk_starts(rows)` lists the first row of each run of changes (next/previous change).
Pure Python, no Qt.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

EQUAL, CHANGED, REMOVED, ADDED = "equal", "changed", "removed", "added"


@dataclass(frozen=True)
class Row:
    """One aligned row: the left and right line (None where that side has a gap), their
    line numbers (1-based, None at a gap) and the kind of row."""

    kind: str
    left: str | None
    right: str | None
    left_no: int | None
    right_no: int | None


def side_by_side(left: str, right: str) -> list[Row]:
    """The lines of `left` and `right` aligned in rows (see the module doc)."""
    a = left.replace("\r\n", "\n").split("\n")
    b = right.replace("\r\n", "\n").split("\n")
    if a and a[-1] == "":
        a.pop()
    if b and b[-1] == "":
        b.pop()
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                Row(EQUAL, a[i], b[j], i + 1, j + 1)
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        rows += [Row(CHANGED, a[i1 + k], b[j1 + k], i1 + k + 1, j1 + k + 1) for k in range(paired)]
        rows += [Row(REMOVED, a[i], None, i + 1, None) for i in range(i1 + paired, i2)]
        rows += [Row(ADDED, None, b[j], None, j + 1) for j in range(j1 + paired, j2)]
    return rows


def changed_spans(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The character ranges [start, end) of `a` and of `b` that differ from the other,
    compared word by word (a changed word is marked whole, not letter by letter)."""
    a_words, b_words = _WORDS.findall(a), _WORDS.findall(b)
    a_at, b_at = _starts(a_words), _starts(b_words)
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, a_words, b_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((a_at[i1], a_at[i2]))
        if j2 > j1:
            right.append((b_at[j1], b_at[j2]))
    return left, right


_WORDS = re.compile(r"\w+|\s+|[^\w\s]")


def _starts(words: list[str]) -> list[int]:
    """Each word's offset, and the end of the last one."""
    offsets = [0]
    for word in words:
        offsets.append(offsets[-1] + len(word))
    return offsets


def hunk_starts(rows: list[Row]) -> list[int]:
    """The index of the first row of each run of rows that are not equal."""
    return [
        i
        for i, row in enumerate(rows)
        if row.kind != EQUAL and (i == 0 or rows[i - 1].kind == EQUAL)
    ]


def counts(rows: list[Row]) -> dict[str, int]:
    """How many rows of each kind (for a one-line summary: "3 changed, 1 added")."""
    found = {EQUAL: 0, CHANGED: 0, REMOVED: 0, ADDED: 0}
    for row in rows:
        found[row.kind] += 1
    return found
