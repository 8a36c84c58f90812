"""The entity page: header, rendered summary, the facts table with filters, and lineage.

Design
------
`EntityPage.show_entity(address)` reads the entity on a worker (`Session.run`: the
validated facts and their tiers) and shows, top to bottom:

* a header (`entity_header.EntityHeader`: title, address, tier counts) with the actions
  Add fact (Ctrl+N), Edit = supersede (F2, or Enter / double-click on an active fact),
  Archive (asks first and says that nothing is deleted; Unarchive in its place for an
  archived entity), As of… and History (every change to it, in Activity); those that do
  not fit fold into a More menu; there is no delete;
* a banner in plain words (`session.describe`) when items.json cannot be read or some of
  its entries are invalid; the summary and the rest of the window keep working;
* the summary as a `documents.DocumentPane` (rendered / edit / save with a hash check);
* the facts table: `models.FactsModel` behind a `models.FactsFilterProxy` (text, tier
  toggles, category, "Show superseded"), tier pills by `models.TierBadgeDelegate`,
  sortable on every column;
* under the table, the selected fact's history (old → new, superseded versions greyed,
  author, time, word diff), its related entities and the entity's links both ways
  (`fact_lineage.FactLineagePanel`); activating one emits `openEntity(address)`;
* "As of…" swaps the splitter for `as_of_view.AsOfPanel`: the entity as believed on a past
  day, read-only (the edit actions are disabled), until "Back to now".

Writes go through `commands` (undoable). When `Session.entityChanged` names the shown
entity, it is read again and `FactsModel.update_facts` keeps rows in place, so the
selection and the scroll position survive; a load that finishes after a newer one
started is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, layout, models, vault
from vault_app.ui import commands
from vault_app.ui import models as qt_models
from vault_app.ui.dialogs.fact_dialog import FactDialog
from vault_app.ui.models import tier_badge
from vault_app.ui.pages import as_of_view, documents
from vault_app.ui.session import Session, describe, plural
from vault_app.ui.widgets import entity_banner, entity_header, fact_lineage, flow_layout

Qt = QtCore.Qt
Loaded = tuple[vault.EntityFacts, dict[str, models.DecayTier]]


def _read(v: vault.Vault, address: str) -> Loaded:
    """Worker: the entity and the tier of each active fact (both off the GUI thread)."""
    view = v.entity(address)
    now = v.now()
    tiers = {fact.id: v.tier(fact, now) for fact in view.facts if fact.is_active}
    return view, tiers


class EntityPage(QtWidgets.QWidget):
    """The right-hand pane for one entity (see the module docstring)."""

    openEntity = QtCore.Signal(str)  # the user activated a related entity: navigate there
    entityMoved = QtCore.Signal(str, str)  # archived here: old address, new address
    loaded = QtCore.Signal(str)  # the entity at this address is shown (after each load)
    historyRequested = QtCore.Signal(str)  # History: every change to this entity, in Activity

    EMPTY, CONTENT = range(2)

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.address: str | None = None
        self.ref: layout.EntityRef | None = None
        self.view: vault.EntityFacts | None = None
        self.fact_dialog: FactDialog | None = None
        self.archive_prompt: QtWidgets.QMessageBox | None = None
        self._generation = 0
        self._pending_select: str | None = None
        self._build()
        session.entityChanged.connect(self._on_entity_changed)
        self._update_actions()

    # -- building -------------------------------------------------------------------------

    def _build(self) -> None:
        self.pages = QtWidgets.QStackedWidget()
        self.placeholder = QtWidgets.QLabel("Select an entity in the sidebar to see its facts.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.pages.addWidget(self.placeholder)
        content = QtWidgets.QWidget()
        self.pages.addWidget(content)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

        self._build_actions()
        self._build_banner()
        self.summary = documents.DocumentPane(self.session)
        self.summary.entityRequested.connect(self.openEntity)
        self.summary.setAccessibleName("Summary")
        facts = self._build_facts()
        self.lineage = fact_lineage.FactLineagePanel(self.session)
        self.lineage.openEntity.connect(self.openEntity)
        self.lineage.factRequested.connect(self.select_fact)
        self.history_list = self.lineage.history_list  # (reached from the page in tests)
        self.related_list = self.lineage.related_list

        lower = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        lower.setChildrenCollapsible(False)
        lower.addWidget(facts)
        lower.addWidget(self.lineage)
        lower.setStretchFactor(0, 4)
        lower.setStretchFactor(1, 1)
        self.splitter = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.summary)
        self.splitter.addWidget(lower)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setSizes([300, 700])  # scaled to the real height when shown
        lower.setSizes([560, 160])

        self.as_of = as_of_view.AsOfPanel(self.session)  # the past, read-only
        self.as_of.backToNow.connect(self.leave_as_of)
        self.body = QtWidgets.QStackedWidget()
        self.body.addWidget(self.splitter)
        self.body.addWidget(self.as_of)

        box = QtWidgets.QVBoxLayout(content)
        box.setContentsMargins(10, 8, 10, 8)
        box.addWidget(self._build_header())
        box.addWidget(self.banner)
        box.addWidget(self.body, 1)

    def _action(
        self,
        text: str,
        keys: str | QtGui.QKeySequence.StandardKey,
        tip: str,
        slot: Callable[[], Any],
    ) -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        action.setShortcut(QtGui.QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        native = QtGui.QKeySequence.SequenceFormat.NativeText
        action.setToolTip(f"{tip} ({action.shortcut().toString(native)})")
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.add_action = self._action(
            "Add fact…", "Ctrl+N", "Add a new fact to this entity", self.add_fact
        )
        self.supersede_action = self._action(
            "Edit fact…",
            "F2",
            "Write a new version of the selected fact; the old one is kept in its history",
            self.supersede_selected,
        )
        self.archive_action = self._action(
            "Archive…",
            "Ctrl+Shift+A",
            "Move this entity to archives/ (nothing is deleted)",
            self.archive,
        )
        self.unarchive_action = self._action(
            "Unarchive",
            "Ctrl+Shift+U",
            "Move this entity back out of archives/, where it was archived from",
            self.unarchive,
        )
        self.find_action = self._action(
            "Filter facts", QtGui.QKeySequence.StandardKey.Find, "Filter the facts", self._find
        )
        self.as_of_action = self._action(
            "As of…", "", "See this entity as it was believed on a past day", self.show_as_of
        )
        self.as_of_action.setToolTip("See this entity as believed on a past day (Ctrl+Shift+T)")
        self.history_action = self._action(
            "History", "", "Every change to this entity, by anyone, in Activity", self._history
        )
        self.history_action.setToolTip(
            "Every change to this entity, by anyone, in Activity (Ctrl+Shift+H)"
        )

    def _build_header(self) -> QtWidgets.QWidget:
        actions = (
            self.add_action,
            self.supersede_action,
            self.archive_action,
            self.unarchive_action,
            self.as_of_action,
            self.history_action,
        )
        self.header = entity_header.EntityHeader(actions)
        self.title_label = self.header.title_label
        self.address_label = self.header.address_label
        self.counts_label = self.header.counts_label
        self.add_button, self.supersede_button, self.archive_button = (
            self.header.button(a) for a in actions[:3]
        )
        self.unarchive_button, self.as_of_button, self.history_button = (
            self.header.button(a) for a in actions[3:]
        )
        return self.header

    def _build_banner(self) -> None:
        self.banner = entity_banner.ProblemBanner(self.session)
        self.banner_label = self.banner.label  # (read by tests)

    def _build_facts(self) -> QtWidgets.QWidget:
        self.model = qt_models.FactsModel(self)
        self.proxy = qt_models.FactsFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QtWidgets.QLineEdit()
        self.filter_edit.setPlaceholderText("Words in the fact, source or agent")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMinimumWidth(180)  # never squeezed to "…" by a docked panel
        self.filter_edit.setToolTip("Show only facts containing all these words (Ctrl+F)")
        self.filter_edit.textChanged.connect(self.proxy.set_text)
        filter_label = QtWidgets.QLabel("F&ilter:")
        filter_label.setBuddy(self.filter_edit)

        self.tier_buttons: dict[models.DecayTier, QtWidgets.QToolButton] = {}
        for tier in models.DecayTier:
            button = QtWidgets.QToolButton()
            button.setText(tier.value.capitalize())
            button.setCheckable(True)
            button.setChecked(True)
            button.setProperty("toggle", True)  # on/off drawn plainly (themes.stylesheet)
            button.setToolTip(f"Show {tier.value} facts")
            button.setIcon(tier_badge.tier_dot(qt_models.TIER_COLOURS[tier]))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.toggled.connect(self._tiers_changed)
            self.tier_buttons[tier] = button

        self.category_combo = QtWidgets.QComboBox()
        self.category_combo.addItem("All categories", None)
        for category in models.FactCategory:
            self.category_combo.addItem(category.value.capitalize(), category.value)
        self.category_combo.setToolTip("Show only facts of this category")
        self.category_combo.currentIndexChanged.connect(
            lambda _i: self.proxy.set_category(self.category_combo.currentData())
        )
        category_label = QtWidgets.QLabel("Ca&tegory:")
        category_label.setBuddy(self.category_combo)

        self.superseded_check = QtWidgets.QCheckBox("Show &superseded")
        self.superseded_check.setToolTip(
            "Also show old versions of facts (kept in history, greyed)"
        )
        self.superseded_check.toggled.connect(
            lambda on: self.proxy.set_status("all" if on else "active")
        )
        self.shown_label = QtWidgets.QLabel()
        self.shown_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)

        # a flow: in a narrow window (the search dock open) the filters wrap to a second
        # row instead of making the window wider
        bar = flow_layout.FlowLayout(spacing=10)
        bar.add(flow_layout.group(filter_label, self.filter_edit), stretch=1)
        bar.add(flow_layout.group(*self.tier_buttons.values(), spacing=2))
        bar.add(flow_layout.group(category_label, self.category_combo))
        bar.add(self.superseded_check)
        bar.add(self.shown_label)

        self.table = QtWidgets.QTableView()
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Facts")
        self.table.setItemDelegateForColumn(
            qt_models.FactsModel.TIER, qt_models.TierBadgeDelegate(self.table)
        )
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(qt_models.FactsModel.TIER, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self._size_columns()
        self.table.activated.connect(self._activated)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        for signal in (
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
            self.proxy.modelReset,
            self.proxy.layoutChanged,
        ):
            signal.connect(self._update_shown)

        panel = QtWidgets.QWidget()
        box = QtWidgets.QVBoxLayout(panel)
        box.setContentsMargins(0, 6, 0, 0)
        box.addLayout(bar)
        box.addWidget(self.table, 1)
        return panel

    def _size_columns(self) -> None:
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(
            qt_models.FactsModel.FACT, QtWidgets.QHeaderView.ResizeMode.Stretch
        )
        metrics = self.fontMetrics()
        widest = {
            qt_models.FactsModel.CATEGORY: "Relationship",
            qt_models.FactsModel.TIER: "Warm  ",
            qt_models.FactsModel.ACCESSED: "2026-01-31 14:05",
            qt_models.FactsModel.ACCESSES: "Accesses",
            qt_models.FactsModel.CONFIDENCE: "Confidence",
            qt_models.FactsModel.AGENT: "maintenance",
            qt_models.FactsModel.STATUS: "Superseded",
        }
        for column, sample in widest.items():
            self.table.setColumnWidth(column, metrics.horizontalAdvance(sample) + 34)

    # -- loading --------------------------------------------------------------------------

    def show_entity(self, address: str, select_fact: str | None = None) -> None:
        """Show the entity at `address` (read off-thread); optionally select one fact."""
        try:
            ref = layout.EntityRef.parse(address)
        except errors.InvalidIdError as exc:
            self._show_failure(exc)
            return
        same = str(ref) == self.address
        self.ref, self.address = ref, str(ref)
        self._pending_select = select_fact
        if not same:
            self.view = None
            self.body.setCurrentIndex(0)  # another entity opens as it is now
            self.filter_edit.clear()
            self.model.set_facts(ref, [], lambda f: models.DecayTier.HOT)
            self.lineage.clear()
            self.title_label.setText(ref.title)
            self.address_label.setText(str(ref))
            self.counts_label.setText("Loading…")
            self.banner.hide()
            self.summary.set_target(documents.DocumentTarget.summary(str(ref)))
            self.pages.setCurrentIndex(self.CONTENT)
            self._update_actions()
        self._load(keep=same)

    def reload(self) -> None:
        """Read the shown entity again, keeping the selection and scroll position."""
        if self.address is not None:
            self._load(keep=True)
            self.summary.reload()

    def clear(self) -> None:
        """Show nothing (e.g. the sidebar selection is not an entity)."""
        self._generation += 1
        self.address = self.ref = self.view = None
        self.model.set_facts(None, [], lambda f: models.DecayTier.HOT)
        self.lineage.clear()
        self.summary.set_target(None)
        self.pages.setCurrentIndex(self.EMPTY)
        self._update_actions()

    def _load(self, *, keep: bool) -> None:
        self._generation += 1
        generation = self._generation
        address = str(self.address)
        self.session.run(
            lambda: _read(self.session.vault, address),
            lambda result: self._loaded(generation, result, keep),
            lambda exc: self._load_failed(generation, exc),
        )

    def _on_entity_changed(self, address: str) -> None:
        if self.address is not None and layout.EntityRef.canonical(address) == self.address:
            self.reload()

    def _loaded(self, generation: int, result: Loaded, keep: bool) -> None:
        if generation != self._generation:
            return
        view, tiers = result
        selected = self.selected_fact_id() if keep else None
        scroll = self.table.verticalScrollBar().value()
        self.view = view
        if keep:
            self.model.update_facts(view.ref, view.facts, lambda f: tiers[f.id])
        else:
            self.model.set_facts(view.ref, view.facts, lambda f: tiers[f.id])
        self._show_header(view, tiers)
        self._show_banner(view)
        target, self._pending_select = self._pending_select, None
        if target is not None:
            if not self.select_fact(target):
                self._show_lineage(self.selected_fact())
        elif selected is not None:
            if self.selected_fact_id() != selected:
                self.select_fact(selected, reveal=False, scroll=False)
            self.table.verticalScrollBar().setValue(scroll)
            self._show_lineage(self.selected_fact())
        else:
            self._show_lineage(self.selected_fact())
        self._update_actions()
        self._update_shown()
        self.loaded.emit(str(view.ref))

    def _load_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self._show_failure(exc)

    def _show_failure(self, exc: BaseException) -> None:
        self.view = None
        self.model.set_facts(self.ref, [], lambda f: models.DecayTier.HOT)
        self.lineage.clear()
        self.counts_label.setText("")
        title, message = describe(exc)
        self._set_banner(title, message, exc)
        self.pages.setCurrentIndex(self.CONTENT)
        self._update_actions()
        self.loaded.emit(self.address or "")

    # -- showing --------------------------------------------------------------------------

    def _show_header(self, view: vault.EntityFacts, tiers: dict[str, models.DecayTier]) -> None:
        archived = " · archived" if view.ref.category == "archives" else ""
        self.header.show_names(view.ref.title, f"{view.ref}{archived}")
        superseded = sum(1 for fact in view.facts if not fact.is_active)
        self.header.show_counts(None if view.error else tiers.values(), superseded)

    def _show_banner(self, view: vault.EntityFacts) -> None:
        if view.error is not None:
            title, message = describe(view.error)
            self._set_banner(
                title,
                f"{message}\n\nThis entity's facts cannot be shown or added until the file is "
                "fixed: Restore from backup… puts a kept version back. "
                "Its summary and every other entity can still be used.",
                view.error,
            )
        elif view.invalid:
            count = len(view.invalid)
            lines = [f"{e.location or ''}: {e.reason}".lstrip(": ") for e in view.invalid[:5]]
            more = f"\n…and {count - 5} more" if count > 5 else ""
            self._set_banner(
                f"{count} {'entry' if count == 1 else 'entries'} of "
                f"{view.facts_path.name} cannot be read",
                "They are not shown here and are left untouched on disk "
                "(“vault-app doctor” lists them):\n" + "\n".join(lines) + more,
            )
        else:
            self.banner.hide()

    def _set_banner(self, title: str, message: str, error: BaseException | None = None) -> None:
        path = error.path if isinstance(error, errors.CorruptFileError) else None
        detail = f"{type(error).__name__}: {error}" if error is not None else ""
        self.banner.show_problem(title, message, path=path, detail=detail, address=self.address)

    def _update_shown(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        if self.view is None:
            self.shown_label.setText("")
        elif total == 0:
            self.shown_label.setText("No facts yet" if self.view.error is None else "")
        else:
            self.shown_label.setText(f"Showing {shown} of {plural(total, 'fact')}")

    def show_as_of(self, day: Any = None) -> None:
        """Show the shown entity as of a past day (read-only; `day` a date, or the last)."""
        if self.address is not None:
            self.as_of.show_entity(self.address, day or None)
            self.body.setCurrentIndex(1)
            self._update_actions()

    def leave_as_of(self) -> None:
        self.body.setCurrentIndex(0)
        self._update_actions()
        self.table.setFocus()

    def _update_actions(self) -> None:
        view = self.view
        now = self.body.currentIndex() == 0  # the past view is read-only
        writable = view is not None and view.error is None and now
        archived = view is not None and view.ref.category == "archives"
        self.add_action.setEnabled(writable and not archived)
        self.add_action.setToolTip(
            "This entity is archived: it takes no new facts. Unarchive it first (Ctrl+Shift+U)"
            if archived
            else "Add a new fact to this entity (Ctrl+N)"
        )
        self.unarchive_action.setEnabled(archived and now)
        self.unarchive_action.setVisible(archived)  # the header shows one of the two
        self.archive_action.setVisible(not archived)
        fact = self.selected_fact()
        self.supersede_action.setEnabled(writable and fact is not None and fact.is_active)
        if fact is not None and not fact.is_active:
            self.supersede_action.setToolTip(
                "This version is already superseded: select the current one to edit it"
            )
        else:
            self.supersede_action.setToolTip(
                "Write a new version of the selected fact; the old one is kept in its history (F2)"
            )
        self.archive_action.setEnabled(now and view is not None and view.ref.category != "archives")
        self.as_of_action.setEnabled(self.address is not None)
        self.history_action.setEnabled(self.address is not None)

    def _history(self) -> None:
        if self.address is not None:
            self.historyRequested.emit(self.address)

    # -- selection and lineage ------------------------------------------------------------

    def selected_fact(self) -> models.Fact | None:
        rows = self.table.selectionModel().selectedRows()
        fact: models.Fact | None = rows[0].data(qt_models.FACT_ROLE) if rows else None
        return fact

    def selected_fact_id(self) -> str | None:
        fact = self.selected_fact()
        return None if fact is None else fact.id

    def select_fact(self, fact_id: str, *, reveal: bool = True, scroll: bool = True) -> bool:
        """Select a fact by id; with `reveal`, relax the filters that hide it."""
        row = self.model.row_of(fact_id)
        if row < 0:
            return False
        source = self.model.index(row, 0)
        index = self.proxy.mapFromSource(source)
        if not index.isValid() and reveal:
            fact = self.model.fact_at(row)
            if not fact.is_active:
                self.superseded_check.setChecked(True)
            self.filter_edit.clear()
            self.category_combo.setCurrentIndex(0)
            for button in self.tier_buttons.values():
                button.setChecked(True)
            index = self.proxy.mapFromSource(source)
        if not index.isValid():
            return False
        flags = (
            QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QtCore.QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.selectionModel().setCurrentIndex(index, flags)
        if scroll:
            self.table.scrollTo(index)
        return True

    def _selection_changed(self, *_args: Any) -> None:
        self._show_lineage(self.selected_fact())
        self._update_actions()

    def _show_lineage(self, fact: models.Fact | None) -> None:
        agent = self.ref.agent if self.ref is not None else None
        self.lineage.show_fact(fact, self.address, agent, self.model.facts() if fact else [])

    # -- filters --------------------------------------------------------------------------

    def _tiers_changed(self) -> None:
        self.proxy.set_tiers(t for t, b in self.tier_buttons.items() if b.isChecked())

    def _find(self) -> None:
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()

    # -- actions --------------------------------------------------------------------------

    def _activated(self, index: QtCore.QModelIndex) -> None:
        fact = index.data(qt_models.FACT_ROLE)
        if fact is not None and fact.is_active:
            self.supersede_selected()

    def add_fact(self) -> FactDialog | None:
        """Open the Add fact dialog for the shown entity (window-modal, not blocking)."""
        if not self.add_action.isEnabled() or self.address is None:
            return None
        return self._keep_dialog(FactDialog.add(self.session, self.address, self))

    def supersede_selected(self) -> FactDialog | None:
        """Open the Edit (supersede) dialog for the selected active fact."""
        fact = self.selected_fact()
        if (
            not self.supersede_action.isEnabled()
            or fact is None
            or not fact.is_active
            or self.address is None
        ):
            return None
        return self._keep_dialog(FactDialog.supersede(self.session, self.address, fact, self))

    def _keep_dialog(self, dialog: FactDialog) -> FactDialog:
        if self.fact_dialog is not None and not self.fact_dialog.isVisible():
            self.fact_dialog.deleteLater()  # the previous, closed one
        self.fact_dialog = dialog
        dialog.factSaved.connect(self._fact_saved)
        return dialog

    def _fact_saved(self, fact_id: str) -> None:
        # the session announced the change (a reload is under way) before this call
        if fact_id:
            self._pending_select = fact_id

    def archive(self) -> QtWidgets.QMessageBox | None:
        """Ask, then move the entity under archives/ (undoable; nothing is deleted)."""
        ref = self.ref
        if ref is None or not self.archive_action.isEnabled():
            return None
        destination = f"archives/{ref.path.split('/', 1)[1]}"
        box = QtWidgets.QMessageBox(
            QtWidgets.QMessageBox.Icon.Question,
            f"Archive {ref.title}?",
            f"{ref.title} moves to {destination}.",
            QtWidgets.QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setInformativeText(
            "Nothing is deleted: its facts and summary move with it and stay searchable. "
            "Edit → Undo (Ctrl+Z) moves it back."
        )
        confirm = box.addButton("Archive", QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        address = str(ref)

        def answered(button: QtWidgets.QAbstractButton) -> None:
            self.archive_prompt = None
            if button is confirm:
                commands.archive_entity(
                    self.session, address, on_done=lambda new: self._archived(address, new)
                )

        box.buttonClicked.connect(answered)
        self.archive_prompt = box
        box.open()
        return box

    def unarchive(self) -> None:
        """Move the archived entity back where it came from (undoable); when the audit
        log does not say where, ask which category it goes to."""
        ref = self.ref
        if ref is None or not self.unarchive_action.isEnabled():
            return
        address = str(ref)
        self.session.run(
            lambda: self.session.vault.archived_from(address),
            lambda origin: self._unarchive_to(address, None if origin else self._ask_category()),
        )

    def _ask_category(self) -> str | None:
        categories = ["projects", "areas", "resources"]
        choice, ok = QtWidgets.QInputDialog.getItem(
            self,
            "Unarchive",
            "The audit log does not say where this entity was archived from. Move it to:",
            [c.title() for c in categories],
            1,
            False,
        )
        return choice.lower() if ok else ""

    def _unarchive_to(self, address: str, category: str | None) -> None:
        if category == "":  # asked, and cancelled
            return
        commands.unarchive_entity(
            self.session, address, category, on_done=lambda new: self._archived(address, new)
        )

    def _archived(self, old: str, new: layout.EntityRef) -> None:
        if self.address == old:
            self.show_entity(str(new))
        self.entityMoved.emit(old, str(new))
