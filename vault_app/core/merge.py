"""Three-way merge of markdown text: the user's edit and the disk's, against their ancestor.

Design
------
`merge_text(base, mine, theirs)` merges line by line with `merge3.Merge3` (Breezy's diff3):
a change made on one side only is taken; the same change made on both sides is taken once;
changes to overlapping lines are a conflict, written git-style into the result::

    <<<<<<< mine
    the user's lines
    =======
    the lines on disk
    >>>>>>> on disk

and counted in `MergeResult.conflicts`, so the editor can say how many are left to resolve.
Overlapping regions are narrowed first (merge3's "reprocess"): lines both sides agree on
are kept outside the markers, so a conflict shows only what really differs.

Text details, so that they never cause a conflict of their own:

* "\\r\\n" is read as "\\n" (the editor works in "\\n"); the result uses "\\n";
* a missing newline at the end is not a change of the last line: every text is merged as
  if it ended with one, and the result ends with one if the side that changed the ending
  (or both, or neither) has it, like any other three-way decision.

`count_conflicts(text)` counts the conflict blocks still marked in a text (the save guard).
Pure Python, no Qt: usable from the GUI, the CLI and tests alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import merge3

MINE_MARKER = "<<<<<<< mine"
MIDDLE_MARKER = "======="
THEIRS_MARKER = ">>>>>>> on disk"

_Conflict = tuple[str, Any, Any, int, int, int, int]  # merge3's conflict region


@dataclass(frozen=True)
class MergeResult:
    """The merged text and how many conflict blocks it holds (0: a clean merge)."""

    text: str
    conflicts: int

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


def merge_text(base: str, mine: str, theirs: str) -> MergeResult:
    """Merge the changes `base` → `mine` and `base` → `theirs` (see the module docstring)."""
    base, mine, theirs = (_normal(t) for t in (base, mine, theirs))
    if mine == theirs or theirs == base:
        return MergeResult(mine, 0)
    if mine == base:
        return MergeResult(theirs, 0)
    m3 = merge3.Merge3(_lines(base), _lines(mine), _lines(theirs))
    out: list[str] = []
    conflicts = 0
    for region in m3.reprocess_merge_regions(m3.merge_regions()):
        kind = region[0]
        if kind == "unchanged":
            out.extend(m3.base[region[1] : region[2]])
        elif kind in ("a", "same"):
            out.extend(m3.a[region[1] : region[2]])
        elif kind == "b":
            out.extend(m3.b[region[1] : region[2]])
        else:  # "conflict": (kind, base_start, base_end, a_start, a_end, b_start, b_end)
            _, _, _, a_start, a_end, b_start, b_end = cast(_Conflict, region)
            conflicts += 1
            out.append(MINE_MARKER + "\n")
            out.extend(m3.a[a_start:a_end])
            out.append(MIDDLE_MARKER + "\n")
            out.extend(m3.b[b_start:b_end])
            out.append(THEIRS_MARKER + "\n")
    text = "".join(out)
    if not _ending(base, mine, theirs) and text.endswith("\n"):
        text = text[:-1]
    return MergeResult(text, conflicts)


def count_conflicts(text: str) -> int:
    """How many conflict blocks `text` still holds: lines that are exactly a start or an
    end marker (the "=======" line alone is a markdown heading underline, not counted)."""
    starts = ends = 0
    for line in _normal(text).split("\n"):
        if line == MINE_MARKER:
            starts += 1
        elif line == THEIRS_MARKER:
            ends += 1
    return max(starts, ends)


def _normal(text: str) -> str:
    return text.replace("\r\n", "\n")


def _lines(text: str) -> list[str]:
    """The lines of `text`, each ending in "\\n" (a missing final newline is supplied)."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [part + "\n" for part in parts]


def _ending(base: str, mine: str, theirs: str) -> bool:
    """Whether the merge ends with a newline: a three-way decision on that one bit.

    An empty text has no last line, so it takes the ending of the side that wrote one.
    """
    b, m, t = (text.endswith("\n") for text in (base, mine, theirs))
    if not mine:
        return t
    if not theirs:
        return m
    return t if m == b else m
