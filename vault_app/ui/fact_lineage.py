"""Under the facts table of an entity page: the selected fact's history (old → new,
superseded versions greyed) and its related entities.

The history comes from the facts the page shows when the whole lineage is in the entity
(`local_history`); when a link leads outside (archived, moved), `Vault.fact_history` is
asked on a worker, and a lookup that finishes after a newer selection is dropped.
Activating a version in this entity emits `factRequested(fact id)` (the page selects it);
a version elsewhere, or a related entity that is in the vault, emits `openEntity(address)`.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, models
from vault_app.ui import models as qt_models
from vault_app.ui.related_entities import known_addresses, resolve_related
from vault_app.ui.session import Session, describe

Qt = QtCore.Qt


def local_history(fact: models.Fact, by_id: dict[str, models.Fact]) -> list[models.Fact] | None:
    """The fact's lineage (old → new) within its entity, or None if a link leads outside."""
    walk = models.walk_lineage(fact, by_id.get)
    return walk.chain if walk.complete else None


class FactLineagePanel(QtWidgets.QSplitter):
    """The history and the related entities of one fact, side by side (resizable)."""

    openEntity = QtCore.Signal(str)  # a related entity, or a version in another entity
    factRequested = QtCore.Signal(str)  # a version in the shown entity: select it

    HISTORY_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.session = session
        self.address: str | None = None  # the entity whose fact is shown
        self._history_generation = 0
        self._build()

    def _build(self) -> None:
        self.history_label = QtWidgets.QLabel("History (old → new)")
        self.history_list = QtWidgets.QTreeWidget()
        self.history_list.setHeaderLabels(["Written", "Status", "Fact"])
        self.history_list.setRootIsDecorated(False)
        self.history_list.setUniformRowHeights(True)
        self.history_list.setAccessibleName("History of the selected fact")
        self.history_list.setToolTip(
            "Every version of the selected fact, oldest first. Enter or double-click "
            "selects that version."
        )
        self.history_list.header().setStretchLastSection(True)
        self.history_list.setColumnWidth(
            0, self.fontMetrics().horizontalAdvance("2026-01-31 ") + 30
        )
        self.history_list.setColumnWidth(1, self.fontMetrics().horizontalAdvance("Superseded") + 24)
        self.history_list.itemActivated.connect(self._history_activated)
        self.history_label.setBuddy(self.history_list)

        self.related_label = QtWidgets.QLabel("Related entities")
        self.related_list = QtWidgets.QListWidget()
        self.related_list.setAccessibleName("Entities related to the selected fact")
        self.related_list.setToolTip("Enter or double-click opens the entity")
        self.related_list.itemActivated.connect(self._related_activated)
        self.related_label.setBuddy(self.related_list)

        def column(label: QtWidgets.QLabel, widget: QtWidgets.QWidget) -> QtWidgets.QWidget:
            holder = QtWidgets.QWidget()
            box = QtWidgets.QVBoxLayout(holder)
            box.setContentsMargins(0, 4, 0, 0)
            box.setSpacing(2)
            label.setForegroundRole(QtGui.QPalette.ColorRole.WindowText)
            font = label.font()
            font.setBold(True)
            label.setFont(font)
            box.addWidget(label)
            box.addWidget(widget, 1)
            return holder

        self.setChildrenCollapsible(False)
        self.addWidget(column(self.history_label, self.history_list))
        self.addWidget(column(self.related_label, self.related_list))
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 1)

    # -- showing -------------------------------------------------------------------------

    def clear(self) -> None:
        """Show nothing; a history lookup under way is dropped."""
        self._history_generation += 1
        self.history_list.clear()
        self.related_list.clear()
        self.history_label.setText("History (old → new)")

    def show_fact(
        self,
        fact: models.Fact | None,
        address: str | None,
        agent: str | None,
        facts: Iterable[models.Fact],
    ) -> None:
        """Show `fact` of the entity at `address` (of `agent`, or global), whose shown
        facts are `facts`; None asks the user to select one."""
        self.clear()
        self.address = address
        if fact is None:
            self.history_label.setText("History (old → new): select a fact")
            return
        self._show_related(fact, agent)
        by_id = {f.id: f for f in facts}
        chain = local_history(fact, by_id)
        if chain is not None:
            self._fill_history(fact.id, [(self.address or "", step) for step in chain])
            return
        self.history_label.setText("History (old → new): looking it up…")
        generation = self._history_generation
        fact_id = fact.id

        def done(found: list[tuple[layout.EntityRef, models.Fact]]) -> None:
            if generation == self._history_generation:
                self._fill_history(fact_id, [(str(ref), step) for ref, step in found])

        def failed(exc: BaseException) -> None:
            if generation == self._history_generation:
                self.history_label.setText(f"History (old → new): {describe(exc)[1]}")

        self.session.run(lambda: self.session.vault.fact_history(fact_id), done, failed)

    def _fill_history(self, selected: str, chain: list[tuple[str, models.Fact]]) -> None:
        self.history_list.clear()
        versions = len(chain)
        self.history_label.setText(
            "History (old → new): this fact has no other versions"
            if versions == 1
            else f"History (old → new): {versions} versions"
        )
        grey = QtGui.QBrush(qt_models.disabled_text())
        for address, fact in chain:
            when = fact.timestamp.astimezone().strftime("%Y-%m-%d") if fact.timestamp else ""
            elsewhere = f"  (in {address})" if address and address != self.address else ""
            item = QtWidgets.QTreeWidgetItem(
                [when, qt_models.status_text(fact), fact.fact + elsewhere]
            )
            item.setData(0, self.HISTORY_ROLE, (address, fact.id))
            item.setToolTip(2, fact.fact)
            if not fact.is_active:
                for column in range(3):
                    item.setForeground(column, grey)
            if fact.id == selected:
                font = item.font(0)
                font.setBold(True)
                for column in range(3):
                    item.setFont(column, font)
            self.history_list.addTopLevelItem(item)

    def _show_related(self, fact: models.Fact, agent: str | None) -> None:
        known = set(known_addresses(self.session))
        grey = QtGui.QBrush(qt_models.disabled_text())
        for reference in fact.related_entities:
            target = resolve_related(reference, agent, known)
            item = QtWidgets.QListWidgetItem(reference)
            item.setData(Qt.ItemDataRole.UserRole, target)
            if target is None:
                item.setForeground(grey)
                item.setToolTip(f"{reference} is not in this vault")
            else:
                item.setToolTip(f"Open {target}")
            self.related_list.addItem(item)
        count = len(fact.related_entities)
        self.related_label.setText(
            f"Related entities ({count})" if count else "Related entities: none"
        )

    def _history_activated(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        address, fact_id = item.data(0, self.HISTORY_ROLE)
        if address and address != self.address:
            self.openEntity.emit(address)
        else:
            self.factRequested.emit(fact_id)

    def _related_activated(self, item: QtWidgets.QListWidgetItem) -> None:
        target = item.data(Qt.ItemDataRole.UserRole)
        if target:
            self.openEntity.emit(target)
