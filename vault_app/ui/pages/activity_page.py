"""The Activity page: what the heartbeat ran and what the agents, the heartbeat and people
wrote, so a person sees what changed in the vault without them (Go › Activity).

Design
------
Two tables over two append-only logs, both read by the core, never by this page:

* the heartbeat's runs from `.vault/heartbeat.jsonl` (`heartbeat.runlog.read`): when, the
  job, who ran it and why, the extractor, the counts and the duration; a run stopped by
  an error is tinted and says why;
* the recent writes from `.vault/audit.jsonl` (`core.activity.recent`): when, who (an
  agent, the heartbeat, a person), what and where; double-click a write to an entity's
  facts or summary to open the entity (`openEntity`, or `openFact` when the line names
  the fact).

Filters (`models.activity.Filter`): who (a kind of actor or one actor), what (an action
family), entity words, and when (today, 7 days, 30 days, all, or between two days — the
date filter applies to both tables). The filtering is the core's (`core.activity.query`,
the same `Query` the CLI and the MCP read with): the page only turns its controls into a
query. The audit log may be large: the core reads its tail backwards and stops once
`LIMIT` writes are kept (or a date range's start is passed), so a read costs what it
shows. Every read runs on a worker (`Session.run`); the newest read wins.

Revert: a fact an agent or the heartbeat added or changed can be taken back (the Revert
button, the context menu, or Ctrl+Alt+Z, which the window also offers as Edit › Revert
agent write; Ctrl+Z undoes it): `commands.revert_write`, an undoable supersede back to
the version before (an added fact is withdrawn, kept), refused in words when the fact
changed since (`core.revert`).

Live: the watcher of the vault (`watch`) leaves `.vault/` out on purpose, so the page
watches the two log files with a `QFileSystemWatcher` (and `.vault/` itself while one of
them does not exist yet, to see it appear). A change re-reads after a short debounce
while the page is shown; a hidden page reads nothing until it is shown again.

Where the logs are: the page reads through an activity source. `VaultActivity` is a PARA
vault's (both logs, Revert); `FolderActivity` a neighbour's folder's (a Hermes home...):
the audit log vault-app keeps for it in its state folder, which `vault-app --vault FOLDER
activity` reads too — its agents' writes (through `mcp`/`serve`), the window's, the
review queue's decisions. A folder has no heartbeat and no facts, so neither the runs
nor Revert are shown there; the page watches the log, or the nearest existing folder on
its way until it is made.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import activity, decay, feed, revert, storage
from vault_app.heartbeat import runlog
from vault_app.ui import commands, themes
from vault_app.ui import session as session_module
from vault_app.ui.models import activity as model
from vault_app.ui.widgets import flow_layout

Qt = QtCore.Qt
DEBOUNCE_MS = 200  # folds a burst of writes into one read
TYPING_MS = 250  # the entity filter waits for a pause in typing
LIMIT = 500  # writes shown at most
RUN_LIMIT = 200  # runs shown at most


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One read of both logs, filtered."""

    runs: list[runlog.RunRecord]
    writes: list[dict[str, Any]]
    now: dt.datetime
    actors: list[str]  # the actors of the writes read (for the Who list)
    more: bool  # the limit cut the writes
    told: list[feed.Told] = dataclasses.field(default_factory=list)  # the writes in words


def read(
    root: Path, chosen: model.Filter, now: dt.datetime, agent_ids: tuple[str, ...] = ()
) -> Snapshot:
    """Both logs' newest lines, filtered by `chosen` (runs by date only)."""
    runs = [r for r in runlog.read(root, limit=RUN_LIMIT) if chosen.keeps_run(r, now)]
    runs.sort(key=lambda r: r.started, reverse=True)  # runners of several processes interleave
    found = activity.query(root, chosen.query(now, agent_ids), limit=LIMIT)
    return Snapshot(runs, found.lines, now, sorted(found.actors), found.more)


# the families a neighbour's folder's log holds (its formats' writes, reviews, tokens)
FOLDER_FAMILIES = ("notes", "profile", "tiers", "daily", "review", "token")


class VaultActivity:
    """A PARA vault's logs: `.vault/audit.jsonl` and the heartbeat's runs; facts revert."""

    heartbeat = True
    revert = True
    subject = ("En&tity", "entity or file")  # what the words filter matches
    families = tuple(f for f in model.FAMILY_TITLES if f not in ("notes", "profile", "tiers"))

    def __init__(self, s: session_module.Session) -> None:
        self.session = s

    def now(self) -> dt.datetime:
        return self.session.vault.now()

    def agent_ids(self) -> tuple[str, ...]:
        known = self.session.known
        return tuple(known.agents) if known is not None else ()

    def state(self) -> Path:
        return self.session.vault.paths.state_dir

    def logs(self) -> list[Path]:
        return [self.state() / storage.AUDIT_NAME, runlog.log_path(self.session.vault.root)]

    def read(self, chosen: model.Filter, now: dt.datetime, agent_ids: tuple[str, ...]) -> Snapshot:
        snapshot = read(self.session.vault.root, chosen, now, agent_ids)
        told = feed.tell(self.session.vault, snapshot.writes, agent_ids)
        return dataclasses.replace(snapshot, told=told)


class FolderActivity:
    """A neighbour's folder's audit log, in vault-app's state folder for it (no heartbeat,
    no facts to revert). `agents` is set by the window once it has listed them."""

    heartbeat = False
    revert = False
    subject = ("Fi&le", "file")
    families = FOLDER_FAMILIES

    def __init__(self, s: session_module.FolderSession) -> None:
        self.session = s
        self.agents: tuple[str, ...] = ()

    def now(self) -> dt.datetime:
        return decay.as_aware(self.session.folder.clock())

    def agent_ids(self) -> tuple[str, ...]:
        return self.agents

    def state(self) -> Path:
        return self.session.folder.files.state

    def logs(self) -> list[Path]:
        return [self.state() / storage.AUDIT_NAME]

    def read(self, chosen: model.Filter, now: dt.datetime, agent_ids: tuple[str, ...]) -> Snapshot:
        state = self.state()
        found = activity.query(
            state, chosen.query(now, agent_ids), limit=LIMIT, log=state / storage.AUDIT_NAME
        )
        told = feed.tell(None, found.lines, agent_ids)
        return Snapshot([], found.lines, now, sorted(found.actors), found.more, told)


Source = VaultActivity | FolderActivity


class ActivityPage(QtWidgets.QWidget):
    """The heartbeat's runs and the recent writes, filterable, kept current."""

    openEntity = QtCore.Signal(str)  # entity address
    openFact = QtCore.Signal(str, str)  # entity address, fact id
    openReview = QtCore.Signal(str)  # a held-back write's review id
    refreshed = QtCore.Signal()  # after every read shown (tests wait for it)

    def __init__(
        self, source: Source, parent: QtWidgets.QWidget | None = None, *, heading: bool = True
    ) -> None:
        super().__init__(parent)
        self.source = source
        self.session = source.session
        self._heading = heading  # False: the window titles the page itself
        self.snapshot: Snapshot | None = None
        self._noted: dict[str, Any] | None = None  # the write the revert note is about
        self._reads = 0  # the latest read wins (a slow one must not overwrite it)
        self._build()
        self._debounce = self._timer(DEBOUNCE_MS, self._changed)
        self._typing = self._timer(TYPING_MS, self.refresh)
        self.entity_edit.textChanged.connect(lambda _text: self._typing.start())
        for combo in (self.actor_combo, self.family_combo, self.span_combo):
            combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.span_combo.currentIndexChanged.connect(lambda _i: self._show_range())
        self._watch = QtCore.QFileSystemWatcher(self)
        self._watch.fileChanged.connect(lambda _path: self._debounce.start())
        self._watch.directoryChanged.connect(lambda _path: self._debounce.start())
        self._watch_logs()

    def _timer(self, msecs: int, slot: Any) -> QtCore.QTimer:
        timer = QtCore.QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(msecs)
        timer.timeout.connect(slot)
        return timer

    # -- construction -------------------------------------------------------------------

    def _build(self) -> None:
        title = QtWidgets.QLabel("<h2>Activity</h2>")
        self.summary = QtWidgets.QLabel()
        self.summary.setProperty("notice", True)
        self.summary.setWordWrap(True)
        top = QtWidgets.QHBoxLayout()
        if self._heading:
            top.addWidget(title)
            top.addSpacing(12)
        top.addWidget(self.summary, 1)

        self.actor_combo = self._combo("Who wrote it: a kind of actor, or one of them")
        for text, data in (
            ("Everyone", ""),
            ("Agents", "kind:agent"),
            ("Heartbeat", "kind:heartbeat"),
            ("People", "kind:person"),
        ):
            if data != "kind:heartbeat" or self.source.heartbeat:
                self.actor_combo.addItem(text, data)
        self.actor_combo.insertSeparator(self.actor_combo.count())
        self._fixed_actors = self.actor_combo.count()  # the kinds and the separator
        self.family_combo = self._combo("What was written")
        self.family_combo.addItem("All changes", "")
        for name in self.source.families:
            self.family_combo.addItem(model.FAMILY_TITLES[name], name)
        self.entity_edit = QtWidgets.QLineEdit()
        words_label, subject = self.source.subject
        self.entity_edit.setPlaceholderText(f"{subject.capitalize()} contains…")
        self.entity_edit.setToolTip(f"Show only writes whose {subject} contains these words")
        self.entity_edit.setClearButtonEnabled(True)
        self.span_combo = self._combo("How far back, for the runs and the writes")
        for span, text in model.SPANS.items():
            self.span_combo.addItem(text, span)
        self.span_combo.setCurrentIndex(self.span_combo.findData(model.Filter().span))
        self.first_date = self._date_edit("The first day shown (local time)", -7)
        self.last_date = self._date_edit("The last day shown, included", 0)
        self.range_label = QtWidgets.QLabel("t&o")
        self.range_label.setBuddy(self.last_date)
        filters = flow_layout.FlowLayout(spacing=14)  # wraps in a narrow page, never widens it
        for label, widget, stretch in (
            ("&Who", self.actor_combo, 0),
            ("Wh&at", self.family_combo, 0),
            (words_label, self.entity_edit, 1),
            ("Whe&n", self.span_combo, 0),
        ):
            caption = QtWidgets.QLabel(label)
            caption.setBuddy(widget)
            filters.add(flow_layout.group(caption, widget), stretch=stretch)
        self.entity_edit.setMinimumWidth(160)
        # the days of "Between dates…" on a row of their own: at 1280 px beside the other
        # filters they left the entity field a few characters wide
        self.range_row = QtWidgets.QWidget()
        days = QtWidgets.QHBoxLayout(self.range_row)
        days.setContentsMargins(0, 0, 0, 0)
        from_label = QtWidgets.QLabel("Fro&m")
        from_label.setBuddy(self.first_date)
        for part in (from_label, self.first_date, self.range_label, self.last_date):
            days.addWidget(part)
        days.addStretch(1)
        self._show_range()

        self.runs_model = model.RunsModel(self)
        self.runs_table = self._table(self.runs_model, "Heartbeat runs")
        runs_head = self.runs_table.horizontalHeader()
        metrics = self.runs_table.fontMetrics()
        for column, sample in enumerate(("yesterday 00:00", "⚠ Heartbeat failed", "serve",
                                         "catch-up", "llm:qwen2.5")):  # fmt: skip
            runs_head.resizeSection(column, metrics.horizontalAdvance(sample) + 18)
        bold = QtGui.QFont(self.runs_table.font())
        bold.setBold(True)  # a failed run's Job is bold
        runs_head.resizeSection(
            1, QtGui.QFontMetrics(bold).horizontalAdvance("⚠ Heartbeat failed") + 18
        )
        for column, name in enumerate(self.runs_model.COLUMNS[5:13], start=5):
            runs_head.resizeSection(column, max(metrics.horizontalAdvance(name), 36) + 14)
        self.runs_table.selectionModel().currentRowChanged.connect(lambda *_: self._show_run())
        self.runs_empty = QtWidgets.QLabel()
        self.runs_empty.setProperty("notice", True)
        self.runs_empty.setWordWrap(True)
        # two lines of room: the splitter does not ask a wrapped label for its height
        self.runs_empty.setMinimumHeight(self.runs_empty.fontMetrics().lineSpacing() * 2 + 4)
        self.run_detail = QtWidgets.QLabel()
        self.run_detail.setWordWrap(True)
        self.run_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # folded by default into one line (the newest run): the writes get the room
        self.runs_toggle = QtWidgets.QToolButton()
        self.runs_toggle.setCheckable(True)
        self.runs_toggle.setAutoRaise(True)
        self.runs_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.runs_toggle.setAccessibleName("Show every run")
        self.runs_toggle.toggled.connect(self._fold_runs)
        line = QtWidgets.QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.run_detail, 1)
        line.addWidget(self.runs_toggle, 0, Qt.AlignmentFlag.AlignTop)
        runs_line = QtWidgets.QWidget()
        runs_line.setLayout(line)
        runs_box = self._group("Heartbeat runs", self.runs_empty, runs_line, self.runs_table)
        self.runs_box = runs_box

        self.writes_model = model.WritesModel(self)
        self.writes_table = self._table(self.writes_model, "Recent writes")
        writes_head = self.writes_table.horizontalHeader()
        for column, sample in enumerate(("yesterday 00:00:00", "maintenance", "Heartbeat")):
            writes_head.resizeSection(column, metrics.horizontalAdvance(sample) + 28)
        # What holds the fact's own text: it takes the room; Where a title's worth
        writes_head.setStretchLastSection(False)
        writes_head.setSectionResizeMode(3, QtWidgets.QHeaderView.ResizeMode.Stretch)
        writes_head.resizeSection(4, metrics.horizontalAdvance("Budget Review (finance)") + 28)
        self.writes_table.doubleClicked.connect(self._open)
        self.writes_table.activated.connect(self._open)
        self.writes_empty = QtWidgets.QLabel()
        self.writes_empty.setProperty("notice", True)
        self.writes_empty.setWordWrap(True)
        self.revert_button = QtWidgets.QPushButton("&Revert")
        self.revert_button.setAutoDefault(False)
        self.revert_button.setToolTip(
            "Take the selected agent write back (Ctrl+Alt+Z): the fact goes back to its "
            "version before (an added fact is withdrawn). Nothing is deleted; Undo (Ctrl+Z) "
            "restores it."
        )
        self.revert_button.clicked.connect(self.revert_selected)
        # the page's own key (the window routes Edit › Revert agent write to it)
        self.revert_action = QtGui.QAction("Revert", self)
        self.revert_action.setShortcut(QtGui.QKeySequence("Ctrl+Alt+Z"))
        self.revert_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.revert_action.triggered.connect(self.revert_selected)
        self.revert_action.setEnabled(False)
        self.addAction(self.revert_action)
        self.revert_note = QtWidgets.QLabel()
        self.revert_note.setTextFormat(Qt.TextFormat.PlainText)
        self.revert_note.setWordWrap(True)
        self.revert_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        actions = QtWidgets.QHBoxLayout()
        actions.addWidget(self.revert_note, 1)
        actions.addWidget(self.revert_button)
        self.revert_button.setVisible(self.source.revert)
        writes_box = self._group("Recent writes", self.writes_empty, self.writes_table)
        box_layout = writes_box.layout()
        assert isinstance(box_layout, QtWidgets.QVBoxLayout)
        box_layout.addLayout(actions)
        self.writes_table.selectionModel().currentRowChanged.connect(
            lambda *_: self._update_revert()
        )
        self.writes_table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.writes_table.customContextMenuRequested.connect(self._writes_menu)

        split = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        split.addWidget(runs_box)
        split.addWidget(writes_box)
        split.setStretchFactor(1, 2)
        self.split = split
        page = QtWidgets.QVBoxLayout(self)
        page.setContentsMargins(12, 8, 12, 8)
        page.addLayout(top)
        page.addLayout(filters)
        page.addWidget(self.range_row)
        page.addWidget(split, 1)
        runs_box.setVisible(self.source.heartbeat)  # a neighbour's folder has no heartbeat
        self._fold_runs(False)
        refresh = QtGui.QShortcut(QtGui.QKeySequence(Qt.Key.Key_F5), self)
        refresh.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        refresh.activated.connect(self.refresh)

    def _date_edit(self, tip: str, days: int) -> QtWidgets.QDateEdit:
        edit = QtWidgets.QDateEdit(QtCore.QDate.currentDate().addDays(days))
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setToolTip(tip)
        edit.dateChanged.connect(lambda _date: self._typing.start())
        return edit

    def _show_range(self) -> None:
        """The two days show only with "Between dates…"."""
        self.range_row.setVisible(self.span_combo.currentData() == "range")

    def _combo(self, tip: str) -> QtWidgets.QComboBox:
        combo = QtWidgets.QComboBox()
        combo.setToolTip(tip)
        combo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        return combo

    @staticmethod
    def _table(source: QtCore.QAbstractItemModel, name: str) -> QtWidgets.QTableView:
        table = QtWidgets.QTableView()
        table.setModel(source)
        table.setAccessibleName(name)
        table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        table.horizontalHeader().setStretchLastSection(True)
        table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)
        return table

    @staticmethod
    def _group(title: str, *widgets: QtWidgets.QWidget) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox(title)
        column = QtWidgets.QVBoxLayout(box)
        for widget in widgets:
            column.addWidget(widget)
        return box

    # -- reading ------------------------------------------------------------------------

    def current_filter(self) -> model.Filter:
        first, last = _day(self.first_date), _day(self.last_date)
        if first > last:  # either order means the days between
            first, last = last, first
        return model.Filter(
            actor=str(self.actor_combo.currentData() or ""),
            family=str(self.family_combo.currentData() or ""),
            entity=self.entity_edit.text().strip(),
            span=str(self.span_combo.currentData() or "all"),
            first=first,
            last=last,
        )

    def show_about(self, words: str) -> None:
        """Every write about `words` (an entity's address: its History), by anyone, of all
        time: the filters set so, and read once."""
        for combo, data in ((self.actor_combo, ""), (self.family_combo, "")):
            with QtCore.QSignalBlocker(combo):
                combo.setCurrentIndex(combo.findData(data))
        with QtCore.QSignalBlocker(self.span_combo):
            self.span_combo.setCurrentIndex(self.span_combo.findData("all"))
        self._show_range()
        with QtCore.QSignalBlocker(self.entity_edit):
            self.entity_edit.setText(words)
        self._typing.stop()
        self.refresh()

    def refresh(self) -> None:
        """Read both logs again on a worker; the tables follow."""
        self._watch_logs()
        self._reads += 1
        number, chosen = self._reads, self.current_filter()
        source, now, agent_ids = self.source, self.source.now(), self.source.agent_ids()

        def failed(exc: BaseException) -> None:
            title, message = session_module.describe(exc)
            self.summary.setText(f"{html.escape(title)}: {html.escape(message)}")

        self.session.run(
            lambda: source.read(chosen, now, agent_ids),
            lambda snapshot: self._show(number, snapshot, agent_ids),
            failed,
        )

    def _changed(self) -> None:
        if self.isVisible():
            self.refresh()
        else:  # read when shown; keep watching (a log that appeared is watched now)
            self._watch_logs()

    def _show(self, number: int, snapshot: Snapshot, agent_ids: tuple[str, ...]) -> None:
        if number != self._reads:
            return
        same_day = self.snapshot is not None and self.snapshot.now.date() == snapshot.now.date()
        self.snapshot = snapshot
        # a live refresh often finds nothing new (bookkeeping lines filtered out): the
        # tables are left alone then, and otherwise keep the row the user selected
        if not (same_day and snapshot.runs == self.runs_model.runs()):
            chosen_run = _selected(self.runs_table, self.runs_model.runs())
            self.runs_model.set_runs(snapshot.runs, snapshot.now)
            _reselect(self.runs_table, snapshot.runs, chosen_run)
        unchanged = snapshot.writes == self.writes_model.lines()
        if not (same_day and unchanged and snapshot.told == self.writes_model.told):
            chosen_line = _selected(self.writes_table, self.writes_model.lines())
            self.writes_model.set_lines(snapshot.writes, snapshot.now, agent_ids, snapshot.told)
            _reselect(self.writes_table, snapshot.writes, chosen_line)
        self._fill_actors(snapshot.actors, agent_ids)
        chosen = self.current_filter()
        when = {"today": "today", "all": "yet"}.get(
            chosen.span, f"in the {model.SPANS[chosen.span].lower()}"
        )
        if chosen.span == "range":
            when = f"between {chosen.first} and {chosen.last}"
        self.runs_empty.setVisible(not snapshot.runs)
        self.runs_empty.setText(
            f"No heartbeat or synthesis has run {when}. The desktop app runs them while it is "
            "open; so do “vault-app serve” and, once, “vault-app heartbeat --once”."
        )
        self._show_run()
        self.writes_empty.setVisible(not snapshot.writes)
        self.writes_empty.setText("No write matches these filters.")
        self.summary.setText(self._summary(snapshot))
        self._update_revert()
        self.refreshed.emit()

    def _fold_runs(self, shown: bool) -> None:
        """Every run in the table (`shown`), or the runs folded into one line: the newest."""
        self.runs_table.setVisible(shown)
        self.runs_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.runs_toggle.setToolTip("Fold the runs into the newest" if shown else "Every run")
        self._show_run()
        folded = self.runs_box.sizeHint().height()
        self.split.setSizes([300, 420] if shown else [folded, 720 - folded])

    def _show_run(self) -> None:
        """The selected run in full under the table; with none selected, the newest failure
        shown (its error would otherwise sit at the table's far right). Folded: the newest
        run, and the newest failure after it when that is another run."""
        index = self.runs_table.currentIndex()
        runs = self.runs_model.runs()
        folded = not self.runs_toggle.isChecked()
        self.runs_toggle.setText(f"All runs ({len(runs)})" if folded else "Fold the runs")
        failure = next((r for r in runs if r.error), None)
        shown: list[tuple[str, runlog.RunRecord]] = []
        if folded and runs:
            shown.append(("Latest run: ", runs[0]))
            if failure is not None and failure is not runs[0]:
                shown.append(("Latest failure: ", failure))
        elif index.isValid() and index.row() < len(runs):
            shown.append(("", runs[index.row()]))
        elif failure is not None:
            shown.append(("Latest failure: ", failure))
        self.run_detail.setVisible(bool(shown))
        self.run_detail.setText("<br>".join(self._run_line(p, r) for p, r in shown))

    def _run_line(self, prefix: str, record: runlog.RunRecord) -> str:
        text = prefix + html.escape(model.run_detail(record, self.runs_model.now))
        if record.error:
            colour = themes.error_colour(self.palette()).name()
            text = f'<span style="color:{colour}"><b>⚠</b> {text}</span>'
        return text

    def _summary(self, snapshot: Snapshot) -> str:
        parts = []
        last = next((r for r in snapshot.runs if r.job == "heartbeat"), None)
        if last is not None:
            parts.append(
                f"Last heartbeat {model.when_text(last.started, snapshot.now)}: "
                f"{model.run_outcome(last)}."
            )
        count = len(snapshot.writes)
        shown = f"the newest {count}" if snapshot.more else str(count)
        parts.append(f"{shown} write{'' if count == 1 else 's'} shown.")
        parts[-1] = parts[-1][0].upper() + parts[-1][1:]
        return html.escape(" ".join(parts))

    def _fill_actors(self, seen: list[str], agent_ids: tuple[str, ...]) -> None:
        """The Who list: the kinds, then every agent and every other actor seen."""
        combo, chosen = self.actor_combo, self.actor_combo.currentData()
        wanted = [(f"Agent {a}", f"agent:{a}") for a in sorted(agent_ids)]
        for actor in seen:
            if model.actor_kind(actor, agent_ids) == "person":
                wanted.append((actor, actor.strip()))
        first = self._fixed_actors
        present = [(combo.itemText(i), combo.itemData(i)) for i in range(first, combo.count())]
        for item in wanted:
            if item not in present:
                present.append(item)
        blocker = QtCore.QSignalBlocker(combo)
        while combo.count() > first:
            combo.removeItem(first)
        for text, data in present:
            combo.addItem(text, data)
        combo.setCurrentIndex(max(0, combo.findData(chosen)))
        del blocker

    def _watch_logs(self) -> None:
        files = self.source.logs()
        wanted = {str(f) for f in files if f.is_file()}
        if len(wanted) < len(files):  # to see a log appear: its folder, or the nearest
            folder = self.source.state()  # one that exists (a neighbour's, before a write)
            while not folder.is_dir() and folder.parent != folder:
                folder = folder.parent
            wanted.add(str(folder))
        watched = set(self._watch.files()) | set(self._watch.directories())
        if watched - wanted:
            self._watch.removePaths(sorted(watched - wanted))
        if wanted - watched:
            self._watch.addPaths(sorted(wanted - watched))

    def hideEvent(self, event: QtGui.QHideEvent) -> None:
        """Leaving the page: a revert's outcome was said; it is not news on return."""
        super().hideEvent(event)
        self._noted = None
        self.revert_note.clear()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    # -- reverting ----------------------------------------------------------------------

    def selected_line(self) -> dict[str, Any] | None:
        index = self.writes_table.currentIndex()
        return self.writes_model.line(index.row()) if index.isValid() else None

    def _agent_ids(self) -> tuple[str, ...]:
        return self.source.agent_ids()

    def _update_revert(self) -> None:
        """Revert is offered for a revertible write; a revert's outcome stays said while
        its write is selected (a refresh re-selects it)."""
        line = self.selected_line()
        told = self.writes_model.told_at(self.writes_table.currentIndex().row())
        able = self.source.revert and line is not None and model.revertible(line, self._agent_ids())
        able = able and not (told is not None and told.reverted)  # taken back already
        self.revert_button.setEnabled(able)
        self.revert_action.setEnabled(able)
        if line is None or line != self._noted:
            self._noted = None
            self.revert_note.clear()

    def revert_selected(self) -> None:
        """Revert the selected write (an undoable supersede back; see the module doc)."""
        line = self.selected_line()
        if line is None or not model.revertible(line, self._agent_ids()):
            return
        if not isinstance(self.source, VaultActivity):  # only a vault's facts revert
            return
        who = feed.who(str(line.get("actor", "")), self._agent_ids())
        address = model.entity_of(line) or ""
        where = feed.title(address)

        def done(result: Any) -> None:
            withdrawn = getattr(result, "withdrawn", False)
            what = "withdrawn, kept in its history" if withdrawn else "back to its version before"
            self._note(line, f"Reverted {who}'s change to {where} ({what}) — Ctrl+Z to undo.")

        def failed(exc: BaseException) -> None:
            if isinstance(exc, revert.ChangedSinceError):  # in words, without the fact's id
                message = (
                    f"the fact in {where} changed since {who} wrote it (changed again, "
                    "archived or reverted); nothing was written"
                )
            else:
                message = session_module.describe(exc)[1]
            self._note(line, f"Not reverted: {message}", error=True)

        commands.revert_write(self.source.session, address, line, on_done=done, on_error=failed)

    def _note(self, line: dict[str, Any], text: str, *, error: bool = False) -> None:
        """Say how a revert went, under the table: an error in the theme's error colour
        (the `inlineError` style: it follows a theme change), with its ⚠."""
        self._noted = line
        self.revert_note.setProperty("inlineError", error)
        self.revert_note.style().unpolish(self.revert_note)
        self.revert_note.style().polish(self.revert_note)
        self.revert_note.setText(("⚠ " if error else "") + text)

    def _writes_menu(self, where: QtCore.QPoint) -> None:
        index = self.writes_table.indexAt(where)
        line = self.writes_model.line(index.row()) if index.isValid() else None
        if line is None:
            return
        self.writes_table.setCurrentIndex(index)
        menu = QtWidgets.QMenu(self)
        opening = menu.addAction("Open the entity", lambda: self._open(index))
        opening.setEnabled(model.entity_of(line) is not None)
        if self.source.revert:
            reverting = menu.addAction("Revert this write", self.revert_selected)
            reverting.setEnabled(model.revertible(line, self._agent_ids()))
        menu.popup(self.writes_table.viewport().mapToGlobal(where))

    # -- opening ------------------------------------------------------------------------

    def _open(self, index: QtCore.QModelIndex) -> None:
        told = self.writes_model.told_at(index.row()) if index.isValid() else None
        if told is not None and told.review_id is not None:
            self.openReview.emit(told.review_id)  # a held-back write: its review item
            return
        line = self.writes_model.line(index.row()) if index.isValid() else None
        address = model.entity_of(line) if line is not None else None
        if address is None:
            return
        fact_id = line.get("factId") if line is not None else None
        if isinstance(fact_id, str) and fact_id:
            self.openFact.emit(address, fact_id)
        else:
            self.openEntity.emit(address)


def _day(edit: QtWidgets.QDateEdit) -> dt.date:
    date = edit.date()
    return dt.date(date.year(), date.month(), date.day())


def _selected(table: QtWidgets.QTableView, rows: list[Any]) -> Any:
    index = table.currentIndex()
    return rows[index.row()] if index.isValid() and index.row() < len(rows) else None


def _reselect(table: QtWidgets.QTableView, rows: list[Any], chosen: Any) -> None:
    """Select `chosen` again after the rows were replaced, if it is still among them."""
    if chosen is not None and chosen in rows:
        table.selectRow(rows.index(chosen))
