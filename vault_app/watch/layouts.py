"""What one kind of folder gives the watcher: the folders to watch, the files that matter,
how to list them, what a batch of them means, and where its snapshot is kept.

`PARA` is a vault's (`events`, `snapshot`: `global/` and `agents/`, entities, daily
notes, agent documents; the snapshot under `.vault/cache/watch/`); a neighbour's folder
has its own (`foreign.layout`). The watcher (`watcher.VaultWatcher`) takes one and knows
no format itself.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vault_app.watch import events, snapshot


@dataclass(frozen=True)
class Layout:
    """The watcher's view of one kind of folder (see the module docstring)."""

    name: str
    watched: tuple[str, ...]  # folders below the root watched recursively
    classify: Callable[[str], object | None]  # a followed file's key, None for any other
    tracks_folder: Callable[[str], bool]  # a folder event there matters
    agent_ids: Callable[[Path], frozenset[str]]
    build_batch: Callable[..., events.ChangeBatch]  # as `events.build_batch`
    snapshot_path: Callable[[Path, str], Path]  # (root, snapshot name) -> file
    state_inside: bool  # the snapshot is kept inside the root (no symlink on the way)
    scan: Callable[[Path, str, snapshot.Listing], snapshot.Listing] | None = None

    def scan_tree(
        self, root: Path, folder: str, into: snapshot.Listing | None = None
    ) -> snapshot.Listing:
        """The followed files at and below the root-relative `folder` ("": all)."""
        listing = into if into is not None else snapshot.Listing()
        if self.scan is not None:
            return self.scan(root, folder, listing)
        return walk(self, root, folder, listing)


def walk(layout: Layout, root: Path, folder: str, listing: snapshot.Listing) -> snapshot.Listing:
    """A small folder's followed files: descend where `tracks_folder` says (from the
    watched folders when `folder` is the root), keep what `classify` knows. Hidden names
    and symlinked folders are skipped, as in a vault (`snapshot.scan_tree`)."""
    starts = [folder] if folder else list(layout.watched)
    stack = [s for s in starts if layout.tracks_folder(s)]
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel)) as entries:
                listing.folders += 1
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    child = f"{rel}/{entry.name}"
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if layout.tracks_folder(child):
                                stack.append(child)
                            continue
                        if layout.classify(child) is None:
                            continue
                        info = entry.stat()
                    except OSError:
                        continue
                    if stat.S_ISREG(info.st_mode):
                        listing.stats[child] = (info.st_mtime_ns, info.st_size)
        except OSError:  # gone, or not a folder (any more)
            continue
    return listing


PARA = Layout(
    name="para",
    watched=("global", "agents"),
    classify=events.classify,
    tracks_folder=events.tracks_folder,
    agent_ids=snapshot.agent_ids,
    build_batch=events.build_batch,
    snapshot_path=snapshot.Snapshot.location,
    state_inside=True,
    scan=snapshot.scan_tree,
)
