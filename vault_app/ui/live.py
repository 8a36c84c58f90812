"""Live sync in the window: the watcher's batches become the session's change signals.

`LiveSync` owns a `watch.VaultWatcher` on the session's own `Vault` (so this window's
writes are recognised by their content hash and not reported back). Batches arrive on the
watcher's thread and are handed to the GUI thread through a queued signal, where they are
applied in one go:

* changed entities → `session.entityChanged` (the entity view reloads, keeping the
  selection and scroll), removed ones → `session.entityRemoved` (the view offers to
  restore from the backup ring), moved ones → `session.entityMoved` (the view follows);
* daily notes → `session.dailyChanged`; TACIT / CONTEXT / AGENTS.md →
  `session.documentChanged` (a pane with unsaved edits shows its conflict bar instead of
  reloading);
* then `session.absorb(...)` re-counts only those entities and re-indexes only their
  documents (a full rescan when agents came or went, or when there was no snapshot), and
  the sidebar, dashboard and search follow from `session.scanned`.

The watcher's health reaches the status bar through `session.liveStatus`. On start the
watcher compares the vault with its snapshot (`.vault/cache/watch/`), so what changed
while the app was closed arrives as a first batch through the same path.
"""

from __future__ import annotations

import importlib
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore

from vault_app.ui.session import Session
from vault_app.workspace import reindex

if TYPE_CHECKING:
    from vault_app.watch import VaultWatcher

log = logging.getLogger(__name__)


class WatcherRelay(QtCore.QObject):
    """What a window's live sync (`LiveSync`, `neighbour_live.FolderLiveSync`) holds of
    its watcher: the signals that bring its batches and status from the watcher's
    thread, the watcher once made, and a `stop` that also stops a start still to come."""

    batchArrived = QtCore.Signal(object)  # watch.ChangeBatch (from the watcher's thread)
    statusArrived = QtCore.Signal(object)  # watch.WatchStatus (from the watcher's thread)
    applied = QtCore.Signal(object)  # the batch, once its signals went out (GUI thread)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.watcher: VaultWatcher | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self.watcher is None:
                return
            try:
                self.watcher.stop()
            except Exception:  # closing the window must not fail on a watcher problem
                log.warning("stopping the watcher failed", exc_info=True)


class LiveSync(WatcherRelay):
    def __init__(
        self, session: Session, *, snapshot: str = "app", parent: QtCore.QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.snapshot = snapshot
        self.batches = 0
        self.batchArrived.connect(self._apply, QtCore.Qt.ConnectionType.QueuedConnection)
        self.statusArrived.connect(self._status, QtCore.Qt.ConnectionType.QueuedConnection)

    def prepare(self) -> None:
        """Import the watcher (watchdog: 60 ms) on a worker, so that neither the window's
        first paint nor `start` on the GUI thread waits for it (`start` works without)."""
        self.session.run(lambda: importlib.import_module("vault_app.watch.watcher"))

    def start(self) -> None:
        """Start watching, from a worker: returns at once (the first comparison runs in
        the background too). Starting a thread waits until the new thread runs, which
        waits for the interpreter: 60-100 ms on the GUI thread while the index loads."""
        from vault_app.watch import VaultWatcher, quiet

        if self.watcher is not None:
            return
        quiet.quiet_benign_warnings()  # the app owns its process's warnings filters
        self.watcher = VaultWatcher(
            self.session.vault,
            self.batchArrived.emit,
            on_status=self.statusArrived.emit,
            snapshot=self.snapshot,
        )
        self.session.run(self._start_watcher)

    def _start_watcher(self) -> None:
        with self._lock:  # not after (nor during) a `stop`
            if self.watcher is not None and not self._stopped:
                self.watcher.start()

    # -- on the GUI thread ---------------------------------------------------------------

    def _status(self, status: Any) -> None:
        self.session.liveStatus.emit(status.state, status.message)

    def _apply(self, batch: Any) -> None:
        session = self.session
        if session.closed:
            return
        self.batches += 1
        if batch.everything and batch.reason == "open":
            # no snapshot yet (first run): the window has just read everything anyway
            self.applied.emit(batch)
            return
        root: Path = session.vault.root
        moved_from = {str(old) for old, _ in batch.moved_entities}
        for old, new in batch.moved_entities:
            session.entityMoved.emit(str(old), str(new))
        for ref in batch.removed_entities:
            if str(ref) not in moved_from:
                session.entityRemoved.emit(str(ref))
        for ref in batch.entities:
            session.entityChanged.emit(str(ref))
        for note in batch.daily:
            session.dailyChanged.emit(note.scope, note.date)
        for document in batch.documents:
            session.documentChanged.emit(str(root / document.path))
        if batch.unmerged:
            session.syncConflicts.emit(tuple(batch.unmerged))
        change = reindex.Reindex.of(batch)
        if not change.empty:
            session.absorb(change, tuple(str(ref) for ref in change.entities))
        self.applied.emit(batch)
