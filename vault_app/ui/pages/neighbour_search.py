"""The search dock of a neighbour's folder: its entries searched, a hit opens its page.

The engine is the one `vault-app search` uses there (`search.engine.open_engine` over the
`ForeignFolder`: each § entry, tier entry, profile key, block of a free-form file and
daily-note paragraph is a document; the index lives in memory). It is opened on a worker
when the window starts — BM25 first, then semantic search when asked for and available —
and refreshed on a worker after live sync reports a change, the query shown run again.
Every query runs on a worker; a result that comes after a newer query is dropped.

A hit says what it is (`[notes]`, `[tiers]`, `[daily]`...) and where (`origin["where"]`);
activating it emits `openOrigin(origin)`, which the window turns into its page.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6 import QtCore, QtWidgets

from vault_app.ui import session
from vault_app.workspace import engine_life

ORIGIN_ROLE = QtCore.Qt.ItemDataRole.UserRole


class NeighbourSearch(QtWidgets.QWidget):
    """A query field and the folder's hits."""

    openOrigin = QtCore.Signal(object)  # the hit's origin (dict)
    ready = QtCore.Signal()  # the engine answers (BM25, then again with semantic)
    searched = QtCore.Signal(object)  # search.results.SearchResult shown

    def __init__(
        self, s: session.FolderSession, *, semantic: bool, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = s
        self.semantic = semantic
        self.engine: Any = None
        self.mode = "bm25"
        self._generation = 0
        self.query_edit = QtWidgets.QLineEdit()
        self.query_edit.setPlaceholderText("Search this folder's memory…")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setAccessibleName("Search query")
        self.query_edit.returnPressed.connect(self.run_query)
        self._debounce = QtCore.QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self.run_query)
        self.query_edit.textEdited.connect(lambda _t: self._debounce.start())
        self.status = QtWidgets.QLabel("Preparing the search index…")
        self.status.setProperty("notice", True)
        self.status.setWordWrap(True)
        self.results = QtWidgets.QListWidget()
        self.results.setWordWrap(True)
        self.results.setAccessibleName("Search results")
        self.results.itemActivated.connect(self._activated)
        self.results.itemClicked.connect(self._activated)
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(6, 6, 6, 6)
        box.addWidget(self.query_edit)
        box.addWidget(self.status)
        box.addWidget(self.results, 1)

    # -- the engine -----------------------------------------------------------------------

    def open(self) -> None:
        """Open the folder's index on a worker (BM25; then semantic, if asked for)."""
        folder = self.session.folder

        def work() -> Any:  # numpy and scipy: imported on the worker
            return engine_life.open_bm25(folder, self.semantic)[0]

        self.session.run(work, self._opened, self._failed)

    def _opened(self, engine: Any) -> None:
        self.engine = engine
        self.status.setText("Type to search the folder's entries (BM25).")
        self.ready.emit()
        if self.query_edit.text().strip():
            self.run_query()
        if self.semantic:
            add = engine_life.add_semantic
            self.session.run(lambda: add(engine), self._semantic_done, self._failed)

    def _semantic_done(self, notice: str | None) -> None:
        if notice is None:
            self.mode = "hybrid"
        self.status.setText(
            notice or "Type to search the folder's entries (hybrid: BM25 and meaning)."
        )
        self.ready.emit()

    def _failed(self, exc: BaseException) -> None:
        title, message = session.describe(exc)
        self.status.setText(f"{title}: {message}")

    def refresh(self) -> None:
        """The folder changed (live sync): re-index what did, then run the query again."""
        engine = self.engine
        if engine is None:
            return
        self.session.run(engine.refresh, lambda _counts: self.run_query(), refresher=True)

    # -- queries --------------------------------------------------------------------------

    def focus_query(self) -> None:
        self.query_edit.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)
        self.query_edit.selectAll()

    def run_query(self) -> None:
        query = self.query_edit.text().strip()
        engine = self.engine
        if engine is None:
            return
        self._generation += 1
        generation = self._generation
        if not query:
            self.results.clear()
            return
        mode = self.mode
        self.session.run(
            lambda: engine.search(query, mode=mode, limit=30),
            lambda result: self._show(generation, result),
            self._failed,
        )

    def _show(self, generation: int, result: Any) -> None:
        if generation != self._generation:
            return
        self.results.clear()
        for hit in result.hits:
            origin = hit.origin or {}
            structure = origin.get("structure", hit.kind)
            where = origin.get("where", hit.path)
            item = QtWidgets.QListWidgetItem(f"[{structure}] {hit.text}\n{where}")
            item.setData(ORIGIN_ROLE, origin)
            item.setToolTip(html.escape(hit.text))
            self.results.addItem(item)
        count = len(result.hits)
        words = f"{count} hit{'s' if count != 1 else ''}"
        if result.notice:
            words += f" — {result.notice}"
        if not count and result.unknown:
            words = f"No good matches: the folder never mentions {', '.join(result.unknown)}."
        self.status.setText(words)
        self.searched.emit(result)

    def _activated(self, item: QtWidgets.QListWidgetItem) -> None:
        origin = item.data(ORIGIN_ROLE)
        if origin:
            self.openOrigin.emit(dict(origin))
