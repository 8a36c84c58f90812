"""Warming the page cache ahead of a scan of a cold vault, from a process of its own.

Opening a vault lists 10,000 folders and reads 10,000 small files. When they are not in
the page cache, every listing and every read waits for the disk, and a walk that waits
for one at a time leaves the disk idle between requests: on this kind of VM a cold scan
took 6 s, most of it waiting, while `xargs -P8 cat` reads the same files in 0.6 s. The
requests have to be in flight together; threads of the scanning process cannot do that,
because each of them must take the interpreter lock back after every system call, from
a scan that holds it while it parses (and from the GUI thread in the app).

So a small process runs ahead of the scan: this file, run as a script with nothing but
the standard library (no package import, a fast start), with a few threads that do only
system calls (four: with more, they spend their time handing the lock over). It lists
the PARA folders it is given, in the order the scan walks them (depth first, by name:
the order of the path parts), and asks the kernel to read ahead each fact file it finds
(`posix_fadvise(WILLNEED)`, which starts the read and returns; a plain read where that
call does not exist). It writes nothing, follows no symlink and reads nothing but
regular files (a FIFO is opened without blocking and left); it stops when it is done or
when the scan ends and stops it.

The scan does not depend on it: it walks and reads as it always does, finding in the
cache what was read ahead, so its result is the same whether the prefetch ran, ran part
of the way, or could not start (a frozen app has no interpreter to start it with).
"""

from __future__ import annotations

import os
import queue
import stat
import sys
import threading

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (10 ms)
if TYPE_CHECKING:  # the script imports only what it runs with
    import subprocess
    from collections.abc import Sequence
    from pathlib import Path

FACT_FILE_NAMES = ("items.json", "facts.json")  # layout.FACT_FILE_NAMES (not imported)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
THREADS = 4  # requests in flight (more threads spend more time handing the interpreter over)

_Task = tuple[tuple[int, tuple[str, ...]], str]  # ((root, path parts): walk order, folder)
_DONE: _Task = ((sys.maxsize, ()), "")  # after every folder: a worker's signal to stop


def prefetch(roots: Sequence[str], threads: int = THREADS) -> None:
    """List every folder under `roots` and read ahead their fact files, in walk order."""
    tasks: queue.PriorityQueue[_Task] = queue.PriorityQueue()
    pending = len(roots)
    lock = threading.Lock()
    for index, root in enumerate(roots):
        tasks.put(((index, ()), root))

    def work() -> None:
        nonlocal pending
        while (task := tasks.get()) is not _DONE:
            (index, parts), folder = task
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                entries = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    with lock:
                        pending += 1
                    tasks.put(((index, (*parts, entry.name)), entry.path))
                elif entry.name in FACT_FILE_NAMES and entry.is_file(follow_symlinks=False):
                    _read_ahead(entry.path)
            with lock:
                pending -= 1
                if pending == 0:
                    for _ in range(threads):
                        tasks.put(_DONE)

    if not roots:
        return
    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def _read_ahead(path: str) -> None:
    """Start reading a regular file ahead; anything else (a FIFO swapped in since the
    listing, a device) is left alone: opened without blocking, checked, closed."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        else:
            os.read(fd, 1 << 20)
    except OSError:
        pass
    finally:
        os.close(fd)


class Running:
    """The prefetch of `roots` in a process of its own, for the length of a `with` block
    (stopped at its end if not done). `process` is None when none could start."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = roots
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Running:
        import contextlib
        import subprocess

        if getattr(sys, "frozen", False) or not self.roots:
            return self
        with contextlib.suppress(OSError):
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, *map(str, self.roots)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        return self

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


if __name__ == "__main__":
    prefetch(sys.argv[1:])
