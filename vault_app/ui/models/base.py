"""What the item models share: their item data roles, the tier colours, the read-only
named-columns mixin, and the flat list model that search results and the switcher fill."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models
from vault_app.ui import themes

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

_ROOT = QtCore.QModelIndex()  # the invisible root (default `parent` argument)

NODE_ROLE = Role.UserRole + 10  # a sidebar row's `sidebar.Node`
FACT_ROLE = Role.UserRole + 11  # a facts row's `core.models.Fact`
TIER_ROLE = Role.UserRole + 12  # "hot" / "warm" / "cold" (Qt hands str enums back as str)
SORT_ROLE = Role.UserRole + 13  # what a facts column sorts by

TIER_COLOURS = {
    models.DecayTier.HOT: "#c8400c",
    models.DecayTier.WARM: "#e8a200",
    models.DecayTier.COLD: "#3f73aa",
}


def disabled_text() -> QtGui.QColor:
    """The colour of text that is shown but counts less (superseded, archived): the
    theme's muted text, readable (4.5:1) where the disabled colour was not."""
    return themes.muted_text(QtGui.QGuiApplication.palette())


class ReadOnlyColumns:
    """Header and flags of a read-only model with named columns (`COLUMNS`, with a
    tooltip each in `COLUMN_TIPS`); columns from `RIGHT_FROM` on are right-aligned."""

    COLUMNS: tuple[str, ...] = ()
    COLUMN_TIPS: tuple[str, ...] = ()
    RIGHT_FROM: int | None = None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Role.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Role.DisplayRole:
            return self.COLUMNS[section]
        if role == Role.ToolTipRole:
            return self.COLUMN_TIPS[section]
        right = self.RIGHT_FROM is not None and section >= self.RIGHT_FROM
        if role == Role.TextAlignmentRole and right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ColumnTable(ReadOnlyColumns):
    """A flat read-only table: one row per item of `_rows`, one column per `COLUMNS`
    entry (the facts table, the review queue)."""

    _rows: Sequence[Any]

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)


class RowListModel(QtCore.QAbstractListModel):
    """A flat list of rows, replaced whole by `set_rows`; a subclass says what each role
    of a row shows (`row_data`). Search results and the quick switcher's matches."""

    row_data: Callable[[Any, int], Any]  # what a row shows for a role (each subclass)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return self.row_data(self._rows[index.row()], role)

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[Any]:
        return list(self._rows)


def draw_item_frame(
    delegate: QtWidgets.QStyledItemDelegate,
    painter: QtGui.QPainter,
    option: QtWidgets.QStyleOptionViewItem,
    index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
) -> tuple[QtWidgets.QStyleOptionViewItem, str]:
    """Draw an item's background, selection and focus as the style does, but not its
    text (a delegate paints its own); the options it was drawn with, and that text."""
    opt = QtWidgets.QStyleOptionViewItem(option)
    delegate.initStyleOption(opt, index)
    text, opt.text = opt.text, ""
    widget = opt.widget
    style = widget.style() if widget is not None else QtWidgets.QApplication.style()
    style.drawControl(QtWidgets.QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
    return opt, text


# -- "changed since you last looked" -------------------------------------------------------

# an entity row (sidebar) or a fact row (facts table) that an agent changed since the person
# last opened the entity: the role gives the words ("Changed by finance since you last
# looked"), the row shows `changed_mark()`
CHANGED_ROLE = Role.UserRole + 41
CHANGED_COLOUR = "#1c7ed6"
_MARKS: dict[str, QtGui.QImage] = {}


def changed_mark() -> QtGui.QImage:
    """A small blue dot (an image: needs no GUI application, drawn once)."""
    mark = _MARKS.get("changed")
    if mark is None:
        mark = QtGui.QImage(16, 16, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        mark.fill(Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(mark)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(CHANGED_COLOUR))
        painter.drawEllipse(QtCore.QRectF(4, 4, 8, 8))
        painter.end()
        _MARKS["changed"] = mark
    return mark
