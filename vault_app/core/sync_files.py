"""Syncthing's conflict files in a vault: found, merged into the file they belong to, put away.

When a file changed on two devices before they met, Syncthing keeps one version under the
file's name and the other beside it as `<stem>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device
id's first 7 characters><ext>` (`items.sync-conflict-20261129-173000-ABCDEF1.json`).
vault-app reads neither as a vault file, so until it is merged the other device's change
is missing from every view.

`conflicts(root)` lists them (the whole vault but `.vault/`; `original_of` names the file
each belongs to). `merge_conflict(vault, path)` merges one into its file with the rules of
`sync_merge` — under the file's lock, the file read in the same transaction that writes
the result (so a writer on this device is never overwritten), an atomic replace, the
version it replaces kept in the backup ring, and one audit line `sync.merge` saying what
was merged and from which conflict file. The candidate ancestors of a document are the
versions the backup ring keeps (newest first) from before the other side's change. A fact
file is merged without one: which kept version both devices last shared is not known, and
the union without an ancestor loses nothing (accesses summed per device, the ids
`sync_setup` gave them; both versions of a text changed on both sides). The side times are
the two files' modification times (Syncthing keeps the other device's). Once merged the
conflict file is moved under `.vault/sync/merged/<time>/` at its own relative path — never
deleted. A document whose merge would need a person (`Outcome.clean` False) is left where
it is, reported as unmerged: the window and `doctor` show it, and the person merges it.

Syncthing's own temporary files (`.syncthing.<name>.tmp`, `~syncthing~<name>.tmp`) are
never vault files either (`is_temporary`): the watcher ignores them and reacts to the
final rename.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vault_app.core import backups, errors, layout, storage, sync_merge

if TYPE_CHECKING:
    from vault_app.core.vault import Vault

CONFLICT = re.compile(
    r"^(?P<stem>.+?)\.sync-conflict-(?P<day>\d{8})-(?P<time>\d{6})-(?P<device>[A-Z0-9]{7})"
    r"(?P<ext>\.[^.]*)?$"
)
TEMPORARY = re.compile(r"^(\.syncthing\..+\.tmp|~syncthing~.+\.tmp)$")
MERGED_DIR = "sync/merged"  # under .vault/
BASES = 12  # kept versions tried as a document's ancestor


def is_conflict(name: str) -> bool:
    return CONFLICT.match(name) is not None


def is_temporary(name: str) -> bool:
    """Syncthing's file being received (renamed to its real name once whole)."""
    return TEMPORARY.match(name) is not None


def original_of(path: Path) -> Path | None:
    """The file a conflict copy belongs to (`items.sync-conflict-…json` → `items.json`)."""
    found = CONFLICT.match(path.name)
    if found is None:
        return None
    return path.with_name(found["stem"] + (found["ext"] or ""))


def conflicts(root: Path) -> list[Path]:
    """Every conflict file of the vault at `root` (not under `.vault/`), in path order."""
    found: list[Path] = []
    state = layout.STATE_DIR
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root:
            dirs[:] = [d for d in dirs if d != state]
        dirs.sort()
        found += [Path(folder) / name for name in sorted(files) if is_conflict(name)]
    return found


@dataclass
class Merged:
    """What became of one conflict file."""

    conflict: Path  # where it was
    original: Path
    merged: bool  # False: left for a person (see `reason`)
    kind: str = "document"
    said: list[str] = field(default_factory=list)
    kept_at: Path | None = None  # where the conflict file went once merged
    reason: str = ""

    def describe(self, root: Path) -> str:
        name = self.original.relative_to(root).as_posix()
        if self.merged:
            done = "; ".join(self.said) if self.said else "nothing new"
            return f"merged {self.conflict.name} into {name}: {done}"
        return f"left {self.conflict.name} beside {name}: {self.reason}"


def merge_conflict(vault: Vault, conflict: Path) -> Merged:
    """Merge one conflict file into its original (see the module doc)."""
    original = original_of(conflict)
    if original is None:
        raise errors.InvalidIdError(f"{conflict.name} is not a Syncthing conflict file")
    store = vault.storage
    theirs = store.read(conflict)
    if theirs is None:  # merged meanwhile (another process, the other device)
        return Merged(conflict, original, False, reason="it is gone")
    theirs_time = _mtime(conflict)
    bases = _bases(store, original, theirs_time)
    with store.transaction(original) as tx:
        ours = tx.data
        if ours is None:  # the file itself is gone: the other side's version is all there is
            outcome = sync_merge.Outcome(theirs, kind=sync_merge.kind_of(original))
            outcome.said.append("the file was missing here: the other side's version taken")
        else:
            kind = sync_merge.kind_of(original)
            outcome = sync_merge.merge_file(
                original,
                ours,
                theirs,
                bases if kind != "facts" else (),  # no sure ancestor: the lossless union
                ours_time=_mtime(original),
                theirs_time=theirs_time,
            )
        if not outcome.clean:
            return Merged(
                conflict,
                original,
                False,
                outcome.kind,
                outcome.said,
                reason="both sides changed the same lines: a person must choose",
            )
        tx.commit(
            outcome.data,
            "sync.merge",
            mergedFrom=vault.paths.relative(conflict),
            merged=outcome.describe(),
        )
    try:
        kept: Path | None = put_away(vault, conflict)
    except FileNotFoundError:  # another process merged the same copy and put it away
        kept = None
    return Merged(conflict, original, True, outcome.kind, outcome.said, kept)


def resolve(vault: Vault, conflict: Path, text: str, *, expected: str | None) -> Path:
    """A person's merge of a conflict copy: `text` written to the copy's file, if that
    file still holds what the person merged against (`expected`, its hash), audited
    `sync.resolve`; the copy put away. Returns where the copy went."""
    original = original_of(conflict)
    if original is None:
        raise errors.InvalidIdError(f"{conflict.name} is not a Syncthing conflict file")
    with vault.storage.transaction(original) as tx:
        tx.check(expected)
        tx.commit(text.encode("utf-8"), "sync.resolve", mergedFrom=vault.paths.relative(conflict))
    return put_away(vault, conflict)


def plan(vault: Vault, conflict: Path) -> tuple[str, str | None, str, str]:
    """What a person merges: (the ancestor, the file's hash, the file's text, the copy's
    text); the ancestor chosen as `merge_conflict` chooses it."""
    original = original_of(conflict)
    if original is None:
        raise errors.InvalidIdError(f"{conflict.name} is not a Syncthing conflict file")
    store = vault.storage
    ours_data, theirs_data = store.read(original), store.read(conflict)
    if theirs_data is None:
        raise errors.NotFoundError(f"{vault.paths.relative(conflict)} is gone: merged already")
    ours = "" if ours_data is None else storage.decode_text(original, ours_data)
    theirs = storage.decode_text(conflict, theirs_data)
    bases = []
    for data in _bases(store, original, _mtime(conflict)):
        try:
            bases.append(storage.decode_text(original, data))
        except errors.CorruptFileError:
            continue
    digest = None if ours_data is None else storage.sha256(ours_data)
    return sync_merge.best_base(ours, theirs, bases), digest, ours, theirs


def merge_all(vault: Vault) -> list[Merged]:
    """Merge every conflict file of the vault; what became of each."""
    results = []
    for conflict in conflicts(vault.root):
        try:
            results.append(merge_conflict(vault, conflict))
        except errors.VaultError as exc:  # a corrupt side, a lock held too long: said
            original = original_of(conflict) or conflict
            results.append(Merged(conflict, original, False, reason=str(exc)))
    return results


def put_away(vault: Vault, conflict: Path) -> Path:
    """Move a merged conflict file to `.vault/sync/merged/<time>/<its path>`."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = vault.paths.state_dir / MERGED_DIR / stamp / vault.paths.relative(conflict)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(conflict, target)
    return target


def _bases(store: storage.Storage, original: Path, before: dt.datetime | None) -> list[bytes]:
    """The versions the backup ring keeps of `original`, newest first (a few), kept no
    later than `before` (the other side's change: their ancestor is older than it)."""
    found: list[bytes] = []
    for kept in store.backups(original):
        if len(found) >= BASES:
            break
        when = backups.kept_time(kept)
        if before is not None and when > before:
            continue
        try:
            found.append(store.read_backup(kept))
        except (errors.VaultError, OSError):
            continue
    return found


def _mtime(path: Path) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
    except OSError:
        return None
