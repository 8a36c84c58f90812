"""Pausing Python's cyclic garbage collector around bulk loads — only where a caller opted in.

Loading a vault or an index makes 10^5–10^6 small objects at once; the collector would
walk them again and again (most of the cost of the load), and one full collection then
holds the interpreter for a third of a second — long enough to freeze a window. With
`freeze`, what the load made is moved out of the collector's reach for good
(`gc.freeze`), so that no later full collection walks it again: for results that live
long (a loaded index, a scan, the sidebar's tree). Frozen objects are still freed by
reference counting when dropped; only a reference cycle among them never would be, so
freeze results whose structure holds no cycle (the sidebar's rows link to their parent
weakly for this).

The collector belongs to the process, not to a library: a library call leaves it as it
found it. So the bulk loads of the library (`Vault.scan`, `list_entities`, the search
index's load, `doctor`) run inside `paused()`, which does nothing unless the process
opted in, in one of two ways:

* `tune_process()`, called once by whoever owns the process (the app's composition
  root, the CLI's `main`): from then on every bulk load pauses the collector and
  freezes what it keeps;
* `bulk_load()`, a context a library user chooses for one block: the collector is
  paused for the block and what the block made is frozen at its end.

The pause is counted: when two loads overlap on two threads, the collector comes back
only when the last one ends (a plain disable/enable pair would let the first to finish
switch it on in the middle of the other's load).

A bulk load also leaves free memory behind: the temporaries it freed sit in holes of the
C heap between objects that live on, and glibc's allocator keeps them resident (150 MB
after building a 200,000-document search index, 35 MB after loading it). `release()`
gives those pages back to the system (`malloc_trim`), in a tuned process only: a
long-running owner (`vault-app serve`, the app) wants its resident size to be what it
holds, and a library call leaves the process's allocator alone otherwise.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import sys
import threading
from collections.abc import Callable, Iterator

_lock = threading.Lock()
_depth = 0
_restore = False
_tuned = False  # set by `tune_process`: the process owner's opt-in


def tune_process(enabled: bool = True) -> None:
    """Opt this process in (or, with False, out again): from now on the library's bulk
    loads pause the garbage collector and freeze their long-lived results.

    For the owner of the process only — the app's composition root, the CLI's `main` —
    called once at startup; a library never calls it."""
    global _tuned
    _tuned = enabled


def tuned() -> bool:
    """Whether `tune_process` opted this process in."""
    return _tuned


@contextlib.contextmanager
def bulk_load() -> Iterator[None]:
    """Run a block of bulk loads the way the app does: the collector paused for the
    block, and what it made frozen (`gc.freeze`) at its end. The caller's explicit
    choice for its own process, e.g. `with memory.bulk_load(): scan = v.scan()`."""
    with _paused(freeze=True):
        yield


def paused(*, freeze: bool = False) -> contextlib.AbstractContextManager[None]:
    """What the library's bulk loads run inside: in a process that opted in
    (`tune_process`), the collector paused (and with `freeze`, the results frozen at
    the end); in any other, nothing at all — the process is left as it was found."""
    if not _tuned:
        return contextlib.nullcontext()
    return _paused(freeze=freeze)


@contextlib.contextmanager
def _paused(*, freeze: bool) -> Iterator[None]:
    """The counted pause itself, safe across threads."""
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            if freeze:
                gc.freeze()
            _depth -= 1
            if _depth == 0 and _restore:
                gc.enable()


def release() -> None:
    """In a process that opted in (`tune_process`), give the C heap's free pages back to
    the system after a bulk load (glibc's `malloc_trim`; nothing elsewhere)."""
    if _tuned:
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


_M_ARENA_MAX = -8  # glibc's mallopt parameter number


def limit_arenas(count: int = 2) -> None:
    """For the owner of a long-running server process (`vault-app serve`) only: at most
    `count` C-heap arenas. glibc gives each thread that allocates an arena of its own (up
    to eight per core), and each keeps the memory its thread freed: the threads that
    answer requests side by side held 25 MB more after 200 searches from 4 clients on the
    200,000-fact vault. Call it before those threads start. Nothing on other systems."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_ARENA_MAX, count)
    except (OSError, AttributeError):  # another C library
        return


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # musl has no malloc_trim
        return None
    return trim
