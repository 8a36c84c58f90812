"""A layout that lays its items in a row and wraps onto the next row when the width runs
out (Qt's "Flow Layout" example): a bar of filters stays whole in a narrow window instead
of forcing the window wider. A stretch item (`addStretch`) is ignored: rows are packed
from the left; a widget added with `stretch=1` takes the row's spare width."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class FlowLayout(QtWidgets.QLayout):
    """Items left to right, wrapped to as many rows as the width needs."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QtWidgets.QLayoutItem] = []
        self._stretch: set[int] = set()  # ids of the items that take the spare width
        self._space = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QtWidgets.QLayoutItem) -> None:
        self._items.append(item)

    def add(self, widget: QtWidgets.QWidget, stretch: int = 0) -> None:
        self.addWidget(widget)
        if stretch:
            self._stretch.add(id(self._items[-1]))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> QtCore.Qt.Orientation:
        return QtCore.Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._lay_out(QtCore.QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        self._lay_out(rect, apply=True)

    def sizeHint(self) -> QtCore.QSize:
        width = sum(i.sizeHint().width() for i in self._shown()) + self._space * len(self._items)
        height = max((i.sizeHint().height() for i in self._shown()), default=0)
        return QtCore.QSize(width, height)

    def minimumSize(self) -> QtCore.QSize:
        size = QtCore.QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QtCore.QSize(
            margins.left() + margins.right(), margins.top() + margins.bottom()
        )

    def _shown(self) -> list[QtWidgets.QLayoutItem]:
        return [i for i in self._items if not i.isEmpty() and i.widget() is not None]

    def _lay_out(self, rect: QtCore.QRect, *, apply: bool) -> int:
        """Place the items in rows inside `rect` (or only measure); the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        rows: list[list[QtWidgets.QLayoutItem]] = [[]]
        used = 0
        for item in self._shown():
            width = item.sizeHint().width()
            if rows[-1] and used + self._space + width > area.width():
                rows.append([])
                used = 0
            used += (self._space if rows[-1] else 0) + width
            rows[-1].append(item)
        y = area.y()
        for row in rows:
            height = max((i.sizeHint().height() for i in row), default=0)
            widths = [i.sizeHint().width() for i in row]
            spare = area.width() - sum(widths) - self._space * max(0, len(row) - 1)
            growing = [n for n, i in enumerate(row) if id(i) in self._stretch]
            x = area.x()
            for n, item in enumerate(row):
                width = widths[n] + (spare // len(growing) if n in growing and spare > 0 else 0)
                width = min(width, area.width())
                if apply:
                    top = y + (height - item.sizeHint().height()) // 2
                    item.setGeometry(QtCore.QRect(x, top, width, item.sizeHint().height()))
                x += width + self._space
            y += height + self._space
        return y - self._space - rect.y() + margins.bottom()


def group(*widgets: QtWidgets.QWidget, spacing: int = 4) -> QtWidgets.QWidget:
    """Widgets kept side by side on one row of a flow (a label and its field)."""
    holder = QtWidgets.QWidget()
    row = QtWidgets.QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(spacing)
    for widget in widgets:
        row.addWidget(widget)
    return holder
