"""The facts table made readable at any width: the Fact column stretches and wraps,
cut text has a tooltip, optional columns hide from the header's context menu, Tab leaves.

Design
------
`FactsTable(table, store)` dresses the entity page's `QTableView` (the page builds it; the
window, which holds the settings, applies this):

* **Wrap, cheaply.** The Fact column stretches and wraps. Sizing every row to its contents
  (`ResizeToContents`) lays out every fact on each resize: on an entity of thousands of
  facts that is a stall. Instead only the rows in view are sized (`fit_visible`, run once
  the event loop is free after a scroll, a resize, a column resize or a model change); a
  row is at most `MAX_LINES` lines, the rest elided with a tooltip.
* **The fact keeps its room.** When the table gets narrow (the search dock open at
  1280 px), the other columns shrink in proportion (down to `MIN_COLUMN`) so that the
  Fact column keeps `FACT_SHARE` of the width; their cut text gets a tooltip. A column
  the user widens by hand keeps that width as its natural one.
* **Tooltips for cut text.** Over a cell whose text does not fit (elided or clipped), the
  tooltip is the whole text; elsewhere the model's own tooltip.
* **Optional columns.** Every column but Fact can be hidden from the header's context
  menu; the hidden ones are kept in the settings (`HIDDEN_KEY`, by column title).
  Accesses, Confidence and Status start hidden: they leave the fact room at 1280 px.
* **Tab leaves the table** (`setTabKeyNavigation(False)`): arrows move between rows,
  Tab goes on to the next field, as everywhere else in the window.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui import models as qt_models

Qt = QtCore.Qt
HIDDEN_KEY = "facts/hiddenColumns"
MAX_LINES = 6
_F = qt_models.FactsModel
DEFAULT_HIDDEN = (_F.COLUMNS[_F.ACCESSES], _F.COLUMNS[_F.CONFIDENCE], _F.COLUMNS[_F.STATUS])
PADDING = 10  # the cell's margins around its text, both sides together
FACT_SHARE = 0.45
MIN_COLUMN = 56  # a tier pill still fits


class FactsTable(QtCore.QObject):
    """Wrapping, tooltips, hideable columns and Tab for one facts table."""

    def __init__(self, table: QtWidgets.QTableView, store: QtCore.QSettings) -> None:
        super().__init__(table)
        self.table = table
        self.store = store
        table.setTabKeyNavigation(False)
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = table.horizontalHeader()
        header.setTextElideMode(Qt.TextElideMode.ElideRight)  # "Last acce…", not ".ast accesse"
        header.setSectionResizeMode(_F.FACT, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.natural = {c: table.columnWidth(c) for c in range(1, len(_F.COLUMNS))}
        self._fitting = False
        header.sectionResized.connect(self._user_resized)
        self.line = table.fontMetrics().lineSpacing()
        self.row_height = table.verticalHeader().defaultSectionSize()
        for title in self.hidden_titles():
            if title in _F.COLUMNS and title != _F.COLUMNS[_F.FACT]:
                table.setColumnHidden(_F.COLUMNS.index(title), True)

        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.fit_visible)
        table.verticalScrollBar().valueChanged.connect(self._schedule)
        header.sectionResized.connect(self._schedule)
        model = table.model()
        for signal in (
            model.modelReset,
            model.layoutChanged,
            model.rowsInserted,
            model.dataChanged,
        ):
            signal.connect(self._schedule)
        table.viewport().installEventFilter(self)

    # -- columns ------------------------------------------------------------------------------

    def hidden_titles(self) -> list[str]:
        value = self.store.value(HIDDEN_KEY)
        if value is None:
            return list(DEFAULT_HIDDEN)
        if isinstance(value, str):  # QSettings gives one item back as a plain string
            return [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else list(DEFAULT_HIDDEN)

    def set_column_shown(self, column: int, shown: bool) -> None:
        """Show or hide an optional column (never Fact); kept in the settings."""
        if column == _F.FACT:
            return
        self.table.setColumnHidden(column, not shown)
        self.fit_columns()
        hidden = [t for i, t in enumerate(_F.COLUMNS) if self.table.isColumnHidden(i)]
        self.store.setValue(HIDDEN_KEY, hidden if hidden else "")

    def header_menu(self) -> QtWidgets.QMenu:
        """The header's context menu: a check per optional column."""
        menu = QtWidgets.QMenu(self.table)
        menu.setObjectName("factsColumnsMenu")
        for column, title in enumerate(_F.COLUMNS):
            if column == _F.FACT:
                continue
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(not self.table.isColumnHidden(column))
            action.setToolTip(_F.COLUMN_TIPS[column])
            action.toggled.connect(lambda on, c=column: self.set_column_shown(c, on))
        menu.addSeparator()
        show_all = menu.addAction("Show all columns")
        show_all.triggered.connect(self._show_all)
        return menu

    def fit_columns(self) -> None:
        """Shrink the other columns, in proportion, when the Fact column would get less
        than its share of the width; give them their natural widths back otherwise."""
        shown = [c for c in self.natural if not self.table.isColumnHidden(c)]
        width = self.table.viewport().width()
        room = width - max(200, int(FACT_SHARE * width))
        wanted = sum(self.natural[c] for c in shown)
        factor = 1.0 if wanted <= room or wanted == 0 else max(room, 0) / wanted
        self._fitting = True
        try:
            for column in shown:
                natural = self.natural[column]
                self.table.setColumnWidth(
                    column, max(min(natural, MIN_COLUMN), int(natural * factor))
                )
        finally:
            self._fitting = False

    def _user_resized(self, column: int, _old: int, new: int) -> None:
        if not self._fitting and column in self.natural and not self.table.isColumnHidden(column):
            self.natural[column] = new

    def _show_all(self) -> None:
        for column in range(1, len(_F.COLUMNS)):
            self.set_column_shown(column, True)

    def _header_menu(self, pos: QtCore.QPoint) -> None:
        self.header_menu().popup(self.table.horizontalHeader().mapToGlobal(pos))

    # -- rows ---------------------------------------------------------------------------------

    def _schedule(self, *_args: object) -> None:
        self._timer.start()

    def fact_height(self, row: int) -> int:
        """The height the fact of `row` needs at the Fact column's width (capped)."""
        index = self.table.model().index(row, _F.FACT)
        text = str(index.data() or "")
        width = max(20, self.table.columnWidth(_F.FACT) - PADDING)
        metrics = QtGui.QFontMetrics(index.data(Qt.ItemDataRole.FontRole) or self.table.font())
        flags = int(Qt.TextFlag.TextWordWrap)
        box = metrics.boundingRect(QtCore.QRect(0, 0, width, 10_000), flags, text)
        lines = min(MAX_LINES, max(1, round(box.height() / max(1, metrics.lineSpacing()))))
        return max(self.row_height, lines * metrics.lineSpacing() + PADDING)

    def fit_visible(self) -> int:
        """Size the rows in view to their facts; returns how many were looked at."""
        table = self.table
        model = table.model()
        if model is None or model.rowCount() == 0:
            return 0
        header = table.verticalHeader()
        first = max(0, table.rowAt(0))
        bottom = table.viewport().height()
        row, looked = first, 0
        while row < model.rowCount():
            height = self.fact_height(row)
            if header.sectionSize(row) != height:
                header.resizeSection(row, height)
            looked += 1
            if header.sectionViewportPosition(row) + height >= bottom:
                break
            row += 1
        return looked

    # -- tooltips -----------------------------------------------------------------------------

    def cut_text(self, index: QtCore.QModelIndex) -> str | None:
        """The whole text of a cell that does not fit in it, else None."""
        text = index.data()
        if not isinstance(text, str) or not text:
            return None
        rect = self.table.visualRect(index)
        metrics = self.table.fontMetrics()
        if index.column() == _F.FACT:
            width = max(20, rect.width() - PADDING)
            flags = int(Qt.TextFlag.TextWordWrap)
            box = metrics.boundingRect(QtCore.QRect(0, 0, width, 10_000), flags, text)
            fits = box.height() <= rect.height() - PADDING + 2 and box.width() <= width
        else:
            fits = metrics.horizontalAdvance(text) + PADDING <= rect.width()
        return None if fits else text

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:
            assert isinstance(event, QtGui.QHelpEvent)
            index = self.table.indexAt(event.pos())
            whole = self.cut_text(index) if index.isValid() else None
            if whole is not None:
                tip = index.data(Qt.ItemDataRole.ToolTipRole)
                shown = f"{whole}\n\n{tip}" if tip and tip != whole else whole
                QtWidgets.QToolTip.showText(event.globalPos(), shown, self.table.viewport())
                return True
        elif event.type() == QtCore.QEvent.Type.Resize:
            self.fit_columns()
            self._schedule()
        return super().eventFilter(watched, event)


def show_rows(view: QtWidgets.QTreeView, rows: int) -> None:
    """Keep room for `rows` rows (and the header) in `view`, however the splitter moves."""
    row = max(view.fontMetrics().height() + 8, view.sizeHintForRow(0))
    header = view.header().sizeHint().height() if not view.isHeaderHidden() else 0
    scrollbar = view.horizontalScrollBar().sizeHint().height()
    view.setMinimumHeight(header + rows * row + 2 * view.frameWidth() + scrollbar)
