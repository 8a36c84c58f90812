"""The dashboard's "going cold" table: the facts of a `core.outlook.ColdReport`, one per row.

`GoingColdModel` sorts itself in Python (a sort proxy would call `data` n log n times:
seconds on 10,000 rows); the dashboard sizes its columns from a sample of rows, never by
measuring all of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore

from vault_app.core import feed, models, outlook
from vault_app.ui.models import base as model_base
from vault_app.ui.session import plural

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex


class GoingColdModel(QtCore.QAbstractTableModel):
    """The facts going cold soon, one per row, in the order given."""

    FACT, ENTITY, TIER, DAYS, COLD_ON = range(5)
    HEADERS = ("Fact", "Entity", "Tier now", "Days since access", "Turns cold on")
    ROW_ROLE = Role.UserRole + 1

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[outlook.ColdFact] = []
        self._order = (self.COLD_ON, Qt.SortOrder.AscendingOrder)

    def set_facts(self, facts: Sequence[outlook.ColdFact]) -> None:
        self.beginResetModel()
        self._rows = list(facts)
        self._apply_order()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort in Python (a proxy would call `data` n log n times: seconds on 10,000 rows)."""
        if not 0 <= column < len(self.HEADERS):
            return
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        rows = [self._rows[index.row()] for index in before]
        self._order = (column, order)
        self._apply_order()
        position = {id(item): number for number, item in enumerate(self._rows)}
        after = [
            self.index(position[id(item)], index.column())
            for item, index in zip(rows, before, strict=True)
        ]
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _apply_order(self) -> None:
        column, order = self._order
        descending = order == Qt.SortOrder.DescendingOrder
        self._rows.sort(key=lambda item: self._sort_key(item, column), reverse=descending)

    def fact_at(self, row: int) -> outlook.ColdFact:
        return self._rows[row]

    def rowCount(self, parent: Index = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Role.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.HEADERS):
            if role == Role.DisplayRole:
                return self.HEADERS[section]
            if role == Role.ToolTipRole and section == self.COLD_ON:
                return "The day it turns cold if nobody accesses it before"
        return None

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == Role.DisplayRole:
            return self._display(item, column)
        if role == model_base.TIER_ROLE and column == self.TIER:
            return item.tier.value
        if role == self.ROW_ROLE:
            return item.fact_id
        if role == Role.ToolTipRole:
            return self._tooltip(item, column)
        if role == Role.TextAlignmentRole and column == self.DAYS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, item: outlook.ColdFact, column: int) -> str:
        if column == self.FACT:
            return item.text
        if column == self.ENTITY:
            return feed.title(item.address)  # its title; the address in the tooltip
        if column == self.TIER:
            return item.tier.value.capitalize()
        if column == self.DAYS:
            return str(item.days)
        return format_day(item.cold_on)

    def _sort_key(self, item: outlook.ColdFact, column: int) -> Any:
        """The column's value first; then the date and the text, so that ties stay put."""
        keys: tuple[Any, ...] = (
            item.text.casefold(),
            item.address,
            0 if item.tier is models.DecayTier.HOT else 1,
            item.days,
            item.cold_on.toordinal(),
        )
        return (keys[column], keys[4], keys[1], keys[0])

    def _tooltip(self, item: outlook.ColdFact, column: int) -> str:
        if column == self.ENTITY:
            return item.address
        if column == self.FACT:
            return f"{item.text}\n\n{item.fact_id} — double-click to open it in {item.address}"
        return (
            f"{item.tier.value.capitalize()} now; last accessed {plural(item.days, 'day')} ago, "
            f"{plural(item.access_count, 'access', 'accesses')}; turns cold on "
            f"{format_day(item.cold_on)}"
        )


def format_day(day: dt.date) -> str:
    return QtCore.QLocale().toString(QtCore.QDate(day.year, day.month, day.day), "ddd d MMM yyyy")
