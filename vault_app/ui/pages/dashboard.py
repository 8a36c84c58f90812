"""The decay dashboard: facts per tier, facts going cold this week, synthesis with a preview.

Design
------
The figures come from the core (`core.outlook`); this page lays them out, each part fed
off the GUI thread:

* The chart (`tier_chart.TierChart`): one horizontal stacked bar per scope (Global, then
  each agent). Its rows (`outlook.tier_rows`) are sums over the session's last
  `VaultScan`, so it refreshes on `Session.scanned` at no cost. "Compare shares" scales
  every bar to 100 %.
* "Going cold within 7 days" lists the active facts that are Hot or Warm now and Cold a
  week from now (`outlook.going_cold`, run on a worker with `Session.run`: 4 s of a
  worker on the 200,000-fact benchmark vault, 12,000 rows, and about 45 ms on the GUI
  thread to show them). A newer run cancels an older one; while the dashboard is hidden
  the list is only marked stale, and it is recomputed when shown. The table
  (`GoingColdModel`) sizes its columns from a sample of rows, never by
  measuring all of them. Double-click (or Enter) emits `openFact(address, fact_id)`.
* "Names waiting…" (with their count) opens `waiting_names.WaitingNamesDialog`: the names
  the heartbeat met but made no entity of yet, with the facts waiting for them; Keep now
  asks for one (`namesKept`, on which the window runs a heartbeat).
* "Synthesize now…" runs the core's dry run (`outlook.preview_synthesis`, batch by batch
  so that it reports progress and can be cancelled) and shows a
  `synthesis_preview.SynthesisPreviewDialog`: the summaries that would change, each with a
  coloured unified diff, ticked by default. Nothing is written before Apply; Apply pushes
  `commands.synthesize(session, addresses)` (undoable) for the ticked ones.

The next scheduled synthesis (`[synthesis]` of the vault's config) is shown as text, and
under it the heartbeat (`heartbeat_status`, read on a worker): its last run (when, what it
wrote, or its error), when the next one is due (`heartbeat.schedule.next_times` over the
saved schedule and `[heartbeat]`), and who runs the schedule now (the lease's holder:
this app, `vault-app serve`, a cron `heartbeat --once`, or nobody).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import config, errors, feed, outlook, vault
from vault_app.heartbeat import lease, mentions, runlog, schedule
from vault_app.ui import commands, themes
from vault_app.ui.dialogs import synthesis_preview, waiting_names
from vault_app.ui.models import activity as activity_model
from vault_app.ui.models import tier_badge
from vault_app.ui.session import Session, plural, unreadable
from vault_app.ui.widgets import tier_chart
from vault_app.ui.widgets.going_cold import GoingColdModel, format_day

Qt = QtCore.Qt


@dataclasses.dataclass(frozen=True)
class HeartbeatStatus:
    """What the dashboard says about the heartbeat, read off the GUI thread."""

    enabled: bool
    interval_minutes: int
    last: runlog.RunRecord | None  # the newest heartbeat run
    next_heartbeat: dt.datetime | None  # None when disabled or the schedule is unreadable
    next_synthesis: dt.datetime | None
    holder: dict[str, Any] | None  # lease.json of the runner holding the lease
    problem: str | None = None  # the schedule or lease could not be read
    waiting: int = 0  # names met but not made entities yet, with facts waiting


def heartbeat_status(root: Path, settings: config.VaultConfig, now: dt.datetime) -> HeartbeatStatus:
    """The heartbeat's last run, next due time and runner, from the files a runner keeps."""
    beat = settings.heartbeat
    runs = runlog.read(root, limit=1, job="heartbeat")
    problem, holder, waiting = None, None, 0
    times: tuple[dt.datetime | None, dt.datetime | None] = (None, None)
    try:
        times = schedule.next_times(settings, schedule.ScheduleState.load(root), now)
        holder = lease.holder(root)
        waiting = len(mentions.waiting_names(root))
    except (errors.VaultError, OSError) as exc:
        problem = str(exc)
    return HeartbeatStatus(
        beat.enabled,
        beat.interval_minutes,
        runs[0] if runs else None,
        *times,
        holder,
        problem,
        waiting,
    )


def heartbeat_html(status: HeartbeatStatus, now: dt.datetime, palette: QtGui.QPalette) -> str:
    """The heartbeat in two sentences: the last run, then the next one and who runs it."""
    parts = []
    last = status.last
    if last is None:
        parts.append("The heartbeat has not run yet.")
    else:
        when = activity_model.when_text(last.started, now, seconds=False)
        outcome = html.escape(activity_model.run_outcome(last))
        if last.error:
            colour = themes.error_colour(palette).name()
            outcome = f'<span style="color:{colour}"><b>⚠</b> {outcome}</span>'
        parts.append(f"Last heartbeat {when} ({html.escape(last.runner)}): {outcome}.")
    every = f"every {status.interval_minutes} minute{'s' if status.interval_minutes != 1 else ''}"
    if not status.enabled:
        parts.append("The heartbeat is off (<i>[heartbeat] enabled</i> in the vault's config).")
    elif status.next_heartbeat is not None:
        due = status.next_heartbeat
        soon = "now" if due <= now else activity_model.when_text(due, now, seconds=False)
        parts.append(f"Next due {soon} ({every}), {_runner_text(status.holder)}.")
    if status.problem:
        parts.append(f"The schedule cannot be read: {html.escape(status.problem)}")
    return " ".join(parts)


def _runner_text(holder: dict[str, Any] | None) -> str:
    if holder is None:
        return "but nothing runs the schedule now: keep the app open or start “vault-app serve”"
    if holder.get("holder") == "app" and holder.get("pid") == os.getpid():
        return "run by this app"
    return f"run by {html.escape(lease.describe(holder))}"


class _Progress(QtCore.QObject):
    """Carries a worker's progress to the GUI thread (queued)."""

    changed = QtCore.Signal(int, int)


class DecayDashboard(QtWidgets.QWidget):
    """Tier chart, the facts going cold this week, and synthesis with a diff preview."""

    openFact = QtCore.Signal(str, str)  # entity address, fact id
    namesKept = QtCore.Signal(str)  # a waiting name asked to be kept: run a heartbeat

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.preview_dialog: synthesis_preview.SynthesisPreviewDialog | None = None
        self.waiting_dialog: waiting_names.WaitingNamesDialog | None = None
        self.cold_report: outlook.ColdReport | None = None  # the list shown, once computed
        self._cold_cancel: threading.Event | None = None
        self._cold_stale = True
        self._synthesis_cancel: threading.Event | None = None
        self._progress = _Progress(self)
        self._progress.changed.connect(self._synthesis_progress)
        self._build()
        session.scanned.connect(self._on_scanned)
        if session.scan is not None:
            self._on_scanned(session.scan)

    # -- building -------------------------------------------------------------------------

    def _build(self) -> None:
        title = QtWidgets.QLabel("Decay dashboard")  # as its toolbar button and Go menu say
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)
        self.schedule = QtWidgets.QLabel()
        self.schedule.setProperty("notice", True)
        self.schedule.setWordWrap(True)
        self.heartbeat = QtWidgets.QLabel()
        self.heartbeat.setObjectName("heartbeatStatus")
        self.heartbeat.setWordWrap(True)
        self.heartbeat.setTextFormat(Qt.TextFormat.RichText)
        self.heartbeat_status: HeartbeatStatus | None = None  # as last read

        self.refresh_button = QtWidgets.QPushButton("&Refresh")
        self.refresh_button.setToolTip("Count the tiers again and look for facts going cold (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        refresh = QtGui.QShortcut(QtGui.QKeySequence(Qt.Key.Key_F5), self)
        refresh.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        refresh.activated.connect(self.refresh)
        self.synthesize_button = QtWidgets.QPushButton("&Synthesize now…")
        self.synthesize_button.setToolTip(
            "Rewrite every summary from its Hot and Warm facts — you see the changes "
            "first, nothing is written before you apply them"
        )
        self.synthesize_button.clicked.connect(self.synthesize_now)
        self.waiting_button = QtWidgets.QPushButton("Names &waiting…")
        self.waiting_button.setToolTip(
            "The names the heartbeat met but made no entity of yet, with the facts that "
            "wait for them; keep one now"
        )
        self.waiting_button.clicked.connect(self.show_waiting)

        header = QtWidgets.QGridLayout()
        header.addWidget(title, 0, 0)
        header.addWidget(self.refresh_button, 0, 2)
        header.addWidget(self.synthesize_button, 0, 3)
        header.addWidget(self.schedule, 1, 0, 1, 4)
        header.addWidget(self.heartbeat, 2, 0, 1, 3)  # the heartbeat, and what it left waiting
        header.addWidget(self.waiting_button, 2, 3, Qt.AlignmentFlag.AlignTop)
        header.setColumnStretch(1, 1)

        self.chart = tier_chart.TierChart()
        self.shares = QtWidgets.QCheckBox("Co&mpare shares (each bar 100 %)")
        self.shares.setToolTip("Scale every bar to its own total, to compare the mix of tiers")
        self.shares.toggled.connect(self.chart.set_shares)
        chart_box = QtWidgets.QGroupBox("Facts per tier")
        chart_layout = QtWidgets.QVBoxLayout(chart_box)
        chart_top = QtWidgets.QHBoxLayout()
        explain = QtWidgets.QLabel(
            "Hot and Warm facts make up the summaries; Cold ones stay searchable. "
            "Point at a bar for its numbers."
        )
        explain.setProperty("notice", True)
        explain.setWordWrap(True)
        chart_top.addWidget(explain, 1)
        chart_top.addWidget(self.shares)
        chart_layout.addLayout(chart_top)
        chart_layout.addWidget(self.chart)

        self.cold_model = GoingColdModel(self)
        self.cold_table = QtWidgets.QTableView()
        self.cold_table.setModel(self.cold_model)
        self.cold_table.setAccessibleName("Facts going cold within 7 days")
        self.cold_table.setSortingEnabled(True)
        self.cold_table.sortByColumn(GoingColdModel.COLD_ON, Qt.SortOrder.AscendingOrder)
        self.cold_table.setSelectionBehavior(
            QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows
        )
        self.cold_table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.cold_table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.cold_table.setAlternatingRowColors(True)
        self.cold_table.setWordWrap(False)
        self.cold_table.verticalHeader().hide()
        self.cold_table.setItemDelegateForColumn(
            GoingColdModel.TIER, tier_badge.TierBadgeDelegate(self.cold_table)
        )
        head = self.cold_table.horizontalHeader()
        head.setTextElideMode(Qt.TextElideMode.ElideRight)
        head.setSectionResizeMode(GoingColdModel.FACT, QtWidgets.QHeaderView.ResizeMode.Stretch)
        head.setStretchLastSection(False)
        self.cold_table.activated.connect(self._open_selected)
        self.cold_status = QtWidgets.QLabel("Looking for facts that go cold…")
        self.cold_status.setWordWrap(True)
        cold_box = QtWidgets.QGroupBox(f"Going cold within {outlook.GOING_COLD_DAYS} days")
        cold_layout = QtWidgets.QVBoxLayout(cold_box)
        cold_layout.addWidget(self.cold_status)
        cold_layout.addWidget(self.cold_table)

        self.synthesis_bar = QtWidgets.QProgressBar()
        self.synthesis_bar.setFormat("Preparing the preview: %v of %m entities")
        self.synthesis_bar.setAccessibleName("Synthesis preview progress")
        self.synthesis_cancel = QtWidgets.QPushButton("Cancel")
        self.synthesis_cancel.setToolTip("Stop preparing the preview; nothing is written")
        self.synthesis_cancel.clicked.connect(self.cancel_synthesis)
        self.synthesis_status = QtWidgets.QLabel()
        self.synthesis_status.setWordWrap(True)
        self.synthesis_status.setProperty("notice", True)
        progress_row = QtWidgets.QHBoxLayout()
        progress_row.addWidget(self.synthesis_bar, 1)
        progress_row.addWidget(self.synthesis_cancel)
        self._show_synthesis_progress(False)

        chart_box.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum
        )

        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(chart_box)
        layout.addWidget(cold_box, 1)
        layout.addLayout(progress_row)
        layout.addWidget(self.synthesis_status)
        self.synthesis_status.hide()

    # -- refreshing -----------------------------------------------------------------------

    def show_waiting(self) -> None:
        """The names waiting for their entity (`waiting_names.WaitingNamesDialog`)."""
        dialog = self.waiting_dialog
        if dialog is None:
            dialog = self.waiting_dialog = waiting_names.WaitingNamesDialog(self.session, self)
            dialog.kept.connect(self.namesKept)
        else:
            dialog.reload()
        dialog.show()
        dialog.activateWindow()

    def refresh(self) -> None:
        """Scan the vault again; the chart and the list follow from `scanned`."""
        self._cold_stale = True
        self.session.rescan()

    def update_schedule(self) -> None:
        """Say when the next weekly synthesis is (call it after the settings changed), and
        read the heartbeat's state again."""
        target = self.session.vault
        when = outlook.describe_next_synthesis(target.config.synthesis, target.now())
        self.schedule.setText(f"{when}, set in Settings.")
        self.update_heartbeat()

    def update_heartbeat(self) -> None:
        """Read the heartbeat's last run, schedule and runner on a worker, then say them
        (while the dashboard is shown: it reads them again when shown)."""
        if not self.isVisible():
            return
        target = self.session.vault
        root, settings, now = target.root, target.config, target.now()

        def show(status: HeartbeatStatus) -> None:
            self.heartbeat_status = status
            self.heartbeat.setText(heartbeat_html(status, now, self.palette()))
            self.waiting_button.setText(
                f"Names &waiting ({status.waiting:,})…" if status.waiting else "Names &waiting…"
            )
            if self.waiting_dialog is not None and self.waiting_dialog.isVisible():
                self.waiting_dialog.reload()
            due = status.next_synthesis
            if due is not None and due <= now:
                synthesis = outlook.describe_next_synthesis(settings.synthesis, now)
                self.schedule.setText(
                    f"A catch-up synthesis is due now. {synthesis}, set in Settings."
                )

        self.session.run(lambda: heartbeat_status(root, settings, now), show)

    def _on_scanned(self, scan: vault.VaultScan) -> None:
        self.chart.set_rows(outlook.tier_rows(scan))
        self.update_schedule()
        self._cold_stale = True
        if self.isVisible():
            self.refresh_going_cold()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.update_schedule()
        if self._cold_stale and self.session.scan is not None:
            self.refresh_going_cold()

    def refresh_going_cold(self) -> None:
        """Recompute the going-cold list on a worker (an older run is cancelled)."""
        if self._cold_cancel is not None:
            self._cold_cancel.set()
        cancel = self._cold_cancel = threading.Event()
        self._cold_stale = False
        self.cold_status.setText("Looking for facts that go cold…")
        target = self.session.vault

        def done(report: outlook.ColdReport | None) -> None:
            if report is not None and not cancel.is_set():
                self._show_going_cold(report)

        self.session.run(lambda: outlook.going_cold(target, cancelled=cancel.is_set), done)

    def _show_going_cold(self, report: outlook.ColdReport) -> None:
        self.cold_report = report
        self.cold_model.set_facts(report.facts)
        self._fit_columns(report.facts[:200])
        count = len(report.facts)
        until = format_day(report.until.astimezone().date())
        if count:
            text = (
                f"{count:,} active fact{'s' if count != 1 else ''} turn cold by {until} unless "
                "accessed. Double-click one to open it."
            )
        else:
            text = f"No active fact turns cold by {until}."
        if report.unreadable:
            what = plural(report.unreadable, "unreadable file or fact", "unreadable files or facts")
            text += f" ({what} left out.)"
        self.cold_status.setText(text)

    def _fit_columns(self, sample: Sequence[outlook.ColdFact]) -> None:
        """Size the columns from a sample: ResizeToContents would measure 10,000 rows."""
        metrics = self.cold_table.fontMetrics()
        head = self.cold_table.horizontalHeader()
        pad = 24
        widths = {
            GoingColdModel.ENTITY: max(  # titles: the fact's text leads and takes the room
                (metrics.horizontalAdvance(feed.title(f.address)) for f in sample), default=120
            ),
            GoingColdModel.TIER: metrics.horizontalAdvance("Warm") + 40,
            GoingColdModel.DAYS: 0,
            GoingColdModel.COLD_ON: metrics.horizontalAdvance(format_day(dt.date(2026, 9, 30))),
        }
        for column, width in widths.items():
            title = metrics.horizontalAdvance(GoingColdModel.HEADERS[column]) + pad
            head.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.Interactive)
            head.resizeSection(column, min(max(width + pad, title), 240))

    def _open_selected(self, index: QtCore.QModelIndex) -> None:
        if index.isValid():
            item = self.cold_model.fact_at(index.row())
            self.openFact.emit(item.address, item.fact_id)

    # -- synthesis ------------------------------------------------------------------------

    def synthesize_now(self) -> None:
        """Prepare a dry run off-thread, then show what would change."""
        if self._synthesis_cancel is not None:
            return
        cancel = self._synthesis_cancel = threading.Event()
        self.synthesize_button.setEnabled(False)
        self.synthesis_bar.setRange(0, 0)
        self._show_synthesis_progress(True)
        self.synthesis_status.hide()
        target = self.session.vault
        progress = self._progress.changed.emit

        def work() -> outlook.SynthesisPreview | None:
            return outlook.preview_synthesis(target, progress=progress, cancelled=cancel.is_set)

        self.session.run(work, self._preview_ready, self._preview_failed)

    def cancel_synthesis(self) -> None:
        if self._synthesis_cancel is not None:
            self._synthesis_cancel.set()
            self.synthesis_bar.setFormat("Cancelling…")

    def _synthesis_progress(self, done: int, total: int) -> None:
        if self._synthesis_cancel is None or self._synthesis_cancel.is_set():
            return
        self.synthesis_bar.setRange(0, total)
        self.synthesis_bar.setValue(done)

    def _show_synthesis_progress(self, shown: bool) -> None:
        self.synthesis_bar.setVisible(shown)
        self.synthesis_cancel.setVisible(shown)
        if shown:
            self.synthesis_bar.setFormat("Preparing the preview: %v of %m entities")

    def _synthesis_finished(self) -> None:
        self._synthesis_cancel = None
        self.synthesize_button.setEnabled(True)
        self._show_synthesis_progress(False)

    def _say(self, text: str) -> None:
        self.synthesis_status.setText(text)
        self.synthesis_status.show()

    def _preview_failed(self, exc: BaseException) -> None:
        self._synthesis_finished()
        self._say("The preview could not be prepared; nothing was written.")
        self.session.report(exc)

    def _preview_ready(self, preview: outlook.SynthesisPreview | None) -> None:
        self._synthesis_finished()
        if preview is None:
            self._say("Synthesis cancelled; nothing was written.")
            return
        if not preview.changes:
            problems = f" ({unreadable(len(preview.problems))}.)"
            self._say(
                f"All {preview.checked} summaries are up to date: nothing to write."
                + (problems if preview.problems else "")
            )
            return
        dialog = self.preview_dialog = synthesis_preview.SynthesisPreviewDialog(preview, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._apply(dialog.selected_addresses()))
        dialog.finished.connect(self._preview_closed)
        dialog.open()

    def _preview_closed(self) -> None:
        self.preview_dialog = None

    def _apply(self, addresses: list[str]) -> None:
        if not addresses:
            return
        self._say(f"Rewriting {plural(len(addresses), 'summary', 'summaries')}…")

        def done(result: Any) -> None:
            results, problems = result
            changed = sum(1 for r in results if r.changed)
            text = f"Rewrote {changed} summar{'ies' if changed != 1 else 'y'}; Ctrl+Z undoes it."
            if problems:
                left = "it is" if len(problems) == 1 else "they are"
                text += f" {unreadable(len(problems))} and left as {left}."
            self._say(text)

        commands.synthesize(self.session, addresses, on_done=done)
