"""Safe writes: locks, optimistic checks, atomic replace, the backup ring and the audit log.

Every change to a vault file is one `Transaction`:

1. take the file's cross-process lock (filelock, `.vault/locks/<hash>.lock`), so agents,
   the CLI and the GUI never interleave a read-modify-write;
2. read the current bytes (size-limited) and their sha256; a writer that states the hash
   it read earlier gets `ConflictError` if the disk has changed since;
3. write the new bytes to a temp file in the same folder, flush, fsync, then hard-link the
   current version into `.vault/backups/` (free: it is the inode `os.replace` unlinks),
   `os.replace` the temp file over the target and fsync the folder;
4. prune that file's backups to the ring size and append one line to `.vault/audit.jsonl`.

Listeners (`Storage.add_listener`) hear `(path, sha256)` of every write just before the
new bytes replace the file, so that a watcher knows the hash before it can see the file
and can tell the app's own writes from other writers' by content, not by timing.

A crash at any point leaves either the old or the new file in place, never a mix; a
leftover temp file is reported (and quarantined, never deleted) by `doctor`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import filelock
import orjson

from vault_app.core import config, decay, errors, layout

TEMP_SUFFIX = ".vault-tmp"
_NOFOLLOW: int | None = getattr(os, "O_NOFOLLOW", None)  # not on Windows
_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
AUDIT_NAME = "audit.jsonl"

WriteListener = Callable[[Path, str], None]
log = logging.getLogger(__name__)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """Give an OSError raised without a file name the name of `path`: a write to a full
    disk fails in `write` or `fsync`, which know only a descriptor."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror or str(exc), os.fspath(path)) from exc


def fsync_dir(folder: Path) -> None:
    if os.name != "posix":  # Windows cannot open a directory for fsync
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Storage:
    """File access for one vault: every read is bounded, every write is a transaction."""

    def __init__(
        self,
        paths: layout.VaultLayout,
        settings: config.StorageSettings,
        clock: decay.Clock,
        actor: str,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.clock = clock
        self.actor = actor
        self._listeners: tuple[WriteListener, ...] = ()

    # -- listeners --------------------------------------------------------------------

    def add_listener(self, listener: WriteListener) -> None:
        """Call `listener(path, sha256)` for every write, just before the file is replaced.

        It runs on the writing thread, inside the file's lock: keep it short. If the
        replace then fails, the call was in vain (the old content stays). An exception
        from a listener is logged, never raised into the write.
        """
        self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: WriteListener) -> None:
        listeners = list(self._listeners)
        with contextlib.suppress(ValueError):
            listeners.remove(listener)
        self._listeners = tuple(listeners)

    def _announce(self, path: Path, digest: str) -> None:
        for listener in self._listeners:
            try:
                listener(path, digest)
            except Exception:
                log.exception("a write listener failed for %s", path)

    # -- reading ----------------------------------------------------------------------

    def read(self, path: Path) -> bytes | None:
        """The file's bytes, None if it does not exist; refuses files over the size limit."""
        data = self._read_regular_file(path)
        if data is not None:
            return data
        if os.path.islink(path):
            self.ensure_inside(path)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None
        if size > self.settings.max_file_bytes:
            raise errors.CorruptFileError(
                path,
                f"file is {size / 1048576:.1f} MB, over the {self.settings.max_file_mb:g} MB "
                "limit (storage.max_file_mb in .vault/config.toml); it is left as it is",
            )
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise errors.CorruptFileError(path, "expected a file, found a folder") from None
        except OSError as exc:
            raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None

    def _read_regular_file(self, path: Path) -> bytes | None:
        """`read`'s common case in 4 system calls: a regular file, not a symlink, in size.

        One open that refuses a symlink (O_NOFOLLOW) and an fstat replace lstat, stat and
        a buffered open (a vault scan reads 10,000 files). Anything else, or any error,
        returns None and `read` takes its general path, which decides and reports.
        """
        if _NOFOLLOW is None:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            size = info.st_size
            if not stat.S_ISREG(info.st_mode) or size > self.settings.max_file_bytes:
                return None
            data = os.read(fd, size + 1)  # fewer bytes than asked: the end of the file
            if len(data) > size:  # it grew since fstat: take the long way
                return None
        except OSError as exc:
            raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None
        finally:
            os.close(fd)
        return data

    def read_text(self, path: Path) -> tuple[str, str] | None:
        """(text, sha256) of a UTF-8 file, or None if absent."""
        data = self.read(path)
        if data is None:
            return None
        return decode_text(path, data), sha256(data)

    def ensure_inside(self, path: Path) -> None:
        """Refuse a path that leads outside the vault through a symlink (file or folder)."""
        try:
            self.paths.ensure_inside(path)
        except errors.InvalidIdError:
            raise errors.CorruptFileError(
                path, f"symlink leads outside the vault (to {path.resolve()}); it is not followed"
            ) from None

    # -- locking ----------------------------------------------------------------------

    def lock(self, path: Path) -> filelock.BaseFileLock:
        rel = self.paths.relative(path)
        # surrogatepass: a folder name that is not UTF-8 (kept as surrogate escapes) too
        name = hashlib.sha1(rel.encode("utf-8", "surrogatepass")).hexdigest()[:24] + ".lock"
        folder = self.paths.state_dir / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        return filelock.FileLock(folder / name, timeout=self.settings.lock_timeout_s)

    @contextlib.contextmanager
    def transaction(self, path: Path) -> Iterator[Transaction]:
        """Hold `path`'s lock while its current content is read and (maybe) replaced.

        When no lock can be made (a read-only vault), the content is still read, and a
        commit that would change the file raises the reason: reading never needs writing.
        """
        self.ensure_inside(path)  # never read, replace or back up a file out there
        try:
            lock = self.lock(path)
            lock.acquire()
        except filelock.Timeout:
            raise errors.LockTimeoutError(
                f"{path}: another writer held the lock for over {self.settings.lock_timeout_s:g} s"
            ) from None
        except OSError as exc:
            with naming(path):
                yield Transaction(self, path, self.read(path), refused=exc)
            return
        try:
            with naming(path):
                yield Transaction(self, path, self.read(path))
        finally:
            lock.release()

    def write(
        self,
        path: Path,
        data: bytes,
        *,
        expected: str | None,
        action: str,
        check: bool = True,
        **audit: Any,
    ) -> str:
        """Replace `path` with `data` if its hash is still `expected` (None: absent)."""
        with self.transaction(path) as tx:
            if check:
                tx.check(expected)
            return tx.commit(data, action, **audit)

    # -- backups ----------------------------------------------------------------------

    def backup_dir(self, path: Path) -> Path:
        return self.paths.state_dir / "backups" / self.paths.relative(path)

    def backups(self, path: Path) -> list[Path]:
        """Kept versions of `path`, newest first (`<ns since epoch>-<sha256 prefix>`)."""
        folder = self.backup_dir(path)
        if not folder.is_dir():
            return []
        return sorted(
            (p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
            reverse=True,
        )

    def _keep_written(self, path: Path, data: bytes, digest: str) -> None:
        folder = self.backup_dir(path)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{digest[:12]}"
        # Written in .vault/tmp/ and renamed into the ring, so that a kill mid-write leaves
        # no half version in the ring (only a stray partial file there, swept later).
        scratch = self.paths.state_dir / "tmp"
        scratch.mkdir(exist_ok=True)
        temp = scratch / f"{name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
        try:
            with open(temp, "xb") as handle:
                handle.write(data)
            os.replace(temp, folder / name)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        self._trim(path)
        self._sweep(scratch)

    @staticmethod
    def _sweep(scratch: Path, older_than_s: float = 600.0) -> None:
        """Remove partial files left in `scratch` by writers killed long ago."""
        limit = time.time() - older_than_s
        for stray in scratch.iterdir():
            with contextlib.suppress(OSError):
                if stray.stat().st_mtime < limit:
                    stray.unlink()

    def newest_intact_backup(self, path: Path) -> Path | None:
        """The newest kept version of `path` whose content still matches its name's hash."""
        for candidate in self.backups(path):
            if sha256(candidate.read_bytes()).startswith(candidate.name.rsplit("-", 1)[-1]):
                return candidate
        return None

    def _keep_backup(self, path: Path, before: str) -> None:
        """Hard-link the current version of `path` (sha256 `before`) into its ring, unless
        the ring holds that version already (it does when this app wrote it)."""
        folder = self.backup_dir(path)
        folder.mkdir(parents=True, exist_ok=True)
        newest = self.backups(path)[:1]
        if newest and newest[0].name.endswith(f"-{before[:12]}"):
            return
        # Named by the wall clock in nanoseconds (not the injectable clock, which tests
        # freeze), so that name order is age order; the hash says which version it is.
        target = folder / f"{time.time_ns():020d}-{before[:12]}"
        try:
            os.link(path, target)  # safe: the write that follows replaces, never edits, it
        except OSError:
            shutil.copy2(path, target)
        self._trim(path)

    def _trim(self, path: Path) -> None:
        for old in self.backups(path)[self.settings.backups_per_file :]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    # -- audit ------------------------------------------------------------------------

    def audit(self, action: str, target: Path, **fields: Any) -> None:
        line: dict[str, Any] = {
            "time": self.clock().isoformat(timespec="milliseconds"),
            "actor": self.actor,
            "action": action,
            "target": self.paths.relative(target),
        }
        line.update({k: v for k, v in fields.items() if v is not None})
        try:
            data = orjson.dumps(line) + b"\n"
        except orjson.JSONEncodeError:  # a name that is not UTF-8: escaped, still one line
            data = json.dumps(line, separators=(",", ":")).encode("ascii") + b"\n"
        audit_path = self.paths.state_dir / AUDIT_NAME
        self.paths.state_dir.mkdir(parents=True, exist_ok=True)
        # O_APPEND keeps concurrent lines whole; the lock keeps them from interleaving
        # on filesystems where large appends are not atomic.
        with self.lock(audit_path), naming(audit_path):
            fd = os.open(audit_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)

    # -- the atomic replace -------------------------------------------------------------

    def replace_atomically(
        self, path: Path, data: bytes, before: str | None, digest: str | None = None
    ) -> None:
        """Replace `path` with `data` (whose sha256 is `digest`, computed if not given)."""
        folder = path.parent
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            with open(temp, "xb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if before is not None:
                self._keep_backup(path, before)
            if self._listeners:
                self._announce(path, digest if digest is not None else sha256(data))
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise
        fsync_dir(folder)
        # The version just written joins the ring too, so a file deleted or mangled outside
        # the app can be restored as it last was, not only as it was one write before. A
        # copy, not a link: another program may rewrite the file in place.
        with contextlib.suppress(OSError):
            self._keep_written(path, data, digest if digest is not None else sha256(data))


class Transaction:
    """The state of one locked file: what it holds now, and a way to replace it."""

    def __init__(
        self, storage: Storage, path: Path, data: bytes | None, refused: OSError | None = None
    ) -> None:
        self.storage = storage
        self.path = path
        self.refused = refused  # why the file cannot be locked, hence not written
        self.data = data
        self.digest = None if data is None else sha256(data)
        self.committed: str | None = None

    def check(self, expected: str | None) -> None:
        """Refuse to go on unless the disk still holds what the writer read."""
        if expected != self.digest:
            raise errors.ConflictError(self.path, expected, self.digest)

    def commit(self, data: bytes, action: str, **audit: Any) -> str:
        """Atomically replace the file with `data`; returns the new hash."""
        if self.committed is not None:
            raise RuntimeError("a transaction commits once")
        after = sha256(data)
        if after == self.digest:
            self.committed = after
            return after
        if self.refused is not None:
            raise self.refused
        self.storage.replace_atomically(self.path, data, self.digest, after)
        self.storage.audit(action, self.path, before=self.digest, after=after, **audit)
        self.committed = after
        return after


def decode_text(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise errors.CorruptFileError(
            path, f"invalid UTF-8 ({exc.reason})", f"byte {exc.start}"
        ) from None
