"""The watcher's picture of the vault: every tracked file's mtime, size and (when known) hash.

A `Snapshot` maps each tracked vault-relative file (see `events.tracks_file`) to its
`(mtime_ns, size)`, plus the sha256 of the files whose content the watcher has read. It
is what the watcher last *reported*: comparing it with the disk says what changed since.

* On open, the whole vault is listed (`scan_vault`: one `os.scandir` per folder and one
  stat per tracked file, no file read) and compared with the snapshot persisted under
  `.vault/cache/watch/<name>.json` by the last session. A file whose mtime or size
  differs is hashed only if its old hash is known, so that a touched but unchanged file
  is not reported; an unchanged vault costs a listing and one dict comparison.
* While watching, only the paths the events hint at are looked at (`Snapshot.reconcile`
  on a region), and every changed file is hashed: a file whose new hash is one the app
  itself just wrote (`OwnWrites`, fed by `core.storage.Storage` listeners) is taken in
  silently instead of being reported.

The snapshot is derived data (like everything under `.vault/`): deleting it only makes
the next open report "everything may have changed".
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import os
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import orjson

from vault_app.core import errors, layout, safe_fs
from vault_app.watch import events

FORMAT = 1
SNAPSHOT_FOLDER = ("cache", "watch")
_READ_FLAGS = os.O_RDONLY | safe_fs.NONBLOCK | safe_fs.CLOEXEC | safe_fs.BINARY
MAX_HASH_BYTES = 256 * 1024 * 1024  # a file over this is compared by mtime and size only
OWN_WRITE_TTL_S = 600.0  # an app write not seen on disk within this is forgotten
OWN_WRITES_PER_FILE = 8

Stat = tuple[int, int]  # (st_mtime_ns, st_size)


# -- listing ------------------------------------------------------------------------------


class Listing:
    """Tracked files below a folder, with their stats, and how many folders were listed."""

    def __init__(self) -> None:
        self.stats: dict[str, Stat] = {}
        self.folders = 0


def scan_tree(root: Path, folder: str, into: Listing | None = None) -> Listing:
    """Every tracked file at and below the vault-relative `folder` ("" for the whole vault).

    Iterative `os.scandir` walk; a folder's kind is worked out once (`events.child_place`)
    and its files are then kept by name alone. Hidden names and symlinked folders are
    skipped; a symlinked file counts as the file it points to.
    """
    listing = into if into is not None else Listing()
    place = events.place_of(folder)
    if place is None:
        return listing
    stats = listing.stats
    start = os.path.join(root, folder) if folder else os.fspath(root)
    stack: list[tuple[str, str, events.Place]] = [(start, f"{folder}/" if folder else "", place)]
    child_place, tracks_file = events.child_place, events.tracks_file
    while stack:
        path, prefix, place = stack.pop()
        try:
            with os.scandir(path) as entries:
                listing.folders += 1
                for entry in entries:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if is_dir:
                        child = child_place(place, name)
                        if child is not None:
                            stack.append((entry.path, f"{prefix}{name}/", child))
                    elif tracks_file(place, name):
                        try:
                            info = entry.stat()
                        except OSError:
                            continue
                        if stat.S_ISREG(info.st_mode):
                            stats[prefix + name] = (info.st_mtime_ns, info.st_size)
        except OSError:  # gone, or not a folder (any more)
            continue
    return listing


def scan_vault(root: Path) -> Listing:
    return scan_tree(root, "")


def stat_file(root: Path, path: str) -> Stat | None:
    """The stat of one tracked file, None if it is absent or not a regular file."""
    try:
        info = os.stat(os.path.join(root, path))
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_mtime_ns, info.st_size)


def read_state(root: Path, path: str) -> tuple[Stat, str | None] | None:
    """(stat, sha256) of a file from one open: the hash is of the bytes that stat describes.

    None if the file is gone or not a regular file; the hash is None if it cannot be read
    or is over `MAX_HASH_BYTES`.
    """
    try:  # O_NONBLOCK: a FIFO put in a file's place opens at once (fstat then refuses it)
        fd = os.open(os.path.join(root, path), _READ_FLAGS)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError:
        found = stat_file(root, path)
        return None if found is None else (found, None)
    with open(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return None
            found = (info.st_mtime_ns, info.st_size)
            if info.st_size > MAX_HASH_BYTES:
                return found, None
            return found, hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            return None


def agent_ids(root: Path) -> frozenset[str]:
    return frozenset(layout.VaultLayout(root).agent_ids())


# -- the app's own writes -----------------------------------------------------------------


class OwnWrites:
    """Hashes the app has written, per vault-relative path; thread-safe.

    `note` is called by a `Storage` listener just before the new bytes replace the file;
    `match` is asked when the watcher finds the file changed: if its hash is one noted
    (the last few are kept, for writes in quick succession), the change is the app's own.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._digests: dict[str, collections.deque[tuple[str, float]]] = {}

    def note(self, path: str, digest: str) -> None:
        with self._lock:
            recent = self._digests.setdefault(path, collections.deque(maxlen=OWN_WRITES_PER_FILE))
            recent.append((digest, self._clock()))

    def __contains__(self, path: object) -> bool:
        with self._lock:
            return path in self._digests

    def __len__(self) -> int:
        with self._lock:
            return len(self._digests)

    def match(self, path: str, digest: str | None) -> bool:
        """True if `digest` is one the app wrote to `path`; it and older ones are dropped."""
        if digest is None:
            return False
        with self._lock:
            recent = self._digests.get(path)
            if not recent:
                return False
            for index, (noted, _) in enumerate(recent):
                if noted == digest:
                    for _ in range(index + 1):
                        recent.popleft()
                    if not recent:
                        del self._digests[path]
                    return True
            return False

    def expire(self) -> None:
        """Forget writes never seen on disk (a failed replace, a lost event) after a while."""
        limit = self._clock() - OWN_WRITE_TTL_S
        with self._lock:
            for path in [p for p, q in self._digests.items() if q[-1][1] < limit]:
                del self._digests[path]


# -- the snapshot -------------------------------------------------------------------------


class Snapshot:
    """Tracked files → stats (and known hashes), and the agent ids; not thread-safe."""

    def __init__(
        self,
        stats: dict[str, Stat] | None = None,
        digests: dict[str, str] | None = None,
        agents: Iterable[str] = (),
    ) -> None:
        self.stats: dict[str, Stat] = stats if stats is not None else {}
        self.digests: dict[str, str] = digests if digests is not None else {}
        self._agents: frozenset[str] = frozenset(agents)
        self.dirty = True  # differs from what was saved (or loaded)

    @property
    def agents(self) -> frozenset[str]:
        return self._agents

    @agents.setter
    def agents(self, agents: Iterable[str]) -> None:
        agents = frozenset(agents)
        if agents != self._agents:
            self._agents = agents
            self.dirty = True

    def __len__(self) -> int:
        return len(self.stats)

    def __contains__(self, path: object) -> bool:
        return path in self.stats

    # -- comparing with the disk ----------------------------------------------------------

    def region(self, files: Iterable[str], folders: Iterable[str]) -> set[str]:
        """The tracked paths among `files` or below `folders`."""
        found = {f for f in files if f in self.stats}
        prefixes = tuple(f"{folder}/" for folder in folders)
        if prefixes:
            found.update(p for p in self.stats if p.startswith(prefixes))
        return found

    def refresh(
        self,
        root: Path,
        files: Iterable[str],
        folders: Iterable[str],
        *,
        own: OwnWrites | None = None,
        gone: dict[str, Stat] | None = None,
        scan: Callable[[Path, str, Listing], Listing] | None = None,
    ) -> dict[str, str]:
        """Compare the hinted `files` and `folders` (subtrees) with the disk; take in and
        return the changes. Every changed file is hashed (see `reconcile`). `scan` lists
        a subtree's tracked files (a PARA vault's `scan_tree` by default)."""
        files, folders = set(files), set(folders)
        listing = Listing()
        for folder in folders:
            (scan or scan_tree)(root, folder, listing)
        fresh = listing.stats
        for path in files:
            found = stat_file(root, path)
            if found is not None:
                fresh[path] = found
        region = self.region(files, folders)
        return self.reconcile(root, fresh, region, own=own, hash_all=True, gone=gone)

    def reconcile(
        self,
        root: Path,
        fresh: Mapping[str, Stat],
        region: Iterable[str] | None,
        *,
        own: OwnWrites | None = None,
        hash_all: bool = False,
        gone: dict[str, Stat] | None = None,
    ) -> dict[str, str]:
        """Bring the snapshot up to `fresh`; return the changes {path: added|modified|removed}.

        `fresh` is what the disk holds now for the paths of `region` (None: the whole
        vault). A file whose stat differs is hashed when `hash_all`, when its old hash is
        known or when the app wrote it; then an unchanged hash (a touch) or one the app
        wrote (`own`) is taken in without being reported. The last stats of the removed
        files are put in `gone`, if given (`events.MoveMatcher` recognises moves by them).
        """
        if region is None:
            if fresh == self.stats:
                return {}
            removed = self.stats.keys() - fresh.keys()
            candidates = dict(fresh.items() - self.stats.items())
        else:
            removed = set(region) - fresh.keys()
            candidates = {p: s for p, s in fresh.items() if self.stats.get(p) != s}
        changes: dict[str, str] = {}
        if removed or candidates:
            self.dirty = True
        for path in removed:
            last = self.stats.pop(path)
            if gone is not None:
                gone[path] = last
            self.digests.pop(path, None)
            changes[path] = "removed"
        for path, found in candidates.items():
            before = self.stats.get(path)
            change = self._settle(root, path, found, own, hash_all)
            if change is not None:
                changes[path] = change
                if change == "removed" and gone is not None and before is not None:
                    gone[path] = before
        return changes

    def _settle(
        self, root: Path, path: str, found: Stat, own: OwnWrites | None, hash_all: bool
    ) -> str | None:
        """Take in one file whose stat differs; the change to report, if any."""
        before = self.stats.get(path)
        kind = "added" if before is None else "modified"
        known = self.digests.get(path)
        if not (hash_all or known is not None or (own is not None and path in own)):
            self.stats[path] = found
            self.digests.pop(path, None)
            return kind
        state = read_state(root, path)
        if state is None:  # gone since it was listed
            if before is None:
                return None
            del self.stats[path]
            self.digests.pop(path, None)
            return "removed"
        self.stats[path], digest = state
        if digest is None:
            self.digests.pop(path, None)
            return kind
        self.digests[path] = digest
        if digest == known:
            return None
        if own is not None and own.match(path, digest):
            return None
        return kind

    # -- persistence ----------------------------------------------------------------------

    @staticmethod
    def location(root: Path, name: str) -> Path:
        return root.joinpath(layout.STATE_DIR, *SNAPSHOT_FOLDER, f"{name}.json")

    @classmethod
    def load(cls, path: Path, root: Path | None = None) -> Snapshot | None:
        """The snapshot saved at `path`; None if there is none or it cannot be used (a
        FIFO, a folder, a symlink there, or below `root` on the way to it)."""
        try:
            if root is not None:
                safe_fs.check_tree(root, path, safe_fs.STATE_READ)
            raw = safe_fs.read_file(path)
            if raw is None:
                return None
            data = orjson.loads(raw)
        except (OSError, orjson.JSONDecodeError, errors.VaultError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            stats: dict[str, Stat] = {}
            digests: dict[str, str] = {}
            for name, mtime, size, digest in data["files"]:
                stats[name] = (mtime, size)
                if digest is not None:
                    digests[name] = digest
            snap = cls(stats, digests, data["agents"])
        except (KeyError, TypeError, ValueError):
            return None
        snap.dirty = False
        return snap

    def save(self, path: Path, root: Path | None = None) -> None:
        """Write the snapshot atomically (a new temp file, then `os.replace`); with `root`
        (the vault), no folder from it down may be a symlink (`errors.SymlinkError`)."""
        digests = self.digests
        rows = [(name, m, s, digests.get(name)) for name, (m, s) in self.stats.items()]
        data = orjson.dumps({"format": FORMAT, "agents": sorted(self.agents), "files": rows})
        if root is None:
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            safe_fs.make_dirs(root, path.parent)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            safe_fs.write_new(temp, data)
            os.replace(temp, path)
            self.dirty = False
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
