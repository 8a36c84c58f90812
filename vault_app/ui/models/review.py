"""The review queue as a table: one row per proposal (`core.review.describe` answers),
pending ones first (oldest first, the order they came in), then the decided ones, newest
decision first. The page replaces the rows whole after each read of `.vault/review/`
(a queue holds tens of proposals, not thousands)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore, QtGui

from vault_app.ui.models.base import ColumnTable, disabled_text

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

_ROOT = QtCore.QModelIndex()

PROPOSAL_ROLE = Role.UserRole + 20  # a row's describe() dict

KIND_TITLES = {
    "add_fact": "Add fact",
    "supersede_fact": "Supersede fact",
    "archive_fact": "Archive fact",
    "touch_facts": "Touch facts",
    "append_daily": "Daily note",
    "record_interaction": "Conversation turn",
    "write_document": "Write document",
    "memory": "Notes entry",
    "memory_batch": "Notes entries",
    "tiers_write": "Write tier",
    "profile_set": "Set profile key",
    "profile_delete": "Delete profile key",
}


def when(stamp: str | None) -> str:
    """An ISO time as the reader's local `YYYY-MM-DD HH:MM`."""
    if not stamp:
        return ""
    moment = dt.datetime.fromisoformat(stamp)
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return f"{moment:%Y-%m-%d %H:%M}"


def ordered(described: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pending first, oldest first; then decided ones, the latest decision first."""
    waiting = [d for d in described if d["status"] == "pending"]
    decided = [d for d in described if d["status"] != "pending"]
    decided.sort(key=lambda d: d.get("decidedAt") or d["created"], reverse=True)
    return waiting + decided


class ReviewModel(ColumnTable, QtCore.QAbstractTableModel):
    """Proposals (describe() dicts) as rows; `set_proposals` replaces them."""

    COLUMNS = ("Status", "Agent", "When", "Kind", "Target", "Findings")
    COLUMN_TIPS = (
        "Pending: waits for you; approved or rejected: decided",
        "The agent that asked for the write",
        "When the agent asked",
        "What the agent asked to do",
        "Where the write goes",
        "Why the scan held it back",
    )

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []

    def set_proposals(self, described: Sequence[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = ordered(described)
        self.endResetModel()

    def proposals(self) -> list[dict[str, Any]]:
        return list(self._rows)

    def row_of(self, review_id: str) -> int:
        """The row of a proposal, or -1."""
        return next((i for i, d in enumerate(self._rows) if d["id"] == review_id), -1)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == PROPOSAL_ROLE:
            return row
        if role == Role.DisplayRole:
            return self._text(row, index.column())
        if role == Role.ToolTipRole and index.column() == 5:
            return "\n".join(f"{f['kind']}: {f['detail']}" for f in row["findings"]) or None
        if role == Role.ToolTipRole and index.column() == 4:
            return row["target"]
        if role == Role.ForegroundRole and row["status"] != "pending":
            return QtGui.QBrush(disabled_text())
        if role == Role.FontRole and index.column() == 0 and row["status"] == "pending":
            font = QtGui.QFont()
            font.setBold(True)
            return font
        return None

    @staticmethod
    def _text(row: dict[str, Any], column: int) -> str:
        if column == 0:
            return str(row["status"]).title()
        if column == 1:
            return str(row["agent"])
        if column == 2:
            return when(row["created"])
        if column == 3:
            return KIND_TITLES.get(row["kind"], row["kind"])
        if column == 4:
            return str(row["target"])
        kinds = dict.fromkeys(str(f["kind"]) for f in row["findings"])
        return ", ".join(kinds)
