"""The desktop app runs the heartbeat and the weekly synthesis when nothing else does.

Design
------
`HeartbeatRunner` owns one `heartbeat.runner.Runner(root, runner="app")` — the same
runner `vault-app serve` and `heartbeat --once` use — and calls its `tick()` every
`TICK_MS` on a QTimer, the first tick as soon as it starts. The tick runs on a worker
thread, never on the GUI thread (a heartbeat over many entries, or a slow model
endpoint, takes seconds to minutes), and never two at once: a tick that comes while the
last one still runs is skipped. The runner takes the vault's lease on its first tick if
nobody holds it; when `serve` or another window holds it, every tick is an instant
no-op and the schedule stays theirs.

Once the window's search has its sentence model loaded, dedup compares facts by cosine
too (`embed_of`: the model through the vault's embedding cache), as `serve` does.

`run_now(trigger)` runs one at once, due or not, when this app holds the lease: after
File › Import conversations, so the imported turns become facts without waiting.

Results come back to the GUI thread as signals: `ran(records)` after a tick that ran
something (the window says in the status bar when facts were written, the dashboard
and the Activity page follow), `failed(message)` when a tick raised.

`close()` (the vault closes, the app quits) stops the timer, asks a heartbeat in
progress to end after its current entry, waits for it at most `CLOSE_WAIT_MS`, and
releases the lease. A tick still running then (a model request in flight) is left to
finish on its own thread, which is a daemon thread so that quitting never waits for
it: it releases the lease itself when it ends, every write it made is atomic, and the
operating system drops the lease if the process ends first.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore

from vault_app.heartbeat import runlog, runner
from vault_app.heartbeat.extraction import Extractor

if TYPE_CHECKING:
    from vault_app.heartbeat.dedup import Embed
from vault_app.ui import session as session_module

log = logging.getLogger(__name__)

TICK_MS = 60_000
CLOSE_WAIT_MS = 3_000


def message(records: Sequence[runlog.RunRecord]) -> str | None:
    """The status-bar message for a tick's runs, or None when there is nothing to tell."""
    parts = []
    for record in records:
        if record.error:
            parts.append(f"the {record.job} failed: {record.error}")
        elif record.job == "heartbeat" and (record.written or record.superseded):
            written = f"{record.written} new fact{'' if record.written == 1 else 's'}"
            if record.superseded:
                written += f", {record.superseded} updated"
            parts.append(f"the heartbeat wrote {written}")
        elif record.job == "synthesis":
            rewrote = session_module.plural(record.summaries, "summary", "summaries")
            parts.append(f"the weekly synthesis rewrote {rewrote}")
    if not parts:
        return None
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + " (Go › Activity)"


class _Relay(QtCore.QObject):
    """Carries a tick's outcome from its thread to the GUI thread (queued)."""

    done = QtCore.Signal(object)
    failed = QtCore.Signal(object)


class HeartbeatRunner(QtCore.QObject):
    """Ticks the vault's heartbeat runner off the GUI thread while the app has it open."""

    ran = QtCore.Signal(object)  # list[runlog.RunRecord]: a tick that ran something
    failed = QtCore.Signal(str)  # a tick that raised, in plain words
    ticked = QtCore.Signal()  # after every tick, whatever it did

    def __init__(
        self,
        root: Path,
        parent: QtCore.QObject | None = None,
        *,
        every_ms: int = TICK_MS,
        clock: Callable[[], dt.datetime] | None = None,
        extractor: Extractor | None = None,
        embed: Callable[[], Embed | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner.Runner(
            Path(root), runner="app", clock=clock, extractor=extractor, embed=embed
        )
        self.closed = False
        self._thread: threading.Thread | None = None
        self._relay = _Relay(self)
        self._relay.done.connect(self._done, QtCore.Qt.ConnectionType.QueuedConnection)
        self._relay.failed.connect(self._failed, QtCore.Qt.ConnectionType.QueuedConnection)
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(self.tick)

    @property
    def busy(self) -> bool:
        """A tick is running."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def holds_lease(self) -> bool:
        return self.runner.holds_lease

    def start(self) -> None:
        """Tick now, then every interval."""
        if not self.closed:
            self._timer.start()
            self.tick()

    def tick(self) -> bool:
        """Start a tick on a worker thread; False when one still runs (or after close)."""
        return self._start(None)

    def run_now(self, trigger: str) -> bool:
        """Start a heartbeat now, due or not (after an import: `trigger` "import"), when
        this app runs the heartbeat (it holds the lease); False when it does not (`serve`
        or another window runs it, on its schedule), when one still runs, or after close."""
        return self.holds_lease and self._start(trigger)

    def _start(self, forced: str | None) -> bool:
        if self.closed or self.busy:
            return False
        self._thread = threading.Thread(
            target=self._work, args=(forced,), name="vault-app-heartbeat", daemon=True
        )
        self._thread.start()
        return True

    def _work(self, forced: str | None = None) -> None:
        try:
            records = (self.runner.once(forced) or []) if forced else self.runner.tick()
        except Exception as exc:  # handed to the GUI thread, never lost
            log.error("heartbeat tick failed", exc_info=True)
            self._emit(self._relay.failed, exc)
        else:
            self._emit(self._relay.done, records)
        finally:
            if self.closed:  # the app closed while this tick ran: give the lease back
                self.runner.close()

    @staticmethod
    def _emit(signal: QtCore.SignalInstance, value: object) -> None:
        try:
            signal.emit(value)
        except RuntimeError:  # the window (and the relay) went away meanwhile
            log.debug("a heartbeat tick ended after its window closed")

    def _done(self, records: list[runlog.RunRecord]) -> None:
        self.ticked.emit()
        if records and not self.closed:
            self.ran.emit(records)

    def _failed(self, exc: BaseException) -> None:
        self.ticked.emit()
        if not self.closed:
            title, text = session_module.describe(exc)
            self.failed.emit(f"{title}: {text}")

    def close(self, wait_ms: int = CLOSE_WAIT_MS) -> bool:
        """Stop ticking and release the lease; False when a tick still runs after
        `wait_ms` (it releases the lease itself when it ends)."""
        self.closed = True
        self._timer.stop()
        self.runner.stopping.set()  # a heartbeat in progress ends after its current entry
        thread = self._thread
        if thread is not None:
            thread.join(wait_ms / 1000)
            if thread.is_alive():
                log.warning("the heartbeat did not end within %d ms; left to finish", wait_ms)
                return False
        self.runner.close()
        return True


def for_session(session: session_module.Session, parent: QtCore.QObject) -> HeartbeatRunner:
    """The runner of the window's vault, comparing by cosine once its search has a model."""
    return HeartbeatRunner(session.vault.root, parent, embed=lambda: embed_of(session))


def embed_of(session: session_module.Session) -> Embed | None:
    """Dedup's `embed` over the window's loaded sentence model, through the vault's
    embedding cache (what search embedded is not encoded again); None until semantic
    search is ready (`workspace.vault_workspace.heartbeat_embed`, as `serve` has it).
    Asked from the tick's worker thread: it only reads attributes."""
    from vault_app.workspace import vault_workspace

    return vault_workspace.heartbeat_embed(session.vault, session.engine)
