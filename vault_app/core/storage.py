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

Nothing is written through a symlink: before a transaction starts, the target and every
path the write touches under `.vault/` (its backup ring, `tmp/`, `locks/`, `audit.jsonl`)
are checked from the vault root down (`safe_fs`), and a symlink anywhere on the way
refuses the write (`errors.SymlinkError`) before anything changed. Reads follow a symlink
only to a file inside the vault, and read only regular files (`errors.NotRegularFileError`
for a FIFO, a socket, a device or a folder, decided on the open descriptor).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import json
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import filelock
import orjson

from vault_app.core import access, config, decay, errors, layout, safe_fs

TEMP_SUFFIX = ".vault-tmp"
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
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | safe_fs.NOFOLLOW)
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
        # the access policy's door (`access.Guard`), asked with (path, "read" or the
        # audit action) before each read and each commit; None: a person, who may all
        self.guard: access.Guard | None = None

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

    def entities(
        self,
        skipped: list[tuple[Path, str]] | None = None,
        *,
        pool: concurrent.futures.Executor | None = None,
    ) -> Iterator[layout.EntityFolder]:
        """Every entity folder this storage's actor may read (`layout.iter_all_entities`
        over the scopes its guard reads: all of them for a person)."""
        reads = None if self.guard is None else self.guard.reads_scope
        return self.paths.iter_all_entities(skipped, pool=pool, reads=reads)

    def writes_scope(self, agent: str | None) -> bool:
        """Whether this storage's actor writes the memory of scope `agent` (None: global)
        without a person's approval: every scope for a person."""
        return self.guard is None or self.guard.writes_scope(agent)

    # -- reading ----------------------------------------------------------------------

    def read(self, path: Path) -> bytes | None:
        """The file's bytes, None if it does not exist; refuses files over the size limit,
        anything but a regular file, and symlinks leading out of the vault."""
        opened = self.open_checked(path)
        if opened is None:
            return None
        fd, size = opened
        try:
            return safe_fs.read_all(fd, size)
        except OSError as exc:
            raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None
        finally:
            os.close(fd)

    def open_checked(self, path: Path) -> tuple[int, int] | None:
        """(descriptor open for reading, size) of the file `read` would read, None if absent.

        The common case is one open (O_NOFOLLOW, O_NONBLOCK: a FIFO does not block it) and
        one fstat, which also says whether it is a regular file. A symlink is followed only
        to a file inside the vault (checked, then opened the same way at its target).
        A vault opened by an agent asks its guard first (`access.Guard`).
        """
        if self.guard is not None:
            self.guard(path, "read")
        try:
            fd, info = safe_fs.open_read(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if not safe_fs.is_symlink(path):
                raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None
            self.ensure_inside(path)
            try:
                fd, info = safe_fs.open_read(path.resolve())
            except (FileNotFoundError, NotADirectoryError):
                return None
            except errors.NotRegularFileError as inner:
                raise errors.NotRegularFileError(
                    path, f"is a symlink to {path.resolve()}, which {inner.reason}"
                ) from None
            except OSError as inner:
                raise errors.CorruptFileError(path, f"cannot read: {inner.strerror}") from None
        if info.st_size > self.settings.max_file_bytes:
            os.close(fd)
            raise errors.CorruptFileError(
                path,
                f"file is {info.st_size / 1048576:.1f} MB, over the "
                f"{self.settings.max_file_mb:g} MB limit (storage.max_file_mb in "
                ".vault/config.toml); it is left as it is",
            )
        return fd, info.st_size

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
        """`path`'s cross-process lock (not taken yet): a file in `.vault/locks/`, which,
        like the folders up to it, must be no symlink (`errors.SymlinkError`)."""
        rel = self.paths.relative(path)
        # surrogatepass: a folder name that is not UTF-8 (kept as surrogate escapes) too
        name = hashlib.sha1(rel.encode("utf-8", "surrogatepass")).hexdigest()[:24] + ".lock"
        folder = self.paths.state_dir / "locks"
        safe_fs.make_dirs(self.paths.root, folder)
        lock_path = folder / name
        with contextlib.suppress(FileNotFoundError):
            mode = os.lstat(lock_path).st_mode
            if stat.S_ISLNK(mode):
                raise safe_fs.symlink_error(lock_path)
            if not stat.S_ISREG(mode):
                raise safe_fs.not_regular(lock_path, mode)
        return filelock.FileLock(lock_path, timeout=self.settings.lock_timeout_s)

    def check_writable(self, path: Path) -> None:
        """Refuse (`errors.SymlinkError`) a write to `path` if it, or anything the write
        touches (its backup ring, `.vault/tmp`, the audit log), is or lies behind a
        symlink: checked before the write starts, so that a refusal changes nothing."""
        safe_fs.check_tree(self.paths.root, path)
        safe_fs.check_tree(self.paths.root, self.backup_dir(path))
        self.check_state()

    def check_state(self) -> None:
        """Refuse (`errors.SymlinkError`) if a path every write uses (`.vault/tmp`,
        `.vault/locks`, the audit log) is or lies behind a symlink."""
        state = self.paths.state_dir
        for path in (state / "tmp", state / "locks", state / AUDIT_NAME):
            safe_fs.check_tree(self.paths.root, path)

    @contextlib.contextmanager
    def transaction(self, path: Path) -> Iterator[Transaction]:
        """Hold `path`'s lock while its current content is read and (maybe) replaced.

        When no lock can be made (a read-only vault), the content is still read, and a
        commit that would change the file raises the reason: reading never needs writing.
        """
        self.ensure_inside(path)  # never read, replace or back up a file out there
        self.check_writable(path)  # nor write through a symlink in here
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
        """Kept versions of `path`, newest first (`<ns since epoch>-<sha256 prefix>`).

        Only regular files count; a ring behind a symlink is not read (nor rotated, nor
        restored from): `doctor` reports the symlink.
        """
        folder = self.backup_dir(path)
        try:
            safe_fs.check_tree(self.paths.root, folder)
        except errors.SymlinkError as exc:
            log.warning("%s", exc)
            return []
        return sorted(
            (
                folder / entry.name
                for entry in safe_fs.regular_files(folder)
                if not entry.name.startswith(".")
            ),
            reverse=True,
        )

    def read_backup(self, kept: Path) -> bytes:
        """The bytes of a kept version (a regular file, no symlink followed)."""
        data = safe_fs.read_file(kept)
        if data is None:
            raise errors.NotFoundError(f"backup {kept} is gone")
        return data

    def _keep_written(self, path: Path, data: bytes, digest: str) -> None:
        folder = self.backup_dir(path)
        safe_fs.make_dirs(self.paths.root, folder)
        name = f"{time.time_ns():020d}-{digest[:12]}"
        # Written in .vault/tmp/ and renamed into the ring, so that a kill mid-write leaves
        # no half version in the ring (only a stray partial file there, swept later).
        scratch = self.paths.state_dir / "tmp"
        safe_fs.make_dirs(self.paths.root, scratch)
        temp = scratch / f"{name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
        try:
            safe_fs.write_new(temp, data)
            os.replace(temp, folder / name)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        self._trim(path)
        self._sweep(scratch)

    @staticmethod
    def _sweep(scratch: Path, older_than_s: float = 600.0) -> None:
        """Remove partial files left in `scratch` by writers killed long ago (regular
        files only; the caller checked that `scratch` is no symlink)."""
        limit = time.time() - older_than_s
        for stray in safe_fs.regular_files(scratch):
            with contextlib.suppress(OSError):
                if stray.stat(follow_symlinks=False).st_mtime < limit:
                    os.unlink(stray.path)

    def newest_intact_backup(self, path: Path) -> Path | None:
        """The newest kept version of `path` whose content still matches its name's hash."""
        for candidate in self.backups(path):
            try:
                data = self.read_backup(candidate)
            except errors.VaultError:
                continue
            if sha256(data).startswith(candidate.name.rsplit("-", 1)[-1]):
                return candidate
        return None

    def _keep_backup(self, path: Path, before: str) -> None:
        """Hard-link the current version of `path` (sha256 `before`) into its ring, unless
        the ring holds that version already (it does when this app wrote it)."""
        folder = self.backup_dir(path)
        safe_fs.make_dirs(self.paths.root, folder)
        newest = self.backups(path)[:1]
        if newest and newest[0].name.endswith(f"-{before[:12]}"):
            return
        # Named by the wall clock in nanoseconds (not the injectable clock, which tests
        # freeze), so that name order is age order; the hash says which version it is.
        target = folder / f"{time.time_ns():020d}-{before[:12]}"
        try:  # safe: the write that follows replaces, never edits, it
            if os.link in os.supports_follow_symlinks:  # links a link itself, never its target
                os.link(path, target, follow_symlinks=False)
            else:  # Windows: `path` was checked to be no symlink
                os.link(path, target)
        except OSError:
            safe_fs.copy_file(path, target)
        self._trim(path)

    def _trim(self, path: Path) -> None:
        for old in self.backups(path)[self.settings.backups_per_file :]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(old)  # a regular file of the ring (`backups` lists no other)

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
        safe_fs.make_dirs(self.paths.root, self.paths.state_dir)
        # O_APPEND keeps concurrent lines whole; the lock keeps them from interleaving
        # on filesystems where large appends are not atomic. Never through a symlink.
        with self.lock(audit_path), naming(audit_path):
            safe_fs.append(audit_path, data)

    # -- the atomic replace -------------------------------------------------------------

    def replace_atomically(
        self, path: Path, data: bytes, before: str | None, digest: str | None = None
    ) -> None:
        """Replace `path` with `data` (whose sha256 is `digest`, computed if not given)."""
        folder = path.parent
        safe_fs.make_dirs(self.paths.root, folder)
        temp = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            safe_fs.write_new(temp, data, sync=True)
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
        try:
            self._keep_written(path, data, digest if digest is not None else sha256(data))
        except (OSError, errors.VaultError) as exc:  # the write itself is done
            log.warning("the version of %s just written was not kept: %s", path, exc)


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
        if self.storage.guard is not None:
            self.storage.guard(self.path, action)
        limit = self.storage.settings.max_file_bytes
        if len(data) > limit and after != self.digest:
            raise errors.QuotaExceededError(  # (a file no reader would open again)
                f"refusing to write {self.path}: {len(data) / 1048576:.1f} MB is over the "
                f"{self.storage.settings.max_file_mb:g} MB every reader allows "
                "([storage] max_file_mb in .vault/config.toml); it is left as it was"
            )
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
    """The text of a UTF-8 file (a byte-order mark dropped), or a precise CorruptFileError."""
    return errors.decode_utf8(path, data, "utf-8-sig")
