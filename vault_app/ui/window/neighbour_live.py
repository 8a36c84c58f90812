"""Live sync for a neighbour's folder: the watcher's batches become `documentChanged`.

`FolderLiveSync` runs a `watch.VaultWatcher` with the folder's layout (`watch.foreign`:
Hermes' `memories/`, PicoClaw's `memory/`, MicroClaw's `groups/`). Its batches arrive on
the watcher's thread and are handed to the GUI thread through a queued signal; there each
changed memory file becomes `session.documentChanged(path)`, which the pages follow (a
block reloads, or shows its conflict bar when it holds unsaved edits), and a persona that
came or went becomes `agentsChanged` (the sidebar lists the folder again). The watcher's
health reaches the status bar through `status`.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from vault_app.ui import live, session


class FolderLiveSync(live.WatcherRelay):
    agentsChanged = QtCore.Signal()
    status = QtCore.Signal(str, str)  # state, plain-words message

    def __init__(self, s: session.FolderSession, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = s
        self.batchArrived.connect(self._apply, QtCore.Qt.ConnectionType.QueuedConnection)
        self.statusArrived.connect(
            lambda st: self.status.emit(st.state, st.message),
            QtCore.Qt.ConnectionType.QueuedConnection,
        )

    def start(self) -> None:
        """Start watching; the watcher (and watchdog) is made and started on a worker."""
        self.session.run(self._start_watcher)

    def _start_watcher(self) -> None:
        from vault_app.watch import foreign, quiet, watcher

        with self._lock:  # not after (nor during) a `stop`
            if self.watcher is not None or self._stopped:
                return
            quiet.quiet_benign_warnings()
            folder = self.session.folder
            self.watcher = watcher.VaultWatcher(
                folder.root,
                self.batchArrived.emit,
                on_status=self.statusArrived.emit,
                snapshot=None,  # the window reads every file when it opens
                layout=foreign.layout(folder.format),
            )
            self.watcher.start()

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once the watcher watches (tests: changes made before are not events)."""
        watcher = self.watcher
        return watcher is not None and watcher.wait_ready(timeout)

    def _apply(self, batch: Any) -> None:
        if self.session.closed:
            return
        root = self.session.folder.root
        for changed in batch.files:
            self.session.documentChanged.emit(str(root / changed.path))
        if batch.agents or batch.removed_agents:
            self.agentsChanged.emit()
        self.applied.emit(batch)
