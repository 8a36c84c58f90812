"""How a server command (`mcp`, `serve`) that owns its process ends it."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def end_server_process(code: int) -> None:
    """End a server process (`mcp`, `serve`) that owns itself, without the interpreter's
    teardown, once it has shut down cleanly.

    The runtime loads the semantic model on a background thread; stopped while ONNX
    Runtime is inside that load, the interpreter's teardown destroys the runtime's
    native threads under it and the process aborts (SIGABRT, exit 134) instead of ending
    with its status. Nothing is lost by skipping the teardown: every vault write is
    atomic and synced when it returns, and the caches are rebuilt from the files.
    """
    import contextlib
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to flush
            stream.flush()
    os._exit(code)
