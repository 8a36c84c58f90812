"""The cursor: which daily-note entries are new since the heartbeat last ran.

A single "read up to here" position would miss what people and agents really do to
daily notes: edit an entry, append an entry with an earlier time after a later one, or
drop in the note of an old date. So the cursor remembers, per note (global and each
agent's), the refs of the entries already turned into facts (`model.Entry.ref`: the
note's path, the entry's time and a hash of its text). Whatever entry of a note is not
among them is new:

- an edited entry has a new ref, so it is new (the facts of its earlier text stay);
- an entry appended out of order is new wherever it sits;
- a note created late (an old date, a new agent) has no done refs at all.

To stay fast on years of notes, each note also keeps the (size, mtime_ns) it had when
every one of its entries was done; a note that still has them is not read again. A
note changed less than `RACY_S` before it was looked at keeps no such stamp (a second
edit within the file system's timestamp resolution could otherwise hide), so it is
simply parsed again next time. The state stays bounded: a note's done refs are cut
down to the refs it holds now whenever its stamp is recorded, and notes that are gone
are forgotten.

`.vault/heartbeat/cursor.json`:
`{"version": 1, "notes": {"global/daily/2026-11-20.md": {"size": 812,
"mtime_ns": 1763..., "done": ["global/daily/2026-11-20.md@09:15:00#1a2b3c4d5e6f", ...]}}}`.
A cursor file that cannot be read is a precise `CorruptFileError` and is never
overwritten: the run records the error and does nothing else until a person fixes or
removes the file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vault_app.core import errors, storage
from vault_app.core.vault import Vault
from vault_app.heartbeat import state
from vault_app.heartbeat.extraction import Entry

CURSOR_NAME = "cursor.json"
VERSION = 1
RACY_S = 2.0  # a note modified this recently is re-read next time, stamp or not

log = logging.getLogger(__name__)


@dataclasses.dataclass
class _Note:
    size: int | None = None
    mtime_ns: int | None = None
    done: set[str] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class _Seen:
    """A note as `new_entries` last read it: its stamp then and every ref it held."""

    size: int
    mtime_ns: int
    refs: frozenset[str]
    racy: bool


class Cursor:
    """The done entries of every daily note (see the module's docstring)."""

    def __init__(self, root: Path, notes: dict[str, _Note] | None = None) -> None:
        self.root = Path(root)
        self._notes: dict[str, _Note] = notes or {}
        self._seen: dict[str, _Seen] = {}
        self.problems: list[errors.VaultError] = []  # notes the last look could not read

    # -- the file -----------------------------------------------------------------------

    @classmethod
    def load(cls, root: Path) -> Cursor:
        """The saved cursor (empty when there is none); CorruptFileError if unreadable."""
        data = state.read(root, CURSOR_NAME)
        if data is None:
            return cls(root)
        if data.get("version") != VERSION:
            raise state.corrupt(
                root, CURSOR_NAME, f"unknown version {data.get('version')!r} (expected {VERSION})"
            )
        notes = data.get("notes")
        if not isinstance(notes, dict):
            raise state.corrupt(root, CURSOR_NAME, "expected an object of notes", "notes")
        return cls(root, {key: _note(root, key, value) for key, value in notes.items()})

    def save(self, store: storage.Storage) -> None:
        """Write the cursor atomically (nothing when unchanged)."""
        notes = {
            key: {"size": note.size, "mtime_ns": note.mtime_ns, "done": sorted(note.done)}
            for key, note in sorted(self._notes.items())
        }
        state.write(store, CURSOR_NAME, {"version": VERSION, "notes": notes}, "heartbeat.cursor")

    # -- new entries --------------------------------------------------------------------

    def new_entries(self, vault: Vault) -> list[Entry]:
        """Every entry of the global and the agents' daily notes not done yet, oldest
        first (by date and time, then note). Unreadable notes are skipped and listed in
        `problems` (they are tried again next time)."""
        self.problems = []
        found: list[Entry] = []
        present: set[str] = set()
        for agent in (None, *vault.paths.agent_ids()):
            for day in vault.daily_dates(agent):
                path = vault.paths.daily_file(day, agent)
                key = vault.paths.relative(path)
                present.add(key)
                found.extend(self._note_entries(vault, path, key, day, agent))
        for gone in set(self._notes) - present:  # deleted notes: nothing left to remember
            del self._notes[gone]
        found.sort(key=lambda e: (e.moment, e.path, e.occurrence))
        return found

    def _note_entries(
        self, vault: Vault, path: Path, key: str, day: dt.date, agent: str | None
    ) -> list[Entry]:
        try:
            info = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return []
        if not stat.S_ISREG(info.st_mode):
            return []  # `daily_dates` lists regular files only; it changed since
        note = self._notes.get(key)
        if note is not None and (note.size, note.mtime_ns) == (info.st_size, info.st_mtime_ns):
            return []
        try:
            parsed = vault.daily_note(day, agent)
        except errors.NotFoundError:
            return []
        except errors.VaultError as exc:
            log.warning("daily note not read: %s", exc)
            self.problems.append(exc)
            return []
        entries = as_entries(key, agent, parsed.entries)
        racy = time.time() - info.st_mtime_ns / 1e9 < RACY_S
        self._seen[key] = _Seen(
            info.st_size, info.st_mtime_ns, frozenset(e.ref for e in entries), racy
        )
        done = note.done if note is not None else set()
        fresh = [e for e in entries if e.ref not in done]
        if not fresh:
            self._stamp(key)
        return fresh

    def mark_done(self, entries: Iterable[Entry]) -> None:
        """Remember `entries` as turned into facts (saved by the next `save`)."""
        touched = set()
        for entry in entries:
            self._notes.setdefault(entry.path, _Note()).done.add(entry.ref)
            touched.add(entry.path)
        for key in touched:
            seen = self._seen.get(key)
            if seen is not None and seen.refs <= self._notes[key].done:
                self._stamp(key)

    def _stamp(self, key: str) -> None:
        """Every entry the note held when read is done: keep its stamp (unless racy) and
        only the refs it holds."""
        seen = self._seen[key]
        note = self._notes.setdefault(key, _Note())
        note.done = set(seen.refs)
        note.size, note.mtime_ns = (None, None) if seen.racy else (seen.size, seen.mtime_ns)

    def __len__(self) -> int:
        """How many notes the cursor remembers."""
        return len(self._notes)


def as_entries(key: str, agent: str | None, daily_entries: Iterable[Any]) -> list[Entry]:
    """A note's entries (`models.DailyEntry`) as the heartbeat's `Entry`s, with the
    occurrence count that keeps two identical entries apart."""
    counts: dict[tuple[str, str], int] = {}
    out = []
    for item in daily_entries:
        if not item.text.strip():
            continue  # an empty entry holds no fact; it is never new
        seen = counts.get((item.time, item.text), 0)
        counts[(item.time, item.text)] = seen + 1
        out.append(
            Entry(
                path=key,
                date=item.date,
                time=item.time,
                text=item.text,
                agent=agent,
                index=item.index,
                occurrence=seen,
            )
        )
    return out


def _note(root: Path, key: str, value: Any) -> _Note:
    where = f"notes.{key}"
    if not isinstance(value, dict):
        raise state.corrupt(root, CURSOR_NAME, "expected an object", where)
    size, mtime, done = value.get("size"), value.get("mtime_ns"), value.get("done", [])
    for name, number in (("size", size), ("mtime_ns", mtime)):
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            raise state.corrupt(
                root, CURSOR_NAME, "expected a whole number or null", f"{where}.{name}"
            )
    if not isinstance(done, list) or not all(isinstance(ref, str) for ref in done):
        raise state.corrupt(root, CURSOR_NAME, "expected a list of entry refs", f"{where}.done")
    return _Note(size, mtime, set(done))
