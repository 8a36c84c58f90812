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

`plan(base, mine, theirs)` cuts the same merge into `Hunk`s (unchanged, changed on one
side, conflict) for a face that lets the person choose per hunk: mine, theirs, both (mine
then the lines of theirs not already in it), or, for a conflict, leave it marked.
`MergePlan.resolve(choices)` writes the result; with no choices it is `merge_text`'s.
Pure Python, no Qt: usable from the GUI, the CLI and tests alike.
"""

from __future__ import annotations

from collections.abc import Mapping
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


# -- per hunk: the merge dialog's choices ---------------------------------------------------

MINE, THEIRS, BOTH, MARK = "mine", "theirs", "both", "mark"


@dataclass(frozen=True)
class Hunk:
    """One region of a three-way merge: `kind` is "same" (unchanged, or changed alike on
    both sides), "mine" or "theirs" (changed on that side only) or "conflict" (both
    changed it differently); the lines of each side (each ending in "\\n")."""

    kind: str
    base: tuple[str, ...]
    mine: tuple[str, ...]
    theirs: tuple[str, ...]

    @property
    def choices(self) -> tuple[str, ...]:
        """What may be taken here: nothing to choose in a "same" hunk; a conflict may
        also stay marked (git-style) for resolving by hand."""
        if self.kind == "same":
            return ()
        return (MINE, THEIRS, BOTH, MARK) if self.kind == "conflict" else (MINE, THEIRS, BOTH)

    @property
    def default(self) -> str | None:
        """The choice `merge_text` makes: the side that changed; a conflict stays marked."""
        return {"mine": MINE, "theirs": THEIRS, "conflict": MARK}.get(self.kind)

    def lines(self, choice: str | None) -> list[str]:
        choice = choice or self.default
        if self.kind == "same":
            return list(self.mine)
        if choice not in self.choices:
            raise ValueError(f"{choice!r} is not a choice here (one of {', '.join(self.choices)})")
        if choice == MINE:
            return list(self.mine)
        if choice == THEIRS:
            return list(self.theirs)
        if choice == BOTH:
            return [*self.mine, *(line for line in self.theirs if line not in self.mine)]
        return [MINE_MARKER + "\n", *self.mine, MIDDLE_MARKER + "\n", *self.theirs,
                THEIRS_MARKER + "\n"]  # fmt: skip


@dataclass(frozen=True)
class MergePlan:
    """A three-way merge cut into hunks, to be resolved hunk by hunk (`resolve`)."""

    hunks: tuple[Hunk, ...]
    ending: bool  # whether the result ends with a newline (the three-way decision)

    @property
    def changed(self) -> list[int]:
        """The indexes of the hunks that offer a choice."""
        return [i for i, hunk in enumerate(self.hunks) if hunk.kind != "same"]

    def resolve(self, choices: Mapping[int, str] | None = None) -> MergeResult:
        """The merged text with `choices` (hunk index → "mine", "theirs", "both", or
        "mark" for a conflict); a hunk not chosen takes its `default`, so resolving with
        no choices gives what `merge_text` gives."""
        chosen = choices or {}
        unknown = set(chosen) - set(self.changed)
        if unknown:
            raise ValueError(f"no choice to make in hunks {sorted(unknown)}")
        out: list[str] = []
        conflicts = 0
        for number, hunk in enumerate(self.hunks):
            choice = chosen.get(number)
            conflicts += (choice or hunk.default) == MARK
            out.extend(hunk.lines(choice))
        text = "".join(out)
        if not self.ending and text.endswith("\n"):
            text = text[:-1]
        return MergeResult(text, conflicts)


def plan(base: str, mine: str, theirs: str) -> MergePlan:
    """`base` → `mine` and `base` → `theirs` as hunks (regions narrowed as `merge_text`
    narrows them, so lines both sides agree on are never part of a conflict)."""
    base, mine, theirs = (_normal(t) for t in (base, mine, theirs))
    ending = _ending(base, mine, theirs)
    if mine == theirs:
        lines = tuple(_lines(mine))
        return MergePlan((Hunk("same", (), lines, lines),), ending)
    m3 = merge3.Merge3(_lines(base), _lines(mine), _lines(theirs))
    hunks: list[Hunk] = []
    for region in m3.reprocess_merge_regions(m3.merge_regions()):
        kind = region[0]
        if kind == "unchanged":
            lines = tuple(m3.base[region[1] : region[2]])
            hunks.append(Hunk("same", lines, lines, lines))
        elif kind == "same":
            lines = tuple(m3.a[region[1] : region[2]])
            hunks.append(Hunk("same", (), lines, lines))
        elif kind in ("a", "b"):
            hunks.append(_one_sided(m3, kind, int(region[1] or 0), int(region[2] or 0)))
        else:
            _, z1, z2, a1, a2, b1, b2 = cast(_Conflict, region)
            # a conflict narrowed by reprocessing no longer knows its base lines (None)
            base_lines = () if z1 is None else tuple(m3.base[z1:z2])
            hunks.append(Hunk("conflict", base_lines, tuple(m3.a[a1:a2]), tuple(m3.b[b1:b2])))
    return MergePlan(tuple(hunks), ending)


def _one_sided(m3: Any, side: str, start: int, end: int) -> Hunk:
    """A region changed on one side only: the other side's lines there are the base's,
    found from merge3's matching of that side (its sync regions)."""
    changed = tuple((m3.a if side == "a" else m3.b)[start:end])
    base_lines = _base_for(m3, side, start, end)
    if side == "a":
        return Hunk("mine", base_lines, changed, base_lines)
    return Hunk("theirs", base_lines, base_lines, changed)


def _base_for(m3: Any, side: str, start: int, end: int) -> tuple[str, ...]:
    """The base lines that `side`'s lines [start, end) replaced."""
    for z1, z2, a1, a2, b1, b2 in _between_syncs(m3):
        s1, s2 = (a1, a2) if side == "a" else (b1, b2)
        if s1 <= start and end <= s2:
            return tuple(m3.base[z1:z2])
    return ()


def _between_syncs(m3: Any) -> list[tuple[int, int, int, int, int, int]]:
    """The unsynced stretches between merge3's sync regions: base, a and b ranges."""
    out = []
    iz = ia = ib = 0
    for zmatch, zend, amatch, aend, bmatch, bend in m3.find_sync_regions():
        out.append((iz, zmatch, ia, amatch, ib, bmatch))
        iz, ia, ib = zend, aend, bend
    return out
