"""The facts table of one entity, and the proxy that filters and sorts it.

`FactsModel` holds the facts in file order (the proxy sorts); `update_facts` keeps the
rows of the same entity stable by fact id, so selection and scroll survive a reload.
`FactsFilterProxy` filters by tiers, category, status and words; sorting is numeric
where it should be, through `SORT_ROLE`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtGui

from vault_app.core import layout, models
from vault_app.ui.models.base import (
    CHANGED_ROLE,
    FACT_ROLE,
    SORT_ROLE,
    TIER_ROLE,
    ColumnTable,
    changed_mark,
    disabled_text,
)

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

_ROOT = QtCore.QModelIndex()  # the invisible root (default `parent` argument)


TierOf = Callable[[models.Fact], models.DecayTier]


@dataclass
class _FactRow:
    fact: models.Fact
    tier: models.DecayTier | None
    lineage: str | None


def _when(moment: dt.datetime | None) -> str:
    if moment is None:
        return "never"
    local = moment.astimezone() if moment.tzinfo else moment
    return local.strftime("%Y-%m-%d %H:%M")


def _timestamp(moment: dt.datetime | None) -> float:
    if moment is None:
        return -1.0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def is_retracted(fact: models.Fact) -> bool:
    """A fact withdrawn by undo: superseded by nothing (the fact itself stays)."""
    return not fact.is_active and fact.superseded_by is None


def status_text(fact: models.Fact) -> str:
    if fact.is_active:
        return "Active"
    return "Withdrawn" if is_retracted(fact) else "Superseded"


def _shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lineage(fact: models.Fact, by_id: dict[str, models.Fact]) -> str | None:
    """Plain-words history of a fact within its entity (old → new), or None."""
    walk = models.walk_lineage(fact, by_id.get)
    position = next(i for i, step in enumerate(walk.chain) if step.id == fact.id)
    lines = [f"was: {_shorten(step.fact)}" for step in walk.chain[:position]]
    lines += [f"now: {_shorten(step.fact)}" for step in walk.chain[position + 1 :]]
    if walk.missing_before is not None:
        lines.insert(0, f"was: {walk.missing_before}")
    if walk.missing_after is not None:
        lines.append(f"now: {walk.missing_after}")
    if is_retracted(fact):
        lines.append("withdrawn (an edit was undone); the fact is kept in history")
    if not lines:
        return None
    head = (
        f"Superseded by {fact.superseded_by}"
        if fact.superseded_by
        else "History of this fact (old → new)"
    )
    return "\n".join([head, *lines])


class FactsModel(ColumnTable, QtCore.QAbstractTableModel):
    """The facts of one entity, in file order; the proxy filters and sorts."""

    COLUMNS = (
        "Fact",
        "Category",
        "Tier",
        "Last accessed",
        "Accesses",
        "Confidence",
        "Agent",
        "Status",
    )
    COLUMN_TIPS = (
        "The fact itself",
        "Relationship, milestone, status, preference or context",
        "Hot: used recently; Warm: a while ago; Cold: long ago",
        "When the fact was last read by an agent",
        "How many times the fact was read",
        "How sure the writer was (0 to 1)",
        "The agent that wrote the fact",
        "Active, or superseded by a newer fact (kept in history)",
    )
    FACT, CATEGORY, TIER, ACCESSED, ACCESSES, CONFIDENCE, AGENT, STATUS = range(8)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.address: str | None = None
        self._rows: list[_FactRow] = []
        self.changed: dict[str, str] = {}  # fact id -> "changed by an agent" words

    def set_changed(self, changed: Mapping[str, str]) -> None:
        """Mark the facts agents wrote since the person last looked (fact id -> words)."""
        old, self.changed = self.changed, dict(changed)
        for row, item in enumerate(self._rows):
            if old.get(item.fact.id) != self.changed.get(item.fact.id):
                index = self.index(row, self.FACT)
                self.dataChanged.emit(
                    index, index, [Role.DecorationRole, Role.FontRole, CHANGED_ROLE]
                )

    def set_facts(
        self,
        ref: layout.EntityRef | str | None,
        facts: Sequence[models.Fact],
        tier_of: TierOf,
    ) -> None:
        """Show the facts of another entity (a reset)."""
        self.beginResetModel()
        self.address = None if ref is None else str(ref)
        self._rows = _rows(facts, tier_of)
        self.endResetModel()

    def update_facts(
        self,
        ref: layout.EntityRef | str | None,
        facts: Sequence[models.Fact],
        tier_of: TierOf,
    ) -> None:
        """Show the same entity again: rows keep their place; new facts are inserted."""
        address = None if ref is None else str(ref)
        fresh = _rows(facts, tier_of)
        old_ids = [row.fact.id for row in self._rows]
        new_ids = {row.fact.id for row in fresh}
        if address != self.address or any(i not in new_ids for i in old_ids):
            self.set_facts(ref, facts, tier_of)
            return
        if [r.fact.id for r in fresh if r.fact.id in set(old_ids)] != old_ids:
            self.set_facts(ref, facts, tier_of)  # reordered on disk
            return
        last = len(self.COLUMNS) - 1
        known = set(old_ids)
        for row, item in enumerate(fresh):
            if item.fact.id in known:
                current = self._rows[row]
                if (current.fact, current.tier, current.lineage) != (
                    item.fact,
                    item.tier,
                    item.lineage,
                ):
                    self._rows[row] = item
                    self.dataChanged.emit(self.index(row, 0), self.index(row, last))
            else:
                self.beginInsertRows(QtCore.QModelIndex(), row, row)
                self._rows.insert(row, item)
                self.endInsertRows()

    def facts(self) -> list[models.Fact]:
        return [row.fact for row in self._rows]

    def row_of(self, fact_id: str) -> int:
        for row, item in enumerate(self._rows):
            if item.fact.id == fact_id:
                return row
        return -1

    def fact_at(self, row: int) -> models.Fact:
        return self._rows[row].fact

    # -- the Qt model interface -----------------------------------------------------------

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == FACT_ROLE:
            return item.fact
        mark = self.changed.get(item.fact.id) if column == self.FACT and self.changed else None
        if mark is not None and role == CHANGED_ROLE:
            return mark
        if mark is not None and role == Role.DecorationRole:
            return changed_mark()
        if mark is not None and role == Role.FontRole:  # unread, as mail is
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if mark is not None and role == Role.ToolTipRole:
            return "\n\n".join(t for t in (mark, _tooltip(item, column)) if t)
        if role == TIER_ROLE:
            return None if item.tier is None else item.tier.value
        if role == Role.DisplayRole:
            return _display(item, column)
        if role == SORT_ROLE:
            return _sort_key(item, column)
        if role == Role.ToolTipRole:
            return _tooltip(item, column)
        if role == Role.ForegroundRole and not item.fact.is_active:
            return QtGui.QBrush(disabled_text())
        if role == Role.FontRole and not item.fact.is_active:
            font = QtGui.QFont()
            font.setItalic(True)
            return font
        if role == Role.TextAlignmentRole and column in {self.ACCESSES, self.CONFIDENCE}:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _rows(facts: Sequence[models.Fact], tier_of: TierOf) -> list[_FactRow]:
    by_id = {fact.id: fact for fact in facts}
    return [
        _FactRow(fact, tier_of(fact) if fact.is_active else None, _lineage(fact, by_id))
        for fact in facts
    ]


def _display(item: _FactRow, column: int) -> Any:
    fact = item.fact
    if column == FactsModel.FACT:
        return " ".join(fact.fact.split())
    if column == FactsModel.CATEGORY:
        return fact.category.value.capitalize()
    if column == FactsModel.TIER:
        return item.tier.value.capitalize() if item.tier else ""
    if column == FactsModel.ACCESSED:
        return _when(fact.last_accessed)
    if column == FactsModel.ACCESSES:
        return str(fact.access_count)
    if column == FactsModel.CONFIDENCE:
        return f"{float(fact.confidence):.2f}"
    if column == FactsModel.AGENT:
        return fact.agent_id or ""
    return status_text(fact)


_TIER_ORDER = {models.DecayTier.HOT: 0, models.DecayTier.WARM: 1, models.DecayTier.COLD: 2}


def _sort_key(item: _FactRow, column: int) -> Any:
    fact = item.fact
    if column == FactsModel.FACT:
        return fact.fact.casefold()
    if column == FactsModel.TIER:
        return _TIER_ORDER.get(item.tier, 3) if item.tier else 3
    if column == FactsModel.ACCESSED:
        return _timestamp(fact.last_accessed)
    if column == FactsModel.ACCESSES:
        return float(fact.access_count)
    if column == FactsModel.CONFIDENCE:
        return float(fact.confidence)
    return str(_display(item, column)).casefold()


def _tooltip(item: _FactRow, column: int) -> str | None:
    fact = item.fact
    parts: list[str] = []
    if column == FactsModel.FACT:
        parts.append(fact.fact)
        if fact.related_entities:
            parts.append("Related: " + ", ".join(fact.related_entities))
        if fact.source_text:
            parts.append(f"Source: {fact.source_text}")
    elif column == FactsModel.ACCESSED:
        parts.append(f"Last accessed: {_when(fact.last_accessed)}")
        parts.append(f"Written: {_when(fact.timestamp)}")
    elif column == FactsModel.TIER and item.tier:
        parts.append(f"{item.tier.value.capitalize()}: {_TIER_TIPS[item.tier]}")
    if item.lineage and column in {FactsModel.FACT, FactsModel.STATUS}:
        parts.append(item.lineage)
    elif column == FactsModel.STATUS and fact.is_active:
        parts.append("Active: the current version of this fact")
    return "\n\n".join(parts) or None


_TIER_TIPS = {
    models.DecayTier.HOT: "used recently",
    models.DecayTier.WARM: "not used for a while",
    models.DecayTier.COLD: "not used for a long time",
}


class FactsFilterProxy(QtCore.QSortFilterProxyModel):
    """Filters facts by tiers, category, status ('active', 'all', 'superseded') and words."""

    STATUSES = ("active", "all", "superseded")

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.tiers: frozenset[models.DecayTier] = frozenset(models.DecayTier)
        self.category: models.FactCategory | None = None
        self.status = "active"
        self.words: tuple[str, ...] = ()
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def set_tiers(self, tiers: Iterable[models.DecayTier | str]) -> None:
        self._change(tiers=frozenset(models.DecayTier(t) for t in tiers))

    def set_category(self, category: models.FactCategory | str | None) -> None:
        self._change(category=models.FactCategory(category) if category else None)

    def set_status(self, status: str) -> None:
        if status not in self.STATUSES:
            raise ValueError(f"status must be one of {', '.join(self.STATUSES)}")
        self._change(status=status)

    def set_text(self, text: str) -> None:
        self._change(words=tuple(text.casefold().split()))

    def _change(self, **values: Any) -> None:
        if all(getattr(self, name) == value for name, value in values.items()):
            return
        self.beginFilterChange()
        for name, value in values.items():
            setattr(self, name, value)
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        source = self.sourceModel()
        index = source.index(source_row, 0, source_parent)
        fact: models.Fact | None = source.data(index, FACT_ROLE)
        if fact is None:
            return False
        if self.status == "active" and not fact.is_active:
            return False
        if self.status == "superseded" and fact.is_active:
            return False
        if fact.is_active and source.data(index, TIER_ROLE) not in self.tiers:
            return False
        if self.category is not None and fact.category is not self.category:
            return False
        if self.words:
            haystack = " ".join(
                [
                    fact.fact,
                    fact.category.value,
                    fact.source_text or "",
                    fact.agent_id or "",
                    *fact.related_entities,
                ]
            ).casefold()
            return all(word in haystack for word in self.words)
        return True
