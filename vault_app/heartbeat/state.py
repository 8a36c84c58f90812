"""The heartbeat's state files in `.vault/heartbeat/`: read precisely, written atomically.

Each state file (cursor.json, schedule.json, lease.json; the dedup helper's
mentions.json) is one JSON object. `read` gives it back, None when the file is absent,
and a `CorruptFileError` naming the file and what is wrong with it otherwise (bad
UTF-8, bad JSON, not an object, over the size limit, a symlink): the caller reports it
and never overwrites the file while it stays corrupt. `write` goes through the vault's
`Storage` (lock, atomic replace, backup, audit line) and writes nothing - no audit line
either - when the bytes are unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from vault_app.core import errors, layout, safe_fs, storage

STATE_SUBDIR = "heartbeat"
MAX_STATE_BYTES = 64 << 20  # a cursor over years of notes stays far below this


def state_dir(root: Path) -> Path:
    return Path(root) / layout.STATE_DIR / STATE_SUBDIR


def path(root: Path, name: str) -> Path:
    return state_dir(root) / name


def read(root: Path, name: str) -> dict[str, Any] | None:
    """The JSON object in `.vault/heartbeat/<name>`, None if there is none."""
    target = path(root, name)
    safe_fs.check_tree(Path(root), target, safe_fs.STATE_READ)
    data = safe_fs.read_file(target, MAX_STATE_BYTES)
    if data is None:
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise errors.CorruptFileError(target, f"invalid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise errors.CorruptFileError(target, f"expected a JSON object, found {_kind(value)}")
    return value


def write(store: storage.Storage, name: str, data: dict[str, Any], action: str) -> None:
    """Replace `.vault/heartbeat/<name>` with `data` atomically (unchanged: no write)."""
    target = path(store.paths.root, name)
    safe_fs.make_dirs(store.paths.root, target.parent)
    encoded = orjson.dumps(data, option=orjson.OPT_SORT_KEYS) + b"\n"
    with store.transaction(target) as tx:
        tx.commit(encoded, action)


def _kind(value: object) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def corrupt(
    root: Path, name: str, reason: str, location: str | None = None
) -> errors.CorruptFileError:
    """The error for a state file whose content is not what it should be."""
    return errors.CorruptFileError(path(root, name), reason, location)
