"""Pausing Python's cyclic garbage collector around bulk loads, safely across threads.

Loading a vault or an index makes 10^5–10^6 small objects at once; the collector would
walk them again and again (most of the cost of the load), and one full collection then
holds the interpreter for a third of a second — long enough to freeze a window. So bulk
loads run inside `paused()`. The pause is counted: when two loads overlap on two threads,
the collector comes back only when the last one ends (a plain disable/enable pair would
let the first to finish switch it on in the middle of the other's load). With `freeze`,
what the load made is moved out of the collector's reach for good (`gc.freeze`), so that
no later full collection walks it again: for results that live long (a loaded index, a
scan, the sidebar's tree). Frozen objects are still freed by reference counting when
dropped; only a reference cycle among them never would be, so freeze results whose
structure holds no cycle (the sidebar's rows link to their parent weakly for this).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_restore = False


@contextlib.contextmanager
def paused(*, freeze: bool = False) -> Iterator[None]:
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
