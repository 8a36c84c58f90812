"""The window's link index (`core.links.LinkIndex`), built off the GUI thread and kept
current as entities change, for the backlinks panel and the graph view.

Design
------
`LinkKeeper(session)` builds the index on a worker after the first scan
(`Vault.link_index`: every fact file read once). Then it never reads the vault again as a
whole: an `entityChanged` (a write here, or live sync) queues that entity; the queue is
read on a worker a moment later (`Vault.entity_links`) and swapped in on the GUI thread
(`LinkIndex.replace`, a few dict operations). When entities came or went (a scan's set of
addresses differs from the index's, or a queued entity is gone or new), the entities that
arrived are read and every reference resolved again on a worker into a new index, which
replaces the old one: the GUI thread only ever reads an index no worker is changing.

One job at a time: while a build or a re-resolve runs, changes wait in the queue (and the
latest set of addresses wanted), and are applied to the new index once it is in.
`changed` is emitted after each update; until the first build is done
`index` is None and readers say that links are being read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

from vault_app.core import layout, links, process_tuning
from vault_app.ui.session import Session


class LinkKeeper(QtCore.QObject):
    """The session's link index, kept current (see the module docstring)."""

    changed = QtCore.Signal()

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent or session)
        self.session = session
        self.index: links.LinkIndex | None = None
        self._busy = False  # a build, a re-resolve or a read of the queue is under way
        self._rebuild_asked = False
        self._wanted: set[str] | None = None  # the entities the index should hold
        self._dirty: set[str] = set()
        self._flush = QtCore.QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(150)  # a burst of writes is read once
        self._flush.timeout.connect(self._next)
        session.scanned.connect(self._on_scanned)
        session.entityChanged.connect(self._on_changed)
        session.entityRemoved.connect(self._on_changed)
        session.entityMoved.connect(self._on_moved)
        if session.scan is not None:
            self._on_scanned(session.scan)

    @property
    def ready(self) -> bool:
        return self.index is not None

    # -- what to do ---------------------------------------------------------------------

    def rebuild(self) -> None:
        """Read every fact file again (a Rescan), off the GUI thread."""
        self._rebuild_asked = True
        self._next()

    def _on_scanned(self, scan: object) -> None:
        entities = getattr(scan, "entities", None)
        if entities is None:
            return
        self._wanted = {e.address for e in entities}
        if self.index is None:
            self._rebuild_asked = True
        self._next()

    def _on_changed(self, address: str) -> None:
        canonical = layout.EntityRef.canonical(address)
        if canonical is not None:
            self._dirty.add(canonical)
            self._flush.start()

    def _on_moved(self, old: str, new: str) -> None:
        self._on_changed(old)
        self._on_changed(new)

    def _next(self) -> None:
        """Start the next job, if none is running: a build, a re-resolve, or the queue."""
        if self._busy:
            return
        if self._rebuild_asked:
            self._build()
        elif self.index is None:
            return
        elif self._wanted is not None and self._wanted != self.index.addresses:
            self._resolve(self._wanted)
        elif self._dirty:
            self._read_dirty()

    def _run(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """One job on a worker; then `done` on the GUI thread, then the next job."""
        self._busy = True

        def finished(result: Any) -> None:
            self._busy = False
            done(result)
            self._next()

        def failed(exc: BaseException) -> None:
            self._busy = False
            self.session.report(exc)

        self.session.run(work, finished, failed)

    def _swap(self, index: links.LinkIndex) -> None:
        self.index = index
        self.changed.emit()

    # -- the jobs -----------------------------------------------------------------------

    def _build(self) -> None:
        self._rebuild_asked = False
        self._dirty.clear()  # every file is read now
        self._run(self.session.vault.link_index, self._swap)

    def _resolve(self, addresses: set[str]) -> None:
        """A new index among `addresses`: the kept references, and those of the entities
        that arrived (moved in, created outside) read now."""
        assert self.index is not None
        kept = self.index.written()
        arrived = sorted(addresses - self.index.addresses)
        self._dirty.difference_update(arrived)
        v = self.session.vault

        def work() -> links.LinkIndex:
            fresh = [w for w in (v.entity_links(a) for a in arrived) if w is not None]
            with process_tuning.paused(freeze=True):  # as the first build (`links.build`)
                return links.LinkIndex(addresses, [*kept, *fresh])

        self._run(work, self._swap)

    def _read_dirty(self) -> None:
        wanted, self._dirty = sorted(self._dirty), set()
        v = self.session.vault

        def work() -> list[tuple[str, links.EntityLinks | None]]:
            return [(a, v.entity_links(a)) for a in wanted]

        def done(found: list[tuple[str, links.EntityLinks | None]]) -> None:
            index = self.index
            assert index is not None
            addresses = set(self._wanted if self._wanted is not None else index.addresses)
            for address, written in found:
                if written is None:
                    addresses.discard(address)
                elif address in index.addresses:
                    index.replace(written)
                else:  # new here: read again by the re-resolve that follows
                    addresses.add(address)
            self._wanted = addresses
            self.changed.emit()

        self._run(work, done)
