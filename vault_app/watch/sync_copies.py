"""Syncthing's conflict copies, as the watcher meets them: told apart, merged, reported.

`SyncCopies(root, layout)` is the watcher's part in syncing (issue 31). `is_copy(path)`:
a vault-relative path is a Syncthing conflict copy (`core.sync_files`) of a file the
layout follows (`items.sync-conflict-….json` beside an entity's `items.json`, never one
under `.vault/` or in a neighbour's folder). `arrived(path)` notes one; the watcher waits
until the disk is quiet (a copy written in place is whole then; one renamed into place,
as Syncthing does, is whole at once) and `take()`s them. `merge(paths)` merges copies
into their files through a vault of its own, opened as the actor "sync", so that the
merged file is seen and reported by the watcher like any other change (the app's own
writes are not), and returns the copies left for a person. `waiting()` lists the copies
already there (arrived while nothing watched).
"""

from __future__ import annotations

import logging
from pathlib import Path

from vault_app.core import errors, sync_files
from vault_app.core import vault as vault_module
from vault_app.watch import layouts

log = logging.getLogger(__name__)


class SyncCopies:
    """Conflict copies in the vault at `root` (see the module doc)."""

    def __init__(self, root: Path, layout: layouts.Layout) -> None:
        self.root = root
        self.layout = layout
        self._merger: vault_module.Vault | None = None  # writes merges as "sync"
        self._arrived: set[str] = set()  # copies seen, not merged yet (watcher's lock held)

    @property
    def active(self) -> bool:
        return self.layout is layouts.PARA  # a neighbour's folder has no merge rules here

    def is_copy(self, path: str) -> bool:
        if not self.active:
            return False
        folder, _, name = path.rpartition("/")
        original = sync_files.original_of(Path(name))
        if original is None:
            return False
        named = f"{folder}/{original.name}" if folder else original.name
        return self.layout.classify(named) is not None

    def arrived(self, path: str) -> str:
        """Note a copy that arrived; the vault-relative file it belongs to."""
        self._arrived.add(path)
        return str(sync_files.original_of(Path(path)))

    def take(self) -> list[str]:
        """The copies that arrived since the last take, in path order."""
        taken, self._arrived = sorted(self._arrived), set()
        return taken

    def waiting(self) -> list[str]:
        if not self.active:
            return []
        found = [p.relative_to(self.root).as_posix() for p in sync_files.conflicts(self.root)]
        return [p for p in found if self.is_copy(p)]

    def merge(self, copies: list[str]) -> tuple[str, ...]:
        """Merge each copy into its file; the copies left for a person."""
        if self._merger is None:
            self._merger = vault_module.Vault(self.root, actor="sync")
        unmerged = []
        for relative in copies:
            path = self.root / relative
            if not path.exists():
                continue  # merged already (another watcher, `sync merge`)
            try:
                merged = sync_files.merge_conflict(self._merger, path)
            except (errors.VaultError, OSError) as exc:  # a side unreadable, a lock held...
                log.warning("could not merge %s: %s", relative, exc)
                unmerged.append(relative)
                continue
            if merged.merged:
                log.info("%s", merged.describe(self.root))
            elif path.exists():
                unmerged.append(relative)
        return tuple(unmerged)
