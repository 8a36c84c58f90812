"""An entity as it was believed on a past date: the read-only "As of…" view of the entity
page.

Design
------
`AsOfPanel.show_entity(address, day)` asks `Vault.as_of` on a worker (a result for an
older request is dropped) and shows, under a banner that says plainly that this is the
past and read-only, with "Back to now":

* a date control (a calendar pop-up; changing the day shows that day's view);
* the summary as it read then (from the backup ring), or why it is unknown;
* the facts active then, each with its tier then, its category, when it was written and
  how it ended later (superseded, archived, retracted), if it did.

Nothing here writes; the page disables its edit actions while this view is shown.
"""

from __future__ import annotations

import datetime as dt
import html

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import history, layout
from vault_app.ui import themes
from vault_app.ui.session import Session, describe

Qt = QtCore.Qt


class AsOfPanel(QtWidgets.QWidget):
    """The read-only past view of one entity (see the module docstring)."""

    backToNow = QtCore.Signal()
    loaded = QtCore.Signal(object)  # history.AsOfView, or the error

    TIER, FACT, CATEGORY, WRITTEN, LATER = range(5)

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.address: str | None = None
        self.view: history.AsOfView | None = None
        self._generation = 0
        self._build()

    def _build(self) -> None:
        self.banner = QtWidgets.QFrame()
        self.banner.setProperty("banner", True)  # the theme's warning strip
        self.banner.setAccessibleName("Viewing the past")
        self.banner_label = QtWidgets.QLabel()
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextFormat(Qt.TextFormat.RichText)
        self.date_edit = QtWidgets.QDateEdit()
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDisplayFormat("yyyy-MM-dd")
        self.date_edit.setMaximumDate(QtCore.QDate.currentDate())
        self.date_edit.setToolTip("The day to look at: everything written up to its end")
        self.date_edit.setAccessibleName("As of date")
        self.date_edit.dateChanged.connect(self._date_changed)
        date_label = QtWidgets.QLabel("&As of:")
        date_label.setBuddy(self.date_edit)
        self.back_button = QtWidgets.QPushButton("Back to now")
        self.back_button.setToolTip("Leave the past view: the entity as it is now (Esc)")
        self.back_button.clicked.connect(self.backToNow)
        # Esc in the panel only: window-wide it would share the key with a document
        # pane's Esc on the same page, and Qt runs neither of two (the context must be
        # set, not passed: this constructor overload drops it)
        leave = QtGui.QShortcut(QtGui.QKeySequence(Qt.Key.Key_Escape), self)
        leave.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        leave.activated.connect(self.backToNow.emit)
        row = QtWidgets.QHBoxLayout(self.banner)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(self.banner_label, 1)
        row.addWidget(date_label)
        row.addWidget(self.date_edit)
        row.addWidget(self.back_button)

        self.summary_note = QtWidgets.QLabel()
        self.summary_note.setProperty("notice", True)
        self.summary_note.setWordWrap(True)
        self.summary = QtWidgets.QTextBrowser()
        self.summary.setAccessibleName("Summary then")
        self.summary.setOpenLinks(False)

        self.facts = QtWidgets.QTreeWidget()
        self.facts.setHeaderLabels(["Tier then", "Fact", "Category", "Written", "Later"])
        self.facts.setRootIsDecorated(False)
        self.facts.setUniformRowHeights(True)
        self.facts.setAlternatingRowColors(True)
        self.facts.setAccessibleName("Facts active then")
        header = self.facts.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(self.FACT, QtWidgets.QHeaderView.ResizeMode.Stretch)
        metrics = self.fontMetrics()
        for column, sample in (
            (self.TIER, "Tier then "),
            (self.CATEGORY, "Relationship"),
            (self.WRITTEN, "2026-01-31"),
            (self.LATER, "superseded 2026-01-31"),
        ):
            self.facts.setColumnWidth(column, metrics.horizontalAdvance(sample) + 28)
        self.facts_label = QtWidgets.QLabel()
        font = self.facts_label.font()
        font.setBold(True)
        self.facts_label.setFont(font)

        upper = QtWidgets.QWidget()
        top = QtWidgets.QVBoxLayout(upper)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.summary_note)
        top.addWidget(self.summary, 1)
        lower = QtWidgets.QWidget()
        bottom = QtWidgets.QVBoxLayout(lower)
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.facts_label)
        bottom.addWidget(self.facts, 1)
        split = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)

        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(0, 4, 0, 0)
        box.addWidget(self.banner)
        box.addWidget(split, 1)

    def hasHeightForWidth(self) -> bool:
        # its wrapped banner must not make the page ask the window's scroll area for a
        # height by width (the window would then scroll a page that fits)
        return False

    # -- loading --------------------------------------------------------------------------

    def show_entity(self, address: str, day: dt.date | None = None) -> None:
        """Show `address` as of `day` (default: the day shown before, or 30 days ago)."""
        self.address = address
        if day is not None:
            self.date_edit.blockSignals(True)
            self.date_edit.setDate(QtCore.QDate(day.year, day.month, day.day))
            self.date_edit.blockSignals(False)
        elif self.view is None:
            self.date_edit.blockSignals(True)
            self.date_edit.setDate(QtCore.QDate.currentDate().addDays(-30))
            self.date_edit.blockSignals(False)
        self._load()

    def day(self) -> dt.date:
        date = self.date_edit.date()
        return dt.date(date.year(), date.month(), date.day())

    def _date_changed(self, _date: QtCore.QDate) -> None:
        if self.address is not None:
            self._load()

    def _load(self) -> None:
        self._generation += 1
        generation, address, day = self._generation, str(self.address), self.day()
        title = layout.EntityRef.parse(address).title
        self.banner_label.setText(
            f"<b>{html.escape(title)} as of {day:%d %B %Y}</b> — the past, read-only: reading…"
        )
        self.session.run(
            lambda: self.session.vault.as_of(address, day),
            lambda view: self._loaded(generation, view),
            lambda exc: self._failed(generation, exc),
        )

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self.view = None
        self.facts.clear()
        title, message = describe(exc)
        self.banner_label.setText(f"<b>{html.escape(title)}</b> {html.escape(message)}")
        self.loaded.emit(exc)

    def _loaded(self, generation: int, view: history.AsOfView) -> None:
        if generation != self._generation:
            return
        self.view = view
        counts = view.tier_counts()
        tiers = ", ".join(f"{n} {tier.value}" for tier, n in counts.items())
        self.banner_label.setText(
            f"<b>{html.escape(view.ref.title)} as of {view.moment:%d %B %Y}</b> — the past, "
            f"read-only: the facts as they were believed then, with their tiers then ({tiers})."
        )
        self._show_summary(view.summary)
        self._show_facts(view)
        self.loaded.emit(view)

    def _show_summary(self, then: history.SummaryThen) -> None:
        self.summary_note.setText(f"Summary then: {then.note}.")
        if then.text is None:
            self.summary.setPlainText("")
            self.summary.setPlaceholderText("The summary of then is not known.")
        else:
            self.summary.setMarkdown(then.text)

    def _show_facts(self, view: history.AsOfView) -> None:
        self.facts.clear()
        palette = self.palette()
        items = []
        order = {"hot": 0, "warm": 1, "cold": 2}
        for item in sorted(view.facts, key=lambda i: (order[i.tier.value], i.fact.fact.casefold())):
            fact = item.fact
            written = fact.timestamp.astimezone().strftime("%Y-%m-%d") if fact.timestamp else ""
            later = ""
            if item.ended is not None:
                when = f" {item.ended.at.astimezone():%Y-%m-%d}" if item.ended.at else ""
                later = f"{item.ended.how}{when}"
            row = QtWidgets.QTreeWidgetItem(
                [item.tier.value.capitalize(), fact.fact, fact.category.value, written, later]
            )
            row.setForeground(self.TIER, themes.tier_text_colour(item.tier, palette))
            row.setToolTip(self.FACT, fact.fact)
            if later:
                row.setToolTip(self.LATER, f"Active then; {later} after this day")
            items.append(row)
        self.facts.addTopLevelItems(items)
        extra = f"; {view.later} written later" if view.later else ""
        unsure = (
            f"; {len(view.uncertain)} superseded with no record of when, left out"
            if view.uncertain
            else ""
        )
        self.facts_label.setText(f"Facts active then ({len(view.facts)}{extra}{unsure})")

    def rows(self) -> list[list[str]]:
        """The facts shown, as their cells (for tests and screen readers' sake)."""
        rows = (self.facts.topLevelItem(r) for r in range(self.facts.topLevelItemCount()))
        return [[item.text(c) for c in range(5)] for item in rows if item is not None]
