"""Pausing Python's cyclic garbage collector around bulk loads, safely across threads.

Loading a vault or an index makes 10^5–10^6 small objects at once; the collector would
walk them again and again (most of the cost of the load), and one full collection then
holds the interpreter for a third of a second — long enough to freeze a window. So bulk
loads run inside `paused()`. The pause is counted: when two loads overlap on two threads,
the collector comes back only when the last one ends (a plain disable/enable pair would
let the first to finish switch it on in the middle of the other's load). With `freeze`,
what the load made is moved out of the collector's reach for good (`gc.freeze`): for
objects that live as long as the program, such as a loaded index.
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
