"""The sidebar: the vault's tree (`models.SidebarModel`) with its four count columns.

The count columns get a fixed width that fits five digits: measuring them to their contents
would re-read thousands of rows after every scan of a big vault. They can be hidden
together (the header's context menu, or `set_counts_shown`), for a narrow window; the
choice is kept in the settings under `SHOW_COUNTS_KEY`.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from vault_app.ui import models

SHOW_COUNTS_KEY = "sidebar/showCounts"


class SidebarView(QtWidgets.QTreeView):
    """The tree of entities, agents and documents, with collapsible count columns."""

    countsShown = QtCore.Signal(bool)  # the count columns were shown or hidden

    def __init__(self, model: models.SidebarModel, store: QtCore.QSettings) -> None:
        super().__init__()
        self.store = store
        self.setObjectName("sidebar")
        self.setModel(model)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(False)
        self.setAccessibleName("Vault contents")
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self._digits = self.fontMetrics().horizontalAdvance("00000") + 8
        for column in range(1, model.columnCount()):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.Fixed)
            header.resizeSection(column, self._digits)
        # the first entities arrive as a reset (models.SidebarModel.update): open the
        # top rows again then
        model.modelReset.connect(lambda: self.expandToDepth(0))
        self.set_counts_shown(bool(self.store.value(SHOW_COUNTS_KEY, True, type=bool)))

    def counts_shown(self) -> bool:
        return not self.isColumnHidden(1)

    def set_counts_shown(self, shown: bool) -> None:
        """Show or hide the four count columns (kept in the settings)."""
        for column in range(1, self.model().columnCount()):
            self.setColumnHidden(column, not shown)
        counts = 4 * self._digits if shown else 0
        self.setMinimumWidth(counts + 140)  # room for names beside the counts
        self.store.setValue(SHOW_COUNTS_KEY, shown)
        self.countsShown.emit(shown)
