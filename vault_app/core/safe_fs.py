"""File steps that keep vault-app inside its vault: no write through a symlink, no read of
anything but a regular file.

Writes. A writer names a trusted root (the vault folder, resolved once when the vault is
opened) and a path below it. `check_tree` refuses (`errors.SymlinkError`) when the path,
or any folder between the root and it, is a symlink; `make_dirs` checks the same while it
creates what is missing; new files are created with O_EXCL (which never follows a
symlink) and O_NOFOLLOW; `append` opens with O_NOFOLLOW and checks what it opened. On
Windows there is no O_NOFOLLOW: the lstat checks stand alone there.

Reads. `open_read` opens with O_NOFOLLOW and O_NONBLOCK (so opening a FIFO returns at
once instead of waiting for a writer that never comes) and checks the open descriptor
with fstat: anything but a regular file is refused by what it is
(`errors.NotRegularFileError`: "is a FIFO, not a regular file"). The check is on the
descriptor, not on the name before opening it, so nothing can be swapped in between.

Each check costs a system call that the common case makes anyway or a few lstat calls
per write; nothing here runs per fact.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from vault_app.core import errors

NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)  # 0 on Windows: lstat checks instead
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
BINARY: int = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
READ_FLAGS = os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC | BINARY
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC | BINARY
APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC | BINARY

# What os.open answers for a final symlink under O_NOFOLLOW (ELOOP on Linux and macOS,
# EMLINK on FreeBSD), and for special files it cannot open (a socket: ENXIO).
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK})


def kind(mode: int) -> str:
    """What a file of this mode is, for messages: "a FIFO", "a folder"..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "a special file"


def not_regular(path: Path | str, mode: int) -> errors.NotRegularFileError:
    return errors.NotRegularFileError(
        path, f"is {kind(mode)}, not a regular file; vault-app does not read it"
    )


STATE_READ = "vault-app does not follow symlinks in its own state (.vault/)"


def symlink_error(path: Path | str, why: str | None = None) -> errors.SymlinkError:
    try:
        target: str | None = os.readlink(path)
    except OSError:
        target = None
    if why is None:
        return errors.SymlinkError(path, target)
    return errors.SymlinkError(path, target, why)


def is_symlink(path: Path | str) -> bool:
    return os.path.islink(path)


# -- reading ----------------------------------------------------------------------------


def open_read(path: Path | str) -> tuple[int, os.stat_result]:
    """(descriptor, fstat) of the regular file at `path`, opened for reading.

    Never blocks, never follows a final symlink. Raises FileNotFoundError when absent,
    OSError with errno ELOOP when `path` is a symlink (the caller decides whether to
    follow it), `errors.NotRegularFileError` for a FIFO, socket, device or folder, and
    OSError for the rest (permissions...).
    """
    if not NOFOLLOW and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symlink", os.fspath(path))
    try:
        fd = os.open(path, READ_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS and os.path.islink(path):
            raise OSError(errno.ELOOP, "is a symlink", os.fspath(path)) from None
        # a socket cannot be opened at all (ENXIO), a folder not on Windows (EACCES)
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
                raise not_regular(path, mode) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(path, info.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_all(fd: int, size: int) -> bytes:
    """The bytes of a regular file open at `fd` whose fstat said `size` (it may grow)."""
    data = os.read(fd, size + 1)  # fewer bytes than asked: the end of the file
    if len(data) <= size:
        return data
    chunks = [data]
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_file(path: Path | str, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at `path` (None if absent), through no final symlink.

    For app state (`.vault/` files, caches): a symlink there is refused, never followed
    (`errors.SymlinkError`); so is anything but a regular file; over `limit` bytes,
    `errors.CorruptFileError`.
    """
    try:
        fd, info = open_read(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_error(path, STATE_READ) from None
        raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None
    try:
        if limit is not None and info.st_size > limit:
            raise errors.CorruptFileError(path, f"file is {info.st_size} bytes, over {limit}")
        return read_all(fd, info.st_size)
    except OSError as exc:
        raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


@contextlib.contextmanager
def reading(path: Path | str) -> Iterator[BinaryIO]:
    """A binary file object on the regular file at `path` (for readers that want one:
    numpy); the errors of `open_read`, a symlink refused as in `read_file`."""
    try:
        fd, _ = open_read(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_error(path, STATE_READ) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        yield handle


# -- writing ----------------------------------------------------------------------------


def check_tree(root: Path, path: Path, why: str | None = None) -> None:
    """Refuse `path` if it, or a folder between `root` and it, is a symlink.

    Parts that do not exist yet are fine (the writer creates them with `make_dirs`).
    `root` itself is trusted (a vault opened through a symlink is resolved first).
    `why` ends the message (default: writes do not go through symlinks).
    """
    current = root
    for part in _parts_below(root, path):
        current = current / part
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            return
        if stat.S_ISLNK(info.st_mode):
            raise symlink_error(current, why)


def make_dirs(root: Path, folder: Path) -> None:
    """`folder` and the folders up to it from `root`, created where missing, none of them
    a symlink (`errors.SymlinkError`) or a file (`errors.NotRegularFileError`-like)."""
    current = root
    for part in _parts_below(root, folder):
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(current)
            info = os.lstat(current)
        if stat.S_ISLNK(info.st_mode):
            raise symlink_error(current)
        if not stat.S_ISDIR(info.st_mode):
            raise errors.CorruptFileError(
                current, f"is {kind(info.st_mode)} where vault-app needs a folder"
            )


def create(path: Path | str, mode: int = 0o644) -> int:
    """A descriptor on a new file at `path`, open for writing; FileExistsError if the name
    is taken, by anything (O_EXCL does not follow a symlink there)."""
    return os.open(path, CREATE_FLAGS, mode)


def write_new(path: Path | str, data: bytes, *, sync: bool = False) -> None:
    """Write `data` to a new file at `path` (see `create`), fsynced with `sync`."""
    fd = create(path)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        if sync:
            handle.flush()
            os.fsync(handle.fileno())


def append(path: Path | str, data: bytes) -> None:
    """Append `data` to the regular file at `path` (created if absent) in one write.

    Refuses a symlink (`errors.SymlinkError`), anything but a regular file, and a file
    with other hard links (appending would change the file behind another name).
    """
    if not NOFOLLOW and os.path.islink(path):
        raise symlink_error(path)
    try:
        fd = os.open(path, APPEND_FLAGS, 0o644)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS and os.path.islink(path):
            raise symlink_error(path) from None
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if not stat.S_ISREG(mode):
                raise not_regular(path, mode) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(path, info.st_mode)
        if info.st_nlink > 1:
            raise errors.CorruptFileError(
                path,
                f"has {info.st_nlink} hard links (another name shares its content); "
                "vault-app does not append to it",
            )
        os.write(fd, data)
    finally:
        os.close(fd)


def copy_file(source: Path | str, target: Path | str) -> None:
    """Copy the regular file `source` (no symlink followed) to a new file `target`."""
    fd, info = open_read(source)
    try:
        data = read_all(fd, info.st_size)
    finally:
        os.close(fd)
    write_new(target, data)


def regular_files(folder: Path | str) -> list[os.DirEntry[str]]:
    """The regular files directly in `folder` (no symlink, no special file); [] if it is
    not there. The caller checked that `folder` is no symlink."""
    try:
        with os.scandir(folder) as listing:
            return [entry for entry in listing if entry.is_file(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _parts_below(root: Path, path: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(root).parts
    except ValueError:
        raise errors.InvalidIdError(f"{path} is not inside the vault {root}") from None
