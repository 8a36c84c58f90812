"""The window's link index (`core.links.LinkIndex`), built off the GUI thread and kept
current as entities change, for the backlinks panel and the graph view.

Design
------
`LinkKeeper(session)` builds the index on a worker after the first scan
(`Vault.link_index`: every fact file read once). Then it never reads the vault again as a
whole: an `entityChanged` (a write here, or live sync) queues that entity; the queue is
read on a worker a moment later (`Vault.entity_links`) and swapped in on the GUI thread
(`LinkIndex.replace`, a few dict operations). When a scan shows that entities came or went
(the set of addresses differs), the kept references are resolved again on a worker into
a new index, which replaces the old one: the GUI thread only ever reads an index no
worker is changing. `changed` is emitted after each update; until the first build is done
`index` is None and readers say that links are being read.
"""

from __future__ import annotations

from PySide6 import QtCore

from vault_app.core import layout, links
from vault_app.ui.session import Session


class LinkKeeper(QtCore.QObject):
    """The session's link index, kept current (see the module docstring)."""

    changed = QtCore.Signal()

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent or session)
        self.session = session
        self.index: links.LinkIndex | None = None
        self._building = False
        self._generation = 0  # bumped per swap-in: a slower result for an older one is dropped
        self._dirty: set[str] = set()
        self._flush = QtCore.QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(150)  # a burst of writes is read once
        self._flush.timeout.connect(self._read_dirty)
        session.scanned.connect(self._on_scanned)
        session.entityChanged.connect(self._on_changed)
        session.entityRemoved.connect(self._on_changed)
        session.entityMoved.connect(self._on_moved)
        if session.scan is not None:
            self._on_scanned(session.scan)

    @property
    def ready(self) -> bool:
        return self.index is not None

    # -- building -------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Read every fact file again (a Rescan), off the GUI thread."""
        if self._building:
            return
        self._building = True
        v = self.session.vault

        def done(index: links.LinkIndex) -> None:
            self._building = False
            self._swap(index)
            if self._dirty:  # changed while it was read: read those again
                self._flush.start()

        def failed(exc: BaseException) -> None:
            self._building = False
            self.session.report(exc)

        self.session.run(v.link_index, done, failed)

    def _swap(self, index: links.LinkIndex) -> None:
        self._generation += 1
        self.index = index
        self.changed.emit()

    def _on_scanned(self, scan: object) -> None:
        entities = getattr(scan, "entities", None)
        if entities is None:
            return
        addresses = {e.address for e in entities}
        if self.index is None:
            self.rebuild()
        elif addresses != self.index.addresses and not self._building:
            self._resolve(addresses)

    def _resolve(self, addresses: set[str]) -> None:
        """A new index from the kept references, resolved among `addresses`."""
        assert self.index is not None
        self._resolve_with(addresses, self.index.written())

    # -- one entity at a time -------------------------------------------------------------

    def _on_changed(self, address: str) -> None:
        canonical = layout.EntityRef.canonical(address)
        if canonical is not None:
            self._dirty.add(canonical)
            self._flush.start()

    def _on_moved(self, old: str, new: str) -> None:
        self._on_changed(old)
        self._on_changed(new)

    def _read_dirty(self) -> None:
        if self.index is None or self._building or not self._dirty:
            return
        wanted, self._dirty = sorted(self._dirty), set()
        v = self.session.vault
        generation = self._generation

        def work() -> list[tuple[str, links.EntityLinks | None]]:
            return [(a, v.entity_links(a)) for a in wanted]

        def done(found: list[tuple[str, links.EntityLinks | None]]) -> None:
            index = self.index
            if index is None or generation != self._generation:
                self._dirty.update(wanted)  # the index was replaced meanwhile: again
                self._flush.start()
                return
            addresses = set(index.addresses)
            for address, written in found:
                if written is None:
                    addresses.discard(address)
                else:
                    addresses.add(address)
            if addresses != index.addresses:  # came or went: resolve all, off-thread
                kept = {w.address: w for w in index.written()}
                kept.update((a, w) for a, w in found if w is not None)
                self._resolve_with(addresses, list(kept.values()))
                return
            for _address, written in found:
                if written is not None:
                    index.replace(written)
            self.changed.emit()

        self.session.run(work, done)

    def _resolve_with(self, addresses: set[str], written: list[links.EntityLinks]) -> None:
        generation = self._generation

        def done(fresh: links.LinkIndex) -> None:
            if generation == self._generation:
                self._swap(fresh)

        self.session.run(lambda: links.LinkIndex(addresses, written), done)
