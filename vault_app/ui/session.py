"""The window's one handle on an open vault: workers, writes, undo, change signals.

(`Workers` is the part every open folder has: the workers, `documentChanged`, `busy`,
`error`; `Session` adds the vault's, `FolderSession` holds a neighbour's folder.)

A `Session` belongs to the GUI thread. Slow calls go to a worker through `run`; writes go
through `write`, on one dedicated writer thread so that they land in the order the user
made them. Results and errors come back on the GUI thread, through the callbacks given
and through the session's signals:

* `scanned(VaultScan)` after every (re)scan: the sidebar and status bar refresh from it;
* `entityChanged(address)`, `documentChanged(path)`, `dailyChanged(scope, date)` after a
  write by this window (or, with live sync, by anyone), so only the affected views reload;
* `searchReady(engine)` once the search index is usable, `searchProgress(done, total,
  label)` while it is built or embeddings are computed;
* `error(title, message)`: a refused write, a corrupt file, a failed call, in plain words
  (`describe`). Widgets show it; nothing is ever raised into the event loop;
* `notice(title, message)`: something done that the person should hear of (a file
  restored from its backups), shown as a notice, not a warning.

The scan reads fact files only. A document a page found unreadable when it read it (a
summary.md that is not UTF-8) is told to the session (`found_unreadable`) and joins the
scan's problems from then on, so the status bar counts it and the sidebar marks it, until
a page reads it again whole (`found_readable`).

The search engine is opened in the background after the first scan; until then
`engine` is None and the search panel says the index is being prepared.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import shiboken6
from PySide6 import QtCore, QtGui

from vault_app.core import errors, layout, models, neighbours, vault
from vault_app.workspace import engine_life, reindex

log = logging.getLogger(__name__)

Callback = Callable[[Any], None]
ErrorCallback = Callable[[BaseException], None]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 file`, `2 files`, `0 files` (`nouns` for an irregular plural: entry, entries)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def unreadable(count: int) -> str:
    """`1 file could not be read`, `2 files could not be read`."""
    return f"{plural(count, 'file')} could not be read"


def describe(exc: BaseException) -> tuple[str, str]:
    """A title and a plain-words message (with what to do) for an error from the core."""
    if isinstance(exc, errors.ConflictError):
        return (
            "The file changed on disk",
            f"{exc.path.name} was changed by someone else since it was opened here, so "
            "nothing was written. Reload it to see their version, then make your edit again.",
        )
    if isinstance(exc, errors.CorruptFileError):
        where = f" ({exc.location})" if exc.location else ""
        return (
            "A file cannot be read",
            f"{exc.path}{where}: {exc.reason}.\n\nThe file was left untouched. Fix it in an "
            "editor, or run “vault-app doctor --repair” to restore it from a backup.",
        )
    if isinstance(exc, errors.LockTimeoutError):
        return (
            "The file is busy",
            f"{exc}\n\nAnother program kept the file locked. Try again in a moment.",
        )
    if isinstance(exc, errors.InvalidFactError | errors.InvalidIdError):
        return ("That cannot be saved", str(exc))
    if isinstance(exc, errors.NotFoundError):
        return ("Not found", f"{exc}\n\nIt may have been moved or removed outside the app.")
    if isinstance(exc, errors.AlreadyExistsError):
        return ("Already exists", str(exc))
    if isinstance(exc, errors.VaultError):
        return ("vault-app", str(exc))
    if isinstance(exc, OSError):
        return ("The disk refused", f"{exc.strerror or exc}: {exc.filename or ''}".strip(": "))
    return ("Something went wrong", f"{type(exc).__name__}: {exc}")


Cancelled = engine_life.Cancelled  # raised inside a long job whose window has closed


class _Relay(QtCore.QObject):
    """Carries a worker's outcome back to the GUI thread (queued signal delivery)."""

    done = QtCore.Signal(object)
    failed = QtCore.Signal(object)


class _Task(QtCore.QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.fn = fn
        self.relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.fn()
        except BaseException as exc:  # handed to the GUI thread, never lost
            if not isinstance(exc, errors.VaultError | OSError | Cancelled):
                log.error("worker failed:\n%s", traceback.format_exc())
            self._emit(self.relay.failed, exc)
        else:
            self._emit(self.relay.done, result)

    @staticmethod
    def _emit(signal: Any, value: Any) -> None:
        try:
            signal.emit(value)
        except RuntimeError:  # the session (and its relay) were deleted meanwhile
            log.debug("a worker finished after its window closed")


class Workers(QtCore.QObject):
    """The GUI's workers for one open folder: `run` calls off the GUI thread, writes in
    order on one writer thread, results and errors back on the GUI thread. A `Session`
    is this for a PARA vault; a neighbour's folder has `FolderSession`."""

    documentChanged = QtCore.Signal(str)  # absolute path of a file written or changed
    busy = QtCore.Signal(bool)  # some worker is running
    error = QtCore.Signal(str, str)  # title, plain-words message
    notice = QtCore.Signal(str, str)  # title, plain-words message: something done

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QtCore.QThreadPool(self)
        self.pool.setMaxThreadCount(max(2, QtCore.QThread.idealThreadCount()))
        self.writer = QtCore.QThreadPool(self)
        self.writer.setMaxThreadCount(1)
        # scans and index updates, one at a time, each from the latest state: two batches
        # of external changes in a row must not each start from the same old scan
        self.refresher = QtCore.QThreadPool(self)
        self.refresher.setMaxThreadCount(1)
        self._relays: set[_Relay] = set()
        self._running = 0
        self.closed = False

    # -- workers --------------------------------------------------------------------------

    def run(
        self,
        fn: Callable[[], Any],
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
        *,
        writer: bool = False,
        refresher: bool = False,
    ) -> None:
        """Call `fn()` on a worker; then `on_done(result)` or `on_error(exc)` on this thread.

        `writer` runs it on the one writer thread, `refresher` on the one thread that keeps
        the scan and the search index current; else on the general pool.

        Without `on_error`, a failure is announced through `error` in plain words.
        """
        relay = _Relay()
        self._relays.add(relay)
        self._set_running(+1)

        def finish() -> None:
            self._relays.discard(relay)
            self._set_running(-1)

        def done(result: Any) -> None:
            finish()
            if on_done is not None and not self.closed:
                on_done(result)

        def failed(exc: BaseException) -> None:
            finish()
            if self.closed:
                return
            if on_error is not None:
                on_error(exc)
            else:
                self.report(exc)

        relay.done.connect(done, QtCore.Qt.ConnectionType.QueuedConnection)
        relay.failed.connect(failed, QtCore.Qt.ConnectionType.QueuedConnection)
        pool = self.writer if writer else self.refresher if refresher else self.pool
        pool.start(_Task(fn, relay))

    def write_files(
        self,
        fn: Callable[[], Any],
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
        *,
        documents: tuple[Path, ...] = (),
    ) -> None:
        """Run the write `fn()` on the writer thread, then announce the files it wrote
        (`documentChanged`) before `on_done(result)`."""

        def done(result: Any) -> None:
            for path in documents:
                self.documentChanged.emit(str(path))
            if on_done is not None:
                on_done(result)

        self.run(fn, done, on_error, writer=True)

    def report(self, exc: BaseException) -> None:
        title, message = describe(exc)
        self.error.emit(title, message)

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every worker is done (tests, and closing the window)."""
        ok = True
        for _ in range(3):  # a finished task may queue another (a write, then its rescan)
            ok = all(p.waitForDone(msecs) for p in (self.writer, self.refresher, self.pool))
            QtCore.QCoreApplication.processEvents()
        return ok

    def close(self) -> None:
        self.closed = True
        self.pool.clear()
        self.refresher.clear()
        for pool in (self.writer, self.refresher, self.pool):
            pool.waitForDone(30_000)

    def _set_running(self, delta: int) -> None:
        before = self._running
        self._running += delta
        # A job may end after the window that started it was destroyed (its relay outlives
        # it): then there is no one to tell, and the signal's source is gone.
        if (before == 0) != (self._running == 0) and shiboken6.isValid(self):
            self.busy.emit(self._running > 0)


class FolderSession(Workers):
    """A neighbour's memory folder (`core.neighbours.ForeignFolder`) as the window sees
    it: the workers, and the change signal its pages follow (`documentChanged`, from the
    window's writes and from live sync)."""

    def __init__(
        self, folder: neighbours.ForeignFolder, parent: QtCore.QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.folder = folder


class Session(Workers):
    """An open vault as the GUI sees it."""

    scanned = QtCore.Signal(object)  # core.vault.VaultScan
    listed = QtCore.Signal(object)  # a VaultScan without counts (`list_entities`), first
    entityChanged = QtCore.Signal(str)  # entity address, e.g. "areas/people/jane"
    dailyChanged = QtCore.Signal(str, object)  # scope ("global" or "agent:ID"), dt.date
    entityRemoved = QtCore.Signal(str)  # deleted outside the app
    entityMoved = QtCore.Signal(str, str)  # moved outside the app: old address, new address
    liveStatus = QtCore.Signal(str, str)  # live sync: state, plain-words message
    syncConflicts = QtCore.Signal(object)  # Syncthing conflict copies left for a person
    searchReady = QtCore.Signal(object)  # search.engine.SearchEngine
    searchProgress = QtCore.Signal(int, int, str)  # done, total, label

    def __init__(self, target: vault.Vault, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.vault = target
        self.scan: vault.VaultScan | None = None
        self.listing: vault.VaultScan | None = None  # entities without counts, first
        self.engine: Any = None  # search.engine.SearchEngine once ready
        self.engine_notice: str | None = None
        self.undo_stack = QtGui.QUndoStack(self)
        self._latest_scan: vault.VaultScan | None = None  # touched on the refresher only
        self.count_browsing_as_access = False
        self.read_problems: dict[str, models.Problem] = {}  # documents found unreadable

    def write(
        self,
        fn: Callable[[vault.Vault], Any],
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
        *,
        entities: tuple[str, ...] = (),
        documents: tuple[Path, ...] = (),
        daily: tuple[tuple[str, dt.date], ...] = (),
        rescan: bool = False,
    ) -> None:
        """Run the write `fn(vault)` on the writer thread, then announce what it changed."""

        def done(result: Any) -> None:
            for address in entities:
                self.entityChanged.emit(address)
            for path in documents:
                self.documentChanged.emit(str(path))
            for scope, day in daily:
                self.dailyChanged.emit(scope, day)
            if on_done is not None:
                on_done(result)
            if rescan or entities:
                refs = tuple(layout.EntityRef.parse(address) for address in entities)
                self.absorb(reindex.Reindex(entities=refs), entities, rescan=rescan)

        self.run(lambda: fn(self.vault), done, on_error, writer=True)

    def close(self) -> None:
        super().close()
        if self.engine is not None:
            try:
                self.engine.save()
            except Exception:  # the index is a cache: losing it costs a rebuild, no data
                log.warning("could not save the search index", exc_info=True)

    # -- loading --------------------------------------------------------------------------

    def list_entities(self, then_scan: bool = True) -> None:
        """List the entities without reading a file (fast) off-thread; emits `listed`,
        then (with `then_scan`) scans for the counts: one after the other, since both
        compete for the same interpreter."""

        def listed(listing: vault.VaultScan) -> None:
            self.listing = listing
            self.listed.emit(listing)
            if then_scan:
                self.rescan()

        self.run(self.vault.list_entities, listed)

    @property
    def known(self) -> vault.VaultScan | None:
        """The entities and agents as last seen: the scan, or the quick listing before it."""
        return self.scan if self.scan is not None else self.listing

    def rescan(self, on_done: Callback | None = None) -> None:
        """Scan the vault (tier counts, problems) off-thread; emits `scanned`."""

        def work() -> vault.VaultScan:
            # few scan threads: on a warm disk the scan is bound by the interpreter, and
            # every extra thread competing for it makes the GUI thread wait for its turn
            self._latest_scan = self.vault.scan()
            return self._latest_scan

        self.run(work, lambda scan: self._scanned(scan, on_done), refresher=True)

    def _scanned(self, scan: vault.VaultScan, on_done: Callback | None = None) -> None:
        self.scan = self._with_read_problems(scan)
        self.scanned.emit(self.scan)
        if on_done is not None:
            on_done(self.scan)

    def found_unreadable(self, exc: errors.CorruptFileError) -> None:
        """A page could not read `exc.path` (a document the scan does not read): it is
        counted and marked with the scan's problems from now on."""
        relative = self.vault.paths.relative(exc.path)
        problem = models.Problem(path=relative, location=exc.location, message=exc.reason)
        if self.read_problems.get(relative) != problem:
            self.read_problems[relative] = problem
            self._show_read_problems()

    def found_readable(self, path: Path) -> None:
        """A page read `path` whole: it is no longer counted as unreadable."""
        if self.read_problems.pop(self.vault.paths.relative(path), None) is not None:
            self._show_read_problems()

    def _show_read_problems(self) -> None:
        if self.scan is not None:
            self._scanned(self.scan)

    def _with_read_problems(self, scan: vault.VaultScan) -> vault.VaultScan:
        """`scan` with the documents found unreadable among its problems (once each)."""
        problems = [p for p in scan.problems if p.path not in self.read_problems]
        problems += self.read_problems.values()
        if problems == scan.problems:
            return scan
        return dataclasses.replace(scan, problems=problems)

    def absorb(
        self, change: reindex.Reindex, entities: tuple[str, ...] = (), *, rescan: bool = False
    ) -> None:
        """Catch up with changes (live sync's, or this window's own writes): re-count only
        the changed `entities` (everything with `rescan`, or when the change is `whole`:
        agents came or went) and re-index what `change` names (`workspace.reindex`);
        emits `scanned`."""
        engine = self.engine

        def work() -> vault.VaultScan:
            base = self._latest_scan
            if rescan or change.whole or base is None:
                self._latest_scan = self.vault.scan()
            else:
                self._latest_scan = self.vault.update_scan(base, entities)
            if engine is not None:
                change.apply(engine)
            return self._latest_scan

        self.run(work, self._scanned, refresher=True)

    def open_search(self, semantic: bool = True, then: Callable[[], None] | None = None) -> None:
        """Open (or build) the search index off-thread, in two steps.

        BM25 first: `searchReady` fires as soon as lexical search works (seconds even on a
        200,000-fact vault). Then, with `semantic`, the model is loaded and the documents
        embedded (cached embeddings cost nothing; `searchProgress` reports the rest) while
        BM25 keeps answering; `searchReady` fires again once hybrid search is on.
        `then()` is called once BM25 is open, or failed to (the failure is reported).
        """

        def progress(done: int, total: int, label: str = "embedding") -> None:
            if self.closed:  # the window is gone: stop encoding for it
                raise Cancelled("the window was closed")
            self.searchProgress.emit(done, total, label)

        def opened(result: Any) -> None:
            self.engine, report = result
            self.engine_notice = report.notice
            engine = self.engine
            self.searchReady.emit(engine)
            if then is not None:
                then()
            if semantic:
                add = engine_life.add_semantic
                self.run(lambda: add(engine, progress=progress), semantic_done)

        def failed(exc: BaseException) -> None:
            self.report(exc)
            if then is not None:
                then()

        def semantic_done(notice: str | None) -> None:
            self.engine_notice = notice
            self.searchReady.emit(self.engine)

        # on a worker: the engine pulls numpy and scipy (a second of imports on a busy
        # machine) that the GUI thread must not wait for
        self.run(lambda: engine_life.open_bm25(self.vault, semantic), opened, failed)

    def reindex(self, addresses: tuple[str, ...]) -> None:
        engine = self.engine

        def work() -> None:
            for address in addresses:
                engine.refresh_entity(address)

        self.run(work, on_error=lambda exc: log.warning("re-index failed: %s", exc), refresher=True)
