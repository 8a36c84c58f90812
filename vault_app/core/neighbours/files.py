"""Reading and writing a neighbour's files in place, and where vault-app keeps its own
state about that folder.

A neighbour's folder is its owner's: vault-app writes there only the files of its format
(and, for Hermes, the `.lock` and `.bak.<ts>` files Hermes itself makes), never a
`.vault/`. What vault-app keeps beside a PARA vault in `.vault/` it keeps for a foreign
folder in the user's state folder, keyed by the folder's resolved path:

    <user state dir>/vault-app/neighbours/<folder name>-<sha256(path)[:16]>/
        audit.jsonl     one line per write (time, actor, action, target, hashes)
        backups/<relative path>/<ns>-<sha256[:12]>   the version each write replaced
        locks/<sha1>.lock   cross-process locks for formats that have none of their own

(`platformdirs.user_state_dir`: `~/.local/state/vault-app` on Linux, honouring
`XDG_STATE_HOME`.) Caches that can be rebuilt from the folder (search's embeddings) go
to the user's cache folder the same way (`cache_dir`).

Every write is atomic the way `core.storage` does it, with the same `safe_fs` steps: a
temp file in the target's folder, fsynced, `os.replace`d over the target (which keeps
its permission bits), the folder fsynced; no write through a symlink (the target, or a
folder on the way from the root, is checked first); appends are one `O_APPEND` write. A
write that would not change the bytes writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import json
import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import filelock
import orjson
import platformdirs

from vault_app.core import config, decay, errors, safe_fs, storage

MAX_FILE_BYTES = 64 * 1024 * 1024  # a memory file is kilobytes; refuse absurd ones
BACKUPS_PER_FILE = 20
LOCK_TIMEOUT_S = 10.0

try:  # Hermes locks with flock on POSIX, msvcrt.locking on Windows
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt  # type: ignore[import-not-found,unused-ignore]
except ImportError:
    msvcrt = None  # type: ignore[assignment]


def _keyed(root: Path) -> str:
    key = hashlib.sha256(os.fsencode(str(root))).hexdigest()[:16]
    return f"{root.name or 'root'}-{key}"


def state_dir(root: Path) -> Path:
    """Where vault-app keeps its state about the foreign folder `root` (resolved)."""
    return Path(platformdirs.user_state_dir(config.APP_NAME)) / "neighbours" / _keyed(root)


def cache_dir(root: Path) -> Path:
    """Where vault-app keeps caches about the foreign folder `root` (resolved): what can
    be rebuilt from the folder at any time (search's embeddings), in the user's cache
    folder (`~/.cache/vault-app/neighbours/<name>-<sha256(path)[:16]>/` on Linux)."""
    return Path(platformdirs.user_cache_dir(config.APP_NAME)) / "neighbours" / _keyed(root)


class Files:
    """File access inside one foreign folder: bounded reads, atomic writes, audit."""

    def __init__(
        self, root: Path, actor: str, clock: decay.Clock, *, new_file_mode: int | None = None
    ) -> None:
        self.new_file_mode = new_file_mode  # a file made anew gets it (None: the umask's)
        self.root = root
        self.actor = actor
        self.clock = clock
        self.state = state_dir(root)

    # -- reading ---------------------------------------------------------------------

    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            raise errors.InvalidIdError(f"{path} is not inside {self.root}") from None

    def read(self, path: Path) -> bytes | None:
        """The file's bytes (None if absent); refuses a symlink or a folder on the way
        that leads out of the folder, special files and files over 64 MiB."""
        self.relative(path)
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            if not path.resolve().is_relative_to(self.root):
                raise errors.CorruptFileError(
                    path, f"symlink leads outside {self.root} (to {path.resolve()}); not followed"
                )
        try:
            fd, info = safe_fs.open_read(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a final symlink: follow it, it stays inside
                fd, info = safe_fs.open_read(path.resolve())
            else:
                raise
        try:
            if info.st_size > MAX_FILE_BYTES:
                raise errors.CorruptFileError(path, f"file is {info.st_size:,} bytes, over 64 MiB")
            return safe_fs.read_all(fd, info.st_size)
        finally:
            os.close(fd)

    def read_text(self, path: Path) -> str | None:
        """The file as text, exactly (a byte-order mark is kept: it is the owner's)."""
        data = self.read(path)
        return None if data is None else errors.decode_utf8(path, data)

    # -- writing ---------------------------------------------------------------------

    def replace(self, path: Path, text: str, action: str, **audit: Any) -> bool:
        """Atomically replace `path` with `text` (UTF-8); False when it already held it."""
        data = text.encode("utf-8")
        safe_fs.check_tree(self.root, path)
        before = self.read(path)
        if before == data:
            return False
        folder = path.parent
        safe_fs.make_dirs(self.root, folder)
        mode = self.new_file_mode
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(os.lstat(path).st_mode)
        if before is not None:
            self._keep(path, before)
        temp = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{storage.TEMP_SUFFIX}"
        try:
            with storage.naming(path):
                safe_fs.write_new(temp, data, sync=True)
                if mode is not None:
                    os.chmod(temp, mode)  # a file's own mode kept; a new one: the format's
                os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise
        storage.fsync_dir(folder)
        self.audit(action, path, before=_digest(before), after=storage.sha256(data), **audit)
        return True

    def append(self, path: Path, text: str, action: str, **audit: Any) -> None:
        """Append `text` to `path` (created if absent) in one write."""
        safe_fs.check_tree(self.root, path)
        safe_fs.make_dirs(self.root, path.parent)
        with storage.naming(path):
            safe_fs.append(path, text.encode("utf-8"))
        self.audit(action, path, bytes=len(text.encode("utf-8")), **audit)

    def write_new_file(self, path: Path, text: str) -> Path:
        """Write `text` to a new file at `path` (never over another file): a Hermes
        `.bak.<ts>` snapshot. An existing file with the same bytes is reused; one with
        other bytes gets a numbered sibling."""
        data = text.encode("utf-8")
        safe_fs.check_tree(self.root, path)
        candidate, n = path, 1
        while True:
            try:
                safe_fs.write_new(candidate, data, sync=True)
                return candidate
            except FileExistsError:
                if self.read(candidate) == data:
                    return candidate
                n += 1
                candidate = path.with_name(f"{path.name}.{n}")

    # -- vault-app's state about the folder ------------------------------------------

    def _keep(self, path: Path, data: bytes) -> None:
        """Keep the version a write replaces in the state folder's ring."""
        folder = self.state / "backups" / self.relative(path)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{storage.sha256(data)[:12]}"
        temp = folder / f".{name}.{secrets.token_hex(4)}.partial"
        safe_fs.write_new(temp, data, sync=True)
        os.replace(temp, folder / name)
        kept = sorted((p for p in folder.iterdir() if not p.name.startswith(".")), reverse=True)
        for old in kept[BACKUPS_PER_FILE:]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def backups(self, path: Path) -> list[Path]:
        """Versions of `path` that writes replaced, newest first."""
        folder = self.state / "backups" / self.relative(path)
        if not folder.is_dir():
            return []
        return sorted((p for p in folder.iterdir() if not p.name.startswith(".")), reverse=True)

    def lock(self, path: Path) -> filelock.BaseFileLock:
        """A cross-process lock on `path` kept in the state folder (for formats whose
        owner keeps none on disk: PicoClaw's is a mutex inside its process)."""
        folder = self.state / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha1(self.relative(path).encode("utf-8", "surrogatepass")).hexdigest()
        return filelock.FileLock(folder / f"{name[:24]}.lock", timeout=LOCK_TIMEOUT_S)

    def read_state(self, name: str) -> bytes | None:
        """A file of vault-app's own state about the folder (`review/<id>.json`,
        `agent-tokens.json`), None when absent; no symlink below the state folder."""
        path = self.state / name
        safe_fs.check_tree(self.state, path, safe_fs.STATE_READ)
        return safe_fs.read_file(path, MAX_FILE_BYTES)

    def write_state(self, name: str, data: bytes) -> Path:
        """Atomically replace the state file `name` (created with its folders)."""
        path = self.state / name
        path.parent.mkdir(parents=True, exist_ok=True)
        safe_fs.check_tree(self.state, path)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
        try:
            safe_fs.write_new(temp, data, sync=True)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise
        storage.fsync_dir(path.parent)
        return path

    def state_lock(self, name: str) -> filelock.BaseFileLock:
        """A cross-process lock on the state file `name`."""
        folder = self.state / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        key = hashlib.sha1(f"state:{name}".encode("utf-8", "surrogatepass")).hexdigest()
        return filelock.FileLock(folder / f"{key[:24]}.lock", timeout=LOCK_TIMEOUT_S)

    def audit(self, action: str, target: Path | str, **fields: Any) -> None:
        """One audit line; `target` is a file of the folder, or (a str) what vault-app's
        own state names (`agent-tokens.json`)."""
        line: dict[str, Any] = {
            "time": self.clock().isoformat(timespec="milliseconds"),
            "actor": self.actor,
            "action": action,
            "target": target if isinstance(target, str) else self.relative(target),
        }
        line.update({k: v for k, v in fields.items() if v is not None})
        try:
            data = orjson.dumps(line) + b"\n"
        except orjson.JSONEncodeError:
            data = json.dumps(line, separators=(",", ":")).encode("ascii") + b"\n"
        self.state.mkdir(parents=True, exist_ok=True)
        audit_path = self.state / storage.AUDIT_NAME
        with filelock.FileLock(self.state / "audit.lock", timeout=LOCK_TIMEOUT_S):
            safe_fs.append(audit_path, data)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else storage.sha256(data)


@contextlib.contextmanager
def sidecar_lock(path: Path, timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hermes' lock protocol: an exclusive `flock` (`msvcrt.locking` on Windows) on the
    file `<path>.lock` beside `path`, opened for append (created if absent, never
    truncated, never removed), so that `path` itself can be replaced atomically while
    held. Hermes waits without limit; vault-app polls and gives up after `timeout_s`
    with `LockTimeoutError`, changing nothing."""
    lock_path = path.with_name(path.name + ".lock")
    if safe_fs.is_symlink(lock_path):
        raise safe_fs.symlink_error(lock_path)
    fd = os.open(
        lock_path, os.O_RDWR | os.O_CREAT | os.O_APPEND | safe_fs.NOFOLLOW | safe_fs.CLOEXEC, 0o644
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                elif msvcrt is not None:  # pragma: no cover - Windows
                    os.lseek(fd, 0, os.SEEK_SET)
                    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise errors.LockTimeoutError(
                        f"{path}: another writer (Hermes?) held {lock_path.name} for over "
                        f"{timeout_s:g} s; nothing was changed"
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            if fcntl is not None:
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_UN)
            elif msvcrt is not None:  # pragma: no cover - Windows
                with contextlib.suppress(OSError):
                    os.lseek(fd, 0, os.SEEK_SET)
                    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    finally:
        os.close(fd)


def now_stamp(clock: decay.Clock) -> int:
    """Seconds since the epoch, as Hermes names its `.bak.<ts>` files."""
    return int(clock().astimezone(dt.UTC).timestamp())
