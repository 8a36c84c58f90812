"""The sidebar: the vault's tree (`models.SidebarModel`) with its four count columns, and
the panel that holds it under a type-to-filter box (`SidebarPanel`).

The count columns get a fixed width that fits five digits in bold with their separator
("10,579", the one number format of the window): measuring them to their contents
would re-read thousands of rows after every scan of a big vault. They can be hidden
together (the header's context menu, or `set_counts_shown`), for a narrow window; the
choice is kept in the settings under `SHOW_COUNTS_KEY`.

Filtering (issue 30: a vault of 2,000 entities is a long tree): the words typed in the
box keep the rows whose title holds every one of them, any case, with the groups above
them (opened), and hide the rest; the rows stay the model's own (no proxy model: the
window finds rows by address in the model), so the tree filters with `setRowHidden` and
filters again when a scan changes the rows, after a pause in typing (`TYPING_MS`). Down
moves into the tree, Enter opens the
first row kept, Esc clears the box. The panel hides and shows whole (View › Sidebar,
Ctrl+B), for a narrow window.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui import models

SHOW_COUNTS_KEY = "sidebar/showCounts"
TYPING_MS = 120  # the filter waits for a pause in typing


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
        bold = QtGui.QFont(self.font())  # a group's totals are bold: the widest a count is
        bold.setBold(True)
        self._digits = QtGui.QFontMetrics(bold).horizontalAdvance("00,000") + 6
        self.setItemDelegate(_Counts(self))
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


class _Counts(QtWidgets.QStyledItemDelegate):
    """Counts with their thousands separator ("10,579"), as the status bar and the pages
    write them; the model keeps them numbers."""

    def displayText(self, value: Any, locale: QtCore.QLocale | QtCore.QLocale.Language) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{value:,}"
        return super().displayText(value, locale)


class SidebarPanel(QtWidgets.QWidget):
    """The sidebar's tree under its filter box (see the module docstring)."""

    def __init__(self, view: SidebarView, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self._hidden: set[tuple[str, ...]] = set()  # the rows hidden, by their tree key
        self._later = QtCore.QTimer(self)  # one filtering for a burst of model changes
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(lambda: self.apply(full=True))
        self._typing = QtCore.QTimer(self)  # and for a burst of keys: a pause in typing
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_MS)
        self._typing.timeout.connect(lambda: self.apply())
        self.filter_edit = QtWidgets.QLineEdit()
        self.filter_edit.setObjectName("sidebarFilter")
        self.filter_edit.setPlaceholderText("Filter entities, agents…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName("Filter the sidebar")
        self.filter_edit.setToolTip("Keep the rows whose title holds every word typed (Esc clears)")
        self.filter_edit.textChanged.connect(lambda _text: self._typing.start())
        self.filter_edit.installEventFilter(self)
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(4, 4, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.filter_edit)
        column.addWidget(view, 1)
        model = view.model()
        for signal in (
            model.modelReset,
            model.rowsInserted,
            model.rowsRemoved,
            model.layoutChanged,
        ):
            signal.connect(lambda *_args: self._again())

    def words(self) -> list[str]:
        return self.filter_edit.text().casefold().split()

    def _again(self) -> None:
        """The model's rows changed: filter again, asking the view what it hides."""
        if self.words() or self._hidden:
            self._later.start()

    def apply(self, full: bool = False) -> int:
        """Hide the rows the words do not keep; the number of rows kept that match.

        The titles are read from the model's own tree (`SidebarModel.tree`: no index or
        data call a row), an index is made only for a row with rows below it, and only a
        row whose state changes is told to the view (the rows hidden are kept by key);
        after the model's rows changed (`full`), each row's state is asked of the view."""
        words = self.words()
        model = self.view.model()
        assert isinstance(model, models.SidebarModel)
        view = self.view
        hidden = self._hidden
        matched = 0

        def visit(children: list[Any], parent: QtCore.QModelIndex) -> bool:
            nonlocal matched
            any_kept = False
            for row, item in enumerate(children):
                title = item.node.name.casefold()
                own = bool(words) and all(word in title for word in words)
                below = False
                if item.children:
                    index = model.index(row, 0, parent)
                    below = visit(item.children, index)
                    if words and below and not view.isExpanded(index):
                        view.expand(index)
                keep = not words or own or below
                was = view.isRowHidden(row, parent) if full else item.key in hidden
                if was == keep:  # its state changes: tell the view
                    view.setRowHidden(row, parent, not keep)
                (hidden.discard if keep else hidden.add)(item.key)
                matched += own
                any_kept = any_kept or own or below
            return any_kept

        visit(model.tree.root.children, QtCore.QModelIndex())
        return matched

    def first_kept(self) -> QtCore.QModelIndex:
        """The first row the words keep that matches them (depth first), else invalid."""
        words = self.words()
        model = self.view.model()

        def visit(parent: QtCore.QModelIndex) -> QtCore.QModelIndex:
            for row in range(model.rowCount(parent)):
                index = model.index(row, 0, parent)
                title = str(index.data() or "").casefold()
                if words and all(word in title for word in words):
                    return index
                found = visit(index)
                if found.isValid():
                    return found
            return QtCore.QModelIndex()

        return visit(QtCore.QModelIndex())

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.filter_edit and event.type() == QtCore.QEvent.Type.KeyPress:
            assert isinstance(event, QtGui.QKeyEvent)
            key = event.key()
            if key == QtCore.Qt.Key.Key_Escape and self.filter_edit.text():
                self.filter_edit.clear()
                return True
            if key in (QtCore.Qt.Key.Key_Down, QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
                if self._typing.isActive():  # typed and pressed at once: filter first
                    self._typing.stop()
                    self.apply()
                first = self.first_kept()
                if first.isValid():
                    self.view.setCurrentIndex(first)  # the window opens what is current
                if key == QtCore.Qt.Key.Key_Down or first.isValid():
                    self.view.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
                return True
        return super().eventFilter(watched, event)
