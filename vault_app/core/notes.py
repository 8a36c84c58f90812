"""Hermes' `§` entry files (agent notes, user profile): pure functions, budgets, no I/O.

A notes file is a list of entries joined by a line holding only `§` (`ENTRY_DELIMITER`,
`"\\n§\\n"`); an entry may span lines and may hold a `§` anywhere but on a line of its
own. Usage is counted as Hermes counts it: the length in characters (code points, not
bytes) of the joined text, delimiters included, 0 for no entry. A store has a budget in
characters (2,200 for agent notes, 1,375 for the user profile by default).

Every change is a function from a list of entries to a new list, refused whole with a
structured error when it cannot be made as asked, and never by cutting text:

* `BudgetError` — the change would put usage over the limit: it carries the usage now,
  the limit and the usage the change would have made (`attempted`);
* `MatchError` — `replace` / `remove` find their entry by a substring that must pick one
  entry: no entry or several different entries hold it (the candidates are named);
* `DuplicateError` — `add` of an entry already there (a batch skips it instead);
* `EntryError` — an empty entry, or one that would not read back as itself once joined
  (a line holding only `§` inside it would split it in two).

A batch (`apply_batch`, Hermes' `operations`) applies several add / replace / remove in
order to a working copy, each finding its entry in the list as the operations before it
left it, and checks the budget once, on the final list: a batch may free room and use it
in one call. It is all or nothing: the first operation refused refuses the whole batch
(`OperationError`, naming it, with the reason's own fields), and so does a final list
over the limit (`BudgetError`).

Entries are stripped of surrounding whitespace as Hermes strips them, so `add("x ")` and
`add("x")` are the same entry. Reading (`entries`) reads as Hermes reads: any line ending
as "\\n", an entry repeated in the file once (no distinct entry is ever dropped);
`round_trips` says whether rewriting a text from its entries loses nothing, which a writer
checks before rewriting a file someone else wrote. In a batch, an add of an entry already
there is skipped, as Hermes skips it; a single `add` of one is refused (`DuplicateError`).

The file I/O (locks, atomic writes, backups, audit) lives in `agent_memory`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vault_app.core import errors

ENTRY_DELIMITER = "\n§\n"
MEMORY_LIMIT = 2200  # characters: Hermes' default for agent notes (MEMORY.md)
USER_LIMIT = 1375  # characters: Hermes' default for the user profile (USER.md)
PREVIEW_WIDTH = 80  # characters of each candidate shown in a MatchError


class NotesError(errors.VaultError):
    """Base of the refusals of a change to a `§` notes list; `to_dict()` is the
    structured form the CLI's `--json` and the MCP tools return."""

    kind = "notes"

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.kind, "message": str(self)}


@dataclass(frozen=True)
class Usage:
    """Characters used out of a limit, written as Hermes writes it."""

    used: int
    limit: int

    @property
    def percent(self) -> int:
        """Whole percent of the limit, capped at 100, computed as Hermes computes it
        (`int(used / limit * 100)`: 638/2,200 is 28 %, the float's floor); 0 for no limit."""
        return min(100, int(self.used / self.limit * 100)) if self.limit > 0 else 0

    @property
    def over(self) -> bool:
        return self.used > self.limit

    def fraction(self) -> str:
        """``924/2,200``."""
        return f"{self.used:,}/{self.limit:,}"

    def meter(self) -> str:
        """``42% — 924/2,200 chars``."""
        return f"{self.percent}% — {self.fraction()} chars"


class BudgetError(NotesError):
    """A change that would put the store over its limit; nothing was changed."""

    kind = "over_budget"

    def __init__(self, current: int, limit: int, attempted: int, what: str = "this change") -> None:
        self.current = current
        self.limit = limit
        self.attempted = attempted
        super().__init__(
            f"over budget: {what} would use {attempted:,}/{limit:,} chars "
            f"(now {current:,}/{limit:,}, {attempted - limit:,} over); nothing changed"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "current": self.current,
            "limit": self.limit,
            "attempted": self.attempted,
            "usage": Usage(self.current, self.limit).fraction(),
        }


class MatchError(NotesError):
    """`replace` / `remove` whose substring matches no entry, or different entries."""

    kind = "no_unique_match"

    def __init__(self, needle: str, candidates: Sequence[str]) -> None:
        self.needle = needle
        self.candidates = [preview(c) for c in candidates]
        if not candidates:
            message = f"no entry holds {needle!r}"
        else:
            named = "; ".join(repr(c) for c in self.candidates)
            message = (
                f"{len(candidates)} different entries hold {needle!r}: {named}; be more specific"
            )
        super().__init__(message)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "old_text": self.needle, "matches": self.candidates}


class DuplicateError(NotesError):
    """`add` of an entry the store already holds."""

    kind = "duplicate"

    def __init__(self, entry: str) -> None:
        self.entry = entry
        super().__init__(f"entry already there: {preview(entry)!r}; nothing added")


class EntryError(NotesError):
    """An entry that cannot be stored as given (empty, or splitting on read)."""

    kind = "invalid_entry"


class OperationError(NotesError):
    """One operation of a batch refused: the whole batch is, and nothing was changed."""

    def __init__(self, number: int, action: str, reason: NotesError) -> None:
        self.number = number
        self.action = action
        self.reason = reason
        self.kind = reason.kind
        super().__init__(
            f"operation {number} ({action}): {reason}; no operation was applied "
            "(a batch is all or nothing)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**self.reason.to_dict(), "message": str(self), "operation": self.number}


@dataclass(frozen=True)
class Operation:
    """One operation of a batch: `add` (content), `replace` (old_text, content) or
    `remove` (old_text)."""

    action: str
    content: str | None = None
    old_text: str | None = None

    @classmethod
    def parse(cls, number: int, raw: object) -> Operation:
        """An operation from its JSON form `{"action", "content"?, "old_text"?}`."""
        if not isinstance(raw, Mapping):
            raise EntryError(f"operation {number} is not an object with an action")
        unknown = sorted(set(raw) - {"action", "content", "old_text"})
        if unknown:
            raise EntryError(f"operation {number}: unknown field(s) {', '.join(unknown)}")
        action = raw.get("action")
        if action not in ACTIONS:
            raise EntryError(f"operation {number}: action {action!r} is not add, replace or remove")
        needs = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}
        for name in ("content", "old_text"):
            value = raw.get(name)
            if value is not None and not isinstance(value, str):
                raise EntryError(f"operation {number}: {name} must be a string")
            if name in needs[action] and not (value or "").strip():
                raise EntryError(f"operation {number} ({action}): {name} is required")
        return cls(str(action), raw.get("content"), raw.get("old_text"))

    def to_dict(self) -> dict[str, str]:
        found = {"action": self.action, "content": self.content, "old_text": self.old_text}
        return {k: v for k, v in found.items() if v is not None}


ACTIONS = ("add", "replace", "remove")


def operations(raw: object) -> list[Operation]:
    """The operations of a batch from their JSON form (a non-empty list of objects)."""
    if not isinstance(raw, list) or not raw:
        raise EntryError("operations must be a non-empty list of {action, content?, old_text?}")
    return [Operation.parse(n, op) for n, op in enumerate(raw, 1)]


def apply_batch(items: Sequence[str], ops: Sequence[Operation], limit: int) -> list[str]:
    """`items` after every operation of `ops`, in order, the budget checked on the final
    list only; refused whole (`OperationError`, `BudgetError`) as the module doc says."""
    working = list(items)
    for number, op in enumerate(ops, 1):
        try:
            if op.action == "add":
                if check_entry(op.content or "") in working:
                    continue  # as Hermes: a duplicate add in a batch is skipped, not refused
                working = add(working, op.content or "", sys.maxsize)
            elif op.action == "replace":
                working = replace(working, op.old_text or "", op.content or "", sys.maxsize)
            elif op.action == "remove":
                working = remove(working, op.old_text or "")
            else:
                raise EntryError(f"action {op.action!r} is not add, replace or remove")
        except NotesError as exc:
            raise OperationError(number, op.action, exc) from None
    what = f"these {len(ops)} operation{'s' if len(ops) != 1 else ''}"
    return _within(working, items, limit, what)


def preview(entry: str, width: int = PREVIEW_WIDTH) -> str:
    """One line of at most `width` characters of `entry`, for messages (never stored)."""
    flat = " ".join(entry.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def entries(text: str) -> list[str]:
    """The entries of a notes file's text as Hermes reads them: line endings read as
    "\\n" (Windows' "\\r\\n" and a lone "\\r" too, as Python's text mode does), split on
    the delimiter, stripped, empty ones skipped, each read once (the first time), in
    order. A CRLF file then holds the entries Hermes sees, and a rewrite keeps them all."""
    return list(dict.fromkeys(_parts(text)))


def pieces(text: str) -> list[str]:
    """The stripped, non-empty pieces of `text` between delimiters, repeats kept: what a
    person typed into an editor of the whole store, for `validate` to judge (a repeated
    entry there is refused, not silently dropped)."""
    return _parts(text)


def _parts(text: str) -> list[str]:
    """The stripped, non-empty pieces of `text` between delimiters, repeats kept."""
    text = newlines(text)
    if not text.strip():
        return []
    return [part for part in (piece.strip() for piece in text.split(ENTRY_DELIMITER)) if part]


def newlines(text: str) -> str:
    """`text` with every line ending "\\n" (what Hermes' `read_text` makes of a file)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def join(items: Sequence[str]) -> str:
    """The file text of `items` (no trailing newline, as Hermes writes it)."""
    return ENTRY_DELIMITER.join(items)


def usage(items: Sequence[str]) -> int:
    """Characters `items` use against a budget: the length of their joined text."""
    return len(join(items)) if items else 0


def round_trips(text: str) -> bool:
    """Whether rewriting `text` from its entries would lose nothing of it: Hermes' own
    test before a rewrite (`_detect_external_drift`): the pieces between delimiters,
    joined again, give its text back, line endings and surrounding blanks aside."""
    return join(_parts(text)) == newlines(text).strip()


def validate(items: Sequence[str], limit: int, current: int = 0) -> list[str]:
    """`items` as a whole new list (a person's edit of the block): each entry valid,
    none twice, within `limit` (`current`: the usage now, for the BudgetError)."""
    checked = [check_entry(item) for item in items]
    seen: set[str] = set()
    for entry in checked:
        if entry in seen:
            raise DuplicateError(entry)
        seen.add(entry)
    return _within(checked, [], limit, "this text", current)


def change(
    items: Sequence[str], action: str, content: str | None, old_text: str | None, limit: int
) -> list[str]:
    """`items` after Hermes' `add` (content), `replace` (old_text, content) or `remove`
    (old_text); an EntryError for a missing argument, InvalidIdError for another action."""
    if action == "add":
        return add(items, _given(content, "content"), limit)
    if action == "replace":
        needle = _given(old_text, "old_text")
        return replace(items, needle, _given(content, "content"), limit)
    if action == "remove":
        return remove(items, _given(old_text, "old_text"))
    raise errors.InvalidIdError(f"no notes action {action!r}: add, replace or remove")


def add(items: Sequence[str], content: str, limit: int) -> list[str]:
    """`items` with `content` appended; refused if empty, a duplicate or over `limit`."""
    entry = check_entry(content)
    if entry in items:
        raise DuplicateError(entry)
    return _within([*items, entry], items, limit, f"adding {len(entry):,} chars")


def replace(items: Sequence[str], old_text: str, content: str, limit: int) -> list[str]:
    """`items` with the one entry holding `old_text` replaced by `content`."""
    index = find(items, old_text)
    entry = check_entry(content)
    if entry != items[index] and entry in items:
        raise DuplicateError(entry)
    changed = [*items]
    changed[index] = entry
    return _within(changed, items, limit, "this replacement")


def remove(items: Sequence[str], old_text: str) -> list[str]:
    """`items` without the one entry holding `old_text` (a removal is never over budget)."""
    index = find(items, old_text)
    return [*items[:index], *items[index + 1 :]]


def find(items: Sequence[str], old_text: str) -> int:
    """Index of the entry holding the substring `old_text` (stripped, non-empty).

    Several entries holding it are refused unless they are one text repeated (a file
    written by hand may repeat an entry): then the first is meant, as in Hermes."""
    needle = old_text.strip()
    if not needle:
        raise EntryError("the text to find is empty; give a substring of one entry")
    hits = [i for i, entry in enumerate(items) if needle in entry]
    distinct = list(dict.fromkeys(items[i] for i in hits))
    if len(distinct) != 1:
        raise MatchError(needle, distinct)
    return hits[0]


def check_entry(content: str) -> str:
    """`content` stripped, if it can be stored as one entry (EntryError if not)."""
    entry = content.strip()
    if not entry:
        raise EntryError("the entry is empty; nothing stored")
    # Between two neighbours, so that a `§` line at its edge, which would merge with a
    # separator, is caught as well as one inside it.
    if _parts(join(["x", entry, "x"])) != ["x", entry, "x"]:
        raise EntryError(
            "the entry holds a line with only '§', the separator between entries, "
            "and would read back as other entries; nothing stored"
        )
    return entry


def _within(
    changed: list[str], before: Sequence[str], limit: int, what: str, current: int | None = None
) -> list[str]:
    attempted = usage(changed)
    if attempted > limit:
        raise BudgetError(usage(before) if current is None else current, limit, attempted, what)
    return changed


def _given(value: str | None, name: str) -> str:
    if not isinstance(value, str):
        raise EntryError(f"{name} is required for this action")
    return value
