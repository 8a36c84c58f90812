"""What happened lately: the newest lines of the audit log, `.vault/audit.jsonl`, read.

The log is append-only and may grow large (one line per write), so `recent` reads it
backwards from the end in blocks, stopping once it has `limit` matching lines or has read
`MAX_TAIL_BYTES`: the cost is bounded whatever the log's size. A line torn by a writer
still appending (the last one) or damaged by hand is skipped. Lines are dicts as
`storage.Storage.audit` writes them: `time`, `actor`, `action`, `target`, then the
write's own fields (`entity`, `factId`, `agent`, ...). Newest first.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from vault_app.core import actors, decay, errors, layout, safe_fs, storage

MAX_TAIL_BYTES = 16 << 20  # read at most this much of the log's end
_BLOCK = 64 << 10


def recent(
    root: Path,
    *,
    limit: int = 50,
    agent: str | None = None,
    since: dt.datetime | None = None,
    action: str | None = None,
) -> list[dict[str, Any]]:
    """The newest audit lines, newest first, at most `limit`.

    `agent` keeps the lines written by that agent (actor `agent:<id>`); `since` the lines
    at or after that time (a naive time is local); `action` an action (`fact.add`) or a
    family of them (`fact`: `fact.add`, `fact.supersede`, ...).
    """
    if limit <= 0:
        return []
    moment = None if since is None else decay.as_aware(since)
    found: list[dict[str, Any]] = []
    for line in lines_backwards(Path(root) / layout.STATE_DIR / storage.AUDIT_NAME, Path(root)):
        entry = _parse(line)
        if entry is None:
            continue
        when = _time(entry)
        if moment is not None and (when is None or when < moment):
            continue  # not `break`: writers of several processes may append out of order
        if agent is not None and _agent_of(entry) != agent:
            continue
        name = entry.get("action")
        if action is not None and not (name == action or str(name).startswith(action + ".")):
            continue
        found.append(entry)
        if len(found) >= limit:
            break
    return found


def lines_backwards(path: Path, root: Path) -> Iterator[bytes]:
    """An append-only log's lines (the audit log, the heartbeat's run log) from the last,
    within the last MAX_TAIL_BYTES (the first, maybe partial, line of that window
    dropped); none when the file is absent. Never through a symlink under `root`."""
    safe_fs.check_tree(root, path, safe_fs.STATE_READ)
    try:
        with safe_fs.reading(path) as handle:
            yield from _tail(handle)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None


def _tail(handle: BinaryIO) -> Iterator[bytes]:
    end = os.fstat(handle.fileno()).st_size
    floor = max(0, end - MAX_TAIL_BYTES)
    position, rest = end, b""
    while position > floor:
        size = min(_BLOCK, position - floor)
        position -= size
        handle.seek(position)
        pieces = (handle.read(size) + rest).split(b"\n")
        rest = pieces[0]  # maybe the end of a line that starts in the block before
        yield from reversed([p for p in pieces[1:] if p.strip()])
    if floor == 0 and rest.strip():
        yield rest


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        entry = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return entry if isinstance(entry, dict) else None


def _time(entry: dict[str, Any]) -> dt.datetime | None:
    try:
        return decay.as_aware(dt.datetime.fromisoformat(str(entry.get("time"))))
    except (ValueError, OverflowError):
        return None


def _agent_of(entry: dict[str, Any]) -> str | None:
    try:
        return actors.parse(str(entry.get("actor", ""))).agent
    except errors.InvalidIdError:
        return None
