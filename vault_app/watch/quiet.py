"""The one warnings filter live sync needs, for the owner of a process, importable without
watchdog (so `vault-app mcp` can set it before its handshake without paying for the import).

watchdog's inotify reader warns "Callback with id ... already exists" when a folder made
with its subfolders at once (an agent created: `agents/x/workspace/projects`) is watched
twice, which is harmless; raised as an error (warnings as errors) it would kill the reader
thread, and shown it is noise. The warnings filters belong to the process, so a
`VaultWatcher` never touches them itself: the app's composition root, the CLI's `watch`,
`mcp` and `serve` call `quiet_benign_warnings()`. The filter is narrow: that message from
watchdog only.
"""

from __future__ import annotations

import warnings


def quiet_benign_warnings() -> None:
    """Silence watchdog's harmless double-watch RuntimeWarning in this process."""
    warnings.filterwarnings(
        "ignore",
        message=r"Callback with id .* already exists",
        category=RuntimeWarning,
        module=r"watchdog\.",
    )
