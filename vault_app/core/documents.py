"""Markdown documents: summaries, agent files, the principles, and daily notes on disk.

A document is read whole with the hash to write it back against (`models.Document`);
a write is refused when the file changed since (`ConflictError`) unless the caller says
`Check.SKIP`. Daily notes are appended to, entry by entry, under the file's lock (their
text format: `daily`). The `Vault` facade delegates here with its layout and storage.
"""

from __future__ import annotations

import datetime as dt
import enum
from pathlib import Path
from typing import Any

from vault_app.core import daily, errors, layout, models, storage

AGENT_DOCUMENTS = ("TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md")
PRINCIPLES = layout.PRINCIPLES_NAME


class Check(enum.Enum):
    """Pass `Check.SKIP` as `expected` to write without the optimistic hash check.

    `Check.ANY` is its old spelling, kept for scripts (the same member)."""

    SKIP = "skip"
    ANY = "skip"  # an alias of SKIP


Expected = str | None | Check


def read(store: storage.Storage, path: Path) -> models.Document:
    """The document at `path` (text None when absent); CorruptFileError if unreadable."""
    doc = store.read_text(path)
    if doc is None:
        return models.Document(path, None, None)
    return models.Document(path, doc[0], doc[1])


def read_or_error(store: storage.Storage, path: Path) -> models.Document:
    """Like `read`, but an unreadable file gives a Document carrying its error."""
    try:
        return read(store, path)
    except errors.CorruptFileError as exc:
        return models.Document(path, None, None, exc)


def write(
    store: storage.Storage, path: Path, text: str, expected: Expected, action: str, **audit: Any
) -> str:
    """Write `text` if the file still has the hash `expected` (None: absent); its new hash."""
    return store.write(
        path,
        text.encode("utf-8"),
        expected=None if isinstance(expected, Check) else expected,
        check=not isinstance(expected, Check),
        action=action,
        **audit,
    )


def agent_document_path(paths: layout.VaultLayout, name: str, agent: str | None) -> Path:
    """Where an agent's document (TACIT.md…) is, or with no agent the principles."""
    if agent is None:
        if name != PRINCIPLES:
            raise errors.InvalidIdError(f"{name} belongs to an agent: name the agent")
        return paths.principles_file
    if name not in AGENT_DOCUMENTS:
        raise errors.InvalidIdError(f"unknown agent document {name!r}")
    folder = paths.agent_dir(agent)
    if not folder.is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {paths.root}")
    return folder / name


# -- daily notes ----------------------------------------------------------------------


def daily_note(
    paths: layout.VaultLayout, store: storage.Storage, day: dt.date, agent: str | None
) -> models.DailyNote:
    path = paths.daily_file(day, agent)
    doc = store.read_text(path)
    if doc is None:
        raise errors.NotFoundError(f"no daily note for {day.isoformat()} ({path})")
    return daily.parse(doc[0], day, agent, path)


def append_daily(
    paths: layout.VaultLayout,
    store: storage.Storage,
    content: str,
    agent: str | None,
    moment: dt.datetime,
) -> models.DailyEntry:
    """Append a `## HH:MM:SS` entry at `moment` to the day's note (see `Vault.append_daily`)."""
    if not content.strip():
        raise errors.InvalidFactError("a daily entry needs some text")
    if agent is not None and not paths.agent_dir(agent).is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {paths.root}")
    local = moment.astimezone()
    path = paths.daily_file(local.date(), agent)
    with store.transaction(path) as tx:
        current = None if tx.data is None else storage.decode_text(path, tx.data)
        text = daily.append(current, local.date(), local.time(), content)
        tx.commit(text.encode("utf-8"), "daily.append", agent=agent)
    note = daily.parse(text, local.date(), agent, path)
    return note.entries[-1]


def add_daily_entries(
    paths: layout.VaultLayout,
    store: storage.Storage,
    day: dt.date,
    items: list[tuple[dt.time, str]],
    agent: str | None,
) -> int:
    """Place entries in the day's note in time order, in one write (see
    `Vault.add_daily_entries`); returns how many were added."""
    if agent is not None and not paths.agent_dir(agent).is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {paths.root}")
    path = paths.daily_file(day, agent)
    with store.transaction(path) as tx:
        current = None if tx.data is None else storage.decode_text(path, tx.data)
        text, added = daily.insert(current, day, items)
        if added:
            tx.commit(text.encode("utf-8"), "daily.add", agent=agent, entries=added)
    return added


def retract_daily_entry(
    paths: layout.VaultLayout, store: storage.Storage, entry: models.DailyEntry
) -> None:
    """Take an entry back out of its note (see `Vault.retract_daily_entry`)."""
    path = paths.daily_file(entry.date, entry.agent)
    segment = daily.entry_segment(entry.time, entry.text)
    with store.transaction(path) as tx:
        current = None if tx.data is None else storage.decode_text(path, tx.data)
        if current is None or current.count(segment) != 1:
            raise errors.NotFoundError(
                f"the {entry.time} entry of {path.name} changed or is gone; nothing removed"
            )
        text = current.replace(segment, "", 1)
        tx.commit(text.encode("utf-8"), "daily.retract", agent=entry.agent)
