"""The search dock (Ctrl+Shift+F): a query, a mode, filters, and results that open what they find.

Design
------
* **Results follow typing.** Every change of the query or of a filter restarts a 200 ms
  timer; when it fires, the search runs on a worker through `session.Session.run` (the
  engine has its own lock). Each search takes a number from a generation counter and its
  result is shown only if no newer search was started meanwhile, so a slow old query never
  overwrites a newer one and the window never waits for the engine.
* **The index may not be ready.** The session opens the engine in the background; until
  `searchReady` the panel says "Preparing the search index…" with the progress the session
  reports, remembers the query and runs it once the engine is there. `searchReady` comes
  first with BM25 only, and again once semantic search is on (or has failed): meanwhile
  the semantic modes are disabled, a notice says why (with the embedding progress), and
  the mode the user chose comes back when they are available.
* **What is highlighted is what matched.** The worker also turns each hit into a display
  row, whose matched words the list paints (`search_results`).
* **Opening.** Enter or a double-click on a hit emits `openFact(address, fact id)`,
  `openEntity(address)` or `openDaily(scope, date)`; the main window does the navigation.
  Searching here never marks facts as accessed: the engine marks access only for an agent.

* **Explained.** "Explain scores" shows the selected result's score parts as `vault-app
  search --explain` prints them (`search.results.explain_text`); a search that finds
  nothing says "No good matches", which query words the vault never mentions and how
  many weak matches the engine's relevance floor left out (`search.relevance`).
* **Dates in the query.** "roof last week", "in March": the days are read as the context
  builder reads them (`search.temporal`), searched as a date filter, and shown as a chip
  that removes it (the words are then searched as typed).
* **Esc** closes the dock (`closeRequested`).

The results list, its model and its delegate are `search_results`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, models
from vault_app.search import kinds

if TYPE_CHECKING:  # the engine pulls numpy and scipy: imported when first searched
    from vault_app.search import engine as search_engine
from vault_app.ui import session as session_module
from vault_app.ui.widgets import search_results

Role = QtCore.Qt.ItemDataRole
DEBOUNCE_MS = 200

MODES = (
    ("hybrid", "Hybrid", "Meaning and exact words combined (best for questions)"),
    ("bm25", "BM25", "Exact words only (fast; finds names, numbers, codes)"),
    ("semantic", "Semantic", "By meaning, even when the words differ"),
)
SEARCH_IN = (
    ("all", "Everything", frozenset(kinds.KINDS)),
    ("facts", "Facts", frozenset({kinds.FACT})),
    ("summaries", "Summaries", frozenset({kinds.SUMMARY})),
    ("daily", "Daily notes", frozenset({kinds.DAILY})),
)
TIERS: tuple[tuple[str, frozenset[str] | None], ...] = (
    ("Any tier", None),
    ("Hot", frozenset({"hot"})),
    ("Warm", frozenset({"warm"})),
    ("Cold", frozenset({"cold"})),
    ("Hot or warm", frozenset({"hot", "warm"})),
)
STATUSES = (("Active", "active"), ("Superseded", "superseded"), ("All", None))
MODE_TITLES = {key: title for key, title, _ in MODES}


# -- the panel ---------------------------------------------------------------------------------


def _combo(tip: str, items: Sequence[tuple[str, Any]]) -> QtWidgets.QComboBox:
    combo = QtWidgets.QComboBox()
    combo.setToolTip(tip)
    combo.setSizeAdjustPolicy(
        QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
    )
    combo.setMinimumContentsLength(7)
    for title, data in items:
        combo.addItem(title, data)
    return combo


def _labelled_grid(fields: list[tuple[str, QtWidgets.QWidget]]) -> QtWidgets.QGridLayout:
    """Label-field pairs, two to a row; the fields take the spare width."""
    grid = QtWidgets.QGridLayout()
    grid.setContentsMargins(0, 0, 0, 0)
    grid.setHorizontalSpacing(6)
    for n, (text, field) in enumerate(fields):
        row, column = divmod(n, 2)
        grid.addWidget(_label(text, field), row, 2 * column)
        grid.addWidget(field, row, 2 * column + 1)
    grid.setColumnStretch(1, 1)
    grid.setColumnStretch(3, 1)
    return grid


def _label(text: str, buddy: QtWidgets.QWidget) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setBuddy(buddy)
    return label


class SearchPanel(QtWidgets.QWidget):
    """Search the vault as you type; open a hit with Enter or a double-click."""

    openFact = QtCore.Signal(str, str)  # entity address, fact id
    openEntity = QtCore.Signal(str)  # entity address (a summary hit)
    openDaily = QtCore.Signal(str, object)  # scope ("global" / "agent:ID"), dt.date
    closeRequested = QtCore.Signal()  # Esc: the window hides the dock

    def __init__(
        self, session: session_module.Session, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("searchPanel")
        self._generation = 0  # bumped by every search started; older results are dropped
        self._shown_generation = -1
        self._pending = False  # a query waits for the engine
        self._agents: list[str] = []
        self._wanted_mode = "hybrid"  # the user's mode, restored once semantic search is on
        self._dates_removed_for: str | None = None  # the query whose date chip was removed
        self.period: tuple[dt.date, dt.date] | None = None  # the dates the query names

        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.search_now)

        self._build_controls()
        self._build_results()
        self._lay_out()
        self._connect()

        if session.scan is not None:
            self._fill_agents(session.scan.agents)
        if session.engine is not None:
            self._engine_ready(session.engine)
        else:
            self._show_preparing()

    # -- building ---------------------------------------------------------------------------

    def _build_controls(self) -> None:
        self.query_edit = QtWidgets.QLineEdit()
        self.query_edit.setPlaceholderText("Search facts, summaries and daily notes…")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setToolTip(
            "Words to look for (Ctrl+Shift+F). Results follow your typing; "
            "press Down to move into them and Enter to open one."
        )
        self.query_edit.setAccessibleName("Search query")

        self.mode_combo = _combo("How to match the query", [(t, k) for k, t, _ in MODES])
        for i, (_, _, tip) in enumerate(MODES):
            self.mode_combo.setItemData(i, tip, Role.ToolTipRole)
        self.in_combo = _combo("What kind of text to search", [(t, k) for k, t, _ in SEARCH_IN])
        self.scope_combo = _combo(
            "Only the global vault, or only one agent's workspace and daily notes",
            [("All scopes", None), ("Global", layout.GLOBAL_SCOPE)],
        )
        self.tier_combo = _combo(
            "Only facts of this decay tier (summaries and daily notes have no tier)", TIERS
        )
        self.para_combo = _combo(
            "Only entities of this PARA category (excludes daily notes)",
            [("Any", None)] + [(c.title(), c) for c in layout.PARA_CATEGORIES],
        )
        self.status_combo = _combo(
            "Active facts only (the default), replaced ones, or both", STATUSES
        )
        self.category_combo = _combo(
            "Only facts of this category",
            [("Any", None)] + [(c.value.title(), c.value) for c in models.FactCategory],
        )
        self.agent_combo = _combo(
            "Only facts written by this agent, or this agent's daily notes", [("Any", None)]
        )
        self.date_check = QtWidgets.QCheckBox("&Written from")
        self.date_check.setToolTip("Only what was written in this date range (inclusive)")
        today = QtCore.QDate.currentDate()
        self.date_from = self._date_edit(today.addDays(-30), "First day of the range")
        self.date_to = self._date_edit(today, "Last day of the range")
        self.reset_button = QtWidgets.QPushButton("&Reset filters")
        self.reset_button.setToolTip("Back to the default filters")

        self.more_button = QtWidgets.QToolButton()
        self.more_button.setCheckable(True)
        self.more_button.setAutoRaise(True)
        self.more_button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more_button.setArrowType(QtCore.Qt.ArrowType.RightArrow)
        self.more_button.setToolTip("Show or hide the less used filters")
        self._update_more_title()

        self.explain_button = QtWidgets.QToolButton()
        self.explain_button.setText("E&xplain scores")
        self.explain_button.setCheckable(True)
        self.explain_button.setProperty("toggle", True)
        self.explain_button.setToolTip(
            "Show the parts of the selected result's score (BM25, meaning, ranks, how much "
            "of the query it holds), as vault-app search --explain does"
        )
        self.date_chip = QtWidgets.QToolButton()
        self.date_chip.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.date_chip.setProperty("toggle", True)
        self.date_chip.setCheckable(True)
        self.date_chip.setAccessibleName("Date filter from the query")
        self.date_chip.hide()
        self.details = QtWidgets.QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName("Score parts of the selected result")
        self.details.hide()
        self.notice_label = QtWidgets.QLabel()
        self.notice_label.setWordWrap(True)
        self.notice_label.setProperty("notice", True)
        self.notice_label.hide()
        self.status_label = QtWidgets.QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("Search status")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.setRange(0, 0)
        self.progress.hide()

    def _date_edit(self, day: QtCore.QDate, tip: str) -> QtWidgets.QDateEdit:
        edit = QtWidgets.QDateEdit(day)
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setToolTip(tip)
        edit.setEnabled(False)
        return edit

    def _build_results(self) -> None:
        self.model = search_results.SearchResultsModel(self)
        self.results = QtWidgets.QListView()
        self.results.setModel(self.model)
        self.results.setItemDelegate(search_results.ResultDelegate(self.results))
        self.results.setUniformItemSizes(True)
        self.results.setAlternatingRowColors(True)
        self.results.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setVerticalScrollMode(QtWidgets.QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setToolTip("Enter or double-click opens the selected result")
        self.results.setAccessibleName("Search results")

    def _lay_out(self) -> None:
        grid = _labelled_grid(
            [
                ("M&ode", self.mode_combo),
                ("Search &in", self.in_combo),
                ("S&cope", self.scope_combo),
                ("&Tier", self.tier_combo),
            ]
        )

        self.more_box = QtWidgets.QWidget()
        more = _labelled_grid(
            [
                ("&PARA", self.para_combo),
                ("Stat&us", self.status_combo),
                ("Categor&y", self.category_combo),
                ("A&gent", self.agent_combo),
            ]
        )
        self.more_box.setLayout(more)
        dates = QtWidgets.QHBoxLayout()
        dates.addWidget(self.date_check)
        dates.addWidget(self.date_from, 1)
        to_label = _label("to", self.date_to)
        dates.addWidget(to_label)
        dates.addWidget(self.date_to, 1)
        more.addLayout(dates, 2, 0, 1, 4)
        reset_row = QtWidgets.QHBoxLayout()
        reset_row.addStretch(1)
        reset_row.addWidget(self.reset_button)
        more.addLayout(reset_row, 3, 0, 1, 4)
        self.more_box.hide()

        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(6, 6, 6, 6)
        box.setSpacing(6)
        box.addWidget(self.query_edit)
        chips = QtWidgets.QHBoxLayout()
        chips.addWidget(self.date_chip)
        chips.addStretch(1)
        chips.addWidget(self.explain_button)
        box.addLayout(chips)
        box.addLayout(grid)
        box.addWidget(self.more_button, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        box.addWidget(self.more_box)
        box.addWidget(self.notice_label)
        box.addWidget(self.status_label)
        box.addWidget(self.progress)
        box.addWidget(self.results, 1)
        box.addWidget(self.details)

    def _connect(self) -> None:
        self.query_edit.textChanged.connect(self._schedule)
        self.query_edit.returnPressed.connect(self._enter_in_query)
        self.query_edit.installEventFilter(self)
        self.results.installEventFilter(self)
        self.results.doubleClicked.connect(self.open_index)
        for combo in self._filter_combos():
            combo.currentIndexChanged.connect(self._filters_changed)
        self.date_check.toggled.connect(self._dates_toggled)
        self.date_from.dateChanged.connect(self._filters_changed)
        self.date_to.dateChanged.connect(self._filters_changed)
        self.reset_button.clicked.connect(self.reset_filters)
        self.more_button.toggled.connect(self._toggle_more)
        self.explain_button.toggled.connect(self._explain_toggled)
        self.date_chip.clicked.connect(self.remove_date_filter)
        self.results.selectionModel().currentChanged.connect(self._show_details)
        self.mode_combo.activated.connect(self._mode_chosen)
        self.session.searchReady.connect(self._engine_ready)
        self.session.searchProgress.connect(self._progress)
        self.session.scanned.connect(lambda scan: self._fill_agents(scan.agents))
        self.session.entityChanged.connect(self._vault_changed)
        self.session.dailyChanged.connect(self._vault_changed)

    def _filter_combos(self) -> list[QtWidgets.QComboBox]:
        return [
            self.mode_combo,
            self.in_combo,
            self.scope_combo,
            self.tier_combo,
            self.para_combo,
            self.status_combo,
            self.category_combo,
            self.agent_combo,
        ]

    # -- public ------------------------------------------------------------------------------

    def focus_query(self) -> None:
        """Put the cursor in the query box with its text selected (Ctrl+Shift+F)."""
        self.query_edit.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)
        self.query_edit.selectAll()

    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def filters(self) -> search_engine.Filters:
        """The filters the controls describe."""
        since = until = None
        if self.date_check.isChecked():
            first, last = sorted(
                dt.date(d.year(), d.month(), d.day())
                for d in (self.date_from.date(), self.date_to.date())
            )
            since = dt.datetime.combine(first, dt.time.min).astimezone()
            until = dt.datetime.combine(last, dt.time.max).astimezone()
        category = self.category_combo.currentData()
        from vault_app.search import engine as search_engine

        return search_engine.Filters(
            kinds=SEARCH_IN[self.in_combo.currentIndex()][2],
            scope=self.scope_combo.currentData(),
            para=self.para_combo.currentData(),
            tiers=TIERS[self.tier_combo.currentIndex()][1],
            status=STATUSES[self.status_combo.currentIndex()][1],
            categories=frozenset({category}) if category else None,
            agent=self.agent_combo.currentData(),
            since=since,
            until=until,
        )

    def idle(self) -> bool:
        """Whether the results shown are those of the current query and filters."""
        return not self._timer.isActive() and self._shown_generation == self._generation

    def reset_filters(self) -> None:
        for combo in self._filter_combos()[1:]:
            combo.setCurrentIndex(0)
        self.date_check.setChecked(False)

    def search_now(self) -> None:
        """Start the search for the current query and filters (the debounce timer's end)."""
        self._timer.stop()
        self._generation += 1
        generation = self._generation
        query = self.query_edit.text().strip()
        if not query:
            self._pending = False
            from vault_app.search import engine as search_engine

            self._show(
                generation,
                search_results.SearchOutcome([], search_engine.SearchResult([], self.mode())),
            )
            self.status_label.setText("Type a few words to search the vault.")
            return
        engine = self.session.engine
        if engine is None:
            self._pending = True
            self._show_preparing()
            return
        self._pending = False
        mode, filters = self.mode(), self.filters()
        words = self._read_dates(query, filters)
        explain = self.explain_button.isChecked()
        QtCore.QTimer.singleShot(150, self, lambda: self._still_searching(generation))
        self.session.run(
            lambda: search_results.run_search(engine, words, mode, filters, explain=explain),
            lambda outcome: self._show(generation, outcome),
            lambda exc: self._failed(generation, exc),
        )

    def _read_dates(self, query: str, filters: search_engine.Filters) -> str:
        """The dates the query names become the filter's range (unless the date range
        of the filters is on, or the chip was removed); returns the words to search."""
        from vault_app.search import temporal

        today = self.session.vault.now().date()
        period = None
        if not self.date_check.isChecked() and query != self._dates_removed_for:
            period = temporal.date_range(query, today)
        self.period = period
        self._show_chip()
        if period is None:
            return query
        filters.since = dt.datetime.combine(period[0], dt.time.min).astimezone()
        filters.until = dt.datetime.combine(period[1], dt.time.max).astimezone()
        return temporal.strip(query, today)

    def _show_chip(self) -> None:
        period = self.period
        self.date_chip.setVisible(period is not None)
        if period is not None:
            first, last = (f"{d.day} {d:%b %Y}" for d in period)
            shown = first if period[0] == period[1] else f"{first} – {last}"
            self.date_chip.setText(f"Written {shown}  ✕")
            self.date_chip.setChecked(True)
            self.date_chip.setToolTip(
                "The dates your query names, searched as a filter. Click to remove it and "
                "search the words as typed."
            )

    def remove_date_filter(self) -> None:
        """Drop the date filter read from the query (until the query changes)."""
        self._dates_removed_for = self.query_edit.text().strip()
        self.search_now()

    def _explain_toggled(self, on: bool) -> None:
        self.details.setVisible(on)
        self.search_now()

    def _show_details(self, current: QtCore.QModelIndex, _previous: Any = None) -> None:
        hit = current.data(search_results.HIT_ROLE) if current.isValid() else None
        if not self.explain_button.isChecked():
            return
        self.details.setText(search_results.explain_hit(hit) if hit else "")

    def _still_searching(self, generation: int) -> None:
        """Say so when a search takes long (fast ones leave the status line quiet)."""
        if generation == self._generation and self._shown_generation != generation:
            self.status_label.setText("Searching…")

    def open_index(self, index: QtCore.QModelIndex) -> None:
        """Open the hit at `index` (emits openFact, openEntity or openDaily)."""
        if not index.isValid():
            return
        hit: search_engine.Hit = index.data(search_results.HIT_ROLE)
        if hit.kind == kinds.FACT and hit.entity and hit.fact_id:
            self.openFact.emit(hit.entity, hit.fact_id)
        elif hit.kind == kinds.SUMMARY and hit.entity:
            self.openEntity.emit(hit.entity)
        elif hit.kind == kinds.DAILY and hit.date is not None:
            self.openDaily.emit(hit.scope, hit.date)

    # -- reacting ----------------------------------------------------------------------------

    def _schedule(self) -> None:
        self._timer.start()

    def _filters_changed(self) -> None:
        self._update_more_title()
        self._schedule()

    def _dates_toggled(self, on: bool) -> None:
        self.date_from.setEnabled(on)
        self.date_to.setEnabled(on)
        self._filters_changed()

    def _toggle_more(self, shown: bool) -> None:
        self.more_box.setVisible(shown)
        self.more_button.setArrowType(
            QtCore.Qt.ArrowType.DownArrow if shown else QtCore.Qt.ArrowType.RightArrow
        )

    def _update_more_title(self) -> None:
        on = sum(
            combo.currentIndex() != 0
            for combo in (self.para_combo, self.status_combo, self.category_combo, self.agent_combo)
        ) + int(self.date_check.isChecked())
        self.more_button.setText(f"&More filters ({on} on)" if on else "&More filters")

    def _vault_changed(self, *_: Any) -> None:
        if self.query_edit.text().strip() and self.session.engine is not None:
            self._schedule()

    def _fill_agents(self, agents: Sequence[str]) -> None:
        """List the vault's agents in the scope and agent filters, keeping the choices."""
        if list(agents) == self._agents:
            return
        self._agents = list(agents)
        scopes = [(f"Agent {a}", f"agent:{a}") for a in self._agents]
        lost = self._refill(self.scope_combo, 2, scopes)
        lost |= self._refill(self.agent_combo, 1, [(a, a) for a in self._agents])
        if lost:  # a chosen agent is gone: its filter fell back to "all"
            self._filters_changed()

    @staticmethod
    def _refill(combo: QtWidgets.QComboBox, keep: int, items: Sequence[tuple[str, str]]) -> bool:
        """Replace the items after the first `keep`; True if the current one was lost."""
        current = combo.currentData()
        combo.blockSignals(True)
        while combo.count() > keep:
            combo.removeItem(combo.count() - 1)
        for title, data in items:
            combo.addItem(title, data)
        found = combo.findData(current)
        combo.setCurrentIndex(max(0, found))
        combo.blockSignals(False)
        return current is not None and found < 0

    def _show_preparing(self) -> None:
        self.status_label.setText("Preparing the search index…")
        self.progress.show()

    def _progress(self, done: int, total: int, label: str) -> None:
        """The index being built (no engine yet) or the embeddings being computed (BM25
        already answering)."""
        self.progress.setRange(0, max(total, 0))
        self.progress.setValue(done)
        counts = f"{label} {done:,}/{total:,}" if total else label
        if self.session.engine is None:
            self.progress.show()
            self.status_label.setText(f"Preparing the search index… {counts}")
            return
        self.progress.setVisible(done < total)
        self.notice_label.setText(
            f"Semantic search is getting ready ({counts}); exact-word results meanwhile."
        )
        self.notice_label.show()

    def _mode_chosen(self, row: int) -> None:
        self._wanted_mode = MODES[row][0]

    def _engine_ready(self, engine: search_engine.SearchEngine) -> None:
        """The engine is usable: BM25 first; called again once semantic search is on (or
        has failed)."""
        self.progress.hide()
        semantic = engine.semantic is not None
        reason = self.session.engine_notice or engine.semantic_notice or "semantic search is not on"
        items = self.mode_combo.model()
        assert isinstance(items, QtGui.QStandardItemModel)
        for row, (key, _, tip) in enumerate(MODES):
            item = items.item(row)
            if item is not None and key != "bm25":
                item.setEnabled(semantic)
                item.setToolTip(tip if semantic else f"Not available now: {reason}")
        mode = self._wanted_mode if semantic else "bm25"
        self.mode_combo.blockSignals(True)
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(mode))
        self.mode_combo.blockSignals(False)
        if semantic:
            self.notice_label.hide()
        else:
            self.notice_label.setText(f"Exact-word search only (BM25): {reason.rstrip('.')}.")
            self.notice_label.setToolTip(reason)
            self.notice_label.show()
        if self._pending or self.query_edit.text().strip():
            self.search_now()
        else:
            self.status_label.setText("Type a few words to search the vault.")

    def _show(self, generation: int, outcome: search_results.SearchOutcome) -> None:
        if generation != self._generation:
            return  # a newer search was started: this result is stale
        self._shown_generation = generation
        current = self.results.currentIndex()
        selected = current.data(search_results.HIT_ROLE).key if current.isValid() else None
        self.model.set_rows(outcome.rows)
        if outcome.rows:  # keep the selected hit selected when it is still there
            keys = [row.hit.key for row in outcome.rows]
            row = keys.index(selected) if selected in keys else 0
            self.results.setCurrentIndex(self.model.index(row, 0))
        result = outcome.result
        if not self.query_edit.text().strip():
            return
        count = len(outcome.rows)
        words = "1 result" if count == 1 else f"{count} results"
        status = f"{words} · {result.seconds * 1000:.0f} ms · {MODE_TITLES.get(result.mode)}"
        if not count:
            status = search_results.no_match_text(result)
        self._show_details(self.results.currentIndex())
        if result.notice:
            status += f"\n{result.notice[:1].upper()}{result.notice[1:]}."
        self.status_label.setText(status)

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        title, message = session_module.describe(exc)
        self.model.set_rows([])
        self.status_label.setText(f"Search failed — {title}: {message}")

    def _enter_in_query(self) -> None:
        if self.idle() and self.model.rowCount() > 0:
            index = self.results.currentIndex()
            self.open_index(index if index.isValid() else self.model.index(0, 0))
        else:
            self.search_now()

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() != QtCore.QEvent.Type.KeyPress:
            return super().eventFilter(watched, event)
        assert isinstance(event, QtGui.QKeyEvent)
        key = event.key()
        down = key == QtCore.Qt.Key.Key_Down
        if watched is self.query_edit and down and self.model.rowCount() > 0:
            if not self.results.currentIndex().isValid():
                self.results.setCurrentIndex(self.model.index(0, 0))
            self.results.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
            return True
        if watched is self.results:
            if key in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
                self.open_index(self.results.currentIndex())
                return True
            at_top = self.results.currentIndex().row() <= 0
            if key == QtCore.Qt.Key.Key_Up and at_top:
                self.query_edit.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
                return True
        if key == QtCore.Qt.Key.Key_Escape:
            self.closeRequested.emit()
            return True
        return super().eventFilter(watched, event)
