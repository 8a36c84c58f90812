"""The backup ring of one file, as a person restores from it: versions listed, one restored.

`versions(store, path)` lists what `.vault/backups/` keeps of `path` (`Storage.backups`),
newest first, each with the time it was kept (read from its name: nanoseconds since the
epoch), its size, whether its bytes still match the hash in its name, a short preview
of its bytes, a `readable` one (a fact file's facts one per line, active first, each with
its category and whether it was superseded; a markdown file's text) and, when it would not
parse as the file it stands for (a fact file through `formats.decode` and
`formats.check_lossless`, markdown as UTF-8), why not.

`restore(store, path, number)` puts version `number` (1 = newest) back as a normal safe
write of its bytes: under the file's lock, atomically, the version it replaces kept in the
ring like any other, one audit line (`file.restore`, `restoredFrom`). A version that does
not parse, or whose bytes no longer match its name, is refused (`errors.CorruptFileError`)
and nothing is written; with `expected`, a file that changed since it was read is refused
too (`errors.ConflictError`), so a restore never overwrites a write it did not see.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import errors, formats, layout, storage

PREVIEW_CHARS = 600
READABLE_FACTS = 200  # facts listed in a readable preview (the rest counted)
READABLE_CHARS = 100_000  # of a text file's readable preview
UNSET = "unset"  # `restore(expected=...)` not given: no check of the current content


@dataclass(frozen=True)
class Version:
    """One kept version of a file (`number` 1 is the newest)."""

    number: int
    kept: Path  # the file in the ring
    time: dt.datetime  # when it was kept (local time)
    size: int
    intact: bool  # its bytes still match the hash in its name
    preview: str  # the start of its text ("" when it is not text)
    problem: str | None  # why it cannot be restored, None when it can
    facts: int | None = None  # how many facts it holds (a fact file that parses)
    readable: str = ""  # what a person reads to choose it (see the module doc)

    @property
    def restorable(self) -> bool:
        return self.problem is None


def kept_time(kept: Path) -> dt.datetime:
    """When a version was kept (from its name; its mtime when the name says nothing)."""
    stamp = kept.name.split("-", 1)[0]
    try:
        return dt.datetime.fromtimestamp(int(stamp) / 1e9).astimezone()
    except (ValueError, OverflowError, OSError):
        return dt.datetime.fromtimestamp(kept.stat().st_mtime).astimezone()


def check_parses(path: Path, data: bytes) -> formats.FactFile | str:
    """Raise `errors.CorruptFileError` unless `data` reads as the file `path` stands for;
    returns the decoded fact file, or the text of another file."""
    if path.name in layout.FACT_FILE_NAMES:
        ff = formats.decode(path, data)
        formats.check_lossless(ff, data)
        return ff
    return storage.decode_text(path, data)


def readable(ff: formats.FactFile) -> str:
    """A fact file as a person reads it: `12 facts: 10 active, 2 superseded`, then one
    line per fact, active first, `• text  (category)` / `• text  (category, superseded)`."""
    successor, _ = ff.lineage()
    active: list[str] = []
    superseded: list[str] = []
    for entry in ff.raw:
        if not isinstance(entry, dict):
            continue
        text = entry.get(ff.dialect.text_key)
        words = " ".join(text.split()) if isinstance(text, str) else "(no text)"
        category = entry.get("category")
        kind = category if isinstance(category, str) and category else "fact"
        if formats.is_superseded_raw(entry, successor):
            superseded.append(f"• {words}  ({kind}, superseded)")
        else:
            active.append(f"• {words}  ({kind})")
    count = len(active) + len(superseded)
    head = f"{count} fact{'' if count == 1 else 's'}: {len(active)} active"
    head += f", {len(superseded)} superseded" if superseded else ""
    lines = (active + superseded)[:READABLE_FACTS]
    more = count - len(lines)
    tail = [f"…and {more} more"] if more > 0 else []
    return "\n".join([head, "", *lines, *tail])


def _version(store: storage.Storage, path: Path, number: int, kept: Path) -> Version:
    try:
        data = store.read_backup(kept)
    except (errors.VaultError, OSError) as exc:
        return Version(number, kept, kept_time(kept), 0, False, "", f"cannot be read: {exc}")
    intact = storage.sha256(data).startswith(kept.name.rsplit("-", 1)[-1])
    problem = None if intact else "its bytes no longer match the hash in its name"
    facts = None
    text = data[: PREVIEW_CHARS * 4].decode("utf-8", errors="replace")
    preview = text[:PREVIEW_CHARS]
    shown = preview
    if problem is None:
        try:
            parsed = check_parses(path, data)
        except errors.CorruptFileError as exc:
            where = f" ({exc.location})" if exc.location else ""
            problem = f"does not parse{where}: {exc.reason}"
        else:
            if isinstance(parsed, formats.FactFile):
                facts, shown = len(parsed.raw), readable(parsed)
            else:
                shown = parsed[:READABLE_CHARS] + ("\n…" if len(parsed) > READABLE_CHARS else "")
    return Version(number, kept, kept_time(kept), len(data), intact, preview, problem, facts, shown)


def versions(store: storage.Storage, path: Path) -> list[Version]:
    """The kept versions of `path`, newest first (empty when the ring holds none)."""
    store.ensure_inside(path)
    return [_version(store, path, n, kept) for n, kept in enumerate(store.backups(path), 1)]


def restore(
    store: storage.Storage, path: Path, number: int, *, expected: str | None = UNSET
) -> str:
    """Write version `number` of `path` back (see the module doc); returns the new hash."""
    kept = store.backups(path)
    if not 1 <= number <= len(kept):
        raise errors.NotFoundError(
            f"{store.paths.relative(path)} has {len(kept)} kept version"
            f"{'' if len(kept) == 1 else 's'}: there is no version {number}"
        )
    version = _version(store, path, number, kept[number - 1])
    if version.problem is not None:
        raise errors.CorruptFileError(
            path, f"version {number} ({version.kept.name}) {version.problem}: not restored"
        )
    data = store.read_backup(version.kept)
    with store.transaction(path) as tx:
        if expected != UNSET:
            tx.check(expected)
        return tx.commit(data, "file.restore", restoredFrom=version.kept.name)
